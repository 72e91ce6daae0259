// The pool's bookkeeping (web/js/engine-link/row-tasks.mjs): the dynamic queue, output assembly,
// progress, and a whole split call (planned by pool-plan.mjs) run in Node with the
// real engine (tasks on fake async "workers") compared with one engine call: causal,
// L≠S, a base rowOffset, a mask.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  placeRows, sliceRows, globalMaskedRows, sumInRowOrder, progressCounter, estimateRemainingMs, countdownEstimate, runQueue,
} from '../../web/js/engine-link/row-tasks.mjs';
import { planTasks } from '../../web/js/engine-link/pool-plan.mjs';
import { cancelledError } from '../../web/js/engine-link/transport.mjs';
import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

test('placeRows / sliceRows / globalMaskedRows / sumInRowOrder', () => {
  const m = { rows: 4, cols: 2, data: Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]) };
  const s = sliceRows(m, 1, 3);
  assert.deepEqual([s.rows, s.cols, [...s.data]], [2, 2, [2, 3, 4, 5]]);
  s.data[0] = 99;
  assert.equal(m.data[2], 2, 'a slice is a copy');
  const out = new Float32Array(8);
  placeRows(out, 2, 2, Float32Array.from([4, 5, 6, 7]));
  placeRows(out, 2, 0, Float32Array.from([0, 1, 2, 3]));
  assert.deepEqual([...out], [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.throws(() => placeRows(out, 2, 3, Float32Array.from([1, 2, 3, 4])), (e) => e.code === 'ShapeMismatch');
  assert.deepEqual(globalMaskedRows([{ r0: 10, maskedRows: [2, 0] }, { r0: 0, maskedRows: [3] }, { r0: 5 }]), [3, 10, 12]);
  assert.equal(sumInRowOrder([{ r0: 5, sum: 0.25 }, { r0: 0, sum: 1 }]), 1.25);
});

test('progressCounter and estimateRemainingMs', () => {
  const tasks = planTasks({ rows: 10, keys: 10, taskRows: 5, causal: true });
  const p = progressCounter(tasks);
  assert.deepEqual(p.now(), { done: 0, total: 10, workDone: 0, workTotal: 55 });
  const after = p.add(tasks[0]);   // rows 5..9: 6+7+8+9+10 = 40 pairs
  assert.deepEqual(after, { done: 5, total: 10, workDone: 40, workTotal: 55 });
  assert.equal(estimateRemainingMs({ elapsedMs: 800, workDone: 40, workTotal: 55 }), 300);
  assert.equal(estimateRemainingMs({ elapsedMs: 800, workDone: 0, workTotal: 55 }), null);
  assert.equal(estimateRemainingMs({ elapsedMs: 800, workDone: 55, workTotal: 55 }), 0);
});

const tick = (ms) => new Promise((r) => setTimeout(r, ms));

test('runQueue: a free worker takes the next task (slow tasks do not hold up the others)', async () => {
  // No timing: the slow task is held open until the six short ones have all run,
  // so the assertion cannot depend on how loaded the machine is.
  let releaseSlow;
  const slowHeld = new Promise((resolve) => { releaseSlow = resolve; });
  const tasks = [{ id: 'slow' }, ...Array.from({ length: 6 }, (_, i) => ({ id: i }))];
  const by = { 0: [], 1: [] };
  let shortDone = 0;
  const ran = await runQueue(tasks, 2, async (t, w) => {
    by[w].push(t.id);
    if (t.id === 'slow') { await slowHeld; return; }
    await tick(1);
    if (++shortDone === 6) releaseSlow();
  });
  assert.deepEqual(by[0], ['slow']);
  assert.equal(by[1].length, 6);
  assert.deepEqual(ran, [1, 6]);
});

test('runQueue: more workers than tasks, no tasks, and one worker', async () => {
  const seen = [];
  assert.deepEqual(await runQueue([{ i: 0 }, { i: 1 }], 8, async (t, w) => { seen.push(w); }), [1, 1]);
  assert.deepEqual(seen.sort(), [0, 1]);
  assert.deepEqual(await runQueue([], 3, async () => { throw new Error('never'); }), [0]);
  const order = [];
  await runQueue([1, 2, 3], 1, async (t) => { order.push(t); });
  assert.deepEqual(order, [1, 2, 3]);
});

test('runQueue: the first error stops the hand-out and is what the caller gets; stop() ends it quietly', async () => {
  let started = 0;
  const err = Object.assign(new Error('too large'), { code: 'TooLarge' });
  await assert.rejects(runQueue(Array.from({ length: 20 }, (_, i) => i), 2, async (t) => {
    started++;
    await tick(2);
    if (t === 3) throw err;
  }), (e) => e === err);
  assert.ok(started < 20, `hand-out stopped (${started} started)`);
  let n = 0;
  const ran = await runQueue(Array.from({ length: 20 }, (_, i) => i), 2, async () => { n++; await tick(1); }, { stop: () => n >= 4 });
  assert.ok(n >= 4 && n < 20 && ran[0] + ran[1] === n);
  assert.equal(cancelledError().code, 'Cancelled');
});

