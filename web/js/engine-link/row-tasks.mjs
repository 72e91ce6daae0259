// The engine pool's bookkeeping (engine-pool.mjs): putting the tasks' results
// back together, counting progress, estimating the time left, and the dynamic
// work queue that hands tasks to free workers. How a call is cut into tasks is
// pool-plan.mjs. No DOM, no Worker: everything here runs (and is tested) in Node.
//
// Usage:
//   await runQueue(tasks, workers, async (task, worker) => { … });
//   placeRows(out.data, dv, task.r0, taskOut);   // out.data: Float32Array(L * dv)

import { codedError } from './transport.mjs';

const isCount = (x) => Number.isInteger(x) && x >= 1;

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
 * The time left as a clock shows it: a fresh estimate (estimateRemainingMs) only when more
 * work is reported done; between reports the last estimate counts down with the clock (not
 * below 0). Re-estimating on every tick over the same finished work makes the estimate grow
 * with the elapsed time between reports: the 131,072-token run read 79 s, then 82 s.
 * Usage: const left = countdownEstimate();  … left(elapsedMs, { workDone, workTotal }) → ms | null
 */
export function countdownEstimate() {
  let at = null;   // the last estimate: { ms, elapsedMs, workDone }
  return (elapsedMs, { workDone, workTotal }) => {
    if (at === null || workDone !== at.workDone) {
      const ms = estimateRemainingMs({ elapsedMs, workDone, workTotal });
      if (ms == null) return null;
      at = { ms, elapsedMs, workDone };
    }
    return Math.max(0, at.ms - (elapsedMs - at.elapsedMs));
  };
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
