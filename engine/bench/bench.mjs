// WebAssembly benchmark of the attention kernels under Node, through the same
// engine.mjs the site ships (build/site/js/engine.mjs): GFLOP/s of the
// materialized, causal (materialized kernel) and chunked variants against the
// scalar reference, L = S = n, d = 64; FLOPs 4*L*S*d, half when causal.
// Time: CPU time of the Node process (process.cpuUsage), best of repeated
// runs, so that waiting for a core on a shared machine is not counted.
// Memory: the engine's scratchBytes and the wasm heap size (it only grows, so
// it is the peak so far). Times include copying q, k, v into wasm memory and out back.
// With --native FILE (JSON from attn_bench --json) it also prints native and
// wasm side by side. Not a test.
// Usage: node engine/bench/bench.mjs [--sizes 128,512] [--min-time 0.3] [--native FILE] [--engine PATH]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '128,512,2048,4096' },
    d: { type: 'string', default: '64' },
    'min-time': { type: 'string', default: '0.3' },
    native: { type: 'string' },
    engine: { type: 'string', default: new URL('../../build/site/js/engine.mjs', import.meta.url).pathname },
  },
});
const sizes = args.sizes.split(',').map(Number);
const d = Number(args.d);
const minTime = Number(args['min-time']);
const MiB = 1024 * 1024;

const { loadEngine } = await import(pathToFileURL(args.engine).href);
const engine = await loadEngine();

function measure(input, options) {
  let best = Infinity, total = 0, runs = 0, result;
  while (runs === 0 || total < minTime) {
    const start = process.cpuUsage();
    result = engine.attention({ ...input, ...options });
    const used = process.cpuUsage(start);
    const s = (used.user + used.system) / 1e6;
    best = Math.min(best, s);
    total += s;
    runs++;
  }
  return { seconds: best, scratchBytes: result.scratchBytes, out: result.out.data, heapBytes: engine.info().heapBytes };
}

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const f = (x, w, p = 2) => x.toFixed(p).padStart(w);

const kernels = [
  { name: 'materialized', variant: 'materialized', causal: false },
  { name: 'causal', variant: 'materialized', causal: true },
  { name: 'chunked', variant: 'chunked', causal: false },
];

console.log(`wasm attention benchmark (Node ${process.versions.node}): simd=${engine.info().simd}, d=${d}, process CPU time, best of >= ${minTime} s per cell`);
console.log(['n'.padStart(6), 'kernel'.padEnd(13), 'simd ms'.padStart(10), 'GFLOP/s'.padStart(9), 'ref ms'.padStart(10),
  'GFLOP/s'.padStart(9), 'speedup'.padStart(8), 'scratch MiB'.padStart(12), 'heap MiB'.padStart(10), 'max|diff|'.padStart(9)].join(' '));

const rows = [];
for (const n of sizes) {
  const input = {
    q: engine.randomNormal({ seed: 42, rows: n, cols: d }),
    k: engine.randomNormal({ seed: 43, rows: n, cols: d }),
    v: engine.randomNormal({ seed: 44, rows: n, cols: d }),
  };
  const refs = new Map();  // the reference is measured once per mask and shared
  for (const kern of kernels) {
    const simd = measure(input, { variant: kern.variant, causal: kern.causal });
    if (!refs.has(kern.causal)) refs.set(kern.causal, measure(input, { variant: 'reference', causal: kern.causal }));
    const ref = refs.get(kern.causal);
    const flops = 4 * n * n * d * (kern.causal ? 0.5 : 1);
    const gf = flops / simd.seconds / 1e9, gfRef = flops / ref.seconds / 1e9;
    const diff = maxAbsDiff(simd.out, ref.out);
    rows.push({ n, kernel: kern.name, simdGflops: gf, refGflops: gfRef, scratchBytes: simd.scratchBytes, heapBytes: simd.heapBytes });
    console.log([String(n).padStart(6), kern.name.padEnd(13), f(simd.seconds * 1e3, 10, 3), f(gf, 9), f(ref.seconds * 1e3, 10, 3),
      f(gfRef, 9), `${(gf / gfRef).toFixed(1)}x`.padStart(8), f(simd.scratchBytes / MiB, 12), f(simd.heapBytes / MiB, 10, 1),
      diff.toExponential(1).padStart(9)].join(' '));
  }
}

if (args.native) {
  // Native (C++ bench) and wasm side by side: GFLOP/s, SIMD-over-reference ratios, wasm/native.
  const native = JSON.parse(readFileSync(args.native, 'utf8'));
  console.log(`\nside by side (GFLOP/s; native simd=${native.simd}, wasm simd=${engine.info().simd})`);
  console.log(['n'.padStart(6), 'kernel'.padEnd(13), 'nat simd'.padStart(9), 'nat ref'.padStart(8), 'nat x'.padStart(7),
    'wasm simd'.padStart(10), 'wasm ref'.padStart(9), 'wasm x'.padStart(7), 'wasm/nat'.padStart(9)].join(' '));
  for (const w of rows) {
    const nat = native.rows.find((r) => r.n === w.n && r.kernel === w.kernel);
    if (!nat) continue;
    console.log([String(w.n).padStart(6), w.kernel.padEnd(13), f(nat.simdGflops, 9), f(nat.refGflops, 8),
      `${(nat.simdGflops / nat.refGflops).toFixed(1)}x`.padStart(7), f(w.simdGflops, 10), f(w.refGflops, 9),
      `${(w.simdGflops / w.refGflops).toFixed(1)}x`.padStart(7), `${(w.simdGflops / nat.simdGflops).toFixed(2)}`.padStart(9)].join(' '));
  }
}
