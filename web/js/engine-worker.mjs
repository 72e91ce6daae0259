// The engine's module Worker: loads ./engine.mjs once and answers messages
//   in:  {id, method, args: [...]}          → out: {id, result} | {id, error: {message, code, name}}
//   in:  {id, method: 'runChunkedAtScale', args: [{n, d, causal, blockQ, blockK, seed, scale, sliceRows}]}
//        → out: {id, progress: {done, total}} ... then {id, result}
//   Pool protocol (engine-pool.mjs; one worker per engine instance, no SharedArrayBuffer):
//   in:  method 'poolLoad',     args [{key, k, v, q?, mask?}]   stores the call's inputs once in this worker
//   in:  method 'poolGenerate', args [{key, n, d, seed}]        Q, K, V (n×d) from randomNormal(seed, seed+1,
//        seed+2), kept under key (a repeated key reuses them)   → {cached, ms, heapBytes}
//   in:  method 'poolTask',     args [{key, r0, r1, q?, causal, scale, variant, blockQ, blockK, rowOffset,
//        returnOut, checkRows}]  attention for query rows [r0, r1) of the stored inputs (or of the q rows sent
//        with the task) with rowOffset + r0 → {r0, r1, out?, maskedRows (local), scratchBytes, sum, checks, heapBytes, ms}
//        checks: for every global row g of checkRows inside [r0, r1), that row computed again by the
//        'reference' variant: {row, maxAbsDiff, out, ref} (first 8 values of each)
//   in:  method 'poolRelease',  args [{key}]                    forgets the stored inputs
//   in:  method 'testCrash',    args [{kind: 'throw' | 'trap' | 'hang'}]   for the browser tests of the
//        client's crash handling: an uncaught error, a WebAssembly trap, a worker that never answers
// On start it posts {ready: true, info} or {ready: false, error}.
// A WebAssembly trap or an Emscripten abort inside a call leaves the engine's memory in an
// unknown state: the reply's code is then 'EngineCrashed' and the client replaces this worker.
// Results are posted with their typed arrays transferred (they are fresh copies).
// This file does no maths itself; engine.mjs validates every argument.

let engine = null;

function serializeError(e) {
  const trap = (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError)
    || /^Aborted\(/.test(String(e && e.message));
  return {
    message: (e && e.message) ? String(e.message) : String(e),
    code: trap ? 'EngineCrashed' : (e && e.code) ? String(e.code) : 'Unknown',
    name: (e && e.name) ? String(e.name) : 'Error',
  };
}

// Every ArrayBuffer reachable from a plain result object (for the transfer list).
function collectBuffers(value, out = new Set(), depth = 0) {
  if (value == null || depth > 6) return out;
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  } else if (Array.isArray(value)) {
    for (const v of value) collectBuffers(v, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const k of Object.keys(value)) collectBuffers(value[k], out, depth + 1);
  }
  return out;
}

// n×d attention at scale without ever holding n×n: Q, K, V come from the
// engine's generator, Q is split into row slices, each slice goes through
// the chunked kernel with rowOffset so the causal mask stays global.
function runChunkedAtScale(id, opts) {
  const n = Math.floor(Number(opts.n));
  const d = Math.floor(Number(opts.d));
  const seed = Number.isFinite(Number(opts.seed)) ? Number(opts.seed) : 1;
  const causal = !!opts.causal;
  const blockQ = Math.max(1, Math.floor(Number(opts.blockQ) || 64));
  const blockK = Math.max(1, Math.floor(Number(opts.blockK) || 64));
  const t0 = performance.now();
  const q = engine.randomNormal({ seed, rows: n, cols: d });
  const k = engine.randomNormal({ seed: seed + 1, rows: n, cols: d });
  const v = engine.randomNormal({ seed: seed + 2, rows: n, cols: d });
  // Slices of whole query tiles, about 40 progress steps, never fewer rows than blockQ.
  let sliceRows = Math.floor(Number(opts.sliceRows) || 0);
  if (!(sliceRows > 0)) sliceRows = Math.max(blockQ, Math.ceil(n / 40 / blockQ) * blockQ);
  const out = opts.returnOut ? new Float32Array(n * d) : null;
  let scratchBytes = 0;
  let checksum = 0;
  const firstRow = new Float32Array(Math.min(d, 8));
  for (let r0 = 0; r0 < n; r0 += sliceRows) {
    const r1 = Math.min(n, r0 + sliceRows);
    const qs = { rows: r1 - r0, cols: d, data: q.data.subarray(r0 * d, r1 * d) };
    const res = engine.attention({
      q: qs, k, v, causal, scale: opts.scale, variant: 'chunked', blockQ, blockK, rowOffset: r0,
    });
    scratchBytes = Math.max(scratchBytes, res.scratchBytes || 0);
    const od = res.out.data;
    for (let i = 0; i < od.length; i++) checksum += od[i];
    if (r0 === 0) firstRow.set(od.subarray(0, firstRow.length));
    if (out) out.set(od, r0 * d);
    self.postMessage({ id, progress: { done: r1, total: n } });
  }
  const result = {
    n, d, causal, blockQ, blockK, seed,
    ms: performance.now() - t0,
    scratchBytes,
    checksum,
    firstRow,
    inputBytes: 3 * n * d * 4,
  };
  if (out) result.out = { rows: n, cols: d, data: out };
  return result;
}

// ------------------------------------------------------------------ pool protocol
// {key, q, k, v, mask, kv}: the inputs of the pool call in progress; kv keeps
// K and V inside the engine (engine.keyValues), so a task copies and checks
// only its own query rows, not 2·S·d floats of keys and values every time.
let stash = null;

