// A pool of engine workers: one attention call split by query rows across
// plain module Web Workers (engine-worker.mjs), each with its own engine
// instance. No SharedArrayBuffer, so it works on any static host (no
// COOP/COEP headers needed).
//
// Usage:
//   import { createEnginePool } from './engine-pool.mjs';
//   const pool = createEnginePool({ size: 2 });   // default: min(navigator.hardwareConcurrency || 2, 4), at least 1
//   await pool.ready;                             // rejects with code 'EngineLoad' if a worker cannot start
//   const r = await pool.attention({ q, k, v, mask, rowOffset, ...options },
//                                  { onProgress: ({ done, total, workDone, workTotal }) => {}, signal, taskRows });
//   //   options (causal, scale, variant, blockQ, blockK, and whatever engine.mjs's attention takes) reach
//   //   every worker's engine whole, where they are checked: the pool reads causal, variant and blockQ
//   //   only to plan the split (pool-plan.mjs). returnWeights is refused: the pool never holds L×S.
//   //   q, k, v: {rows, cols, data: Float32Array}; r.out {rows, cols, data}; r.maskedRows (global row indices);
//   //   r.scratchBytes (max over tasks); r.ms (wall time of the call); r.workers, r.tasks, r.heapBytes
//   const s = await pool.attentionSeeded({ n: 131072, d: 64, seed: 1, ...options },   // variant defaults to 'chunked'
//                                        { onProgress, signal, taskRows, checkRows: [0, 65536, 131071], returnOut: false });
//   //   Q, K, V drawn by the engine (randomNormal seed, seed+1, seed+2) inside every worker, nothing
//   //   large crosses a thread. → {n, d, causal, variant, workers, tasks, ms (attention only), genMs,
//   //   scratchBytes, checksum (sum of all outputs, in row order), checks [{row, maxAbsDiff, out, ref}],
//   //   maskedRows, heapBytes (largest wasm heap of a worker), flops, out?}
//   const h = await pool.multiheadAttention({ q, k, v, headsQ, headsKv, mask, rowOffset, ...options },
//                                           { onProgress, signal, groupsPerTask });
//   //   q (H_q·L, d_k), k (H_kv·S, d_k), v (H_kv·S, d_v), head-major as engine.multiheadAttention, whose
//   //   result it equals: {out (H_q·L, d_v), maskedRows (one array per query head), kernelCalls,
//   //   scratchBytes (max over tasks)} plus ms, workers, tasks and kvBytesSent (K and V bytes posted
//   //   to the workers: every key/value head once, H_kv·S·(d_k + d_v)·4). Split by key/value
//   //   groups (pool-plan.mjs planHeads): a group's K and V and its query heads go to one worker
//   //   only, with the options whole; a mask (one L×S for all heads) is copied to every task.
//   pool.terminate();
//
// How: rows are cut into contiguous tasks (pool-plan.mjs says how many rows each)
// and handed out from a queue as workers become free; causal calls hand out the
// most expensive tasks (the last rows) first so the run ends on small tasks. Each
// task runs with rowOffset = (the call's rowOffset) + its first row, so the causal
// mask is the global one. K and V (and the mask) are sent to each worker once per
// call ('poolLoad', pool-worker.mjs); each task then ships only its Q rows and gets
// its output rows back (transferred). Progress counts rows done. Every message goes
// through the transport (transport.mjs), one link per worker.
// Cancel: aborting `signal` terminates every worker, the call rejects with an
// Error whose .code is 'Cancelled', and fresh workers start at once (pool.ready
// is their readiness), so the pool stays usable. Engine errors reject with their
// .code ('TooLarge', 'ShapeMismatch', …). Calls run one after another.

import { connectWorker, codedError, cancelledError } from './transport.mjs';
import { planCall, planHeads, attentionFlops, checkRowsFor } from './pool-plan.mjs';
import { placeRows, sliceRows, globalMaskedRows, sumInRowOrder, progressCounter, runQueue, estimateRemainingMs } from './row-tasks.mjs';

// What a page that runs the pool shows besides its results (section 8).
export { checkRowsFor, estimateRemainingMs };

function defaultPoolSize() {
  const hc = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(hc, 4));
}

const isCount = (x) => Number.isInteger(x) && x >= 1;
const isMatrixLike = (m) => m && typeof m === 'object' && Number.isInteger(m.rows) && m.rows >= 1 &&
  Number.isInteger(m.cols) && m.cols >= 1 && m.data && m.data.length === m.rows * m.cols;

