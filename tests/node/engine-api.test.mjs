// The engine's JS API (build/site/js/engine.mjs, contract in engine/README.md):
// every function once with values that could be wrong, the lesson's worked
// example, masks, chunked == materialized, copies, determinism, memory figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { at, example, loadEngine, mat, maxAbsDiff, row } from './engine-fixtures.mjs';

const engine = await loadEngine();
const SAT = 2;  // row/column of "sat" in the worked example

test('loadEngine returns the same engine on every call', async () => {
  assert.equal(await loadEngine(), engine);
});

test('info names the SIMD architecture and the version', () => {
  const info = engine.info();
  assert.equal(info.simd, 'wasm-simd128');   // what runs, not xsimd's name for the target it emulates (sse4.1)
  assert.match(info.version, /^\d+\.\d+/);
  assert.ok(info.heapBytes >= 16 * 1024 * 1024);
});

test('worked example: sat/sat score is 3/sqrt(2) = 2.1213 and its weight is about 0.505', () => {
  const r = engine.attention({ ...example, returnWeights: true });
  assert.equal(r.scores.rows, 4);
  assert.equal(r.scores.cols, 4);
  assert.ok(Math.abs(at(r.scores, SAT, SAT) - 2.1213) < 1e-4, `score ${at(r.scores, SAT, SAT)}`);
  assert.ok(Math.abs(at(r.weights, SAT, SAT) - 0.505) < 1e-3, `weight ${at(r.weights, SAT, SAT)}`);
  // sat's own weight is the largest in its row
  assert.equal(Math.max(...row(r.weights, SAT)), at(r.weights, SAT, SAT));
  for (let i = 0; i < 4; i++) {
    const sum = row(r.weights, i).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-6, `row ${i} sums to ${sum}`);
  }
  // out = weights · V, checked by hand for the sat row
  const w = row(r.weights, SAT);
  const expected = [0, 1].map((c) => w.reduce((s, wj, j) => s + wj * at(example.v, j, c), 0));
  assert.ok(maxAbsDiff(row(r.out, SAT), expected) < 1e-6);
  assert.deepEqual(r.maskedRows, []);
  assert.ok(r.scratchBytes > 0);
});

test('without returnWeights there are no weights or scores', () => {
  const r = engine.attention(example);
  assert.equal(r.weights, undefined);
  assert.equal(r.scores, undefined);
  assert.equal(r.out.rows, 4);
  assert.equal(r.out.cols, 2);
});

test('scale: omitted is 1/sqrt(d_k), null is no scaling, a number multiplies the logits', () => {
  const s = (scale) => at(engine.attention({ ...example, scale, returnWeights: true }).scores, SAT, SAT);
  assert.ok(Math.abs(s(undefined) - 3 / Math.SQRT2) < 1e-5);
  assert.equal(s(null), 3);
  assert.ok(Math.abs(s(0.25) - 0.75) < 1e-6);
});

test('causal: the upper triangle of the weights is zero and its scores are -Infinity', () => {
  const r = engine.attention({ ...example, causal: true, returnWeights: true });
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      if (j > i) {
        assert.equal(at(r.weights, i, j), 0, `weight (${i}, ${j})`);
        assert.equal(at(r.scores, i, j), -Infinity, `score (${i}, ${j})`);
      } else {
        assert.ok(at(r.weights, i, j) > 0, `weight (${i}, ${j})`);
      }
    }
  }
  assert.equal(at(r.weights, 0, 0), 1);  // the first word sees only itself
});

test('rowOffset: a causal slice of Q equals the same rows of the full causal result', () => {
  const q = engine.randomNormal({ seed: 5, rows: 12, cols: 4 });
  const k = engine.randomNormal({ seed: 6, rows: 12, cols: 4 });
  const v = engine.randomNormal({ seed: 7, rows: 12, cols: 3 });
  const full = engine.attention({ q, k, v, causal: true });
  const slice = { rows: 5, cols: 4, data: q.data.slice(4 * 4, 9 * 4) };
  const part = engine.attention({ q: slice, k, v, causal: true, rowOffset: 4 });
  assert.ok(maxAbsDiff(part.out.data, full.out.data.subarray(4 * 3, 9 * 3)) < 1e-6);
});

