// Section 8's numbers without the page (web/js/sections/s8-compute.mjs), from the real
// engine; part 2 through a real engine pool whose workers are fake-worker.mjs's
// (a MessageChannel each, the real worker handlers over the real engine.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';
import { installFakeWorkers } from './fake-worker.mjs';
import { createEnginePool } from '../../web/js/engine-link/engine-pool.mjs';
import { poolHandlers } from '../../web/js/engine-link/pool-worker.mjs';
import {
  classifyTile, tileGrid, computeTrace, askMaterialized, runChunked, EQUAL_TOL, DV,
} from '../../web/js/sections/s8-compute.mjs';

const engine = await loadEngine();
const workers = installFakeWorkers(() => ({ target: engine, handlers: poolHandlers(engine), info: {} }));
test.after(() => workers.uninstall());

// every (keys, block, row, causal) the page allows for a few seeds, kept small
const settings = [];
for (const keys of [2, 5, 10, 16]) {
  for (const block of [1, 3, 4, 16]) {
    for (const causal of [false, true]) {
      for (const row of new Set([0, Math.floor(keys / 2), keys - 1])) settings.push({ keys, block, seed: 7 + keys, row, causal });
    }
  }
}

test('the traced row ends where the materialized one is, within the stated tolerance', async () => {
  for (const p of settings) {
    const r = await computeTrace(engine, p);
    assert.equal(r.mat.length, DV);
    assert.ok(r.diff < EQUAL_TOL, `${JSON.stringify(p)}: diff ${r.diff}`);
  }
});

test('the running max and sum end at the row\'s true max and softmax sum over the keys it sees', async () => {
  for (const p of settings) {
    const r = await computeTrace(engine, p);
    const seen = r.causal ? r.scores.slice(0, r.row + 1) : r.scores;
    const max = Math.max(...seen);
    const sum = [...seen].reduce((s, x) => s + Math.exp(x - max), 0);
    const last = r.trace.steps.at(-1);
    const where = JSON.stringify(p);
    assert.ok(Math.abs(last.mNew - max) < 1e-6, `${where}: m ${last.mNew} vs ${max}`);
    assert.ok(Math.abs(last.lNew - sum) < 1e-5 * sum, `${where}: l ${last.lNew} vs ${sum}`);
    // the running max never falls, and each tile's keys follow the last tile's
    for (let i = 1; i < r.trace.steps.length; i++) {
      const a = r.trace.steps[i - 1], b = r.trace.steps[i];
      assert.ok(b.mNew >= a.mNew, where);
      assert.equal(b.keyBegin, a.keyEnd, where);
    }
    // tiles past a causal row are never read: the trace stops at the tile holding the row
    const tiles = r.causal ? Math.floor(r.row / r.block) + 1 : Math.ceil(r.keys / r.block);
    assert.equal(r.trace.steps.length, tiles, where);
  }
});

test('the same seed gives the same trace; the next seed another', async () => {
  const p = { keys: 10, block: 3, seed: 7, row: 4, causal: true };
  const a = await computeTrace(engine, p), b = await computeTrace(engine, p);
  assert.deepEqual([...a.scores], [...b.scores]);
  assert.deepEqual([...a.trace.out], [...b.trace.out]);
  const c = await computeTrace(engine, { ...p, seed: 8 });
  assert.notDeepEqual([...a.scores], [...c.scores]);
});

test('the tile grid: every tile counted once; computed entries cover the visible ones; none skipped without the mask', () => {
  for (let n = 1; n <= 16; n++) {
    for (let b = 1; b <= 16; b++) {
      for (const causal of [false, true]) {
        const g = tileGrid(n, b, causal);
        const where = `n=${n} b=${b} causal=${causal}`;
        assert.equal(g.T, Math.ceil(n / b), where);
        assert.equal(g.count.full + g.count.partial + g.count.skip, g.T * g.T, where);
        assert.ok(g.computed >= g.visible && g.computed <= n * n, `${where}: ${g.computed} vs ${g.visible}`);
        if (!causal) assert.deepEqual([g.count.partial, g.count.skip, g.computed], [0, 0, n * n], where);
        else {
          // below the diagonal full, above it skipped; a diagonal tile is partial unless it holds
          // one row and one key (then its one entry is visible)
          const diag = (qi) => { const [q0, q1] = g.span(qi); return q1 - q0 > 1 ? 'partial' : 'full'; };
          g.kinds.forEach((row, qi) => row.forEach((kind, ki) => assert.equal(kind, ki < qi ? 'full' : ki === qi ? diag(qi) : 'skip', `${where} tile ${qi},${ki}`)));
        }
      }
    }
  }
  assert.equal(classifyTile(3, 4, 3, 4), 'full');
  assert.equal(classifyTile(3, 4, 4, 5), 'skip');
  assert.equal(classifyTile(0, 4, 0, 4), 'partial');
});

