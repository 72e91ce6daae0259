// How the engine pool splits a call (web/js/engine-link/pool-plan.mjs): the cost of a row range,
// the rows per task, the tasks and their order, the split of a whole call (planCall)
// and the rows checked against the reference. Pure functions, no Worker; the
// window's costs are also compared with the engine's own count (engine.visiblePairs).
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  pairsInRows, attentionFlops, defaultTaskRows, planTasks, planCall, planHeads, checkRowsFor, SHORT_CALL_PAIRS,
} from '../../web/js/engine-link/pool-plan.mjs';
import { loadEngine } from './engine-fixtures.mjs';

// The visibility rule of engine/README.md, pair by pair: pos = i + rowOffset; causal keeps
// j <= pos; a window w keeps pos - w < j (causal) or |pos - j| < w (without causal).
const sees = (pos, j, { causal, window = 0 }) =>
  (!causal || j <= pos) && (!window || (causal ? j > pos - window : Math.abs(pos - j) < window));
const brutePairs = (r0, r1, { keys, causal, rowOffset = 0, window = 0 }) => {
  let s = 0;
  for (let i = r0; i < r1; i++) for (let j = 0; j < keys; j++) if (sees(i + rowOffset, j, { causal, window })) s++;
  return s;
};

test('pairsInRows equals counting pair by pair (causal, offsets, L≠S)', () => {
  for (const keys of [1, 5, 17]) {
    for (const rowOffset of [0, 3, 20]) {
      for (const [r0, r1] of [[0, 0], [0, 1], [0, 9], [4, 13], [10, 30], [16, 17]]) {
        for (const causal of [false, true]) {
          assert.equal(pairsInRows(r0, r1, { keys, causal, rowOffset }), brutePairs(r0, r1, { keys, causal, rowOffset }),
            `keys ${keys} off ${rowOffset} [${r0}, ${r1}) causal ${causal}`);
        }
      }
    }
  }
});

test('pairsInRows with a window equals counting pair by pair (causal or band, offsets, L≠S, w = 1, w >= n)', () => {
  for (const keys of [1, 5, 17, 40]) {
    for (const rowOffset of [0, 3, 20, 50]) {
      for (const window of [1, 2, 4, 7, 16, 64]) {
        for (const [r0, r1] of [[0, 0], [0, 1], [0, 9], [4, 13], [10, 30], [16, 17], [0, 60]]) {
          for (const causal of [false, true]) {
            const o = { keys, causal, rowOffset, window };
            assert.equal(pairsInRows(r0, r1, o), brutePairs(r0, r1, o), JSON.stringify({ r0, r1, ...o }));
          }
        }
      }
    }
  }
});

// The page plans with its own pair count (pairsInRows); the engine's visiblePairs is the rule's
// one home: the two must agree on every shape the pool can be given.
test('pairsInRows equals engine.visiblePairs over a sweep of shapes (windows, causal, L≠S, offsets, sub-ranges)', async () => {
  const engine = await loadEngine();
  let shapes = 0;
  for (const L of [1, 2, 7, 16, 33]) {
    for (const S of [1, 3, 7, 16, 40]) {
      for (const causal of [false, true]) {
        for (const window of [0, 1, 2, 5, 16, 64]) {
          for (const rowOffset of [0, 1, 6, 39]) {
            const o = { keys: S, causal, window, rowOffset };
            assert.equal(pairsInRows(0, L, o), engine.visiblePairs({ L, S, causal, window, rowOffset }), JSON.stringify({ L, ...o }));
            const r0 = Math.floor(L / 3), r1 = L - Math.floor(L / 4);
            assert.equal(pairsInRows(r0, r1, o), engine.visiblePairs({ L: r1 - r0, S, causal, window, rowOffset: rowOffset + r0 }),
              JSON.stringify({ r0, r1, ...o }));
            shapes++;
          }
        }
      }
    }
  }
  assert.equal(shapes, 1200);
});

