// The engine pool (web/js/engine-link/engine-pool.mjs) on the real engine behind fake workers
// (fake-worker.mjs: a real MessageChannel, so everything is structured-cloned as between
// threads), compared with one engine call on shapes at the edges: n not a multiple of
// taskRows, n smaller than the pool, causal, L≠S with the causal alignment given by rowOffset,
// a window and a query period, masked rows, the materialized variant; engine errors keep their
// code; an unknown option is refused as by one call; attentionSeeded; cancel mid-run, then the
// same pool runs again (fresh workers); the default size. Multi-head calls: pool-heads.test.mjs.
// (tests/browser/pool.test.mjs keeps what needs Chromium: the relaxed-SIMD build in real workers.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { installFakeWorkers } from './fake-worker.mjs';
import { createEnginePool } from '../../web/js/engine-link/engine-pool.mjs';
import { poolHandlers } from '../../web/js/engine-link/pool-worker.mjs';
import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

const engine = await loadEngine();
const workers = installFakeWorkers(() => ({ target: engine, handlers: poolHandlers(engine), info: {} }));
const pools = {};
const poolOf = (size) => pools[size] || (pools[size] = createEnginePool({ size }));
test.after(() => {
  for (const p of Object.values(pools)) p.terminate();
  workers.uninstall();
});

// One case: the pool's answer and one engine call on the same inputs.
// spec: {size, L, S, dk, dv, causal, variant, rowOffset, taskRows, blockQ, blockK, maskRows, window, queryPeriod}
async function compare(spec) {
  const pool = poolOf(spec.size || 2);
  await pool.ready;
  const q = engine.randomNormal({ seed: 11, rows: spec.L, cols: spec.dk });
  const k = engine.randomNormal({ seed: 12, rows: spec.S, cols: spec.dk });
  const v = engine.randomNormal({ seed: 13, rows: spec.S, cols: spec.dv });
  let mask;
  if (spec.maskRows) {
    mask = { rows: spec.L, cols: spec.S, data: new Uint8Array(spec.L * spec.S).fill(1) };
    for (const r of spec.maskRows) mask.data.fill(0, r * spec.S, (r + 1) * spec.S);
  }
  const args = { q, k, v, mask, causal: !!spec.causal, variant: spec.variant, rowOffset: spec.rowOffset,
    blockQ: spec.blockQ, blockK: spec.blockK, window: spec.window, queryPeriod: spec.queryPeriod };
  const one = engine.attention(args);
  const progress = [];
  const r = await pool.attention(args, { taskRows: spec.taskRows, onProgress: (p) => progress.push(p) });
  // the same call without the window or period: a dropped option would give this
  const plain = engine.attention({ ...args, window: undefined, queryPeriod: undefined });
  return {
    rows: r.out.rows, cols: r.out.cols, length: r.out.data.length,
    maxDiff: maxAbsDiff(one.out.data, r.out.data), optionDiff: maxAbsDiff(one.out.data, plain.out.data),
    maskedRows: r.maskedRows, oneMasked: [...one.maskedRows].sort((a, b) => a - b),
    scratchBytes: r.scratchBytes, ms: r.ms, workers: r.workers, tasks: r.tasks,
    progress, qUntouched: q.data.length === spec.L * spec.dk,
  };
}

function checkProgress(r, L) {
  assert.ok(r.progress.length >= 1);
  const dones = r.progress.map((p) => p.done);
  for (let i = 1; i < dones.length; i++) assert.ok(dones[i] > dones[i - 1], 'progress only grows');
  assert.deepEqual([r.progress.at(-1).done, r.progress.at(-1).total], [L, L], 'progress ends at every row');
}

test('chunked, non-causal, n not a multiple of taskRows: equals one engine call', async () => {
  const r = await compare({ L: 1000, S: 1000, dk: 64, dv: 64, variant: 'chunked', taskRows: 96, blockQ: 32, blockK: 32 });
  assert.deepEqual([r.rows, r.cols, r.length], [1000, 64, 64000]);
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 11);
  assert.equal(r.workers, 2);
  assert.ok(r.scratchBytes > 0 && r.ms > 0);
  assert.ok(r.qUntouched, 'the caller keeps its arrays');
  checkProgress(r, 1000);
});