// The step-through's causal option: row i's causal trace is the plain trace over keys 0…i
// (the same tiles, the same output), and it ends at the engine's causal materialized row.
test('the causal trace of row i equals the plain trace over keys 0…i and the causal row', async () => {
  for (const [keys, block] of [[10, 3], [16, 4], [7, 2], [12, 5], [5, 1], [9, 16]]) {
    for (const row of new Set([0, 2, Math.floor(keys / 2), keys - 1])) {
      const seed = 7;
      const q = engine.randomNormal({ seed, rows: keys, cols: 4 });
      const k = engine.randomNormal({ seed: seed + 1, rows: keys, cols: 4 });
      const v = engine.randomNormal({ seed: seed + 2, rows: keys, cols: DV });
      const r = await computeTrace(engine, { keys, block, seed, row, causal: true });
      const prefix = engine.onlineSoftmaxTrace({
        q: { rows: 1, cols: 4, data: q.data.slice(row * 4, row * 4 + 4) },
        k: { rows: row + 1, cols: 4, data: k.data.slice(0, (row + 1) * 4) },
        v: { rows: row + 1, cols: DV, data: v.data.slice(0, (row + 1) * DV) }, row: 0, blockK: block,
      });
      const where = `keys ${keys} block ${block} row ${row}`;
      assert.equal(r.trace.steps.length, prefix.steps.length, `${where}: the tiles of keys 0…i`);
      for (let i = 0; i < DV; i++) assert.ok(Math.abs(r.trace.out[i] - prefix.out[i]) <= 1e-6, `${where}: output ${i}`);
      const causalRow = engine.attention({ q, k, v, causal: true, variant: 'materialized' }).out.data.slice(row * DV, (row + 1) * DV);
      for (let i = 0; i < DV; i++) assert.ok(Math.abs(r.mat[i] - causalRow[i]) <= 1e-7, `${where}: the materialized causal row`);
    }
  }
});

// The grid the page draws says of each (query tile, key tile) what the engine's causal weights
// say: no visible entry → skipped, every entry visible → full, else partly masked.
test('the tile grid classifies every tile as the engine\'s causal weights do, and counts their visible entries', () => {
  for (const [keys, block] of [[10, 3], [16, 4], [7, 2], [12, 5], [5, 1], [9, 16], [16, 1], [13, 6]]) {
    const q = engine.randomNormal({ seed: 7, rows: keys, cols: 4 });
    const k = engine.randomNormal({ seed: 8, rows: keys, cols: 4 });
    const v = engine.randomNormal({ seed: 9, rows: keys, cols: DV });
    const w = engine.attention({ q, k, v, causal: true, variant: 'materialized', returnWeights: true }).weights.data;
    const g = tileGrid(keys, block, true);
    let visible = 0;
    for (let qt = 0; qt < g.T; qt++) {
      for (let kt = 0; kt < g.T; kt++) {
        const [q0, q1] = g.span(qt), [k0, k1] = g.span(kt);
        let seen = 0, all = 0;
        for (let i = q0; i < q1; i++) for (let j = k0; j < k1; j++) { all++; if (w[i * keys + j] > 0) seen++; }
        visible += seen;
        assert.equal(g.kinds[qt][kt], seen === 0 ? 'skip' : seen === all ? 'full' : 'partial', `keys ${keys} block ${block}: tile ${qt},${kt} (${seen} of ${all})`);
      }
    }
    assert.equal(g.visible, visible, `keys ${keys} block ${block}: visible pairs = the engine weights that are not zero`);
  }
});

// ---- part 2, at lengths Node runs in well under a second
const withPool = async (fn) => {
  const pool = createEnginePool({ size: 2 });
  try { return await fn(pool); } finally { pool.terminate(); }
};

test('at scale, chunked: the checked rows match the reference; scratch per worker does not depend on n', async () => {
  const runs = {};
  await withPool(async (pool) => {
    for (const causal of [true, false]) {
      for (const n of [256, 1024]) {
        const progress = [];
        runs[`${n}${causal}`] = await runChunked(pool, { n, causal }, { onProgress: (p) => progress.push(p.done) });
        const r = runs[`${n}${causal}`];
        const where = `n=${n} causal=${causal}`;
        assert.ok(r.maxDiff <= 1e-5, `${where}: ${r.maxDiff}`);   // the bound the page's browser test holds it to
        assert.ok(r.checks.length >= 2 && r.checks.some((c) => c.row === n - 1), `${where}: the last row is checked`);
        assert.ok(r.gflops > 0 && Number.isFinite(r.gflops), where);
        assert.ok(progress.length >= 2 && progress.at(-1) === n, `${where}: progress ${progress}`);
        assert.ok(progress.every((x, i) => i === 0 || x > progress[i - 1]), `${where}: progress only grows`);
      }
      const [a, b] = [runs[`256${causal}`], runs[`1024${causal}`]];
      assert.equal(a.scratch, b.scratch, `causal=${causal}: scratch at n = 256 and n = 1024`);
      // the n×n scores at n = 1024 are 4 MiB; a worker holds a few 64×64 tiles and rows of them
      assert.ok(b.scratch > 0 && b.scratch < (1024 * 1024 * 4) / 16, `causal=${causal}: scratch ${b.scratch}`);
    }
  });
  assert.notEqual(runs['1024true'].checksum, runs['1024false'].checksum, 'the mask changes the outputs');
});

test('at scale, materialized: runs within the budget, and past it is refused with the budget it met', async () => {
  const n = 256;
  await withPool(async (pool) => {
    const ok = await askMaterialized(engine, pool, { n, causal: true });
    assert.equal(ok.need, n * n * 4);
    assert.ok(!ok.refused && ok.ms >= 0, JSON.stringify(ok));
    engine.setMemoryBudget(ok.need - 1);
    try {
      let asked = null;
      const no = await askMaterialized(engine, pool, { n, causal: true }, { onAsking: (need) => { asked = need; } });
      assert.equal(asked, ok.need);
      assert.equal(no.refused, true);
      assert.equal(no.budget, ok.need - 1);
    } finally {
      engine.setMemoryBudget(0);
    }
  });
});
