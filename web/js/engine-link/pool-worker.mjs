// The engine pool's half inside each worker (engine-pool.mjs is the other half):
// keeps one call's inputs in this worker's engine and runs the call's tasks on them.
// poolHandlers(engine) → the handlers engine-worker.mjs serves (transport.mjs, `serveWorker`):
//   poolLoad     [{key, k, v, mask?}]   K and V copied into the engine once (engine.keyValues), the mask kept
//   poolGenerate [{key, n, d, seed}]    Q, K, V (n×d) from randomNormal(seed, seed + 1, seed + 2), kept under
//                                       key (a repeated key reuses them) → {cached, ms, heapBytes}
//   poolTask     [{key, r0, r1, q?, rowOffset, options, returnOut, checkRows}]
//        attention for query rows [r0, r1) of the stored inputs (or of the q rows sent with the task),
//        with `options` passed whole to the engine (engine.mjs checks them) and rowOffset + r0, so
//        every row keeps its global index → {r0, r1, out?, maskedRows (local), scratchBytes, sum,
//        checks, heapBytes, ms}. checks: every global row g of checkRows inside [r0, r1) computed again
//        by the 'reference' variant with the same options: {row, maxAbsDiff, out, ref} (8 values each)
//   poolRelease  [{key}]                forgets the stored inputs (any key when key is undefined)
// This file does no maths of its own and checks nothing the engine checks.

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

// Entries [from, to) of a mask's data. A mask that is not a typed array (a
// learner's plain array) is cut with slice, and anything else passed on, so
// that the engine reports what is wrong with it.
function entries(data, from, to) {
  if (ArrayBuffer.isView(data)) return data.subarray(from, to);
  return Array.isArray(data) ? data.slice(from, to) : data;
}

export function poolHandlers(engine) {
  // {key, q, k, v, mask, kv}: the inputs of the pool call in progress; kv keeps
  // K and V inside the engine, so a task copies and checks only its own query
  // rows, not 2·S·d floats of keys and values every time.
  let stash = null;

  function setStash(next) {
    if (stash && stash.kv) stash.kv.release();
    stash = null;
    if (next) {
      next.kv = engine.keyValues({ k: next.k, v: next.v });   // may throw (e.g. NonFinite): nothing kept
      stash = next;
    }
  }

  function requireStash(key, what) {
    if (!stash || stash.key !== key)
      throw Object.assign(new Error(`${what}: no inputs stored under key ${key} in this worker`), { code: 'BadArgument' });
    return stash;
  }

  function heapBytes() {
    try { return engine.info().heapBytes || 0; } catch { return 0; }
  }

  return {
    poolLoad([{ key, k, v, mask = null }]) {
      setStash({ key, q: null, k, v, mask });
      return { ok: true };
    },

    poolGenerate([{ key, n, d, seed = 1 }]) {
      if (stash && stash.key === key) return { cached: true, ms: 0, heapBytes: heapBytes() };
      setStash(null);   // let the old inputs go before drawing new ones
      const t0 = now();
      const q = engine.randomNormal({ seed, rows: n, cols: d });
      const k = engine.randomNormal({ seed: seed + 1, rows: n, cols: d });
      const v = engine.randomNormal({ seed: seed + 2, rows: n, cols: d });
      setStash({ key, q, k, v, mask: null });
      return { cached: false, ms: now() - t0, heapBytes: heapBytes() };
    },

    poolTask([a]) {
      const t0 = now();
      const s = requireStash(a.key, 'poolTask');
      const { r0, r1, options = {} } = a;
      const S = s.k.rows;
      const q = a.q || { rows: r1 - r0, cols: s.q.cols, data: s.q.data.subarray(r0 * s.q.cols, r1 * s.q.cols) };
      const mask = s.mask ? { rows: r1 - r0, cols: S, data: entries(s.mask.data, r0 * S, r1 * S) } : undefined;
      const base = a.rowOffset || 0;
      const res = s.kv.attention({ ...options, q, mask, rowOffset: base + r0 });
      const od = res.out.data, dv = res.out.cols;
      let sum = 0;
      for (let i = 0; i < od.length; i++) sum += od[i];
      const checks = [];
      for (const g of a.checkRows || []) {
        if (g < r0 || g >= r1) continue;
        const i = g - r0;
        const row = { rows: 1, cols: q.cols, data: q.data.subarray(i * q.cols, (i + 1) * q.cols) };
        const mrow = mask ? { rows: 1, cols: S, data: mask.data.subarray(i * S, (i + 1) * S) } : undefined;
        const ref = s.kv.attention({ ...options, q: row, mask: mrow, variant: 'reference', rowOffset: base + g }).out.data;
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
        sum, checks, heapBytes: heapBytes(), ms: now() - t0,
      };
    },

    poolRelease([{ key } = {}]) {
      if (stash && (key === undefined || stash.key === key)) setStash(null);
      return { ok: true };
    },
  };
}