test('mask: hidden keys get zero weight; a fully hidden row is reported and its output is 0', () => {
  const mask = { rows: 4, cols: 4, data: Uint8Array.from([1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1]) };
  const r = engine.attention({ ...example, mask, returnWeights: true });
  assert.deepEqual(r.maskedRows, [2]);
  assert.deepEqual(row(r.out, 2), [0, 0]);
  assert.deepEqual(row(r.weights, 2), [0, 0, 0, 0]);
  assert.equal(at(r.weights, 0, 1), 0);
  assert.equal(at(r.weights, 3, 3), 1);
  assert.ok(Math.abs(at(r.weights, 0, 0) + at(r.weights, 0, 2) - 1) < 1e-6);
});

test('chunked and reference equal materialized (sizes off the tile and SIMD widths)', () => {
  for (const [L, S, dk, dv, blockQ, blockK] of [[37, 53, 5, 3, 8, 16], [1, 1, 1, 1, 1, 1], [64, 70, 17, 9, 32, 7]]) {
    const q = engine.randomNormal({ seed: L, rows: L, cols: dk });
    const k = engine.randomNormal({ seed: S + 1000, rows: S, cols: dk });
    const v = engine.randomNormal({ seed: dv + 2000, rows: S, cols: dv });
    for (const causal of [false, true]) {
      const base = engine.attention({ q, k, v, causal });
      const chunked = engine.attention({ q, k, v, causal, variant: 'chunked', blockQ, blockK });
      const reference = engine.attention({ q, k, v, causal, variant: 'reference' });
      const what = `L=${L} S=${S} causal=${causal}`;
      assert.ok(maxAbsDiff(chunked.out.data, base.out.data) < 1e-5, `chunked ${what}`);
      assert.ok(maxAbsDiff(reference.out.data, base.out.data) < 1e-5, `reference ${what}`);
    }
  }
});

test('chunked holds tiles, not the L x S matrix', () => {
  const q = engine.randomNormal({ seed: 1, rows: 512, cols: 16 });
  const k = engine.randomNormal({ seed: 2, rows: 512, cols: 16 });
  const materialized = engine.attention({ q, k, v: k });
  const chunked = engine.attention({ q, k, v: k, variant: 'chunked' });
  assert.ok(materialized.scratchBytes >= 512 * 512 * 4, `materialized ${materialized.scratchBytes}`);
  assert.ok(chunked.scratchBytes < 512 * 512 * 4 / 4, `chunked ${chunked.scratchBytes}`);
});

test('returned arrays are copies that stay valid after later calls grow the wasm heap', () => {
  const first = engine.attention({ ...example, returnWeights: true });
  const out = Array.from(first.out.data);
  const weights = Array.from(first.weights.data);
  assert.equal(first.out.data.buffer.byteLength, first.out.data.byteLength);  // its own buffer
  const heapBefore = engine.info().heapBytes;
  const big = engine.randomNormal({ seed: 9, rows: 2048, cols: 8 });
  engine.attention({ q: big, k: big, v: big, returnWeights: true });  // 2 x 16 MiB of scores and weights
  assert.ok(engine.info().heapBytes > heapBefore, 'the heap grew');
  assert.deepEqual(Array.from(first.out.data), out);
  assert.deepEqual(Array.from(first.weights.data), weights);
  assert.equal(first.out.data.length, 8);
});

test('rowStats: entropy and max weight per row', () => {
  const s = engine.rowStats(mat([[0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0], [0.5, 0.5, 0, 0]]));
  assert.ok(s.entropy instanceof Float32Array && s.maxWeight instanceof Float32Array);
  assert.ok(Math.abs(s.entropy[0] - Math.log(4)) < 1e-6);
  assert.equal(s.entropy[1], 0);
  assert.ok(Math.abs(s.entropy[2] - Math.log(2)) < 1e-6);
  assert.deepEqual(Array.from(s.maxWeight), [0.25, 1, 0.5]);
});

test('experiment: deterministic, per-seed rows, mean over seeds, scaling tames the logits', () => {
  const args = { n: 64, dk: 64, seeds: [1, 2, 3], scale: true };
  const a = engine.experiment(args);
  const b = engine.experiment(args);
  assert.deepEqual(a, b);
  assert.deepEqual(a.perSeed.map((r) => r.seed), [1, 2, 3]);
  // a seed gives the same row whatever else is in the list
  assert.deepEqual(engine.experiment({ ...args, seeds: [2] }).perSeed[0], a.perSeed[1]);
  assert.ok(Math.abs(a.uniformEntropy - Math.log(64)) < 1e-12);
  for (const key of ['maxWeight', 'meanEntropy', 'entropyShare', 'meanSqLogit', 'rmsLogit', 'jacobianNorm']) {
    const mean = a.perSeed.reduce((s, r) => s + r[key], 0) / 3;
    assert.ok(Math.abs(a.mean[key] - mean) < 1e-9 * Math.max(1, Math.abs(mean)), key);
  }
  assert.equal(a.mean.seed, 0);
  const unscaled = engine.experiment({ ...args, scale: false });
  // q.k of N(0,1) vectors has variance d_k: rms about 8 unscaled, about 1 scaled
  assert.ok(Math.abs(a.mean.rmsLogit - 1) < 0.2, `scaled rms ${a.mean.rmsLogit}`);
  assert.ok(Math.abs(unscaled.mean.rmsLogit - 8) < 1.6, `unscaled rms ${unscaled.mean.rmsLogit}`);
  assert.ok(unscaled.mean.maxWeight > a.mean.maxWeight);
  assert.ok(unscaled.mean.entropyShare < a.mean.entropyShare);
});

