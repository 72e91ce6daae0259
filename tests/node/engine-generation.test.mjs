// engine.generationTrace: the KV cache's prefill and decode steps in one
// worker-friendly call (engine/js/engine.mjs), against full causal attention,
// with and without a window, and its argument errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const codeOf = (f) => {
  try { f(); } catch (error) { return error.code; }
  return 'no error';
};

test('generationTrace: prefill then one decode step per token, each equal to full causal attention', () => {
  const r = engine.generationTrace({ prompt: 5, steps: 7, headsQ: 6, headsKv: 2, dk: 8, dv: 3, seed: 4 });
  assert.equal(r.trace.length, 8);
  assert.deepEqual(r.trace.map((s) => s.kind), ['prefill', ...Array(7).fill('decode')]);
  assert.deepEqual(r.trace.map((s) => s.length), [5, 6, 7, 8, 9, 10, 11, 12]);
  assert.deepEqual(r.trace.map((s) => s.first), [0, 5, 6, 7, 8, 9, 10, 11]);
  assert.equal(r.trace[0].out.rows, 6 * 5);
  for (const s of r.trace.slice(1)) assert.deepEqual([s.out.rows, s.out.cols], [6, 3]);
  assert.ok(r.maxAbsDiff < 1e-6, `max |Δ| ${r.maxAbsDiff}`);
  // the cache reserves exactly the prompt on prefill, then doubles: bytes = capacity·H_kv·(dk+dv)·4
  assert.equal(r.trace[0].bytes, 5 * 2 * 11 * 4);
  assert.equal(r.trace[1].bytes, 10 * 2 * 11 * 4);
  assert.equal(r.trace[6].bytes, 20 * 2 * 11 * 4);
  assert.equal(r.weights.length, 6);
  assert.deepEqual([r.weights[0].rows, r.weights[0].cols], [12, 12]);
  // q, k, v are the engine's randomNormal draws, head-major
  assert.deepEqual(r.k.data, engine.randomNormal({ seed: 5, rows: 2 * 12, cols: 8 }).data);
});

test('generationTrace: each decode output is the matching row of the weights times v (own check)', () => {
  const r = engine.generationTrace({ prompt: 2, steps: 3, headsQ: 2, headsKv: 1, dk: 4, dv: 2, seed: 9 });
  const N = 5;
  for (const s of r.trace.slice(1)) {
    for (let h = 0; h < 2; h++) {
      for (let c = 0; c < 2; c++) {
        let want = 0;
        for (let j = 0; j < N; j++) want += r.weights[h].data[s.first * N + j] * r.v.data[j * 2 + c];
        assert.ok(Math.abs(s.out.data[h * 2 + c] - want) < 1e-5);
      }
    }
  }
});

test('generationTrace: with a window the cache keeps w rows and still matches windowed causal attention', () => {
  const r = engine.generationTrace({ prompt: 6, steps: 5, headsQ: 2, headsKv: 2, dk: 4, dv: 4, window: 3 });
  assert.deepEqual(r.trace.map((s) => s.length), [3, 3, 3, 3, 3, 3]);
  assert.ok(r.trace.every((s) => s.bytes === 3 * 2 * 8 * 4));
  assert.ok(r.maxAbsDiff < 1e-6);
  // row 10 of the full weights sees only keys 8, 9, 10
  const w = r.weights[0].data.subarray(10 * 11, 11 * 11);
  assert.ok(w.slice(0, 8).every((x) => x === 0));
});

test('generationTrace: bad arguments get the engine\'s error codes', () => {
  const ok = { prompt: 2, steps: 1, headsQ: 2, dk: 2, dv: 2 };
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, prompt: 0 })), 'ZeroDimension');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, steps: -1 })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, steps: 1.5 })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, headsKv: 3 })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, dk: 0 })), 'ZeroDimension');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, seed: 2 ** 32 })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, colour: 1 })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, prompt: 1000, steps: 100 })), 'TooLarge');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, headsQ: 64, prompt: 300 })), 'TooLarge');
  assert.equal(codeOf(() => engine.generationTrace(7)), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, get dv() { throw new Error('boom'); } })), 'BadArgument');
  assert.equal(codeOf(() => engine.generationTrace({ ...ok, steps: 0 })), 'no error');
});
