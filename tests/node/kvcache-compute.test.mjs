// Chapter 12's compute module (web/js/sections/kvcache-compute.mjs) on the real engine:
// the calculator's BigInt cache formula against the engine's own kvCache handle .bytes(),
// the cost closed forms against sums of engine counts, the intensity ratios, the presets, and
// what the step-through shows at each step against the engine's attention recomputed here.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';
import { kvCacheBytes, computeCalculator, computeCost, computeIntensity, computeTrace, traceStep, tokensKept, TRACE_SHAPE, handExample, HAND_MACHINE } from '../../web/js/sections/kvcache-compute.mjs';
import { PRESETS, MODEL_KEYS } from '../../web/js/sections/kvcache-presets.mjs';
import { formatNumber } from '../../web/js/i18n/numerals.mjs';

const engine = await loadEngine();

test('kvCacheBytes (one layer, float32) equals the bytes the engine\'s cache reserves after a prefill of n rows', () => {
  for (const [hkv, d, n, window] of [[1, 1, 1, 0], [2, 4, 7, 0], [8, 16, 33, 0], [3, 5, 20, 6], [2, 8, 4, 9]]) {
    const cache = engine.kvCache({ headsKv: hkv, dk: d, dv: d, window });
    const k = engine.randomNormal({ seed: 1, rows: hkv * n, cols: d }), v = engine.randomNormal({ seed: 2, rows: hkv * n, cols: d });
    cache.prefill({ k, v });
    const want = cache.bytes();
    cache.delete();
    const got = kvCacheBytes({ layers: 1, headsKv: hkv, dHead: d, n, bytesPerElement: 4, window, windowedLayers: window ? 1 : 0 });
    assert.equal(got, BigInt(want), `H_kv ${hkv}, d ${d}, n ${n}, w ${window}`);
  }
});

test('kvCacheBytes scales with layers, batch and bytes, and windowed layers keep min(n, w)', () => {
  const one = kvCacheBytes({ layers: 1, headsKv: 8, dHead: 128, n: 8192, bytesPerElement: 2 });
  assert.equal(one, 2n * 8n * 128n * 8192n * 2n);
  assert.equal(kvCacheBytes({ layers: 32, headsKv: 8, dHead: 128, n: 8192, bytesPerElement: 2, batch: 3 }), one * 96n);
  // Gemma 2 9B at n = 8192: 21 layers keep 4096, 21 keep 8192
  const g = PRESETS['gemma2-9b'];
  const gem = kvCacheBytes({ ...g, n: 8192, bytesPerElement: 2 });
  assert.equal(gem, 2n * 8n * 256n * 2n * (21n * 4096n + 21n * 8192n));
  assert.equal(tokensKept({ n: 100, window: 4096, windowedLayers: 1 }), 100);
  // Llama 3 8B, 128K tokens (131,072), bfloat16: 16 GiB exactly
  assert.equal(kvCacheBytes({ ...PRESETS['llama3-8b'], n: 131072, bytesPerElement: 2 }), 16n * 2n ** 30n);
  // past 2^53 the count stays exact
  const huge = kvCacheBytes({ layers: 256, headsKv: 256, dHead: 1024, n: 4194304, bytesPerElement: 4, batch: 1024 });
  assert.equal(huge, 2n * 256n * 1024n * 4n * 1024n * 256n * 4194304n);
});

test('computeCalculator agrees with the engine and gives MHA and score-matrix bytes', async () => {
  for (const key of MODEL_KEYS.filter((k) => k !== 'custom')) {
    const p = PRESETS[key];
    const r = await computeCalculator(engine, { ...p, n: 32768, bytesPerElement: 2, batch: 4 });
    assert.equal(r.mha, r.cache * BigInt(p.headsQ / p.headsKv), key);
    assert.equal(r.score, 32768n * 32768n * 2n * BigInt(p.headsQ) * BigInt(p.layers) * 4n);
    assert.equal(Number(r.cache), r.engineCache);
  }
  const mistral = await computeCalculator(engine, { ...PRESETS['mistral-7b'], n: 131072, bytesPerElement: 2 });
  assert.equal(mistral.kept, 4096);
  assert.equal(mistral.cache, 2n * 32n * 8n * 128n * 4096n * 2n);
});