test('chunked, causal (rowOffset per task), default taskRows: equals one engine call', async () => {
  const r = await compare({ L: 777, S: 777, dk: 32, dv: 16, causal: true, variant: 'chunked', blockQ: 64, blockK: 64 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.ok(r.tasks > 1, `${r.tasks} tasks`);
  checkProgress(r, 777);
});

test('materialized, causal, taskRows 7: equals one engine call', async () => {
  const r = await compare({ L: 130, S: 130, dk: 16, dv: 8, causal: true, variant: 'materialized', taskRows: 7 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 19);
});

test('n smaller than the pool: 3 rows on 4 workers, one row per task', async () => {
  const r = await compare({ size: 4, L: 3, S: 5, dk: 4, dv: 3, causal: true, variant: 'chunked', taskRows: 1 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 3);
  assert.equal(r.workers, 3);
  const small = await compare({ size: 4, L: 1, S: 1, dk: 1, dv: 1, variant: 'chunked' });
  assert.ok(small.maxDiff <= 1e-6);
  assert.equal(small.workers, 1);
});

test('L≠S causal: top-left (rowOffset 0) and bottom-right (rowOffset S − L) alignment', async () => {
  for (const rowOffset of [0, 250]) {
    const r = await compare({ L: 250, S: 500, dk: 16, dv: 16, causal: true, variant: 'chunked', rowOffset, taskRows: 40 });
    assert.ok(r.maxDiff <= 1e-6, `rowOffset ${rowOffset}: max diff ${r.maxDiff}`);
  }
  // more queries than keys: the last rows see every key
  const tall = await compare({ L: 300, S: 120, dk: 8, dv: 8, causal: true, variant: 'chunked', taskRows: 64 });
  assert.ok(tall.maxDiff <= 1e-6, `L > S: max diff ${tall.maxDiff}`);
});

test('a sliding window and a query period reach the workers (and change the result)', async () => {
  const w = await compare({ L: 300, S: 300, dk: 16, dv: 8, causal: true, variant: 'chunked', taskRows: 40, window: 37 });
  assert.ok(w.optionDiff > 1e-3, `the window changes the result (${w.optionDiff})`);
  assert.ok(w.maxDiff <= 1e-6, `window: max diff ${w.maxDiff}`);
  assert.ok(w.tasks > 1, `${w.tasks} tasks`);
  const band = await compare({ L: 200, S: 120, dk: 8, dv: 8, variant: 'chunked', taskRows: 32, window: 9, rowOffset: 5 });
  assert.ok(band.optionDiff > 1e-3 && band.maxDiff <= 1e-6, `band: ${band.optionDiff}, ${band.maxDiff}`);
  const heads = await compare({ L: 4 * 60, S: 90, dk: 8, dv: 8, causal: true, variant: 'chunked', taskRows: 32,
    rowOffset: 30, queryPeriod: 60, window: 20 });
  assert.ok(heads.optionDiff > 1e-3 && heads.maxDiff <= 1e-6, `period: ${heads.optionDiff}, ${heads.maxDiff}`);
});

test('masked rows come back as global row indices', async () => {
  const r = await compare({ L: 90, S: 40, dk: 8, dv: 4, variant: 'chunked', taskRows: 16, maskRows: [0, 33, 89] });
  assert.deepEqual(r.maskedRows, [0, 33, 89]);
  assert.deepEqual(r.maskedRows, r.oneMasked);
  assert.ok(r.maxDiff <= 1e-6);
});

// K, V and the mask reach the workers in a load message that the tasks do not
// wait for: a bad one must still be the error reported, not its tasks' 'no inputs'.
test('engine errors keep their code: ShapeMismatch, NonFinite, TooLarge (refused before any allocation), BadArgument', async () => {
  const pool = poolOf(2);
  const m = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.5) });
  const code = (p) => p.then(() => 'resolved', (e) => e.code);
  const codes = {
    shape: await code(pool.attention({ q: m(10, 4), k: m(10, 5), v: m(10, 4), variant: 'chunked' })),
    vrows: await code(pool.attention({ q: m(10, 4), k: m(10, 4), v: m(9, 4), variant: 'chunked' })),
    nanKey: await code(pool.attention({ q: m(300, 4), k: { ...m(300, 4), data: m(300, 4).data.fill(NaN, 601, 602) }, v: m(300, 4) }, { taskRows: 64 })),
    maskArray: await code(pool.attention({ q: m(10, 4), k: m(10, 4), v: m(10, 4), mask: { rows: 10, cols: 10, data: new Array(100).fill(1) } })),
    maskValue: await code(pool.attention({ q: m(10, 4), k: m(10, 4), v: m(10, 4), mask: { rows: 10, cols: 10, data: new Uint8Array(100).fill(2) } })),
    zero: await code(pool.attention({ q: { rows: 0, cols: 4, data: new Float32Array(0) }, k: m(3, 4), v: m(3, 4) })),
    // 40,000² scores in fp32 are 6.4 GB: more than the wasm32 budget
    tooLarge: await code(pool.attention({ q: m(40000, 1), k: m(40000, 1), v: m(40000, 1), variant: 'materialized' }, { taskRows: 40000 })),
    seededTooLarge: await code(pool.attentionSeeded({ n: 40000, d: 2, variant: 'materialized' }, { taskRows: 40000 })),
    blockQ: await code(pool.attention({ q: m(10, 4), k: m(10, 4), v: m(10, 4), variant: 'chunked', blockQ: 0 })),
    taskRows: await code(pool.attention({ q: m(10, 4), k: m(10, 4), v: m(10, 4) }, { taskRows: 0 })),
    after: await pool.attention({ q: m(5, 4), k: m(5, 4), v: m(5, 4), variant: 'chunked' }).then((r) => r.out.data[0]),
  };
  assert.deepEqual(codes, {
    shape: 'ShapeMismatch', vrows: 'ShapeMismatch', nanKey: 'NonFinite', maskArray: 'BadArgument', maskValue: 'BadArgument', zero: 'ZeroDimension', tooLarge: 'TooLarge', seededTooLarge: 'TooLarge',
    blockQ: 'BadArgument', taskRows: 'BadArgument', after: 0.5,
  });
});

// Options reach every worker's engine whole, and engine.mjs is the one place that
// checks them: an option it does not know is refused through the pool as it is in
// one engine call (a pool that forwarded options by name dropped it silently).
test('an option the engine does not know is refused through the pool, as by one engine call', async () => {
  const pool = poolOf(2);
  const q = engine.randomNormal({ seed: 1, rows: 64, cols: 8 });
  const said = (f) => { try { f(); return 'resolved'; } catch (e) { return `${e.code}: ${e.message}`; } };
  const code = (p) => p.then(() => 'resolved', (e) => `${e.code}: ${e.message}`);
  const r = {
    one: said(() => engine.attention({ q, k: q, v: q, madeUpOption: 2 })),
    pool: await code(pool.attention({ q, k: q, v: q, variant: 'chunked', madeUpOption: 2 }, { taskRows: 16 })),
    seeded: await code(pool.attentionSeeded({ n: 64, d: 8, madeUpOption: 2 }, { taskRows: 16 })),
  };
  // (the workers' engines list the options of a call on stored keys and values: q but not k, v)
  for (const s of [r.one, r.pool, r.seeded]) assert.match(s, /^BadArgument: attention: unknown option 'madeUpOption'; expected q, /);
});

test('attentionSeeded: inputs drawn in the workers; checksum and checked rows agree with one engine call', async () => {
  const pool = poolOf(2);
  const n = 1500, d = 32;
  const s = await pool.attentionSeeded({ n, d, seed: 5, causal: true, blockQ: 64, blockK: 64 },
    { checkRows: [0, 750, 1499], returnOut: true, taskRows: 128 });
  const q = engine.randomNormal({ seed: 5, rows: n, cols: d });
  const k = engine.randomNormal({ seed: 6, rows: n, cols: d });
  const v = engine.randomNormal({ seed: 7, rows: n, cols: d });
  const one = engine.attention({ q, k, v, causal: true, variant: 'chunked', blockQ: 64, blockK: 64 }).out.data;
  const sum = one.reduce((a, x) => a + x, 0);
  assert.ok(maxAbsDiff(one, s.out.data) <= 1e-6, `max diff ${maxAbsDiff(one, s.out.data)}`);
  assert.ok(Math.abs(s.checksum - sum) <= 1e-6 * Math.max(1, Math.abs(sum)), `checksum ${s.checksum} vs ${sum}`);
  assert.deepEqual(s.checks.map((c) => c.row), [0, 750, 1499]);
  for (const c of s.checks) assert.ok(c.maxAbsDiff <= 1e-5, `row ${c.row} vs reference: ${c.maxAbsDiff}`);
  assert.equal(s.flops, 2 * 1500 * 1500 * 32);
  assert.deepEqual([s.workers, s.tasks], [2, 12]);
});

test('cancel mid-run rejects with Cancelled; the same pool then runs again (fresh workers)', async () => {
  const pool = poolOf('cancel');
  await pool.ready;
  const d = 64;
  const q = engine.randomNormal({ seed: 1, rows: 2048, cols: d });
  const ac = new AbortController();
  let progressAtCancel = -1;
  const first = await pool.attention({ q, k: q, v: q, causal: false, variant: 'chunked', blockQ: 64, blockK: 64 }, {
    taskRows: 64, signal: ac.signal,
    onProgress: ({ done }) => { if (progressAtCancel < 0) { progressAtCancel = done; ac.abort(); } },
  }).then(() => ({ code: 'resolved' }), (e) => ({ code: e.code, isError: e instanceof Error }));
  assert.deepEqual(first, { code: 'Cancelled', isError: true });
  assert.ok(progressAtCancel > 0 && progressAtCancel < 2048, `cancelled mid-run at ${progressAtCancel} rows`);
  // an already aborted signal rejects at once, before any work
  assert.equal(await pool.attention({ q, k: q, v: q }, { signal: ac.signal }).then(() => 'resolved', (e) => e.code), 'Cancelled');
  await pool.ready;
  const small = { rows: 300, cols: d, data: q.data.slice(0, 300 * d) };
  const again = await pool.attention({ q: small, k: small, v: small, causal: true, variant: 'chunked' }, { taskRows: 50 });
  const one = engine.attention({ q: small, k: small, v: small, causal: true, variant: 'chunked' }).out.data;
  assert.ok(maxAbsDiff(one, again.out.data) <= 1e-6, 'after the cancel: the same answer');
  assert.equal(again.workers, 2);
  // cancel during a seeded run, then run it again to the end
  const ac2 = new AbortController();
  const s1 = await pool.attentionSeeded({ n: 1024, d: 16, causal: true }, { signal: ac2.signal, taskRows: 64,
    onProgress: () => ac2.abort() }).then(() => 'resolved', (e) => e.code);
  assert.equal(s1, 'Cancelled');
  const s2 = await pool.attentionSeeded({ n: 1024, d: 16, causal: true }, { taskRows: 256, checkRows: [1023] });
  assert.ok(s2.checks.length === 1 && s2.checks[0].maxAbsDiff <= 1e-5);
});

test('default size: min(hardwareConcurrency, 4), at least 1; a terminated pool refuses calls', async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  try {
    for (const [hc, size] of [[8, 4], [3, 3], [1, 1], [0, 2], [undefined, 2]]) {
      Object.defineProperty(globalThis, 'navigator', { value: { hardwareConcurrency: hc }, configurable: true });
      const pool = createEnginePool();
      const ready = await pool.ready;
      assert.equal(pool.size, size, `hardwareConcurrency ${hc}`);
      assert.equal(ready.size, size);
      pool.terminate();
      const after = await pool.attention({ q: { rows: 1, cols: 1, data: new Float32Array(1) } }).then(() => 'resolved', (e) => e.code);
      assert.ok(after === 'EngineLoad' || after === 'Cancelled', after);
    }
  } finally {
    if (saved) Object.defineProperty(globalThis, 'navigator', saved); else delete globalThis.navigator;
  }
});
