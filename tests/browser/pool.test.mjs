// The engine pool (web/js/engine-pool.mjs) in Chromium: query rows split across
// plain Web Workers (no SharedArrayBuffer), compared with one engine call in the
// page (/js/engine.mjs) on shapes at the edges: n not a multiple of taskRows, n
// smaller than the pool, causal, L≠S with the causal alignment given by rowOffset,
// masked rows, the materialized variant, multi-head calls split by key/value
// groups; engine errors keep their code; cancel mid-run, then the same pool runs
// again (fresh workers). No timed assertions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, assertNoIssues } from './helpers.mjs';

const T = { timeout: 120000 };
let b, page;

test.before(async () => {
  b = await launch();
  page = await newPage(b);
  page.setDefaultTimeout(60000);
  // the chooser is the lightest page of the site: the pool and the engine are imported into it
  await page.goto(url('/index.html'), { waitUntil: 'load' });
  await page.evaluate(async () => {
    const { createEnginePool } = await import('/js/engine-pool.mjs');
    const { loadEngine } = await import('/js/engine.mjs');
    window.__t = { createEnginePool, engine: await loadEngine(), pools: {} };
  });
});
test.after(async () => {
  if (page) {
    await page.evaluate(() => { for (const p of Object.values(window.__t.pools)) p.terminate(); }).catch(() => {});
    assertNoIssues(page);
  }
  await b?.close();
});

// Runs one case in the page: the pool's answer and one engine call on the same inputs.
// spec: {size, L, S, dk, dv, causal, variant, rowOffset, taskRows, blockQ, blockK, maskRows}
function compare(spec) {
  return page.evaluate(async (spec) => {
    const { createEnginePool, engine, pools } = window.__t;
    const size = spec.size || 2;
    const pool = pools[size] || (pools[size] = createEnginePool({ size }));
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
    let maxDiff = 0;
    for (let i = 0; i < one.out.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(one.out.data[i] - r.out.data[i]));
    // the same call without the window or period: a dropped option would give this
    const plain = engine.attention({ ...args, window: undefined, queryPeriod: undefined });
    let optionDiff = 0;
    for (let i = 0; i < one.out.data.length; i++) optionDiff = Math.max(optionDiff, Math.abs(one.out.data[i] - plain.out.data[i]));
    return {
      rows: r.out.rows, cols: r.out.cols, length: r.out.data.length, maxDiff, optionDiff,
      maskedRows: r.maskedRows, oneMasked: [...one.maskedRows].sort((a, b) => a - b),
      scratchBytes: r.scratchBytes, ms: r.ms, workers: r.workers, tasks: r.tasks,
      progress, qUntouched: q.data.length === spec.L * spec.dk,
    };
  }, spec);
}

function checkProgress(r, L) {
  assert.ok(r.progress.length >= 1);
  const dones = r.progress.map((p) => p.done);
  for (let i = 1; i < dones.length; i++) assert.ok(dones[i] > dones[i - 1], 'progress only grows');
  assert.deepEqual([r.progress.at(-1).done, r.progress.at(-1).total], [L, L], 'progress ends at every row');
}

test('chunked, non-causal, n not a multiple of taskRows: equals one engine call', T, async () => {
  const r = await compare({ L: 1000, S: 1000, dk: 64, dv: 64, variant: 'chunked', taskRows: 96, blockQ: 32, blockK: 32 });
  assert.deepEqual([r.rows, r.cols, r.length], [1000, 64, 64000]);
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 11);
  assert.equal(r.workers, 2);
  assert.ok(r.scratchBytes > 0 && r.ms > 0);
  assert.ok(r.qUntouched, 'the caller keeps its arrays');
  checkProgress(r, 1000);
});