test('computeCost: linear per token with a cache, quadratic without; totals T(T+1)/2 and T(T+1)(T+2)/6', async () => {
  const rows = await computeCost(engine, [1, 2, 5, 64, 131072]);
  const byT = new Map(rows.map((r) => [r.T, r]));
  for (const r of rows) {
    assert.equal(r.stepCached, r.T);
    assert.equal(r.stepRecompute, (r.T * (r.T + 1)) / 2);
    assert.equal(r.totalCached, (r.T * (r.T + 1)) / 2);
  }
  // the closed form of the recompute total against a sum of engine counts
  for (const T of [1, 2, 5, 64]) {
    let sum = 0;
    for (let t = 1; t <= T; t++) sum += engine.visiblePairs({ L: t, S: t, causal: true });
    assert.equal(byT.get(T).totalRecompute, sum);
  }
});

test('computeIntensity: a decode step stays near 2·(H_q/H_kv)/bytes flops per byte; prefill grows with P', async () => {
  const p = PRESETS['llama3-8b'];
  const a = await computeIntensity(engine, { ...p, S: 4096, P: 512, bytesPerElement: 2 });
  const b = await computeIntensity(engine, { ...p, S: 65536, P: 4096, bytesPerElement: 2 });
  assert.equal(a.decodeFlops, 2 * 256 * 32 * 4096);
  assert.equal(a.kvRead, 8 * 4096 * 256 * 2);
  assert.ok(a.decodeIntensity < 2 * 4 / 2 && a.decodeIntensity > 3.9);
  assert.ok(b.decodeIntensity < 4 && b.decodeIntensity > a.decodeIntensity);
  // H_q·(P+1) / ((H_kv + H_q)·bytes): 32·513/80 flops per byte at P = 512
  assert.ok(Math.abs(a.prefillIntensity - (32 * 513) / 80) < 1e-9);
  assert.ok(a.prefillIntensity > 50 * a.decodeIntensity);
  assert.ok(b.prefillIntensity > 7 * a.prefillIntensity);
  // MHA reads H_q/H_kv times more per decode step: its intensity is H_q/H_kv times lower
  const m = await computeIntensity(engine, { ...p, headsKv: 32, S: 4096, P: 512, bytesPerElement: 2 });
  assert.ok(Math.abs(a.decodeIntensity / m.decodeIntensity - 4) < 0.02);
});

test('computeTrace runs the page\'s example and the presets are whole, consistent shapes', async () => {
  const r = await computeTrace(engine);
  assert.equal(r.trace.length, TRACE_SHAPE.steps + 1);
  assert.ok(r.maxAbsDiff < 1e-6);
  for (const [key, p] of Object.entries(PRESETS)) {
    assert.equal(p.headsQ % p.headsKv, 0, key);
    assert.ok(p.windowedLayers <= p.layers, key);
    assert.equal(p.window > 0, p.windowedLayers > 0, key);
  }
});

