// The benchmark's static server (build-scripts/static-server.mjs, the project's one server). It sends
//   Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp
// so the page is crossOriginIsolated (SharedArrayBuffer, which
// onnxruntime-web needs for more than one thread and tfjs-backend-wasm for its
// threaded build), and serves:
//   /            the site (build/bench-site by default; our engine in /js/)
//   /bench/      engine/bench/*.html|*.mjs and /bench/ceiling.wasm (the WASM ceiling kernel)
//   /nm/         only the dist/ folders of the peers in node_modules
// Used by bench.mjs; can also run alone for a look in a browser:
//   node engine/bench/server.mjs [--port 8123] [--site build/bench-site] [--ceiling FILE]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStaticServer } from '../../build-scripts/static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const NM_ALLOWED = ['@tensorflow/tfjs/dist/', '@tensorflow/tfjs-core/dist/', '@tensorflow/tfjs-backend-wasm/dist/', 'onnxruntime-web/dist/'];

function inside(base, rel) {
  const p = path.resolve(base, '.' + path.sep + rel);
  return p === base || p.startsWith(base + path.sep) ? p : null;
}

// The project's static server (build-scripts/static-server.mjs) with the bench's headers and routes.
export function startBenchServer({
  site = path.join(ROOT, 'build', 'bench-site'),
  ceiling = path.join(ROOT, 'build', 'bench-wasm', 'attn_wasm_ceiling.wasm'),
  port = 0, host = '127.0.0.1',
} = {}) {
  const nmDir = path.join(ROOT, 'node_modules');
  const route = (url) => {
    if (url === '/bench/ceiling.wasm') return ceiling;
    if (url.startsWith('/bench/')) {
      const rel = url.slice('/bench/'.length);
      return /^[\w.-]+\.(html|mjs)$/.test(rel) ? path.join(HERE, rel) : null;
    }
    if (url.startsWith('/nm/')) {
      const rel = url.slice('/nm/'.length);
      return NM_ALLOWED.some((p) => rel.startsWith(p)) ? inside(nmDir, rel) : null;
    }
    return undefined;   // the site
  };
  return startStaticServer({
    root: site, port, host, route,
    headers: {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    },
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : fallback; };
  const { url } = await startBenchServer({ port: Number(arg('--port', 8123)), site: arg('--site', undefined), ceiling: arg('--ceiling', undefined) });
  console.log(`bench server: ${url}/bench/bench.html (Ctrl-C to stop)`);
}
