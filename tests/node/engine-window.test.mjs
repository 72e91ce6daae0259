// The sliding window and query period through the JS API: the options are
// checked like the other whole-number options (same error codes), reach the
// kernels (every variant and a keyValues handle agree with the rule written
// as a mask), and visiblePairs counts the rule's pairs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { example, loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

const engine = await loadEngine();
const { q, k, v } = example;  // 4x2, 4x2, 4x2

function throwsCode(fn, code, ...patterns) {
  assert.throws(fn, (error) => {
    assert.equal(error.code, code, `code for: ${error.message}`);
    for (const p of patterns) assert.match(error.message, p);
    return true;
  });
}

// engine.hpp's rule as an L×S 0/1 mask.
function ruleMask(L, S, { causal = false, window = 0, rowOffset = 0, queryPeriod = 0 }) {
  const data = new Uint8Array(L * S);
  for (let i = 0; i < L; i++) {
    const pos = (queryPeriod ? i % queryPeriod : i) + rowOffset;
    for (let j = 0; j < S; j++) {
      let ok = !causal || j <= pos;
      if (window) ok &&= causal ? pos - j < window : Math.abs(pos - j) < window;
      data[i * S + j] = ok ? 1 : 0;
    }
  }
  return { rows: L, cols: S, data };
}

const randomMatrix = (seed, rows, cols) => engine.randomNormal({ seed, rows, cols });

test('window and queryPeriod: whole numbers >= 0, else BadArgument', () => {
  for (const name of ['window', 'queryPeriod']) {
    throwsCode(() => engine.attention({ q, k, v, [name]: -1 }), 'BadArgument', new RegExp(`^attention: ${name} is -1; it must be at least 0`));
    throwsCode(() => engine.attention({ q, k, v, [name]: 1.5 }), 'BadArgument', new RegExp(`${name} must be a whole number`));
    throwsCode(() => engine.attention({ q, k, v, [name]: '2' }), 'BadArgument', new RegExp(`${name} must be a whole number, got string 2`));
    throwsCode(() => engine.attention({ q, k, v, [name]: NaN }), 'BadArgument', new RegExp(`${name} must be a whole number`));
    throwsCode(() => engine.keyValues({ k, v }).attention({ q, [name]: -3 }), 'BadArgument', new RegExp(`${name} is -3`));
    throwsCode(() => engine.visiblePairs({ L: 4, S: 4, [name]: 0.5 }), 'BadArgument', new RegExp(`^visiblePairs: ${name}`));
  }
  throwsCode(() => engine.onlineSoftmaxTrace({ q, k, v, row: 0, blockK: 2, window: -1 }), 'BadArgument', /window is -1/);
  throwsCode(() => engine.visiblePairs({ L: 0, S: 4 }), 'ZeroDimension', /L is 0/);
  throwsCode(() => engine.visiblePairs({ L: 4, S: 4, mask: 1 }), 'BadArgument', /unknown option 'mask'/);
  // 0 means off: the same result as omitting them
  const plain = engine.attention({ q, k, v, causal: true }).out.data;
  assert.deepEqual(engine.attention({ q, k, v, causal: true, window: 0, queryPeriod: 0 }).out.data, plain);
});

test('every variant and a keyValues handle follow the window and period like the mask they stand for', () => {
  const L = 12, S = 10, d = 3;
  const qm = randomMatrix(1, L, d), km = randomMatrix(2, S, d), vm = randomMatrix(3, S, d);
  const kv = engine.keyValues({ k: km, v: vm });
  try {
    for (const rule of [{ causal: true, window: 3 }, { window: 2, rowOffset: 1 }, { causal: true, window: 2, rowOffset: 4, queryPeriod: 4 },
      { causal: true, queryPeriod: 6 }]) {
      const want = engine.attention({ q: qm, k: km, v: vm, mask: ruleMask(L, S, rule), variant: 'reference' });
      for (const variant of engine.variants()) {
        const got = engine.attention({ q: qm, k: km, v: vm, ...rule, variant, blockQ: 4, blockK: 3 });
        assert.ok(maxAbsDiff(got.out.data, want.out.data) < 1e-5, `${variant} ${JSON.stringify(rule)}`);
        assert.deepEqual(got.maskedRows, want.maskedRows);
        const stored = kv.attention({ q: qm, ...rule, variant });
        assert.ok(maxAbsDiff(stored.out.data, want.out.data) < 1e-5, `stored ${variant} ${JSON.stringify(rule)}`);
      }
    }
  } finally {
    kv.release();
  }
});

