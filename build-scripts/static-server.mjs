// The one static file server of the project (node:http), used by the dev server
// (serve.mjs), the tests (through serve.mjs) and the benchmark (engine/bench/server.mjs).
//
//   const s = await startStaticServer({ root: 'build/site', port: 0 });   // → {url, port, close()}
//   options: root (folder served at /), port (0 = a free one), host (127.0.0.1),
//            headers (sent with every response), route(pathname) → a file path for
//            paths outside the site (null: not found; undefined: look in root).
//   const child = await spawnServe({ site });   // serve.mjs in a child process → {url, port, stop()}
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
import { spawn } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync, constants as zc } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.md': 'text/markdown; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
// Worth compressing (fonts and images are compressed already).
const COMPRESSIBLE = new Set(['.html', '.mjs', '.js', '.wasm', '.json', '.css', '.svg', '.txt', '.csv', '.md', '.ico', '.ttf', '.map']);
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

// The path a folder is redirected to, ending in a slash: the folder as the server found it,
// never the raw request path, which can start with '//' once its dots are resolved
// (`/.//evil.example/…`) and would then send the browser to another host. A folder of the
// root is spelled from its place under the root; one that route() gave keeps the request's
// path with its leading slashes made one.
function folderPath(found, base, pathname) {
  if (found !== null) {
    const rel = found.slice(base.length).split(sep).filter(Boolean);
    return ['', ...rel.map(encodeURIComponent), ''].join('/');
  }
  return '/' + pathname.replace(/^[/\\]+/, '') + '/';
}

export function startStaticServer({ root, port = 0, host = '127.0.0.1', headers: always = {}, route = () => undefined }) {
  const base = resolve(root) + sep;
  const server = createServer((req, res) => {
    const headers = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache', ...always };
    const send = (status, text, extra = {}) =>
      res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', ...extra }).end(text);
    const { pathname, search } = new URL(req.url, 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    let decoded;
    try { decoded = decodeURIComponent(pathname); } catch { return send(400, 'bad request\n'); }
    let path = route(decoded);
    if (path === null) return send(404, 'not found\n');
    const inRoot = path === undefined;
    if (inRoot) {
      path = normalize(join(base, decoded));
      if (!(path + sep).startsWith(base)) return send(404, 'not found\n');  // nothing outside the root
    }
    let info = stat(path);
    if (info?.isDirectory()) {
      if (!pathname.endsWith('/')) return send(301, '', { Location: folderPath(inRoot ? path : null, base, pathname) + search });  // relative links
      path = join(path, 'index.html');
      info = stat(path);
    }
    if (!info?.isFile()) return send(404, 'not found\n');
    const ext = extname(path);
    const type = TYPES[ext] ?? 'application/octet-stream';
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
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      done({ server, port: p, url: `http://${host}:${p}`,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }) });
    });
  });
}

/** build-scripts/serve.mjs (or `script`, a server with the same interface) in a child process
 *  on a free port, serving `site` (SITE_DIR). */
export async function spawnServe({ site, env = {}, script = fileURLToPath(new URL('./serve.mjs', import.meta.url)) } = {}) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, PORT: '0', ...(site ? { SITE_DIR: site } : {}) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /Serving .* at http:\/\/127\.0\.0\.1:(\d+)/.exec(out); if (m) done(Number(m[1])); });
    child.on('exit', (c) => fail(new Error(`serve.mjs exited (${c})`)));
  });
  return { child, port, url: `http://127.0.0.1:${port}`, stop: () => { if (child.exitCode === null) child.kill('SIGTERM'); } };
}
