// The engine's module Worker: loads ./engine.mjs once and answers messages
//   in:  {id, method, args: [...]}          → out: {id, result} | {id, error: {message, code, name}}
//   in:  {id, method: 'runChunkedAtScale', args: [{n, d, causal, blockQ, blockK, seed, scale, sliceRows}]}
//        → out: {id, progress: {done, total}} ... then {id, result}
// On start it posts {ready: true, info} or {ready: false, error}.
// Results are posted with their typed arrays transferred (they are fresh copies).
// This file does no maths itself; engine.mjs validates every argument.

let engine = null;

function serializeError(e) {
  return {
    message: (e && e.message) ? String(e.message) : String(e),
    code: (e && e.code) ? String(e.code) : 'Unknown',
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
  const blockQ = Math.max(1, Math.floor(Number(opts.blockQ) || 32));
  const blockK = Math.max(1, Math.floor(Number(opts.blockK) || 32));
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
