// Static file server for build/site on 127.0.0.1 (port $PORT, default 8080),
// with the MIME types the site needs and the site's CSP as a header.
// SITE_DIR=/some/dir serves another copy of the site (tests/browser/offline.test.mjs).
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSP } from './site-policy.mjs';

const root = process.env.SITE_DIR ? resolve(process.env.SITE_DIR) + sep : fileURLToPath(new URL('../build/site/', import.meta.url));
const port = Number(process.env.PORT ?? 8080);
const types = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8',
};
const stat = (path) => { try { return statSync(path); } catch { return null; } };

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
  res.writeHead(200, { ...headers, 'Content-Type': types[extname(path)] ?? 'application/octet-stream', 'Content-Length': info.size });
  if (req.method === 'HEAD') res.end();
  else createReadStream(path).pipe(res);
}).listen(port, '127.0.0.1', () => console.log(`Serving build/site at http://127.0.0.1:${port}/ (Ctrl+C to stop)`));