test('chunked, causal (rowOffset per task), default taskRows: equals one engine call', T, async () => {
  const r = await compare({ L: 777, S: 777, dk: 32, dv: 16, causal: true, variant: 'chunked', blockQ: 64, blockK: 64 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.ok(r.tasks > 1, `${r.tasks} tasks`);
  checkProgress(r, 777);
});

test('materialized, causal, taskRows 7: equals one engine call', T, async () => {
  const r = await compare({ L: 130, S: 130, dk: 16, dv: 8, causal: true, variant: 'materialized', taskRows: 7 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 19);
});

test('n smaller than the pool: 3 rows on 4 workers, one row per task', T, async () => {
  const r = await compare({ size: 4, L: 3, S: 5, dk: 4, dv: 3, causal: true, variant: 'chunked', taskRows: 1 });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.equal(r.tasks, 3);
  assert.equal(r.workers, 3);
  const small = await compare({ size: 4, L: 1, S: 1, dk: 1, dv: 1, variant: 'chunked' });
  assert.ok(small.maxDiff <= 1e-6);
  assert.equal(small.workers, 1);
});

test('L≠S causal: top-left (rowOffset 0) and bottom-right (rowOffset S − L) alignment', T, async () => {
  for (const rowOffset of [0, 250]) {
    const r = await compare({ L: 250, S: 500, dk: 16, dv: 16, causal: true, variant: 'chunked', rowOffset, taskRows: 40 });
    assert.ok(r.maxDiff <= 1e-6, `rowOffset ${rowOffset}: max diff ${r.maxDiff}`);
  }
  // more queries than keys: the last rows see every key
  const tall = await compare({ L: 300, S: 120, dk: 8, dv: 8, causal: true, variant: 'chunked', taskRows: 64 });
  assert.ok(tall.maxDiff <= 1e-6, `L > S: max diff ${tall.maxDiff}`);
});

test('a sliding window and a query period reach the workers (and change the result)', T, async () => {
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

// pool.multiheadAttention in Chromium, split by key/value groups, against one
// engine.multiheadAttention call in the page (GQA, MHA, MQA; window and causal;
// 3 groups on 2 workers).
test('multi-head: split by key/value groups, equals one engine call (GQA, MHA, MQA, window, causal)', T, async () => {
  const results = await page.evaluate(async () => {
    const { createEnginePool, engine, pools } = window.__t;
    const pool = pools[2] || (pools[2] = createEnginePool({ size: 2 }));
    await pool.ready;
    const out = [];
    for (const [headsQ, headsKv] of [[8, 2], [4, 4], [4, 1], [6, 3]]) {
      for (const opts of [{ causal: true, variant: 'chunked', window: 17 }, { variant: 'materialized', window: 5 }, { causal: true }]) {
        const L = 70, S = 70, dk = 16, dv = 8;
        const args = { q: engine.randomNormal({ seed: 21, rows: headsQ * L, cols: dk }), k: engine.randomNormal({ seed: 22, rows: headsKv * S, cols: dk }),
          v: engine.randomNormal({ seed: 23, rows: headsKv * S, cols: dv }), headsQ, headsKv, ...opts };
        const one = engine.multiheadAttention(args);
        const r = await pool.multiheadAttention(args);
        let maxDiff = 0;
        for (let i = 0; i < one.out.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(one.out.data[i] - r.out.data[i]));
        out.push({ what: `${headsQ}/${headsKv} ${JSON.stringify(opts)}`, maxDiff, length: r.out.data.length, oneLength: one.out.data.length,
          tasks: r.tasks, workers: r.workers, kvBytesSent: r.kvBytesSent, expectKv: headsKv * S * (dk + dv) * 4, headsKv });
      }
    }
    return out;
  });
  for (const r of results) {
    assert.equal(r.length, r.oneLength, r.what);
    assert.ok(r.maxDiff <= 1e-6, `${r.what}: max diff ${r.maxDiff}`);
    assert.equal(r.tasks, Math.min(r.headsKv, 2), r.what);
    assert.equal(r.kvBytesSent, r.expectKv, `${r.what}: each key/value head sent once`);
  }
});

test('masked rows come back as global row indices', T, async () => {
  const r = await compare({ L: 90, S: 40, dk: 8, dv: 4, variant: 'chunked', taskRows: 16, maskRows: [0, 33, 89] });
  assert.deepEqual(r.maskedRows, [0, 33, 89]);
  assert.deepEqual(r.maskedRows, r.oneMasked);
  assert.ok(r.maxDiff <= 1e-6);
});

// K, V and the mask reach the workers in a load message that the tasks do not
// wait for: a bad one must still be the error reported, not its tasks' 'no inputs'.
test('engine errors keep their code: ShapeMismatch, NonFinite, TooLarge (refused before any allocation), BadArgument', T, async () => {
  const codes = await page.evaluate(async () => {
    const { createEnginePool, pools } = window.__t;
    const pool = pools[2] || (pools[2] = createEnginePool({ size: 2 }));
    const m = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.5) });
    const code = (p) => p.then(() => 'resolved', (e) => e.code);
    return {
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
  });
  assert.deepEqual(codes, {
    shape: 'ShapeMismatch', vrows: 'ShapeMismatch', nanKey: 'NonFinite', maskArray: 'BadArgument', maskValue: 'BadArgument', zero: 'ZeroDimension', tooLarge: 'TooLarge', seededTooLarge: 'TooLarge',
    blockQ: 'BadArgument', taskRows: 'BadArgument', after: 0.5,
  });
});

// Options reach every worker's engine whole, and engine.mjs is the one place that
// checks them: an option it does not know is refused through the pool as it is in
// one engine call (a pool that forwarded options by name dropped it silently).
test('an option the engine does not know is refused through the pool, as by one engine call', T, async () => {
  const r = await page.evaluate(async () => {
    const { createEnginePool, engine, pools } = window.__t;
    const pool = pools[2] || (pools[2] = createEnginePool({ size: 2 }));
    const q = engine.randomNormal({ seed: 1, rows: 64, cols: 8 });
    const said = (f) => { try { f(); return 'resolved'; } catch (e) { return `${e.code}: ${e.message}`; } };
    const code = (p) => p.then(() => 'resolved', (e) => `${e.code}: ${e.message}`);
    return {
      one: said(() => engine.attention({ q, k: q, v: q, madeUpOption: 2 })),
      pool: await code(pool.attention({ q, k: q, v: q, variant: 'chunked', madeUpOption: 2 }, { taskRows: 16 })),
      seeded: await code(pool.attentionSeeded({ n: 64, d: 8, madeUpOption: 2 }, { taskRows: 16 })),
    };
  });
  // (the workers' engines list the options of a call on stored keys and values: q but not k, v)
  for (const said of [r.one, r.pool, r.seeded]) assert.match(said, /^BadArgument: attention: unknown option 'madeUpOption'; expected q, /);
});

test('attentionSeeded: inputs drawn in the workers; checksum and checked rows agree with one engine call', T, async () => {
  const r = await page.evaluate(async () => {
    const { createEnginePool, engine, pools } = window.__t;
    const pool = pools[2] || (pools[2] = createEnginePool({ size: 2 }));
    const n = 1500, d = 32;
    const s = await pool.attentionSeeded({ n, d, seed: 5, causal: true, blockQ: 64, blockK: 64 },
      { checkRows: [0, 750, 1499], returnOut: true, taskRows: 128 });
    const q = engine.randomNormal({ seed: 5, rows: n, cols: d });
    const k = engine.randomNormal({ seed: 6, rows: n, cols: d });
    const v = engine.randomNormal({ seed: 7, rows: n, cols: d });
    const one = engine.attention({ q, k, v, causal: true, variant: 'chunked', blockQ: 64, blockK: 64 }).out.data;
    let sum = 0, maxDiff = 0;
    for (let i = 0; i < one.length; i++) { sum += one[i]; maxDiff = Math.max(maxDiff, Math.abs(one[i] - s.out.data[i])); }
    return { checksum: s.checksum, sum, maxDiff, checks: s.checks.map((c) => [c.row, c.maxAbsDiff]), flops: s.flops,
      workers: s.workers, tasks: s.tasks };
  });
  assert.ok(r.maxDiff <= 1e-6, `max diff ${r.maxDiff}`);
  assert.ok(Math.abs(r.checksum - r.sum) <= 1e-6 * Math.max(1, Math.abs(r.sum)), `checksum ${r.checksum} vs ${r.sum}`);
  assert.deepEqual(r.checks.map((c) => c[0]), [0, 750, 1499]);
  for (const [row, diff] of r.checks) assert.ok(diff <= 1e-5, `row ${row} vs reference: ${diff}`);
  assert.equal(r.flops, 2 * 1500 * 1500 * 32);
  assert.deepEqual([r.workers, r.tasks], [2, 12]);
});

test('cancel mid-run rejects with Cancelled; the same pool then runs again (fresh workers)', T, async () => {
  const r = await page.evaluate(async () => {
    const { createEnginePool, engine } = window.__t;
    const pool = createEnginePool({ size: 2 });
    window.__t.pools.cancel = pool;
    await pool.ready;
    const n = 8192, d = 64;
    const q = engine.randomNormal({ seed: 1, rows: n, cols: d });
    const ac = new AbortController();
    let progressAtCancel = -1;
    const p = pool.attention({ q, k: q, v: q, causal: false, variant: 'chunked', blockQ: 64, blockK: 64 }, {
      taskRows: 64, signal: ac.signal,
      onProgress: ({ done }) => { if (progressAtCancel < 0) { progressAtCancel = done; ac.abort(); } },
    });
    const first = await p.then(() => ({ code: 'resolved' }), (e) => ({ code: e.code, isError: e instanceof Error }));
    // an already aborted signal rejects at once, before any work
    const pre = await pool.attention({ q, k: q, v: q }, { signal: ac.signal }).then(() => 'resolved', (e) => e.code);
    await pool.ready;
    const small = { rows: 300, cols: d, data: q.data.slice(0, 300 * d) };
    const again = await pool.attention({ q: small, k: small, v: small, causal: true, variant: 'chunked' }, { taskRows: 50 });
    const one = engine.attention({ q: small, k: small, v: small, causal: true, variant: 'chunked' }).out.data;
    let maxDiff = 0;
    for (let i = 0; i < one.length; i++) maxDiff = Math.max(maxDiff, Math.abs(one[i] - again.out.data[i]));
    // cancel during a seeded run, then run it again to the end
    const ac2 = new AbortController();
    const s1 = await pool.attentionSeeded({ n: 4096, d: 16, causal: true }, { signal: ac2.signal, taskRows: 64,
      onProgress: () => ac2.abort() }).then(() => 'resolved', (e) => e.code);
    const s2 = await pool.attentionSeeded({ n: 4096, d: 16, causal: true }, { taskRows: 512, checkRows: [4095] });
    return { first, pre, progressAtCancel, maxDiff, workers: again.workers, s1, s2: s2.checks.map((c) => c.maxAbsDiff) };
  });
  assert.deepEqual(r.first, { code: 'Cancelled', isError: true });
  assert.ok(r.progressAtCancel > 0 && r.progressAtCancel < 8192, `cancelled mid-run at ${r.progressAtCancel} rows`);
  assert.equal(r.pre, 'Cancelled');
  assert.ok(r.maxDiff <= 1e-6, `after the cancel: max diff ${r.maxDiff}`);
  assert.equal(r.workers, 2);
  assert.equal(r.s1, 'Cancelled');
  assert.ok(r.s2.length === 1 && r.s2[0] <= 1e-5);
});

test('default size: min(hardwareConcurrency, 4), at least 1', T, async () => {
  const r = await page.evaluate(async () => {
    const { createEnginePool } = window.__t;
    const pool = createEnginePool();
    const ready = await pool.ready;
    const size = pool.size;
    pool.terminate();
    const after = await pool.attention({ q: { rows: 1, cols: 1, data: new Float32Array(1) } }).then(() => 'resolved', (e) => e.code);
    return { size, readySize: ready.size, hc: navigator.hardwareConcurrency, after };
  });
  assert.equal(r.size, Math.max(1, Math.min(r.hc || 2, 4)));
  assert.equal(r.readySize, r.size);
  assert.ok(r.after === 'EngineLoad' || r.after === 'Cancelled', r.after);
});

// Chromium has relaxed SIMD: the page and every pool worker run attn-relaxed.wasm
// (fused multiply-adds), and it still agrees with the scalar reference.
test('Chromium runs the relaxed-SIMD build, in the page and in the workers, and it matches the reference', T, async () => {
  const r = await page.evaluate(async () => {
    const { createEnginePool, engine, pools } = window.__t;
    const { wasmBuild } = await import('/js/engine.mjs');
    const pool = pools[2] || (pools[2] = createEnginePool({ size: 2 }));
    const ready = await pool.ready;
    const q = engine.randomNormal({ seed: 21, rows: 203, cols: 64 });
    const k = engine.randomNormal({ seed: 22, rows: 203, cols: 64 });
    const v = engine.randomNormal({ seed: 23, rows: 203, cols: 64 });
    const ref = engine.attention({ q, k, v, causal: true, variant: 'reference' }).out.data;
    const fast = engine.attention({ q, k, v, causal: true, variant: 'chunked' }).out.data;
    let worst = 0;
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(ref[i] - fast[i]));
    return { variant: wasmBuild(), page: engine.info().wasm, worker: ready.info && ready.info.wasm, worst };
  });
  assert.deepEqual([r.variant, r.page, r.worker], ['relaxed', 'relaxed', 'relaxed']);
  assert.ok(r.worst < 1e-5, `max |relaxed chunked − reference| = ${r.worst}`);
});
