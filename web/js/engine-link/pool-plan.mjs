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
//   const { tasks, workers, taskRows } = planCall({ rows: L, keys: S, workers: 2, causal, window, masked, materialized, blockQ });
//   //   tasks: [{ index, r0, r1, rowOffset, cost }] (causal: most expensive first)
//   const { tasks, workers } = planHeads({ headsQ, headsKv, rows: L, keys: S, workers: 2, causal, window });
//   //   tasks: [{ index, g0, g1, r0, r1, cost }]: key/value heads [g0, g1) with their query heads

import { codedError } from './transport.mjs';

const isCount = (x) => Number.isInteger(x) && x >= 1;

/**
 * Number of (query, key) pairs the engine computes for query rows [r0, r1) of a call
 * (its cost, for planning on the page without a round trip to a worker): the engine's
 * visiblePairs for those rows, restated here because the plan is made synchronously, and
 * tied to the engine's count over a sweep of shapes by tests/node/pool-plan.test.mjs.
 * The rule (engine/README.md, engine/src/visibility.hpp):
 * with pos = i + rowOffset, `causal` keeps keys j <= pos, a `window` w > 0 keeps
 * pos - w < j with causal and |pos - j| < w without; S = keys. Exact and O(1):
 * the keys row pos sees, min(hi, S - 1) - max(lo, 0) + 1 (at least 0), is linear
 * in pos between a few kinks, so each piece is an arithmetic series.
 * (queryPeriod is not counted here: the pool does not split such calls.)
 */
export function pairsInRows(r0, r1, { keys, causal = false, rowOffset = 0, window = 0 }) {
  if (r1 <= r0) return 0;
  const S = keys, w = window > 0 ? window : 0;
  const seen = (pos) => {
    const hi = Math.min(S - 1, causal ? pos : w ? pos + w - 1 : S - 1);
    const lo = w ? Math.max(0, pos - w + 1) : 0;
    return Math.max(0, hi - lo + 1);
  };
  const a = r0 + rowOffset, b = r1 - 1 + rowOffset;
  // where hi reaches S - 1, where lo leaves 0, where lo passes the last key
  const kinks = [causal ? S - 1 : w ? S - w : null, w ? w - 1 : null, w ? S + w - 1 : null]
    .filter((k) => k !== null && k >= a && k < b).sort((x, y) => x - y);
  let total = 0, from = a;
  for (const k of [...new Set(kinks), b]) {
    total += ((seen(from) + seen(k)) * (k - from + 1)) / 2;
    from = k + 1;
  }
  return total;
}

/**
 * The flop count the benchmark uses for one call: 2 flops per multiply-add in
 * Q·Kᵀ (d_k) and in W·V (d_v) for every pair. Without a window, causal counts
 * half of L×S (so d_k = d_v = d gives 4·L·S·d, or 2·n²·d when causal, the
 * convention of every row of the bench); with a window w > 0 the exact visible
 * pairs (pairsInRows), since half of L×S would overstate a banded run n/(2w)-fold.
 */