test('task costs with a window equal engine.visiblePairs for the same rows', async () => {
  const engine = await loadEngine();
  for (const { rows, keys, window, causal, rowOffset = 0, taskRows } of [
    { rows: 131072, keys: 131072, window: 4096, causal: true, taskRows: 4096 },
    { rows: 1000, keys: 1000, window: 100, causal: true, taskRows: 96, rowOffset: 7 },
    { rows: 300, keys: 500, window: 33, causal: false, taskRows: 64, rowOffset: 150 },
    { rows: 64, keys: 64, window: 1, causal: true, taskRows: 10 },
  ]) {
    for (const t of planTasks({ rows, keys, taskRows, causal, rowOffset, window })) {
      const e = engine.visiblePairs({ L: t.r1 - t.r0, S: keys, causal, window, rowOffset: t.rowOffset });
      assert.equal(t.cost, e, `rows [${t.r0}, ${t.r1}) window ${window} causal ${causal}`);
    }
  }
  // the whole windowed causal run of the bench: 4096·4097/2 + 126976·4096 (engine/README.md)
  assert.equal(planTasks({ rows: 131072, keys: 131072, taskRows: 4096, causal: true, window: 4096 })
    .reduce((s, t) => s + t.cost, 0), 4096 * 4097 / 2 + 126976 * 4096);
});

test('planTasks: with a causal window every task past the first window costs rows·w, and the total stays under n·w', () => {
  const tasks = planTasks({ rows: 16384, keys: 16384, taskRows: 1024, causal: true, window: 2048 });
  const full = tasks.filter((t) => t.r0 >= 2048);
  assert.ok(full.every((t) => t.cost === 1024 * 2048), 'rows past the first window each see exactly w keys');
  assert.ok(tasks.reduce((s, t) => s + t.cost, 0) < 16384 * 2048);
});

test('attentionFlops: 4·L·S·d, and 2·n²·d when causal', () => {
  assert.equal(attentionFlops({ L: 8, S: 16, dk: 64 }), 4 * 8 * 16 * 64);
  assert.equal(attentionFlops({ L: 131072, S: 131072, dk: 64, causal: true }), 2 * 131072 ** 2 * 64);
  assert.equal(attentionFlops({ L: 2, S: 3, dk: 4, dv: 6 }), 2 * 2 * 3 * 10);
});

