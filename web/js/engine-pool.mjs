// A pool of engine workers: one attention call split by query rows across
// plain module Web Workers (engine-worker.mjs), each with its own engine
// instance. No SharedArrayBuffer, so it works on any static host (no
// COOP/COEP headers needed).
//
// Usage:
//   import { createEnginePool } from './engine-pool.mjs';
//   const pool = createEnginePool({ size: 2 });   // default: min(navigator.hardwareConcurrency || 2, 4), at least 1
//   await pool.ready;                             // rejects with code 'EngineLoad' if a worker cannot start
//   const r = await pool.attention({ q, k, v, causal, scale, variant: 'chunked' | 'materialized', blockQ, blockK,
//                                    mask, rowOffset },
//                                  { onProgress: ({ done, total, workDone, workTotal }) => {}, signal, taskRows });
//   //   q, k, v: {rows, cols, data: Float32Array}; r.out {rows, cols, data}; r.maskedRows (global row indices);
//   //   r.scratchBytes (max over tasks); r.ms (wall time of the call); r.workers, r.tasks, r.heapBytes
//   const s = await pool.attentionSeeded({ n: 131072, d: 64, seed: 1, causal: true, variant: 'chunked', blockQ, blockK },
//                                        { onProgress, signal, taskRows, checkRows: [0, 65536, 131071], returnOut: false });
//   //   Q, K, V drawn by the engine (randomNormal seed, seed+1, seed+2) inside every worker, nothing
//   //   large crosses a thread. → {n, d, causal, variant, workers, tasks, ms (attention only), genMs,
//   //   scratchBytes, checksum (sum of all outputs, in row order), checks [{row, maxAbsDiff, out, ref}],
//   //   maskedRows, heapBytes (largest wasm heap of a worker), flops, out?}
//   pool.release();                               // forget inputs kept in the workers (seeded calls keep them)
//   pool.terminate();
//
// How: rows are cut into contiguous tasks of taskRows rows (default: about 16 per
// worker; pool.attention calls up to 2^26 (query, key) pairs: 1 per worker without
// causal rule or mask, 4 with; whole query tiles, at least 2^18 pairs each, 2^16 without
// causal rule or mask; row-tasks.mjs) and handed out from a queue as
// workers become free; causal calls hand out the most expensive tasks (the last
// rows) first so the run ends on small tasks. Each task runs with rowOffset =
// (the call's rowOffset) + its first row, so the causal mask is the global one.
// K and V (and the mask) are sent to each worker once per call ('poolLoad');
// each task then ships only its Q rows and gets its output rows back
// (transferred). Progress counts rows done.
// Cancel: aborting `signal` terminates every worker, the call rejects with an
// Error whose .code is 'Cancelled', and fresh workers start at once (pool.ready
// is their readiness), so the pool stays usable. Engine errors reject with their
// .code ('TooLarge', 'ShapeMismatch', …). Calls run one after another.

import { createEngineClient } from './engine-client.mjs';
import {
  planTasks, defaultTaskRows, placeRows, sliceRows, globalMaskedRows, sumInRowOrder,
  progressCounter, runQueue, cancelledError, codedError, attentionFlops,
} from './row-tasks.mjs';

export function defaultPoolSize() {
  const hc = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(hc, 4));
}

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

// Calls up to this many (query, key) pairs (4096², a fraction of a second) are
// split into few tasks, since each task costs a round trip and an engine call
// of its own; longer ones keep a finer split so that progress moves.
const SHORT_CALL_PAIRS = 2 ** 26;