test('the hand example: 1000 trillion operations over 3 trillion bytes per second; a Llama 3 8B decode step uses about 1 % of it, its prefill all of it', async () => {
  assert.deepEqual({ ...HAND_MACHINE }, { teraFlops: 1000, teraBytes: 3 });
  const p = PRESETS['llama3-8b'];
  const it = await computeIntensity(engine, { headsQ: p.headsQ, headsKv: p.headsKv, dHead: p.dHead, S: 8192, P: 8192, bytesPerElement: 2 });
  const hand = handExample(it);
  assert.equal(hand.balance, 1000 / 3);
  assert.equal(Math.round(hand.balance), 333, 'the text says «about 333»');
  assert.equal(hand.decodeBusy, it.decodeIntensity / hand.balance);
  assert.ok(hand.decodeBusy > 0.011 && hand.decodeBusy < 0.013, `decode uses ${hand.decodeBusy}`);
  assert.equal(hand.prefillBusy, 1, 'the prefill of 8192 tokens is limited by compute, not memory');
  assert.ok(it.prefillIntensity > hand.balance && it.decodeIntensity < hand.balance);
  // a short prompt's prefill is still memory-bound: the share is below one, not clamped
  const short = handExample(await computeIntensity(engine, { headsQ: p.headsQ, headsKv: p.headsKv, dHead: p.dHead, S: 16, P: 16, bytesPerElement: 2 }));
  assert.ok(short.prefillBusy < 1);
});

// What the step-through shows (the browser checks only that the page shows this): at each step
// the cached keys of each key/value head are the first `length` rows of its K (drawn here from
// the same seed), and the newest row's weights of each query head equal one causal attention
// call over that row's keys.
test('traceStep: the cached keys and the newest row\'s weights at every step equal the engine', async () => {
  const S = TRACE_SHAPE, N = S.prompt + S.steps, G = S.headsQ / S.headsKv;
  const trace = await computeTrace(engine);
  const q = engine.randomNormal({ seed: S.seed, rows: S.headsQ * N, cols: S.dk });
  const k = engine.randomNormal({ seed: S.seed + 1, rows: S.headsKv * N, cols: S.dk });
  const v = engine.randomNormal({ seed: S.seed + 2, rows: S.headsKv * N, cols: S.dv });
  const rowsOf = (m, a, b) => ({ rows: b - a, cols: m.cols, data: m.data.slice(a * m.cols, b * m.cols) });
  for (let step = 0; step <= S.steps; step++) {
    const view = traceStep(trace, step);
    const length = step === 0 ? S.prompt : S.prompt + step;
    assert.equal(view.step.length, length, `step ${step}`);
    assert.equal(view.step.kind, step === 0 ? 'prefill' : 'decode');
    assert.equal(view.keys.length, S.headsKv);
    for (let g = 0; g < S.headsKv; g++) {
      assert.deepEqual([view.keys[g].rows, view.keys[g].cols], [length, S.dk]);
      assert.deepEqual(Array.from(view.keys[g].data), Array.from(rowsOf(k, g * N, g * N + length).data), `step ${step} head ${g}: cached keys`);
    }
    // the newest row: the last prompt row at the prefill, the new token after
    const row = length - 1;
    assert.deepEqual([view.weights.rows, view.weights.cols], [S.headsQ, row + 1]);
    for (let h = 0; h < S.headsQ; h++) {
      const g = Math.floor(h / G);
      const one = engine.attention({ q: rowsOf(q, h * N, h * N + row + 1), k: rowsOf(k, g * N, g * N + row + 1),
        v: rowsOf(v, g * N, g * N + row + 1), causal: true, returnWeights: true });
      const want = one.weights.data.subarray(row * (row + 1), (row + 1) * (row + 1));
      const got = view.weights.data.subarray(h * (row + 1), (h + 1) * (row + 1));
      for (let j = 0; j <= row; j++) assert.ok(Math.abs(got[j] - want[j]) < 1e-6, `step ${step} query head ${h} key ${j}: ${got[j]} vs ${want[j]}`);
    }
  }
});

// walkthrough ar #17: the page wrote 65,537 for (n+1)/2 = 65,536.5 with no sign of rounding
test('computeCost: the per-token ratio without and with a cache is (T+1)/2, a half for even T', async () => {
  const [even, odd] = await computeCost(engine, [131072, 9]);
  assert.equal(even.stepRatio, 65536.5);
  assert.equal(odd.stepRatio, 5);
  assert.equal(formatNumber(even.stepRatio, { lang: 'ar', maximumFractionDigits: 1 }), '٦٥٬٥٣٦٫٥');
});