// ------------------------------------------------------------------ a split call with the real engine
const engine = await loadEngine();

// What the pool does, without Workers: tasks on `workers` fake async workers, each
// running the engine on its Q rows (and mask rows) with the task's rowOffset.
async function splitCall({ q, k, v, mask, causal, variant, rowOffset = 0, taskRows, workers = 2, blockQ, blockK }) {
  const tasks = planTasks({ rows: q.rows, keys: k.rows, taskRows, causal, rowOffset });
  const out = new Float32Array(q.rows * v.cols);
  const parts = [];
  await runQueue(tasks, workers, async (t) => {
    await tick(0);
    const qs = sliceRows(q, t.r0, t.r1);
    const ms = mask ? { rows: t.r1 - t.r0, cols: k.rows, data: mask.data.slice(t.r0 * k.rows, t.r1 * k.rows) } : undefined;
    const r = engine.attention({ q: qs, k, v, mask: ms, causal, variant, blockQ, blockK, rowOffset: t.rowOffset });
    placeRows(out, v.cols, t.r0, r.out.data);
    parts.push({ r0: t.r0, maskedRows: r.maskedRows });
  });
  return { out, maskedRows: globalMaskedRows(parts) };
}

const rnd = (seed, rows, cols) => engine.randomNormal({ seed, rows, cols });

test('split call = one call: causal, non-causal, n not a multiple of taskRows, n smaller than the workers', async () => {
  for (const { L, taskRows, workers, causal, variant } of [
    { L: 203, taskRows: 32, workers: 2, causal: true, variant: 'chunked' },
    { L: 203, taskRows: 50, workers: 3, causal: false, variant: 'chunked' },
    { L: 203, taskRows: 7, workers: 2, causal: true, variant: 'materialized' },
    { L: 3, taskRows: 1, workers: 4, causal: true, variant: 'chunked' },
  ]) {
    const q = rnd(1, L, 16), k = rnd(2, L, 16), v = rnd(3, L, 8);
    const one = engine.attention({ q, k, v, causal, variant, blockQ: 16, blockK: 16 });
    const split = await splitCall({ q, k, v, causal, variant, taskRows, workers, blockQ: 16, blockK: 16 });
    assert.ok(maxAbsDiff(split.out, one.out.data) <= 1e-6, `L ${L} taskRows ${taskRows} causal ${causal} ${variant}`);
  }
});

test('split call = one call with L≠S: top-left causal (rowOffset 0) and bottom-right (rowOffset S − L)', async () => {
  const L = 70, S = 130;
  const q = rnd(4, L, 8), k = rnd(5, S, 8), v = rnd(6, S, 4);
  for (const rowOffset of [0, S - L]) {
    const one = engine.attention({ q, k, v, causal: true, variant: 'chunked', rowOffset });
    const split = await splitCall({ q, k, v, causal: true, variant: 'chunked', rowOffset, taskRows: 16 });
    assert.ok(maxAbsDiff(split.out, one.out.data) <= 1e-6, `rowOffset ${rowOffset}`);
  }
  // without the per-task rowOffset the slices would see the wrong keys: the check has teeth
  const wrong = engine.attention({ q: sliceRows(q, 32, 48), k, v, causal: true, variant: 'chunked' });
  const right = engine.attention({ q, k, v, causal: true, variant: 'chunked' });
  assert.ok(maxAbsDiff(wrong.out.data, right.out.data.slice(32 * 4, 48 * 4)) > 1e-3);
});

test('split call: masked rows come back as global row indices', async () => {
  const L = 40, S = 30;
  const q = rnd(7, L, 4), k = rnd(8, S, 4), v = rnd(9, S, 3);
  const mask = { rows: L, cols: S, data: new Uint8Array(L * S).fill(1) };
  for (const r of [0, 17, 39]) mask.data.fill(0, r * S, (r + 1) * S);
  const one = engine.attention({ q, k, v, mask, variant: 'materialized' });
  const split = await splitCall({ q, k, v, mask, variant: 'chunked', taskRows: 6 });
  assert.deepEqual(split.maskedRows, [0, 17, 39]);
  assert.deepEqual(split.maskedRows, [...one.maskedRows].sort((a, b) => a - b));
  assert.ok(maxAbsDiff(split.out, one.out.data) <= 1e-6);
});

// walkthrough fa #10: the long run's time left rose between progress reports (79 s, then 82 s)
test('countdownEstimate: re-estimates on new work only, and counts down in between', () => {
  const left = countdownEstimate();
  assert.equal(left(500, { workDone: 0, workTotal: 100 }), null, 'no estimate before any work is done');
  assert.equal(left(1000, { workDone: 10, workTotal: 100 }), 9000);
  assert.equal(left(2000, { workDone: 10, workTotal: 100 }), 8000, 'one second later, one second less');
  assert.equal(left(3000, { workDone: 10, workTotal: 100 }), 7000);
  assert.equal(left(4000, { workDone: 40, workTotal: 100 }), 6000, 'new work: a fresh estimate');
  assert.equal(left(20000, { workDone: 40, workTotal: 100 }), 0, 'never below zero');
  assert.equal(left(21000, { workDone: 100, workTotal: 100 }), 0);
});