function setStash(next) {
  if (stash && stash.kv) stash.kv.release();
  stash = null;
  if (next) {
    next.kv = engine.keyValues({ k: next.k, v: next.v });  // may throw (e.g. NonFinite): nothing kept
    stash = next;
  }
}

function requireStash(key, what) {
  if (!stash || stash.key !== key)
    throw Object.assign(new Error(`${what}: no inputs stored under key ${key} in this worker`), { code: 'BadArgument' });
  return stash;
}

// Entries [from, to) of a mask's data. A mask that is not a typed array (a
// learner's plain array) is cut with slice, and anything else passed on, so
// that the engine reports what is wrong with it.
function entries(data, from, to) {
  if (ArrayBuffer.isView(data)) return data.subarray(from, to);
  return Array.isArray(data) ? data.slice(from, to) : data;
}

function heapBytes() {
  try { return engine.info().heapBytes || 0; } catch { return 0; }
}

const POOL = {
  poolLoad({ key, q = null, k, v, mask = null }) {
    setStash({ key, q, k, v, mask });
    return { ok: true };
  },
  poolGenerate({ key, n, d, seed = 1 }) {
    if (stash && stash.key === key) return { cached: true, ms: 0, heapBytes: heapBytes() };
    setStash(null);   // let the old inputs go before drawing new ones
    const t0 = performance.now();
    const q = engine.randomNormal({ seed, rows: n, cols: d });
    const k = engine.randomNormal({ seed: seed + 1, rows: n, cols: d });
    const v = engine.randomNormal({ seed: seed + 2, rows: n, cols: d });
    setStash({ key, q, k, v, mask: null });
    return { cached: false, ms: performance.now() - t0, heapBytes: heapBytes() };
  },
  poolTask(a) {
    const t0 = performance.now();
    const s = requireStash(a.key, 'poolTask');
    const { r0, r1 } = a;
    const S = s.k.rows;
    const q = a.q || { rows: r1 - r0, cols: s.q.cols, data: s.q.data.subarray(r0 * s.q.cols, r1 * s.q.cols) };
    const mask = s.mask ? { rows: r1 - r0, cols: S, data: entries(s.mask.data, r0 * S, r1 * S) } : undefined;
    const base = a.rowOffset || 0;
    const common = { k: s.k, v: s.v, causal: !!a.causal, scale: a.scale, window: a.window };
    const res = s.kv.attention({
      q, mask, causal: common.causal, scale: common.scale, variant: a.variant || 'chunked',
      blockQ: a.blockQ, blockK: a.blockK, rowOffset: base + r0, window: common.window,
    });
    const od = res.out.data, dv = res.out.cols;
    let sum = 0;
    for (let i = 0; i < od.length; i++) sum += od[i];
    const checks = [];
    for (const g of a.checkRows || []) {
      if (g < r0 || g >= r1) continue;
      const i = g - r0;
      const row = { rows: 1, cols: q.cols, data: q.data.subarray(i * q.cols, (i + 1) * q.cols) };
      const mrow = mask ? { rows: 1, cols: S, data: mask.data.subarray(i * S, (i + 1) * S) } : undefined;
      const ref = engine.attention({ ...common, q: row, mask: mrow, variant: 'reference', rowOffset: base + g }).out.data;
      const mine = od.subarray(i * dv, (i + 1) * dv);
      let maxAbsDiff = 0;
      for (let j = 0; j < dv; j++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(mine[j] - ref[j]));
      checks.push({ row: g, maxAbsDiff, out: mine.slice(0, 8), ref: ref.slice(0, 8) });
    }
    return {
      r0, r1,
      out: a.returnOut === false ? undefined : od,
      maskedRows: res.maskedRows,
      scratchBytes: res.scratchBytes || 0,
      sum, checks, heapBytes: heapBytes(), ms: performance.now() - t0,
    };
  },
  testCrash({ kind = 'throw' } = {}) {
    if (kind === 'trap') throw new WebAssembly.RuntimeError('unreachable (test)');
    if (kind === 'hang') { for (;;) { /* a stuck worker: never answers */ } }
    setTimeout(() => { throw new Error('uncaught error (test)'); });
    return { ok: true };
  },
  poolRelease({ key }) {
    if (stash && (key === undefined || stash.key === key)) setStash(null);
    return { ok: true };
  },
};

self.onmessage = (ev) => {
  const msg = ev.data || {};
  const { id, method, args = [] } = msg;
  if (!engine) {
    self.postMessage({ id, error: { message: 'engine not loaded', code: 'EngineLoad', name: 'Error' } });
    return;
  }
  try {
    let result;
    if (method === 'runChunkedAtScale') {
      result = runChunkedAtScale(id, args[0] || {});
    } else if (Object.hasOwn(POOL, method)) {
      result = POOL[method](args[0] || {});
    } else if (typeof engine[method] === 'function') {
      result = engine[method](...args);
    } else {
      throw Object.assign(new Error('unknown engine method: ' + method), { code: 'BadArgument' });
    }
    const transfer = [...collectBuffers(result)];
    self.postMessage({ id, result }, transfer);
  } catch (e) {
    self.postMessage({ id, error: serializeError(e) });
  }
};

(async () => {
  try {
    const mod = await import('./engine.mjs');
    engine = await mod.loadEngine();
    let info = null;
    try { info = engine.info(); } catch { /* info is optional */ }
    self.postMessage({ ready: true, info });
  } catch (e) {
    self.postMessage({ ready: false, error: serializeError(e) });
  }
})();