export function createEnginePool({ size, workerUrl } = {}) {
  const count = Number.isInteger(size) && size >= 1 ? size : defaultPoolSize();
  const clients = Array.from({ length: count }, () => createEngineClient(workerUrl ? { workerUrl } : {}));
  let readyPromise = null;
  let chain = Promise.resolve();
  let nextKey = 1;
  let terminated = false;

  function refreshReady() {
    readyPromise = Promise.all(clients.map((c) => c.ready)).then((infos) => ({ size: count, info: infos[0] }));
    readyPromise.catch(() => {});   // nobody awaiting it is not an unhandled rejection
  }
  refreshReady();
  // A worker that crashed or got stuck is replaced by its client (engine-client.mjs), and the
  // call in progress rejects with 'EngineCrashed'; the next call waits for the fresh worker.
  for (const c of clients) c.onStatus((kind) => { if (kind === 'crash' && !terminated) refreshReady(); });

  // Terminate every worker (pending messages reject 'Cancelled') and start fresh ones.
  function restart() {
    for (const c of clients) c.cancel();
    refreshReady();
  }

  function enqueue(fn) {
    if (terminated) return Promise.reject(codedError('EngineLoad', 'the pool was terminated'));
    const p = chain.then(fn);
    chain = p.catch(() => {});
    return p;
  }

  // Runs `tasks` on the first `workers` clients after `prepare(client)` on `prepareOn` of them.
  // onResult(task, result) per finished task. Handles the abort signal.
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
      const prepared = prepare ? Promise.all(clients.slice(0, prepareOn).map((c) => prepare(c))) : null;
      if (prepared) prepared.catch(() => {});   // awaited below, whichever way the queue ends
      // Two tasks in flight per worker: the next one is already in the
      // worker's message queue when the current one ends, so no worker idles
      // for a round trip through the main thread between tasks.
      try {
        await runQueue(tasks, workers * 2, async (task, lane) => {
          const { arg, transfer } = message(task);
          const res = await clients[lane % workers].send('poolTask', arg, { transfer });
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
    for (const c of clients) c.send('poolRelease', { key }).catch(() => {});
  }

  async function runAttention(args, { onProgress, signal, taskRows } = {}) {
    const t0 = now();
    if (!args || typeof args !== 'object') throw codedError('BadArgument', 'pool.attention: expected an options object');
    const { q, k, v, mask, causal = false, scale, variant = 'materialized', blockQ, blockK, rowOffset = 0 } = args;
    if (args.returnWeights) throw codedError('BadArgument', 'pool.attention: returnWeights is not available in the pool (it never assembles L×S)');
    if (variant === 'reference') throw codedError('BadArgument', "pool.attention: use 'chunked' or 'materialized' in the pool");
    // Inputs the row split cannot even read: one engine answers with its own error.
    if (!isMatrixLike(q) || !isMatrixLike(k) || !isMatrixLike(v) || !Number.isInteger(rowOffset) || rowOffset < 0 || args.queryPeriod) {  // a row split would shift queryPeriod's phase
      if (signal && signal.aborted) throw cancelledError();
      await readyPromise;
      const { returnWeights, ...rest } = args;
      const r = await clients[0].attention(rest);
      return { ...r, ms: now() - t0, workers: 1, tasks: 1, heapBytes: 0 };
    }
    const L = q.rows, S = k.rows, dv = v.cols;
    // Short calls (SHORT_CALL_PAIRS): rows of equal cost (no causal rule, no
    // mask) one task per worker, causal ones 4 per worker so the queue can even
    // out their costs. Best of 8 in Chromium, 2 workers, against 4 and 16 per
    // worker: n = 512 2.62 → 1.84 ms, n = 2048 17.7 → 15.3 ms, causal n = 2048
    // 10.8 → 10.0 ms and n = 4096 34.9 → 32.3 ms.
    const uniform = !causal && !mask;
    const short = L * S <= SHORT_CALL_PAIRS;
    const rows = taskRows === undefined ? defaultTaskRows({
      rows: L, keys: S, workers: count, blockQ: blockQ || 64,
      perWorker: short ? (uniform ? 1 : 4) : (uniform ? 4 : 16),
      minPairs: uniform ? 2 ** 16 : 2 ** 18,
      maxRowBytes: variant === 'materialized' ? S * 4 : 0,
    }) : taskRows;
    if (!Number.isInteger(rows) || rows < 1) throw codedError('BadArgument', `pool.attention: taskRows must be a whole number >= 1, got ${taskRows}`);
    const tasks = planTasks({ rows: L, keys: S, taskRows: rows, causal: !!causal, rowOffset });
    const workers = Math.min(count, tasks.length);
    const key = nextKey++;
    const out = new Float32Array(L * dv);
    const parts = [];
    const progress = progressCounter(tasks);
    let scratchBytes = 0, heapBytes = 0;
    try {
      await runJob({
        tasks, workers, signal,
        prepareOn: workers,
        prepare: (c) => {
          const kc = transferableCopy(k), vc = transferableCopy(v), mc = transferableCopy(mask);
          return c.send('poolLoad', { key, k: kc, v: vc, mask: mc }, { transfer: buffersOf(kc, vc, mc) });
        },
        message: (task) => {
          const qs = sliceRows(q, task.r0, task.r1);
          return {
            arg: { key, r0: task.r0, r1: task.r1, q: qs, causal, scale, variant, blockQ, blockK, rowOffset, window: args.window },
            transfer: [qs.data.buffer],
          };
        },
        onResult: (task, res) => {
          placeRows(out, dv, task.r0, res.out);
          parts.push({ r0: task.r0, maskedRows: res.maskedRows });
          scratchBytes = Math.max(scratchBytes, res.scratchBytes || 0);
          heapBytes = Math.max(heapBytes, res.heapBytes || 0);
          const p = progress.add(task);
          if (onProgress) { try { onProgress(p); } catch { /* a progress callback never breaks the call */ } }
        },
      });
    } finally {
      if (!(signal && signal.aborted)) release(key);
    }
    return {
      out: { rows: L, cols: dv, data: out },
      maskedRows: globalMaskedRows(parts),
      scratchBytes, heapBytes,
      ms: now() - t0,
      workers, tasks: tasks.length,
    };
  }

  async function runSeeded(opts, { onProgress, signal, taskRows, checkRows = [], returnOut = false } = {}) {
    const { n, d, seed = 1, causal = false, scale, variant = 'chunked', blockQ, blockK } = opts || {};
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(d) || d < 1) {
      await readyPromise;
      await clients[0].randomNormal({ seed, rows: n, cols: d });   // the engine's own message
      throw codedError('BadArgument', `pool.attentionSeeded: n and d must be whole numbers >= 1, got ${n}, ${d}`);
    }
    if (variant !== 'chunked' && variant !== 'materialized') throw codedError('BadArgument', `pool.attentionSeeded: unknown variant '${variant}'`);
    const rows = taskRows === undefined ? defaultTaskRows({
      rows: n, keys: n, workers: count, blockQ: blockQ || 64, perWorker: n * n <= SHORT_CALL_PAIRS ? 4 : 16,
      maxRowBytes: variant === 'materialized' ? n * 4 : 0,
    }) : taskRows;
    if (!Number.isInteger(rows) || rows < 1) throw codedError('BadArgument', `pool.attentionSeeded: taskRows must be a whole number >= 1, got ${taskRows}`);
    const tasks = planTasks({ rows: n, keys: n, taskRows: rows, causal: !!causal });
    const workers = Math.min(count, tasks.length);
    const key = `seeded:${n}x${d}:${seed}`;
    const out = returnOut ? new Float32Array(n * d) : null;
    const parts = [];
    const checks = [];
    const progress = progressCounter(tasks);
    let scratchBytes = 0, heapBytes = 0, genMs = 0, t1 = 0;
    const t0 = now();
    await runJob({
      tasks, workers, signal,
      prepareOn: count,   // every worker draws the inputs (in parallel): the next call may use them all
      prepare: async (c) => {
        const g = await c.send('poolGenerate', { key, n, d, seed });
        genMs = Math.max(genMs, g.ms || 0);
        heapBytes = Math.max(heapBytes, g.heapBytes || 0);
        t1 = now();
      },
      message: (task) => ({
        arg: { key, r0: task.r0, r1: task.r1, causal, scale, variant, blockQ, blockK, rowOffset: 0, returnOut, checkRows },
        transfer: [],
      }),
      onResult: (task, res) => {
        if (out) placeRows(out, d, task.r0, res.out);
        parts.push({ r0: task.r0, sum: res.sum, maskedRows: res.maskedRows });
        checks.push(...(res.checks || []));
        scratchBytes = Math.max(scratchBytes, res.scratchBytes || 0);
        heapBytes = Math.max(heapBytes, res.heapBytes || 0);
        const p = progress.add(task);
        if (onProgress) { try { onProgress(p); } catch { /* ignore */ } }
      },
    });
    const end = now();
    const result = {
      n, d, seed, causal: !!causal, variant, workers, tasks: tasks.length, taskRows: rows,
      ms: end - (t1 || t0), genMs, totalMs: end - t0,
      scratchBytes, heapBytes,
      checksum: sumInRowOrder(parts),
      checks: checks.sort((a, b) => a.row - b.row),
      maskedRows: globalMaskedRows(parts),
      flops: attentionFlops({ L: n, S: n, dk: d, dv: d, causal: !!causal }),
    };
    if (out) result.out = { rows: n, cols: d, data: out };
    return result;
  }

  return {
    get ready() { return readyPromise; },
    get size() { return count; },
    attention: (args, opts) => enqueue(() => runAttention(args, opts)),
    attentionSeeded: (args, opts) => enqueue(() => runSeeded(args, opts)),
    release: () => enqueue(async () => { release(undefined); }),
    /** Stops every worker for good; a call in progress rejects with 'Cancelled'. */
    terminate() {
      terminated = true;
      for (const c of clients) { c.cancel(); c.terminate(); }
    },
  };
}
