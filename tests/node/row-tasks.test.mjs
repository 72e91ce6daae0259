// The pure parts of the engine pool (web/js/row-tasks.mjs): row partitioning,
// rowOffset per task, costs and order, the dynamic queue, output assembly, and
// a whole split call run in Node with the real engine (tasks on fake async
// "workers") compared with one engine call: causal, L≠S, a base rowOffset, a mask.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  visiblePairs, attentionFlops, defaultTaskRows, planTasks, placeRows, sliceRows, globalMaskedRows,
  sumInRowOrder, checkRowsFor, progressCounter, estimateRemainingMs, runQueue, cancelledError,
} from '../../web/js/row-tasks.mjs';
import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

const brutePairs = (r0, r1, { keys, causal, rowOffset = 0 }) => {
  let s = 0;
  for (let i = r0; i < r1; i++) for (let j = 0; j < keys; j++) if (!causal || j <= i + rowOffset) s++;
  return s;
};

test('visiblePairs equals counting pair by pair (causal, offsets, L≠S)', () => {
  for (const keys of [1, 5, 17]) {
    for (const rowOffset of [0, 3, 20]) {
      for (const [r0, r1] of [[0, 0], [0, 1], [0, 9], [4, 13], [10, 30], [16, 17]]) {
        for (const causal of [false, true]) {
          assert.equal(visiblePairs(r0, r1, { keys, causal, rowOffset }), brutePairs(r0, r1, { keys, causal, rowOffset }),
            `keys ${keys} off ${rowOffset} [${r0}, ${r1}) causal ${causal}`);
        }
      }
    }
  }
});

test('attentionFlops: 4·L·S·d, and 2·n²·d when causal', () => {
  assert.equal(attentionFlops({ L: 8, S: 16, dk: 64 }), 4 * 8 * 16 * 64);
  assert.equal(attentionFlops({ L: 131072, S: 131072, dk: 64, causal: true }), 2 * 131072 ** 2 * 64);
  assert.equal(attentionFlops({ L: 2, S: 3, dk: 4, dv: 6 }), 2 * 2 * 3 * 10);
});

test('planTasks covers every row once, rowOffset = base + r0, last task shorter', () => {
  for (const [rows, taskRows] of [[1, 1], [1, 64], [10, 3], [100, 100], [1000, 96], [131072, 4096]]) {
    for (const base of [0, 7]) {
      const tasks = planTasks({ rows, keys: 50, taskRows, rowOffset: base });
      const seen = new Uint8Array(rows);
      for (const t of tasks) {
        assert.ok(t.r1 > t.r0 && t.r1 - t.r0 <= taskRows);
        assert.equal(t.rowOffset, base + t.r0);
        for (let i = t.r0; i < t.r1; i++) seen[i]++;
      }
      assert.ok(seen.every((x) => x === 1), `rows ${rows} taskRows ${taskRows}: every row exactly once`);
      assert.equal(tasks.length, Math.ceil(rows / taskRows));
      assert.deepEqual(tasks.map((t) => t.r0), [...tasks.map((t) => t.r0)].sort((a, b) => a - b), 'non-causal: row order');
    }
  }
  const last = planTasks({ rows: 10, keys: 10, taskRows: 4 }).at(-1);
  assert.deepEqual([last.r0, last.r1], [8, 10]);
});

test('planTasks: causal tasks are handed out most expensive first; costs sum to the visible pairs', () => {
  const tasks = planTasks({ rows: 1000, keys: 1000, taskRows: 96, causal: true });
  for (let i = 1; i < tasks.length; i++) assert.ok(tasks[i - 1].cost >= tasks[i].cost);
  assert.deepEqual([tasks[0].r0, tasks[0].r1], [864, 960], 'the last whole task first (the short tail [960, 1000) costs less)');
  assert.equal(tasks.at(-1).r0, 0, 'the first rows last');
  assert.equal(tasks.reduce((s, t) => s + t.cost, 0), 1000 * 1001 / 2);
  const rows = planTasks({ rows: 1000, keys: 1000, taskRows: 96, causal: true, order: 'rows' });
  assert.deepEqual(rows.map((t) => t.index), rows.map((_, i) => i));
});

test('planTasks refuses nonsense', () => {
  for (const bad of [{ rows: 0, keys: 1, taskRows: 1 }, { rows: 4, keys: 1, taskRows: 0 }, { rows: 4, keys: 0, taskRows: 1 },
    { rows: 4, keys: 1, taskRows: 1.5 }, { rows: 4, keys: 1, taskRows: 1, rowOffset: -1 }]) {
    assert.throws(() => planTasks(bad), (e) => e.code === 'BadArgument', JSON.stringify(bad));
  }
});

test('defaultTaskRows: whole query tiles, about 16 tasks per worker, bounded for materialized', () => {
  assert.equal(defaultTaskRows({ rows: 131072, workers: 2, blockQ: 64 }), 4096);
  assert.equal(defaultTaskRows({ rows: 100, workers: 2, blockQ: 64 }), 64);
  assert.equal(defaultTaskRows({ rows: 3, workers: 4, blockQ: 32 }), 3);
  assert.equal(defaultTaskRows({ rows: 5000, workers: 3, blockQ: 32 }) % 32, 0);
  // small calls: at least 2^18 pairs per task
  assert.equal(defaultTaskRows({ rows: 1024, keys: 1024, workers: 2, blockQ: 32 }), 256);
  assert.equal(defaultTaskRows({ rows: 131072, keys: 131072, workers: 2, blockQ: 64 }), 4096);
  // materialized: one task's L×S block stays under 64 MiB
  const r = defaultTaskRows({ rows: 131072, workers: 2, blockQ: 32, maxRowBytes: 131072 * 4 });
  assert.ok(r * 131072 * 4 <= 64 * 2 ** 20 && r >= 1);
});

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
  assert.deepEqual(checkRowsFor(1), [0]);
  assert.deepEqual(checkRowsFor(131072), [0, 65536, 131071]);
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
