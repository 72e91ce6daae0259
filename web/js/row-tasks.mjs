// Pure helpers of the engine pool (engine-pool.mjs): how the query rows of one
// attention call are cut into tasks, in which order the tasks are handed out,
// how their results are put back together, and a dynamic work queue.
// No DOM, no Worker: everything here runs (and is tested) in Node too.
//
// Shapes: q is L×d_k (the rows we split), k is S×d_k, v is S×d_v. A task is a
// contiguous range of query rows [r0, r1). The engine's causal rule is "query
// row i sees keys j <= i + rowOffset" (engine/README.md), so a task that holds
// rows r0… of a call whose own rowOffset is `base` runs with rowOffset base + r0:
// every row keeps its global index and sees exactly the keys it would see in
// one big call.
//
// Usage:
//   const taskRows = defaultTaskRows({ rows: L, workers: 2, blockQ: 64 });
//   const tasks = planTasks({ rows: L, keys: S, taskRows, causal: true, rowOffset: 0 });
//   //   [{ index, r0, r1, rowOffset, cost }] (causal: most expensive first)
//   await runQueue(tasks, workers, async (task, worker) => { … });
//   placeRows(out.data, dv, task.r0, taskOut);   // out.data: Float32Array(L * dv)

/** Ordinary error with an engine-style code (the pool's own errors). */
export function codedError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

/** Error the pool rejects with when a call is cancelled. */
export const cancelledError = () => codedError('Cancelled', 'cancelled');

const isCount = (x) => Number.isInteger(x) && x >= 1;

/**
 * Number of (query, key) pairs the engine computes for query rows [r0, r1)
 * when row i sees keys j <= i + rowOffset (causal) or all S keys.
 */
export function visiblePairs(r0, r1, { keys, causal = false, rowOffset = 0 }) {
  const rows = Math.max(0, r1 - r0);
  if (!causal) return rows * keys;
  // row i sees min(S, i + off + 1) keys (at least 1 since off >= 0): sum x for x in [a, b], capped at S
  const a = r0 + rowOffset + 1, b = r1 - 1 + rowOffset + 1;
  if (rows === 0) return 0;
  if (b <= keys) return ((a + b) * (b - a + 1)) / 2;
  if (a > keys) return rows * keys;
  return ((a + keys) * (keys - a + 1)) / 2 + (b - keys) * keys;
}

/**
 * The flop count the benchmark uses for one call: 2 flops per multiply-add in
 * Q·Kᵀ (d_k) and in W·V (d_v) for every pair, and causal counts half of L×S
 * (so d_k = d_v = d gives 4·L·S·d, or 2·n²·d when causal).
 */
export function attentionFlops({ L, S, dk, dv = dk, causal = false }) {
  return (causal ? 1 : 2) * L * S * (dk + dv);
}

/**
 * Rows per task when the caller gives none: about `perWorker` tasks per worker
 * (enough for the queue to even out causal imbalance and for a progress bar),
 * whole query tiles (a multiple of blockQ), at least blockQ rows, and with
 * `keys` given at least `minPairs` (query, key) pairs per task so that small
 * calls are not drowned in messages. With `maxRowBytes` (bytes one row needs,
 * e.g. S·4 for the materialized variant) a task stays under `taskBytes`.
 */
export function defaultTaskRows({ rows, keys = 0, workers = 1, blockQ = 64, perWorker = 16, minPairs = 2 ** 18,
  maxRowBytes = 0, taskBytes = 64 * 2 ** 20 }) {
  if (!isCount(rows)) return 1;
  const w = isCount(workers) ? workers : 1;
  const bq = isCount(blockQ) ? blockQ : 64;
  let r = Math.ceil(rows / (w * perWorker));
  if (isCount(keys)) r = Math.max(r, Math.ceil(minPairs / keys));
  r = Math.max(bq, Math.ceil(r / bq) * bq);
  if (maxRowBytes > 0) r = Math.min(r, Math.max(1, Math.floor(taskBytes / maxRowBytes)));
  return Math.max(1, Math.min(r, rows));
}

/**
 * Cut rows [0, rows) into tasks of taskRows rows (the last one may be shorter).
 * Each task: { index, r0, r1, rowOffset: rowOffset + r0, cost: visible pairs }.
 * order 'auto': causal calls hand out the most expensive tasks first (the last
 * rows see the most keys), so the queue ends on small tasks; others go top down.
 * 'rows' keeps row order, 'cost' sorts by cost whatever the mask.
 */
