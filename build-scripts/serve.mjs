// Static file server for build/site on 127.0.0.1 (port $PORT, default 8080),
// with the MIME types the site needs and the site's CSP as a header.
// SITE_DIR=/some/dir serves another copy of the site (tests/browser/offline.test.mjs).
//
// Text-like files (HTML, JS, JSON, CSS, wasm, SVG…) are sent compressed when the browser
// accepts it (brotli, else gzip; Chromium offers brotli on https only, so gzip on
// http://127.0.0.1), with `Vary: Accept-Encoding`. Every response carries an ETag (a hash
// of the bytes, one per encoding) and `Cache-Control: no-cache`: the browser keeps what it
// downloaded and asks again each time, and an unchanged file costs a bodiless 304. So a
// reload, and the service worker's precache of files the page has just loaded, download
// nothing twice, while an edited or rebuilt file is seen at once (web/README.md, "Load budget").
// Compressed copies are kept in memory, keyed by path, size and mtime.
import { createServer } from 'node:http';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync, constants as zc } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSP } from './site-policy.mjs';

const root = process.env.SITE_DIR ? resolve(process.env.SITE_DIR) + sep : fileURLToPath(new URL('../build/site/', import.meta.url));
const port = Number(process.env.PORT ?? 8080);
const types = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.md': 'text/markdown; charset=utf-8',
};
// Worth compressing (fonts and images are compressed already).
const COMPRESSIBLE = new Set(['.html', '.mjs', '.js', '.wasm', '.json', '.css', '.svg', '.txt', '.csv', '.md', '.ico', '.ttf']);
const MAX_CACHED = 16 * 1024 * 1024;   // bigger files are streamed as they are
const stat = (path) => { try { return statSync(path); } catch { return null; } };

// path → { key, raw, hash, gzip?, br? }
const cache = new Map();
function entry(path, info) {
  const key = `${info.size}:${info.mtimeMs}:${info.ino}`;
  let e = cache.get(path);
  if (!e || e.key !== key) {
    const raw = readFileSync(path);
    e = { key, raw, hash: createHash('sha256').update(raw).digest('base64url').slice(0, 22) };
    cache.set(path, e);
  }
  return e;
}
function encoded(e, enc) {
  if (!(enc in e)) {
    const buf = enc === 'br'
      ? brotliCompressSync(e.raw, { params: { [zc.BROTLI_PARAM_QUALITY]: 9, [zc.BROTLI_PARAM_SIZE_HINT]: e.raw.length } })
      : gzipSync(e.raw, { level: 9 });
    e[enc] = buf.length < e.raw.length ? buf : null;   // no gain: send it as it is
  }
  return e[enc];
}
// The encodings the request accepts (q > 0), in our order of preference.
function accepted(header = '') {
  const q = {};
  for (const part of String(header).toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q[name] = qp ? Number(qp.slice(2)) : 1;
  }
  const ok = (n) => (n in q ? q[n] > 0 : '*' in q && q['*'] > 0);
  return ['br', 'gzip'].filter(ok);
}
// If-None-Match: does any listed tag (weak comparison) equal ours?
const matches = (inm, etag) => !!inm && (inm.trim() === '*' ||
  inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));

createServer((req, res) => {
  const headers = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };
  const send = (status, text, extra = {}) =>
    res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', ...extra }).end(text);
  const { pathname, search } = new URL(req.url, 'http://localhost');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
  let path;
  try { path = normalize(join(root, decodeURIComponent(pathname))); } catch { return send(400, 'bad request\n'); }
  if (!(path + '/').startsWith(root)) return send(404, 'not found\n');  // nothing outside build/site
  let info = stat(path);
  if (info?.isDirectory()) {
    if (!pathname.endsWith('/')) return send(301, '', { Location: `${pathname}/${search}` });  // relative links
    path = join(path, 'index.html');
    info = stat(path);
  }
  if (!info?.isFile()) return send(404, 'not found\n');
  const ext = extname(path);
  const type = types[ext] ?? 'application/octet-stream';
  if (info.size > MAX_CACHED) {
    res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': info.size });
    if (req.method === 'HEAD') return res.end();
    return createReadStream(path).pipe(res);
  }
  let e;
  try { e = entry(path, info); } catch { return send(404, 'not found\n'); }
  let body = e.raw, enc = null;
  if (COMPRESSIBLE.has(ext)) {
    headers.Vary = 'Accept-Encoding';
    for (const name of accepted(req.headers['accept-encoding'])) {
      const b = encoded(e, name);
      if (b) { body = b; enc = name; break; }
    }
  }
  const etag = `"${e.hash}${enc ? `-${enc}` : ''}"`;
  headers.ETag = etag;
  if (matches(req.headers['if-none-match'], etag)) return res.writeHead(304, headers).end();
  res.writeHead(200, { ...headers, 'Content-Type': type, 'Content-Length': body.length, ...(enc ? { 'Content-Encoding': enc } : {}) });
  res.end(req.method === 'HEAD' ? undefined : body);
}).listen(port, '127.0.0.1', () => console.log(`Serving build/site at http://127.0.0.1:${port}/ (Ctrl+C to stop)`));
