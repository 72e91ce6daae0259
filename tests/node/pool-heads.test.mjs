// The engine pool with the real engine behind fake workers (fake-worker.mjs: a real
// MessageChannel, so everything is structured-cloned as between threads):
// pool.multiheadAttention, split by key/value groups, equals one
// engine.multiheadAttention call on GQA, MHA and MQA shapes, with and without a
// window and the causal rule, and with more groups than workers (not a multiple);
// and attentionSeeded with a window checks its rows against the reference with
// the window too, and reports the windowed flops.
import test from 'node:test';
import assert from 'node:assert/strict';
import { installFakeWorkers } from './fake-worker.mjs';
import { createEnginePool } from '../../web/js/engine-link/engine-pool.mjs';
import { poolHandlers } from '../../web/js/engine-link/pool-worker.mjs';
import { attentionFlops } from '../../web/js/engine-link/pool-plan.mjs';
import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

const engine = await loadEngine();
const workers = installFakeWorkers(() => ({ target: engine, handlers: poolHandlers(engine), info: {} }));
test.after(() => workers.uninstall());
const m = (seed, rows, cols) => engine.randomNormal({ seed, rows, cols });

test('pool.multiheadAttention equals engine.multiheadAttention (GQA, MHA, MQA; window, causal; groups not a multiple of workers)', async () => {
  const pools = { 2: createEnginePool({ size: 2 }), 3: createEnginePool({ size: 3 }) };
  try {
    const cases = [];
    for (const [headsQ, headsKv] of [[8, 2], [6, 6], [4, 1], [6, 3], [10, 5]]) {
      for (const opts of [{}, { causal: true }, { causal: true, window: 3 }, { window: 2, variant: 'chunked', blockQ: 4, blockK: 4 },
        { causal: true, window: 5, variant: 'chunked', blockQ: 3, blockK: 2, rowOffset: 4 }]) cases.push({ headsQ, headsKv, opts });
    }
    for (const { headsQ, headsKv, opts } of cases) {
      const L = 9, S = opts.rowOffset ? 13 : 9, dk = 5, dv = 3;
      const args = { q: m(1, headsQ * L, dk), k: m(2, headsKv * S, dk), v: m(3, headsKv * S, dv), headsQ, headsKv, ...opts };
      const one = engine.multiheadAttention(args);
      // the same call without its window: a dropped option would give this
      const noWindow = engine.multiheadAttention({ ...args, window: undefined });
      for (const size of [2, 3]) {
        const what = `${headsQ}/${headsKv} on ${size} workers ${JSON.stringify(opts)}`;
        const r = await pools[size].multiheadAttention(args);
        assert.deepEqual([r.out.rows, r.out.cols], [one.out.rows, one.out.cols], what);
        assert.ok(maxAbsDiff(r.out.data, one.out.data) <= 1e-6, `${what}: max|diff| ${maxAbsDiff(r.out.data, one.out.data)}`);
        if (opts.window) assert.ok(maxAbsDiff(noWindow.out.data, one.out.data) > 1e-3, `${what}: the window changes the answer`);
        assert.deepEqual(r.maskedRows, one.maskedRows, what);
        assert.equal(r.kernelCalls, one.kernelCalls, what);
        assert.equal(r.tasks, Math.min(headsKv, size), what);
        assert.equal(r.kvBytesSent, headsKv * S * (dk + dv) * 4, `${what}: every key/value head sent once`);
      }
    }
  } finally { for (const p of Object.values(pools)) p.terminate(); }
});

test('pool.multiheadAttention: a mask for all heads, groupsPerTask, progress, and the engine\'s errors', async () => {
  const pool = createEnginePool({ size: 2 });
  try {
    const L = 6, S = 6, headsQ = 8, headsKv = 4;
    const mask = { rows: L, cols: S, data: new Uint8Array(L * S).fill(1) };
    mask.data.fill(0, 2 * S, 3 * S);   // row 2 sees nothing, in every head
    const args = { q: m(4, headsQ * L, 4), k: m(5, headsKv * S, 4), v: m(6, headsKv * S, 4), headsQ, headsKv, mask, causal: true };
    const one = engine.multiheadAttention(args);
    const progress = [];
    const r = await pool.multiheadAttention(args, { groupsPerTask: 1, onProgress: (p) => progress.push(p) });
    assert.ok(maxAbsDiff(r.out.data, one.out.data) <= 1e-6);
    assert.deepEqual(r.maskedRows, one.maskedRows);
    assert.ok(r.maskedRows.every((rows) => rows.includes(2)));
    assert.equal(r.tasks, 4);
    assert.equal(progress.at(-1).done, headsQ * L);
    const refused = (p) => p.then(() => 'resolved', (e) => `${e.code}: ${e.message}`);
    const direct = (a) => { try { engine.multiheadAttention(a); return 'resolved'; } catch (e) { return `${e.code}: ${e.message}`; } };
    for (const bad of [{ headsQ: 6 }, { headsKv: 3 }, { k: m(7, headsKv * S + 1, 4) }, { window: -1 }, { madeUpOption: 1 }]) {
      const a = { ...args, ...bad };
      assert.equal(await refused(pool.multiheadAttention(a)), direct(a), JSON.stringify(Object.keys(bad)));
    }
    assert.match(await refused(pool.multiheadAttention({ ...args, returnWeights: true })), /^BadArgument: pool.multiheadAttention: returnWeights/);
  } finally { pool.terminate(); }
});

test('attentionSeeded with a window: the reference checks use the window, and the flops count the visible pairs', async () => {
  const pool = createEnginePool({ size: 2 });
  try {
    const n = 96, d = 8, window = 5, checkRows = [0, 50, 95];
    const r = await pool.attentionSeeded({ n, d, seed: 3, causal: true, window, blockQ: 8, blockK: 8 }, { taskRows: 16, checkRows, returnOut: true });
    assert.deepEqual(r.checks.map((c) => c.row), checkRows);
    for (const c of r.checks) assert.ok(c.maxAbsDiff <= 1e-5, `row ${c.row}: ${c.maxAbsDiff}`);
    // the output is the windowed one (not the full causal row), row by row against one engine call
    const [q, k, v] = [3, 4, 5].map((s) => m(s, n, d));
    const one = engine.attention({ q, k, v, causal: true, window });
    assert.ok(maxAbsDiff(r.out.data, one.out.data) <= 1e-5);
    assert.equal(r.flops, 2 * (d + d) * engine.visiblePairs({ L: n, S: n, causal: true, window }));
    assert.equal(r.flops, attentionFlops({ L: n, S: n, dk: d, causal: true, window }));
  } finally { pool.terminate(); }
});
