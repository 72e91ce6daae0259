// Module Worker running our engine for the browser benchmark, one thread, like
// the site's engine worker. bench-page.mjs starts one per measurement, so
// engine.info().heapBytes is that measurement's peak wasm heap.
//   {cmd: 'ceiling', minTime}                      → the WASM SIMD128 ceiling (ceiling.mjs), this core
//   {cmd: 'prepare', q, k, v, causal, variant}     → keeps the inputs, one call: {out, ms, scratchBytes, heapBytes, simd}
//   {cmd: 'step'}                                  → {ms}: one timed call
//   {cmd: 'meta'}                                  → {scratchBytes, heapBytes}
//   {cmd: 'decodeSetup', S, d, headsQ, headsKv: []} → one KV cache per H_kv (window S, filled with S rows,
//        so every step attends to exactly S rows), each first checked on a small cache against the
//        engine's double reference: {caches: [{headsKv, kvBytesRead, cacheBytes, maxAbsDiff}], heapBytes}
//   {cmd: 'decodeRounds', minMs, minRuns}          → the memory.copy ceiling (memcopy.mjs) and one decode
//        step of every cache, interleaved round by round (a load change hits them alike), best of each:
//        {copy: {bytesPerSecond, bestMs, runs}, steps: [{headsKv, bestMs, runs, bytesPerSecond}]}
// Time: performance.now() around engine.attention(), which checks the inputs,
// copies q, k, v into the wasm heap and copies the output back out.
import { loadEngine } from '/js/engine.mjs';
import { wasmCeiling } from './ceiling.mjs';
import { MEMCOPY_MODULE } from './memcopy.mjs';

let engine = null;
let args = null;
let last = null;
let decode = null;   // {caches: [{headsKv, cache, q, k}], copy}

// One decode step checked before anything is timed: a cache of 300 rows with a
// window of 256, one step, against multiheadAttention's 'reference' variant over
// all 301 rows with the same causal window (the step's row is 300).
function checkDecode({ d, headsQ, headsKv }) {
  const n = 300, w = 256;
  const cache = engine.kvCache({ headsKv, dk: d, dv: d, window: w });
  try {
    const k = engine.randomNormal({ seed: 11, rows: headsKv * n, cols: d }), v = engine.randomNormal({ seed: 12, rows: headsKv * n, cols: d });
    cache.prefill({ k, v });
    const q = engine.randomNormal({ seed: 13, rows: headsQ, cols: d });
    const k1 = engine.randomNormal({ seed: 14, rows: headsKv, cols: d }), v1 = engine.randomNormal({ seed: 15, rows: headsKv, cols: d });
    const step = cache.decode({ q, k: k1, v: v1 }).out.data;
    const all = (m, m1) => {   // head-major (H_kv·301, d): each head's 300 rows, then its new row
      const data = new Float32Array(headsKv * (n + 1) * d);
      for (let g = 0; g < headsKv; g++) {
        data.set(m.data.subarray(g * n * d, (g + 1) * n * d), g * (n + 1) * d);
        data.set(m1.data.subarray(g * d, (g + 1) * d), (g * (n + 1) + n) * d);
      }
      return { rows: headsKv * (n + 1), cols: d, data };
    };
    const ref = engine.multiheadAttention({ q, k: all(k, k1), v: all(v, v1), headsQ, headsKv, causal: true, window: w,
      rowOffset: n, variant: 'reference' }).out.data;
    let maxAbsDiff = 0;
    for (let i = 0; i < ref.length; i++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(ref[i] - step[i]));
    return maxAbsDiff;
  } finally { cache.delete(); }
}

function decodeSetup({ S, d, headsQ, headsKv }) {
  const caches = [];
  for (const hkv of headsKv) {
    const maxAbsDiff = checkDecode({ d, headsQ, headsKv: hkv });
    const cache = engine.kvCache({ headsKv: hkv, dk: d, dv: d, window: S });
    const piece = Math.min(S, 2048);   // filled piece by piece: no S-row copy of K or V outside the cache
    for (let done = 0; done < S; done += piece) {
      const k = engine.randomNormal({ seed: 100 + done, rows: hkv * piece, cols: d });
      const v = engine.randomNormal({ seed: 200 + done, rows: hkv * piece, cols: d });
      cache.prefill({ k, v });
    }
    caches.push({
      headsKv: hkv, cache, maxAbsDiff,
      q: engine.randomNormal({ seed: 7, rows: headsQ, cols: d }),
      k: engine.randomNormal({ seed: 8, rows: hkv, cols: d }),
      kvBytesRead: engine.kvBytesRead({ headsQ, headsKv: hkv, S, dk: d, dv: d }),
    });
  }
  decode = { caches, S };
  return {
    caches: caches.map((c) => ({ headsKv: c.headsKv, kvBytesRead: c.kvBytesRead, cacheBytes: c.cache.bytes(), length: c.cache.length(), maxAbsDiff: c.maxAbsDiff })),
    heapBytes: engine.info().heapBytes,
  };
}

async function decodeRounds({ minMs = 3000, minRuns = 5 }) {
  const { instance } = await WebAssembly.instantiate(MEMCOPY_MODULE);
  const copyBytes = 256 * 1024 * 1024;
  new Uint8Array(instance.exports.mem.buffer).fill(1);
  const timed = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
  const jobs = [
    { id: 'copy', run: () => instance.exports.copy(copyBytes, 0, copyBytes), bytes: copyBytes },
    ...decode.caches.map((c) => ({ id: c.headsKv, run: () => c.cache.decode({ q: c.q, k: c.k, v: c.k }), bytes: c.kvBytesRead })),
  ].map((j) => ({ ...j, bestMs: Infinity, total: 0, runs: 0 }));
  for (let round = 0; jobs.some((j) => j.runs < minRuns || j.total < minMs); round++) {
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[(i + round) % jobs.length];   // rotate who goes first
      const ms = timed(j.run);
      j.bestMs = Math.min(j.bestMs, ms); j.total += ms; j.runs++;
    }
  }
  const rate = (j) => j.bytes / (j.bestMs / 1000);
  return {
    copy: { bytesPerSecond: rate(jobs[0]), bestMs: jobs[0].bestMs, runs: jobs[0].runs, bytes: copyBytes },
    steps: jobs.slice(1).map((j) => ({ headsKv: j.id, bestMs: j.bestMs, runs: j.runs, kvBytesRead: j.bytes, bytesPerSecond: rate(j) })),
    heapBytes: engine.info().heapBytes,
  };
}

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
    } else if (m.cmd === 'decodeSetup') {
      engine = engine || await loadEngine();
      result = decodeSetup(m);
    } else if (m.cmd === 'decodeRounds') {
      result = await decodeRounds(m);
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