test('experiment: without scaling the softmax gradient vanishes as d_k grows; with it, it does not', () => {
  const run = (dk, scale) => engine.experiment({ n: 64, dk, seeds: [1, 2, 3], scale }).mean;
  const [scaled16, scaled256] = [run(16, true), run(256, true)];
  const [unscaled16, unscaled256] = [run(16, false), run(256, false)];
  assert.ok(unscaled256.jacobianNorm < 0.5 * unscaled16.jacobianNorm,
    `unscaled ${unscaled16.jacobianNorm} -> ${unscaled256.jacobianNorm}`);
  assert.ok(unscaled256.maxWeight > 0.99, `unscaled d_k=256 max weight ${unscaled256.maxWeight}`);
  assert.ok(Math.abs(scaled256.jacobianNorm / scaled16.jacobianNorm - 1) < 0.05,
    `scaled ${scaled16.jacobianNorm} -> ${scaled256.jacobianNorm}`);
});

test('scoreMatrixBytes: the lesson figures', () => {
  assert.equal(engine.scoreMatrixBytes({ n: 8192, bytesPerElement: 2 }), 134_217_728);
  assert.equal(engine.scoreMatrixBytes({ n: 131072, bytesPerElement: 4 }), 68_719_476_736);
  assert.equal(engine.scoreMatrixBytes({ n: 128000, bytesPerElement: 4 }), 65_536_000_000);
  assert.equal(engine.scoreMatrixBytes({ n: 1024, bytesPerElement: 2, heads: 32, layers: 40, batch: 3 }),
    1024 * 1024 * 2 * 32 * 40 * 3);
});

test('softmaxRow: without the max subtraction exp overflows; with it the weights are right', () => {
  const safe = engine.softmaxRow({ logits: [1000, 999, 0] });
  assert.equal(safe.overflowed, false);
  assert.ok(safe.weights instanceof Float32Array);
  assert.ok(Math.abs(safe.weights[0] - 1 / (1 + Math.exp(-1))) < 1e-6);
  assert.ok(Math.abs(safe.weights.reduce((a, b) => a + b, 0) - 1) < 1e-6);
  const naive = engine.softmaxRow({ logits: Float32Array.from([1000, 999, 0]), subtractMax: false });
  assert.equal(naive.overflowed, true);
  const small = engine.softmaxRow({ logits: [0, Math.log(3)], subtractMax: false });
  assert.equal(small.overflowed, false);
  assert.ok(maxAbsDiff(small.weights, [0.25, 0.75]) < 1e-6);
});

test('onlineSoftmaxTrace: one step per key tile, ending at the reference row', () => {
  const t = engine.onlineSoftmaxTrace({ ...example, row: SAT, blockK: 3 });
  assert.equal(t.steps.length, 2);  // keys [0, 3) and [3, 4)
  assert.deepEqual(t.steps.map((s) => [s.tile, s.keyBegin, s.keyEnd]), [[0, 0, 3], [1, 3, 4]]);
  assert.ok(Math.abs(t.steps[0].tileMax - 3 / Math.SQRT2) < 1e-5);
  assert.equal(t.steps[0].rescale, 0);  // first visible tile
  assert.equal(t.steps[1].mOld, t.steps[0].mNew);
  assert.equal(t.steps[1].lOld, t.steps[0].lNew);
  assert.ok(t.steps[1].acc instanceof Float32Array && t.steps[1].acc.length === 2);
  const full = engine.attention(example);
  assert.ok(maxAbsDiff(t.out, row(full.out, SAT)) < 1e-6);
  assert.ok(maxAbsDiff(t.reference, t.out) <= t.maxAbsDiff + 1e-12);
  assert.ok(t.maxAbsDiff < 1e-6);
  const last = t.steps.at(-1);
  assert.ok(maxAbsDiff(Array.from(last.acc, (a) => a / last.lNew), t.out) < 1e-6);
});