test('a window changes the result: window 1 with causal copies each row\'s own value', () => {
  const r = engine.attention({ q, k, v, causal: true, window: 1 });
  assert.deepEqual(Array.from(r.out.data), Array.from(v.data));
  const full = engine.attention({ q, k, v, causal: true });
  assert.notDeepEqual(Array.from(full.out.data), Array.from(v.data));
});

test('visiblePairs counts the rule exactly, also at n = 131072', () => {
  for (const rule of [{}, { causal: true }, { causal: true, window: 3 }, { window: 2, rowOffset: 5 }, { causal: true, window: 2, queryPeriod: 3 }]) {
    const m = ruleMask(7, 9, rule);
    const want = m.data.reduce((a, b) => a + b, 0);
    assert.equal(engine.visiblePairs({ L: 7, S: 9, ...rule }), want, JSON.stringify(rule));
  }
  const n = 131072, w = 4096;
  assert.equal(engine.visiblePairs({ L: n, S: n, causal: true, window: w }), w * (w + 1) / 2 + (n - w) * w);
});

test('onlineSoftmaxTrace with a window traces only the tiles of the window', () => {
  const t = engine.onlineSoftmaxTrace({ q, k, v, row: 3, blockK: 1, causal: true, window: 2 });
  assert.deepEqual(t.steps.map((s) => s.keyBegin), [2, 3]);
  assert.ok(t.maxAbsDiff < 1e-6);
});

// WebAssembly used to clamp each of these at 2^32 - 1 (wasm32's size_t), so it
// disagreed with the native build and with engine/README.md's rule. Counts and
// positions are now 64-bit in both: exact up to 2^53, 'TooLarge' past it.
test('visiblePairs and kvBytesRead: exact past 2^32, in closed form, TooLarge past 2^53', { timeout: 20_000 }, () => {
  assert.equal(engine.visiblePairs({ L: 2 ** 33, S: 3 }), 25_769_803_776);
  assert.equal(engine.visiblePairs({ L: 2 ** 33, S: 2 ** 33, causal: true, queryPeriod: 7 }), 34_359_738_365);
  // one row at a time, 2^53 - 1 rows would take days: the count is in closed form
  assert.equal(engine.visiblePairs({ L: 2 ** 53 - 1, S: 1 }), 2 ** 53 - 1);
  assert.equal(engine.visiblePairs({ L: 2 ** 32 - 1, S: 5 }), 21_474_836_475);
  assert.throws(() => engine.visiblePairs({ L: 2 ** 53 - 1, S: 2 }), (e) => e.code === 'TooLarge' && /2\^53/.test(e.message));
  assert.equal(engine.kvBytesRead({ headsQ: 1, headsKv: 1, S: 2 ** 32, dk: 1, dv: 1 }), 34_359_738_368);
  assert.equal(engine.kvBytesRead({ headsQ: 1, headsKv: 1, S: 3, dk: 2 ** 40, dv: 1 }), 13_194_139_533_324);
  assert.equal(engine.kvBytesRead({ headsQ: 2 ** 41, headsKv: 2 ** 40, S: 1, dk: 1, dv: 1 }), 2 ** 43);
  assert.throws(() => engine.kvBytesRead({ headsQ: 1, headsKv: 1, S: 2 ** 52, dk: 1, dv: 1 }), (e) => e.code === 'TooLarge');
});

test('a row offset and a window past 2^32 follow the rule exactly in every variant', () => {
  const one = (x) => ({ rows: x.length, cols: 1, data: Float32Array.from(x) });
  for (const variant of engine.variants()) {
    // position 2^53 - 1: the band |pos - j| < 2^32 misses both keys (a masked row) ...
    const far = engine.attention({ q: one([0]), k: one([0, 0]), v: one([5, 7]), rowOffset: 2 ** 53 - 1, window: 2 ** 32, variant });
    assert.deepEqual(far.maskedRows, [0], variant);
    assert.equal(far.out.data[0], 0, variant);
    // ... and from position 2^52 a band of 2^53 - 1 keys holds both: the mean of 5 and 7
    const wide = engine.attention({ q: one([0]), k: one([0, 0]), v: one([5, 7]), rowOffset: 2 ** 52, window: 2 ** 53 - 1, variant });
    assert.deepEqual(wide.maskedRows, [], variant);
    assert.equal(wide.out.data[0], 6, variant);
  }
});
