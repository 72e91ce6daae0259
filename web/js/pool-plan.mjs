// How the engine pool (engine-pool.mjs) splits one attention call across its
// workers: the cost of a range of query rows, the rows per task, the tasks and
// the order they are handed out in, and which rows are checked against the
// reference. Pure: no DOM, no Worker (tested in Node: tests/node/pool-plan.test.mjs).
//
// Shapes: q is L×d_k (the rows we split), k is S×d_k, v is S×d_v. A task is a
// contiguous range of query rows [r0, r1). The engine's causal rule is "query
// row i sees keys j <= i + rowOffset" (engine/README.md), so a task that holds
// rows r0… of a call whose own rowOffset is `base` runs with rowOffset base + r0:
// every row keeps its global index and sees exactly the keys it would see in
// one big call.
//
// Usage:
//   const { tasks, workers, taskRows } = planCall({ rows: L, keys: S, workers: 2, causal, masked, materialized, blockQ });
//   //   tasks: [{ index, r0, r1, rowOffset, cost }] (causal: most expensive first)

import { codedError } from './transport.mjs';

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

// Calls up to this many (query, key) pairs (4096², a fraction of a second) are
// split into few tasks, since each task costs a round trip and an engine call
// of its own; longer ones keep a finer split so that progress moves.
export const SHORT_CALL_PAIRS = 2 ** 26;

/**
 * The split of one pool call: L = rows query rows against S = keys keys on up to
 * `workers` workers. Short calls (SHORT_CALL_PAIRS): rows of equal cost (no
 * causal rule, no mask) one task per worker, others 4 per worker so the queue
 * can even out their costs (best of 8 in Chromium, 2 workers, against 4 and 16
 * per worker: n = 512 2.62 → 1.84 ms, n = 2048 17.7 → 15.3 ms, causal n = 2048
 * 10.8 → 10.0 ms and n = 4096 34.9 → 32.3 ms); long calls 4 and 16, so that
 * progress moves. An explicit taskRows wins; `fn` names the caller in its message.
 * → { taskRows, tasks, workers (no more than there are tasks) }
 */
export function planCall({ rows, keys, workers, causal = false, masked = false, materialized = false, blockQ,
  rowOffset = 0, taskRows, fn = 'pool' }) {
  const uniform = !causal && !masked;
  const short = rows * keys <= SHORT_CALL_PAIRS;
  const size = taskRows === undefined ? defaultTaskRows({
    rows, keys, workers, blockQ: blockQ || 64,
    perWorker: short ? (uniform ? 1 : 4) : (uniform ? 4 : 16),
    minPairs: uniform ? 2 ** 16 : 2 ** 18,
    maxRowBytes: materialized ? keys * 4 : 0,
  }) : taskRows;
  if (!isCount(size)) throw codedError('BadArgument', `${fn}: taskRows must be a whole number >= 1, got ${taskRows}`);
  const tasks = planTasks({ rows, keys, taskRows: size, causal, rowOffset });
  return { taskRows: size, tasks, workers: Math.min(workers, tasks.length) };
}

/** A few rows worth checking against the reference: the first, the middle and the last. */
export function checkRowsFor(rows) {
  return [...new Set([0, Math.floor(rows / 2), rows - 1])].filter((r) => r >= 0 && r < rows);
}