export function attentionFlops({ L, S, dk, dv = dk, causal = false, window = 0, rowOffset = 0 }) {
  if (window > 0) return 2 * (dk + dv) * pairsInRows(0, L, { keys: S, causal, window, rowOffset });
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
export function planTasks({ rows, keys, taskRows, causal = false, rowOffset = 0, window = 0, order = 'auto' }) {
  if (!isCount(rows)) throw codedError('BadArgument', `planTasks: rows must be a whole number >= 1, got ${rows}`);
  if (!isCount(keys)) throw codedError('BadArgument', `planTasks: keys must be a whole number >= 1, got ${keys}`);
  if (!isCount(taskRows)) throw codedError('BadArgument', `planTasks: taskRows must be a whole number >= 1, got ${taskRows}`);
  if (!(Number.isInteger(rowOffset) && rowOffset >= 0)) throw codedError('BadArgument', `planTasks: rowOffset must be a whole number >= 0, got ${rowOffset}`);
  const tasks = [];
  for (let r0 = 0, i = 0; r0 < rows; r0 += taskRows, i++) {
    const r1 = Math.min(rows, r0 + taskRows);
    tasks.push({ index: i, r0, r1, rowOffset: rowOffset + r0, cost: pairsInRows(r0, r1, { keys, causal, rowOffset, window }) });
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
  rowOffset = 0, window = 0, taskRows, fn = 'pool' }) {
  const uniform = !causal && !masked;
  const short = rows * keys <= SHORT_CALL_PAIRS;
  const size = taskRows === undefined ? defaultTaskRows({
    rows, keys, workers, blockQ: blockQ || 64,
    perWorker: short ? (uniform ? 1 : 4) : (uniform ? 4 : 16),
    minPairs: uniform ? 2 ** 16 : 2 ** 18,
    maxRowBytes: materialized ? keys * 4 : 0,
  }) : taskRows;
  if (!isCount(size)) throw codedError('BadArgument', `${fn}: taskRows must be a whole number >= 1, got ${taskRows}`);
  const tasks = planTasks({ rows, keys, taskRows: size, causal, rowOffset, window });
  return { taskRows: size, tasks, workers: Math.min(workers, tasks.length) };
}

/** A few rows worth checking against the reference: the first, the middle and the last. */
export function checkRowsFor(rows) {
  return [...new Set([0, Math.floor(rows / 2), rows - 1])].filter((r) => r >= 0 && r < rows);
}

/**
 * The split of one multi-head call (pool.multiheadAttention): H_q query heads of
 * L rows each sharing H_kv key/value heads of S rows (head-major, query head h
 * reads key/value head floor(h / (H_q / H_kv))). A task is a run of whole
 * key/value groups [g0, g1) with every query head that reads them, so a group's
 * K and V go to one worker only; its query and output rows are [r0, r1) =
 * [g0·G·L, g1·G·L) with G = H_q / H_kv. Every group costs the same, so the groups
 * are dealt out evenly, one task per worker (the last tasks hold one group fewer
 * when H_kv is not a multiple of the workers), unless groupsPerTask is given.
 * cost: visible pairs of all the task's query heads (progress and flops).
 * → { tasks, workers (no more than there are tasks), groupsPerTask }
 */
export function planHeads({ headsQ, headsKv, rows, keys, workers, causal = false, window = 0, rowOffset = 0, groupsPerTask,
  fn = 'pool' }) {
  for (const [name, x] of [['headsQ', headsQ], ['headsKv', headsKv], ['rows', rows], ['keys', keys]])
    if (!isCount(x)) throw codedError('BadArgument', `${fn}: ${name} must be a whole number >= 1, got ${x}`);
  if (groupsPerTask !== undefined && !isCount(groupsPerTask))
    throw codedError('BadArgument', `${fn}: groupsPerTask must be a whole number >= 1, got ${groupsPerTask}`);
  if (headsQ % headsKv !== 0) throw codedError('BadArgument', `${fn}: headsQ ${headsQ} is not a multiple of headsKv ${headsKv}`);
  const G = headsQ / headsKv;
  const w = isCount(workers) ? workers : 1;
  const perHead = pairsInRows(0, rows, { keys, causal, rowOffset, window });
  // Without groupsPerTask: min(H_kv, workers) tasks whose sizes differ by at most one group.
  const count = groupsPerTask ? Math.ceil(headsKv / groupsPerTask) : Math.min(headsKv, w);
  const tasks = [];
  for (let i = 0, g0 = 0; i < count; i++) {
    const g1 = groupsPerTask ? Math.min(headsKv, g0 + groupsPerTask) : g0 + Math.floor(headsKv / count) + (i < headsKv % count ? 1 : 0);
    tasks.push({ index: i, g0, g1, r0: g0 * G * rows, r1: g1 * G * rows, cost: (g1 - g0) * G * perHead });
    g0 = g1;
  }
  return { tasks, workers: Math.min(w, tasks.length), groupsPerTask: groupsPerTask ?? null };
}
