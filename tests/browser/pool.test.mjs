// The engine pool (web/js/engine-link/engine-pool.mjs) in Chromium: what only a browser shows. The
// splits, shapes, errors, cancel and default size run in Node on the real engine behind fake
// workers (tests/node/pool.test.mjs, pool-heads.test.mjs); here, Chromium picks the
// relaxed-SIMD build in the page and in every real pool worker, and it matches the reference.
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
    const { createEnginePool } = await import('/js/engine-link/engine-pool.mjs');
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