// A copy of a matrix whose buffer can be transferred to one worker. Sending
// K and V this way (a slice, then a transfer) measured 2.5-3.5 times faster
// than letting postMessage clone them (1 MiB: 0.4-0.55 ms against
// 1.0-1.5 ms in Chromium), and it also sends only the view's own bytes.
// Anything else (no mask, a malformed one) is sent as it is, for the
// worker's engine to answer with its own error.
const transferableCopy = (m) => (m && m.data && ArrayBuffer.isView(m.data)
  ? { rows: m.rows, cols: m.cols, data: m.data.slice() } : m ?? null);
const buffersOf = (...ms) => ms.map((m) => m && m.data && m.data.buffer).filter((b) => b instanceof ArrayBuffer);

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

// The window as the plan counts it; anything that is not a whole number > 0 is
// planned as no window and left to the engines to accept (0) or refuse.
const windowOf = (options) => (Number.isInteger(options.window) && options.window > 0 ? options.window : 0);

export function createEnginePool({ size, workerUrl = new URL('./engine-worker.mjs', import.meta.url) } = {}) {
  const count = Number.isInteger(size) && size >= 1 ? size : defaultPoolSize();
  const links = Array.from({ length: count }, () => connectWorker({ workerUrl }));
  let readyPromise = null;
  let chain = Promise.resolve();
  let nextKey = 1;
  let terminated = false;

  function refreshReady() {
    readyPromise = Promise.all(links.map((l) => l.ready)).then((infos) => ({ size: count, info: infos[0] }));
    readyPromise.catch(() => {});   // nobody awaiting it is not an unhandled rejection
  }
  refreshReady();
  // A worker that crashed or got stuck is replaced by its link (transport.mjs), and the
  // call in progress rejects with 'EngineCrashed'; the next call waits for the fresh worker.
  for (const l of links) l.onStatus((kind) => { if (kind === 'crash' && !terminated) refreshReady(); });

  // Terminate every worker (pending messages reject 'Cancelled') and start fresh ones.
  function restart() {
    for (const l of links) l.cancel();
    refreshReady();
  }

  function enqueue(fn) {
    if (terminated) return Promise.reject(codedError('EngineLoad', 'the pool was terminated'));
    const p = chain.then(fn);
    chain = p.catch(() => {});
    return p;
  }

  // Runs `tasks` on the first `workers` links after `prepare(link)` on `prepareOn` of them.
  // message(task) → {arg, transfer, method = 'poolTask'} of its request; onResult(task, result) per
  // finished task. Handles the abort signal.
  async function runJob({ tasks, workers, prepare, prepareOn, message, onResult, signal }) {
    if (signal && signal.aborted) throw cancelledError();
    if (terminated) throw codedError('Cancelled', 'the pool was terminated');
    await readyPromise;
    if (signal && signal.aborted) throw cancelledError();
    let cancelled = false;
    const onAbort = () => { cancelled = true; restart(); };
    if (signal) signal.addEventListener('abort', onAbort, { once: true });
    try {
      // The tasks are posted without waiting for the loads' replies: a worker
      // handles its messages in order, so its first task starts right after
      // its own load instead of after a round trip and the slower worker's load.
      const prepared = Promise.all(links.slice(0, prepareOn).map((l) => prepare(l)));
      prepared.catch(() => {});   // awaited below, whichever way the queue ends
      // Two tasks in flight per worker: the next one is already in the
      // worker's message queue when the current one ends, so no worker idles
      // for a round trip through the main thread between tasks.
      try {
        await runQueue(tasks, workers * 2, async (task, lane) => {
          const { arg, transfer, method = 'poolTask' } = message(task);
          const res = await links[lane % workers].request(method, [arg], { transfer });
          if (!cancelled) onResult(task, res);
        }, { stop: () => cancelled });
      } catch (e) {
        await prepared;   // a failed load (bad K or V) is the error to report, not its tasks' 'no inputs'
        throw e;
      }
      await prepared;
      if (cancelled) throw cancelledError();
    } catch (e) {
      if (cancelled) throw cancelledError();
      throw e;
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort);
    }
  }

  function release(key) {
    for (const l of links) l.request('poolRelease', [{ key }]).catch(() => {});
  }

  // What a finished task adds to the call's result; the progress callback never breaks the call.
  function collector(tasks, onProgress) {
    const progress = progressCounter(tasks);
    const parts = [];
    const acc = { parts, checks: [], scratchBytes: 0, heapBytes: 0 };
    acc.add = (task, res) => {
      parts.push({ r0: task.r0, sum: res.sum, maskedRows: res.maskedRows });
      acc.checks.push(...(res.checks || []));
      acc.scratchBytes = Math.max(acc.scratchBytes, res.scratchBytes || 0);
      acc.heapBytes = Math.max(acc.heapBytes, res.heapBytes || 0);
      const p = progress.add(task);
      if (onProgress) { try { onProgress(p); } catch { /* ignore */ } }
    };
    return acc;
  }

  async function runAttention(args, { onProgress, signal, taskRows } = {}) {
    const t0 = now();
    if (!args || typeof args !== 'object') throw codedError('BadArgument', 'pool.attention: expected an options object');
    // q, k, v, mask and rowOffset are what the pool splits; everything else goes to the engines whole.
    const { q, k, v, mask, rowOffset = 0, ...options } = args;
    if (options.returnWeights) throw codedError('BadArgument', 'pool.attention: returnWeights is not available in the pool (it never assembles L×S)');
    // Inputs the row split cannot even read: one engine answers with its own error.
    if (!isMatrixLike(q) || !isMatrixLike(k) || !isMatrixLike(v) || !Number.isInteger(rowOffset) || rowOffset < 0 || args.queryPeriod) {  // a row split would shift queryPeriod's phase
      if (signal && signal.aborted) throw cancelledError();
      await readyPromise;
      const r = await links[0].request('attention', [args]);
      return { ...r, ms: now() - t0, workers: 1, tasks: 1, heapBytes: 0 };
    }
    const L = q.rows, S = k.rows, dv = v.cols;
    const { tasks, workers } = planCall({
      rows: L, keys: S, workers: count, causal: !!options.causal, masked: !!mask, rowOffset, taskRows, window: windowOf(options),
      materialized: (options.variant ?? 'materialized') === 'materialized',   // the engine's default variant
      blockQ: options.blockQ, fn: 'pool.attention',
    });
    const key = nextKey++;
    const out = new Float32Array(L * dv);
    const acc = collector(tasks, onProgress);
    try {
      await runJob({
        tasks, workers, signal,
        prepareOn: workers,
        prepare: (l) => {
          const kc = transferableCopy(k), vc = transferableCopy(v), mc = transferableCopy(mask);
          return l.request('poolLoad', [{ key, k: kc, v: vc, mask: mc }], { transfer: buffersOf(kc, vc, mc) });
        },
        message: (task) => {
          const qs = sliceRows(q, task.r0, task.r1);
          return { arg: { key, r0: task.r0, r1: task.r1, q: qs, rowOffset, options }, transfer: [qs.data.buffer] };
        },
        onResult: (task, res) => {
          placeRows(out, dv, task.r0, res.out);
          acc.add(task, res);
        },
      });
    } finally {
      if (!(signal && signal.aborted)) release(key);
    }
    return {
      out: { rows: L, cols: dv, data: out },
      maskedRows: globalMaskedRows(acc.parts),
      scratchBytes: acc.scratchBytes, heapBytes: acc.heapBytes,
      ms: now() - t0,
      workers, tasks: tasks.length,
    };
  }

  async function runSeeded(args, { onProgress, signal, taskRows, checkRows = [], returnOut = false } = {}) {
    const { n, d, seed = 1, rowOffset = 0, ...rest } = args || {};
    const options = { ...rest, variant: rest.variant ?? 'chunked' };
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(d) || d < 1) {
      await readyPromise;
      await links[0].request('randomNormal', [{ seed, rows: n, cols: d }]);   // the engine's own message
      throw codedError('BadArgument', `pool.attentionSeeded: n and d must be whole numbers >= 1, got ${n}, ${d}`);
    }
    const plan = planCall({
      rows: n, keys: n, workers: count, causal: !!options.causal, rowOffset, taskRows, window: windowOf(options),
      materialized: options.variant === 'materialized', blockQ: options.blockQ, fn: 'pool.attentionSeeded',
    });
    const { tasks, workers } = plan;
    const key = `seeded:${n}x${d}:${seed}`;
    const out = returnOut ? new Float32Array(n * d) : null;
    const acc = collector(tasks, onProgress);
    let genMs = 0, t1 = 0;
    const t0 = now();
    await runJob({
      tasks, workers, signal,
      prepareOn: count,   // every worker draws the inputs (in parallel): the next call may use them all
      prepare: async (l) => {
        const g = await l.request('poolGenerate', [{ key, n, d, seed }]);
        genMs = Math.max(genMs, g.ms || 0);
        acc.heapBytes = Math.max(acc.heapBytes, g.heapBytes || 0);
        // the work starts when the FIRST worker has its inputs (runJob does not wait for the
        // others); timing from the last draw read «done in 0 s» when a slow worker's draw
        // answered after the only task had ended (after a cancelled long run)
        if (!t1) t1 = now();
      },
      message: (task) => ({
        arg: { key, r0: task.r0, r1: task.r1, rowOffset, options, returnOut, checkRows },
        transfer: [],
      }),
      onResult: (task, res) => {
        if (out) placeRows(out, d, task.r0, res.out);
        acc.add(task, res);
      },
    });
    const end = now();
    const result = {
      n, d, seed, causal: !!options.causal, variant: options.variant, workers, tasks: tasks.length, taskRows: plan.taskRows,
      ms: end - (t1 || t0), genMs, totalMs: end - t0,
      scratchBytes: acc.scratchBytes, heapBytes: acc.heapBytes,
      checksum: sumInRowOrder(acc.parts),
      checks: acc.checks.sort((a, b) => a.row - b.row),
      maskedRows: globalMaskedRows(acc.parts),
      window: windowOf(options),
      flops: attentionFlops({ L: n, S: n, dk: d, dv: d, causal: !!options.causal, window: windowOf(options), rowOffset }),
    };
    if (out) result.out = { rows: n, cols: d, data: out };
    return result;
  }

  // Multi-head / grouped-query attention split by key/value groups (planHeads): each
  // task ships its groups' K and V rows and the query rows of the heads that read
  // them to one worker, which runs engine.multiheadAttention on them with the
  // options whole; the outputs are head-major, so a task's rows go back in place.
  async function runHeads(args, { onProgress, signal, groupsPerTask } = {}) {
    const t0 = now();
    if (!args || typeof args !== 'object') throw codedError('BadArgument', 'pool.multiheadAttention: expected an options object');
    const { q, k, v, headsQ, headsKv = headsQ, mask, rowOffset = 0, ...options } = args;
    if (options.returnWeights) throw codedError('BadArgument', 'pool.multiheadAttention: returnWeights is not available in the pool (it never assembles L×S)');
    // Anything the group split cannot read goes whole to one engine, which answers with its own error.
    if (!isMatrixLike(q) || !isMatrixLike(k) || !isMatrixLike(v) || !isCount(headsQ) || !isCount(headsKv) || headsQ % headsKv !== 0 ||
      q.rows % headsQ !== 0 || k.rows % headsKv !== 0 || v.rows !== k.rows || !Number.isInteger(rowOffset) || rowOffset < 0) {
      if (signal && signal.aborted) throw cancelledError();
      await readyPromise;
      const r = await links[0].request('multiheadAttention', [args]);
      return { ...r, ms: now() - t0, workers: 1, tasks: 1, kvBytesSent: 0 };
    }
    const L = q.rows / headsQ, S = k.rows / headsKv, dv = v.cols, G = headsQ / headsKv;
    const { tasks, workers } = planHeads({
      headsQ, headsKv, rows: L, keys: S, workers: count, causal: !!options.causal, window: windowOf(options), rowOffset,
      groupsPerTask, fn: 'pool.multiheadAttention',
    });
    const out = new Float32Array(headsQ * L * dv);
    const maskedRows = new Array(headsQ);
    let kernelCalls = 0, kvBytesSent = 0;
    const acc = collector(tasks, onProgress);
    await runJob({
      tasks, workers, signal,
      prepareOn: 0, prepare: () => null,
      message: (task) => {
        const kt = sliceRows(k, task.g0 * S, task.g1 * S), vt = sliceRows(v, task.g0 * S, task.g1 * S), qt = sliceRows(q, task.r0, task.r1);
        const mt = transferableCopy(mask);
        kvBytesSent += kt.data.byteLength + vt.data.byteLength;
        const arg = { ...options, q: qt, k: kt, v: vt, headsQ: (task.g1 - task.g0) * G, headsKv: task.g1 - task.g0, rowOffset };
        if (mask !== undefined) arg.mask = mt;
        return { method: 'multiheadAttention', arg, transfer: buffersOf(qt, kt, vt, mt) };
      },
      onResult: (task, res) => {
        placeRows(out, dv, task.r0, res.out.data);
        res.maskedRows.forEach((rowsOfHead, i) => { maskedRows[task.g0 * G + i] = rowsOfHead; });
        kernelCalls += res.kernelCalls || 0;
        acc.add(task, { sum: 0, maskedRows: [], scratchBytes: res.scratchBytes });
      },
    });
    return {
      out: { rows: headsQ * L, cols: dv, data: out },
      maskedRows, kernelCalls, kvBytesSent,
      scratchBytes: acc.scratchBytes,
      ms: now() - t0,
      workers, tasks: tasks.length,
    };
  }

  return {
    get ready() { return readyPromise; },
    get size() { return count; },
    attention: (args, opts) => enqueue(() => runAttention(args, opts)),
    attentionSeeded: (args, opts) => enqueue(() => runSeeded(args, opts)),
    multiheadAttention: (args, opts) => enqueue(() => runHeads(args, opts)),
    /** Stops every worker for good; a call in progress rejects with 'Cancelled'. */
    terminate() {
      terminated = true;
      for (const l of links) l.terminate();
    },
  };
}
