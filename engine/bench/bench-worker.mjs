// Module Worker running our engine for the browser benchmark, one thread, like
// the site's engine worker. bench-page.mjs starts one per measurement, so
// engine.info().heapBytes is that measurement's peak wasm heap.
//   {cmd: 'ceiling', minTime}                      → the WASM SIMD128 ceiling (ceiling.mjs), this core
//   {cmd: 'prepare', q, k, v, causal, variant}     → keeps the inputs, one call: {out, ms, scratchBytes, heapBytes, simd}
//   {cmd: 'step'}                                  → {ms}: one timed call
//   {cmd: 'meta'}                                  → {scratchBytes, heapBytes}
// Time: performance.now() around engine.attention(), which checks the inputs,
// copies q, k, v into the wasm heap and copies the output back out.
import { loadEngine } from '/js/engine.mjs';
import { wasmCeiling } from './ceiling.mjs';

let engine = null;
let args = null;
let last = null;

self.onmessage = async ({ data: m }) => {
  try {
    let result;
    if (m.cmd === 'ceiling') {
      const bytes = await (await fetch('/bench/ceiling.wasm')).arrayBuffer();
      result = await wasmCeiling(bytes, { minTime: m.minTime });
    } else if (m.cmd === 'prepare') {
      engine = engine || await loadEngine();
      args = { q: m.q, k: m.k, v: m.v, causal: m.causal, variant: m.variant };
      const t0 = performance.now();
      last = engine.attention(args);
      const ms = performance.now() - t0;
      const out = last.out.data;
      const info = engine.info();
      self.postMessage({ ok: true, result: { out, ms, scratchBytes: last.scratchBytes, heapBytes: info.heapBytes, simd: info.simd } }, [out.buffer]);
      return;
    } else if (m.cmd === 'step') {
      const t0 = performance.now();
      last = engine.attention(args);
      result = { ms: performance.now() - t0 };
    } else if (m.cmd === 'meta') {
      result = { scratchBytes: last.scratchBytes, heapBytes: engine.info().heapBytes };
    } else {
      throw new Error(`bench-worker: unknown cmd ${m.cmd}`);
    }
    self.postMessage({ ok: true, result });
  } catch (e) {
    self.postMessage({ ok: false, error: String(e && e.stack || e) });
  }
};