export function planTasks({ rows, keys, taskRows, causal = false, rowOffset = 0, order = 'auto' }) {
  if (!isCount(rows)) throw codedError('BadArgument', `planTasks: rows must be a whole number >= 1, got ${rows}`);
  if (!isCount(keys)) throw codedError('BadArgument', `planTasks: keys must be a whole number >= 1, got ${keys}`);
  if (!isCount(taskRows)) throw codedError('BadArgument', `planTasks: taskRows must be a whole number >= 1, got ${taskRows}`);
  if (!(Number.isInteger(rowOffset) && rowOffset >= 0)) throw codedError('BadArgument', `planTasks: rowOffset must be a whole number >= 0, got ${rowOffset}`);
  const tasks = [];
  for (let r0 = 0, i = 0; r0 < rows; r0 += taskRows, i++) {
    const r1 = Math.min(rows, r0 + taskRows);
    tasks.push({ index: i, r0, r1, rowOffset: rowOffset + r0, cost: visiblePairs(r0, r1, { keys, causal, rowOffset }) });
  }
  const byCost = order === 'cost' || (order === 'auto' && causal);
  if (byCost) tasks.sort((a, b) => b.cost - a.cost || a.index - b.index);
  return tasks;
}

/** Copy a task's output rows (Float32Array of (r1 - r0)·cols) into the whole output at row r0. */
export function placeRows(outData, cols, r0, taskData) {
  if (r0 * cols + taskData.length > outData.length)
    throw codedError('ShapeMismatch', `placeRows: ${taskData.length} numbers at row ${r0} do not fit ${outData.length / cols} rows of ${cols}`);
  outData.set(taskData, r0 * cols);
  return outData;
}

/** Rows [r0, r1) of a row-major {rows, cols, data} as a fresh copy (safe to transfer). */
export function sliceRows(m, r0, r1) {
  return { rows: r1 - r0, cols: m.cols, data: m.data.slice(r0 * m.cols, r1 * m.cols) };
}

/** Local masked-row indices of tasks ([{r0, maskedRows}]) → sorted global row indices. */
export function globalMaskedRows(parts) {
  const all = [];
  for (const p of parts) for (const i of p.maskedRows || []) all.push(p.r0 + i);
  return all.sort((a, b) => a - b);
}

/** Sum of per-task sums in row order (a fixed order, so the total does not depend on scheduling). */
export function sumInRowOrder(parts) {
  return [...parts].sort((a, b) => a.r0 - b.r0).reduce((s, p) => s + p.sum, 0);
}

/** A few rows worth checking against the reference: the first, the middle and the last. */
export function checkRowsFor(rows) {
  return [...new Set([0, Math.floor(rows / 2), rows - 1])].filter((r) => r >= 0 && r < rows);
}

/**
 * Progress of a call: rows done out of all rows, and the share of the work
 * (visible pairs) done, which is what an estimate of the time left needs.
 */
export function progressCounter(tasks) {
  const total = tasks.reduce((s, t) => s + (t.r1 - t.r0), 0);
  const workTotal = tasks.reduce((s, t) => s + t.cost, 0);
  let done = 0, workDone = 0;
  return {
    add(task) {
      done += task.r1 - task.r0;
      workDone += task.cost;
      return this.now();
    },
    now: () => ({ done, total, workDone, workTotal }),
  };
}

/**
 * Milliseconds left, from the time spent so far and the share of work done;
 * null before any work is done (no honest estimate yet).
 */
export function estimateRemainingMs({ elapsedMs, workDone, workTotal }) {
  if (!(workDone > 0) || !(workTotal > 0) || !(elapsedMs >= 0)) return null;
  if (workDone >= workTotal) return 0;
  return (elapsedMs * (workTotal - workDone)) / workDone;
}

/**
 * Run tasks on `workers` workers: each worker takes the next task from the
 * queue as soon as it is free (so slow tasks never hold up the others).
 * runOne(task, workerIndex) returns a Promise. The first rejection stops the
 * hand-out (tasks already running finish, their results are ignored by the
 * caller) and runQueue rejects with it; `stop()` returning true stops the
 * hand-out as well (runQueue then resolves). Resolves with the number of
 * tasks each worker ran.
 */
export async function runQueue(tasks, workers, runOne, { stop = () => false } = {}) {
  const queue = tasks.slice();
  const count = Math.max(1, Math.min(isCount(workers) ? workers : 1, queue.length || 1));
  const ran = new Array(count).fill(0);
  let failure = null;
  const loop = async (w) => {
    while (queue.length && !failure && !stop()) {
      const task = queue.shift();
      try {
        await runOne(task, w);
        ran[w]++;
      } catch (e) {
        if (!failure) failure = e || codedError('Unknown', 'task failed');
      }
    }
  };
  await Promise.all(Array.from({ length: count }, (_, w) => loop(w)));
  if (failure) throw failure;
  return ran;
}