test('attentionFlops with a window: 2·(d_k + d_v) per visible pair, not the full or half square', () => {
  const pairs = 4096 * 4097 / 2 + 126976 * 4096;
  assert.equal(attentionFlops({ L: 131072, S: 131072, dk: 64, causal: true, window: 4096 }), 2 * 128 * pairs);
  assert.equal(attentionFlops({ L: 10, S: 10, dk: 2, window: 3 }), 2 * 4 * brutePairs(0, 10, { keys: 10, causal: false, window: 3 }));
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

test('checkRowsFor: the first, the middle and the last row, each once', () => {
  assert.deepEqual(checkRowsFor(1), [0]);
  assert.deepEqual(checkRowsFor(2), [0, 1]);
  assert.deepEqual(checkRowsFor(131072), [0, 65536, 131071]);
});

// Every row in exactly one task, and no more workers than tasks.
function assertCovers(plan, rows) {
  const seen = new Uint8Array(rows);
  for (const t of plan.tasks) for (let i = t.r0; i < t.r1; i++) seen[i]++;
  assert.ok(seen.every((x) => x === 1), 'every row exactly once');
  assert.ok(plan.workers >= 1 && plan.workers <= plan.tasks.length);
}

test('planCall: a short call of equal-cost rows is one task per worker; causal or masked rows get more', () => {
  const base = { rows: 2048, keys: 2048, workers: 2, blockQ: 64 };
  assert.ok(base.rows * base.keys <= SHORT_CALL_PAIRS);
  const uniform = planCall(base);
  assertCovers(uniform, 2048);
  assert.equal(uniform.tasks.length, 2);
  for (const extra of [{ causal: true }, { masked: true }]) {
    const p = planCall({ ...base, ...extra });
    assertCovers(p, 2048);
    assert.ok(p.tasks.length > uniform.tasks.length, JSON.stringify(extra));
    assert.ok(p.tasks.every((t) => (t.r1 - t.r0) % 64 === 0), 'whole query tiles');
  }
});

test('planCall: a long call is cut finer than a short one, so progress moves', () => {
  const long = { rows: 16384, keys: 16384, workers: 2, blockQ: 64 };
  assert.ok(long.rows * long.keys > SHORT_CALL_PAIRS);
  const short = planCall({ ...long, rows: 2048, keys: 2048 });
  assert.ok(planCall(long).tasks.length / 2 > short.tasks.length / 2, 'more tasks per worker');
  assert.ok(planCall({ ...long, causal: true }).tasks.length > planCall(long).tasks.length);
});

test('planCall: materialized tasks hold at most 64 MiB of scores; an explicit taskRows wins', () => {
  const p = planCall({ rows: 131072, keys: 131072, workers: 2, blockQ: 64, materialized: true });
  assertCovers(p, 131072);
  for (const t of p.tasks) assert.ok((t.r1 - t.r0) * 131072 * 4 <= 64 * 2 ** 20);
  const given = planCall({ rows: 1000, keys: 1000, workers: 2, taskRows: 96, causal: true, rowOffset: 5 });
  assert.equal(given.taskRows, 96);
  assert.equal(given.tasks.length, 11);
  assert.ok(given.tasks.every((t) => t.rowOffset === 5 + t.r0));
  assertCovers(given, 1000);
});

test('planCall: fewer rows than workers uses only as many workers as there are tasks', () => {
  const p = planCall({ rows: 3, keys: 5, workers: 4, taskRows: 1 });
  assert.deepEqual([p.tasks.length, p.workers], [3, 3]);
  assert.equal(planCall({ rows: 1, keys: 1, workers: 4 }).workers, 1);
});

test('planCall refuses a taskRows that is not a whole number >= 1, naming its caller', () => {
  for (const taskRows of [0, -3, 1.5, '8', null]) {
    assert.throws(() => planCall({ rows: 10, keys: 10, workers: 2, taskRows, fn: 'pool.attention' }),
      (e) => e.code === 'BadArgument' && e.message.startsWith('pool.attention: taskRows'), String(taskRows));
  }
});

test('planHeads: whole key/value groups per task, each group in one task, rows head-major, costs per query head', () => {
  for (const [headsQ, headsKv, workers] of [[8, 2, 2], [8, 8, 2], [8, 1, 2], [6, 3, 2], [12, 3, 4], [10, 5, 2], [4, 4, 3]]) {
    const L = 7, S = 9, G = headsQ / headsKv;
    const p = planHeads({ headsQ, headsKv, rows: L, keys: S, workers, causal: true, window: 3 });
    const seen = new Uint8Array(headsKv);
    for (const t of p.tasks) {
      assert.ok(t.g1 > t.g0);
      for (let g = t.g0; g < t.g1; g++) seen[g]++;
      assert.deepEqual([t.r0, t.r1], [t.g0 * G * L, t.g1 * G * L]);
      assert.equal(t.cost, (t.g1 - t.g0) * G * pairsInRows(0, L, { keys: S, causal: true, window: 3 }));
    }
    assert.ok(seen.every((x) => x === 1), `${headsQ}/${headsKv}: every group in exactly one task`);
    assert.equal(p.tasks.length, Math.min(headsKv, workers));
    assert.equal(p.workers, Math.min(headsKv, workers));
    const sizes = p.tasks.map((t) => t.g1 - t.g0);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${headsQ}/${headsKv} on ${workers}: groups dealt evenly ${sizes}`);
  }
  assert.deepEqual(planHeads({ headsQ: 8, headsKv: 8, rows: 1, keys: 1, workers: 2, groupsPerTask: 3 }).tasks.map((t) => [t.g0, t.g1]),
    [[0, 3], [3, 6], [6, 8]]);
  for (const bad of [{ headsQ: 0 }, { headsKv: 1.5 }, { groupsPerTask: 0 }, { headsQ: 6, headsKv: 4 }]) {
    assert.throws(() => planHeads({ headsQ: 8, headsKv: 2, rows: 4, keys: 4, workers: 2, fn: 'pool.multiheadAttention', ...bad }),
      (e) => e.code === 'BadArgument' && e.message.startsWith('pool.multiheadAttention:'), JSON.stringify(bad));
  }
});
