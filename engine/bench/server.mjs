// The benchmark's static server (node:http). It sends
//   Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp
// so the page is crossOriginIsolated (SharedArrayBuffer, which
// onnxruntime-web needs for more than one thread and tfjs-backend-wasm for its
// threaded build), and serves:
//   /            the site (build/bench-site by default; our engine in /js/)
//   /bench/      engine/bench/*.html|*.mjs and /bench/ceiling.wasm (the WASM ceiling kernel)
//   /nm/         only the dist/ folders of the peers in node_modules
// with .mjs/.js as text/javascript and .wasm as application/wasm.
// Used by bench.mjs; can also run alone for a look in a browser:
//   node engine/bench/server.mjs [--port 8123] [--site build/bench-site] [--ceiling FILE]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

const MIME = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8', '.ico': 'image/x-icon',
};
const NM_ALLOWED = ['@tensorflow/tfjs-core/dist/', '@tensorflow/tfjs-backend-wasm/dist/', 'onnxruntime-web/dist/'];

function inside(base, rel) {
  const p = path.resolve(base, '.' + path.sep + rel);
  return p === base || p.startsWith(base + path.sep) ? p : null;
}

export function startBenchServer({
  site = path.join(ROOT, 'build', 'bench-site'),
  ceiling = path.join(ROOT, 'build', 'bench-wasm', 'attn_wasm_ceiling.wasm'),
  port = 0, host = '127.0.0.1',
} = {}) {
  const siteDir = path.resolve(site);
  const nmDir = path.join(ROOT, 'node_modules');
  const server = http.createServer((req, res) => {
    let file = null;
    let url;
    try { url = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { url = '/'; }
    if (url === '/bench/ceiling.wasm') file = ceiling;
    else if (url.startsWith('/bench/')) {
      const rel = url.slice('/bench/'.length);
      if (/^[\w.-]+\.(html|mjs)$/.test(rel)) file = path.join(HERE, rel);
    } else if (url.startsWith('/nm/')) {
      const rel = url.slice('/nm/'.length);
      if (NM_ALLOWED.some((p) => rel.startsWith(p))) file = inside(nmDir, rel);
    } else {
      file = inside(siteDir, url.endsWith('/') ? url + 'index.html' : url);
    }
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    let stat = null;
    try { if (file) stat = fs.statSync(file); } catch { stat = null; }
    if (!stat || !stat.isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
      res.end(`not found: ${url}\n`);
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Content-Length': stat.size });
    if (req.method === 'HEAD') { res.end(); return; }
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolve({ server, url: `http://${host}:${p}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }) });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : fallback; };
  const { url } = await startBenchServer({ port: Number(arg('--port', 8123)), site: arg('--site', undefined), ceiling: arg('--ceiling', undefined) });
  console.log(`bench server: ${url}/bench/bench.html (Ctrl-C to stop)`);
}
