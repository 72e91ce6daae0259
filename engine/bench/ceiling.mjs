// Runs the WASM SIMD128 ceiling micro-kernel (wasm_ceiling.cpp, built as
// attn_wasm_ceiling.wasm) in the current thread: every shape and chain count,
// each timed best-of-N with performance.now(), the best GFLOP/s is the ceiling.
// Used by bench-worker.mjs (Chromium, module Worker) and bench.mjs (Node).
const SHAPES = [
  { shape: 0, name: 'acc = acc*a + b', chains: [8, 10, 12, 14, 16] },
  { shape: 1, name: 'm = m*a; s = s + m', chains: [4, 5, 6, 7] },
];

export async function wasmCeiling(bytes, { minTime = 0.3, runs = 5 } = {}) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const e = instance.exports;
  if (e._initialize) e._initialize();
  const a = 0.99999994, b = 1e-7;
  const all = [];
  let best = { gflops: 0 };
  for (const s of SHAPES) {
    for (const k of s.chains) {
      // Calibrate to about 20 ms per run.
      let iters = 1 << 14;
      for (;;) {
        const t0 = performance.now();
        if (e.ceiling_chains(s.shape, k, iters, a, b) === -1) throw new Error(`ceiling: no kernel for shape ${s.shape} K ${k}`);
        if (performance.now() - t0 >= 20) break;
        iters *= 2;
      }
      let fastest = Infinity, total = 0;
      for (let r = 0; r < runs || total < minTime * 1e3; r++) {
        const t0 = performance.now();
        e.ceiling_chains(s.shape, k, iters, a, b);
        const ms = performance.now() - t0;
        fastest = Math.min(fastest, ms);
        total += ms;
      }
      const gflops = (8 * k * iters) / (fastest * 1e6);  // a mul and an add on 4 lanes per chain step
      const row = { shape: s.name, chains: k, gflops };
      all.push(row);
      if (gflops > best.gflops) best = row;
    }
  }
  return { gflops: best.gflops, shape: best.shape, chains: best.chains, all };
}