test('logitStats: mean square of q.k before and after scaling', () => {
  const s = engine.logitStats({ q: example.q, k: example.k });
  // all 16 products q_i . k_j of the worked example
  const dots = [0, 1, 2, 1, 1, 1, 1, 0, 1, 2, 3, 1, 0, 1, 2, 1];
  const meanSq = dots.reduce((a, x) => a + x * x, 0) / 16;
  assert.ok(Math.abs(s.meanSqUnscaled - meanSq) < 1e-9);
  assert.ok(Math.abs(s.rmsUnscaled - Math.sqrt(meanSq)) < 1e-9);
  assert.ok(Math.abs(s.meanSqScaled - meanSq / 2) < 1e-6);
  assert.ok(Math.abs(engine.logitStats({ q: example.q, k: example.k, scale: null }).meanSqScaled - meanSq) < 1e-9);
});

test('jacobianNorm: 0 for a one-hot row, 0.5 for (0.5, 0.5)', () => {
  assert.equal(engine.jacobianNorm(Float32Array.from([0, 1, 0])), 0);
  assert.ok(Math.abs(engine.jacobianNorm(Float32Array.from([0.5, 0.5])) - 0.5) < 1e-7);
  assert.ok(Math.abs(engine.jacobianNorm([0.5, 0.5]) - 0.5) < 1e-7);
});

test('randomNormal: deterministic N(0, 1) draws', () => {
  const a = engine.randomNormal({ seed: 123, rows: 100, cols: 100 });
  const b = engine.randomNormal({ seed: 123, rows: 100, cols: 100 });
  const c = engine.randomNormal({ seed: 124, rows: 100, cols: 100 });
  assert.equal(a.rows, 100);
  assert.equal(a.cols, 100);
  assert.deepEqual(a.data, b.data);
  assert.notDeepEqual(a.data, c.data);
  const mean = a.data.reduce((s, x) => s + x, 0) / a.data.length;
  const variance = a.data.reduce((s, x) => s + (x - mean) ** 2, 0) / a.data.length;
  assert.ok(Math.abs(mean) < 0.05, `mean ${mean}`);
  assert.ok(Math.abs(variance - 1) < 0.05, `variance ${variance}`);
});

test('memoryBudget / setMemoryBudget: set, use, restore', () => {
  const initial = engine.memoryBudget();
  assert.ok(initial > 1e9 && initial <= 2 ** 32, `default ${initial}`);
  engine.setMemoryBudget(1_000_000);
  assert.equal(engine.memoryBudget(), 1_000_000);
  engine.setMemoryBudget(0);
  assert.ok(Math.abs(engine.memoryBudget() - initial) < 64 * 1024 * 1024);
});

test('keyValues: slices of q against kept K and V equal one attention call, causal via rowOffset', () => {
  const n = 150, d = 16;
  const q = engine.randomNormal({ seed: 71, rows: n, cols: d });
  const k = engine.randomNormal({ seed: 72, rows: n, cols: d });
  const v = engine.randomNormal({ seed: 73, rows: n, cols: d });
  const whole = engine.attention({ q, k, v, causal: true, variant: 'chunked' }).out.data;
  const kv = engine.keyValues({ k, v });
  assert.equal(kv.rows, n);
  const stitched = new Float32Array(n * d);
  for (let r0 = 0; r0 < n; r0 += 64) {
    const r1 = Math.min(n, r0 + 64);
    const part = kv.attention({
      q: { rows: r1 - r0, cols: d, data: q.data.subarray(r0 * d, r1 * d) }, causal: true, variant: 'chunked', rowOffset: r0,
    });
    stitched.set(part.out.data, r0 * d);
  }
  assert.ok(maxAbsDiff(stitched, whole) < 1e-6, `max diff ${maxAbsDiff(stitched, whole)}`);
  assert.throws(() => kv.attention({ q: { rows: 1, cols: d + 1, data: new Float32Array(d + 1) } }), { code: 'ShapeMismatch' });
  kv.release();
  assert.throws(() => kv.attention({ q }), { code: 'BadArgument' });
  const bad = Float32Array.from(v.data); bad[5] = NaN;
  assert.throws(() => engine.keyValues({ k, v: { rows: n, cols: d, data: bad } }), { code: 'NonFinite' });
  assert.throws(() => engine.keyValues({ k, v: { rows: n - 1, cols: d, data: v.data.subarray(0, (n - 1) * d) } }), { code: 'ShapeMismatch' });
});
