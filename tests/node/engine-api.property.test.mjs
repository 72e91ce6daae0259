// Property tests of the engine's JS API (issue 13) with fast-check: whatever
// a caller passes (wrong types, getters that change or throw, objects that
// claim to be typed arrays through Symbol.toStringTag, Proxies, sizes past
// 2^31), every call either returns or throws an Error with a known `.code`,
// never a bare TypeError or a wasm RuntimeError, and the wasm heap stays the
// same size over hundreds of calls. Seeds are fixed: a failure prints its
// counterexample and replays the same way.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import fc from 'fast-check';

import { example, loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const CODES = new Set(['ShapeMismatch', 'ZeroDimension', 'NonFinite', 'TooLarge', 'BadArgument']);
const RUNS = { seed: 13, numRuns: 300 };

/** Runs f; it must return, or throw an Error whose .code is one of CODES. Returns the code or null. */
function codeOf(f) {
  try {
    f();
    return null;
  } catch (error) {
    assert.ok(error instanceof Error, `not an Error: ${String(error)}`);
    assert.ok(CODES.has(error.code), `no known .code on ${error.name}: ${error.message} (code ${String(error.code)})`);
    assert.equal(typeof error.message, 'string');
    return error.code;
  }
}

// ---------------------------------------------------------------- arbitraries
const sizes = fc.constantFrom(0, 1, 2, 3, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 65536, 65537, 2 ** 53, -1, 1.5, NaN, Infinity);

/** An object that claims to be a typed array but is not one. */
const impostor = fc.record({
  tag: fc.constantFrom('Float32Array', 'Uint8Array', 'Float64Array'),
  length: sizes,
}).map(({ tag, length }) => ({ [Symbol.toStringTag]: tag, length, findIndex: () => -1, 0: 1 }));

/** A value that reads differently each time (a getter over a list), or throws on the n-th read. */
function lying(values, throwAt) {
  let reads = 0;
  return {
    get value() {
      reads++;
      if (reads === throwAt) throw new RangeError(`read ${reads}`);
      return values[(reads - 1) % values.length];
    },
  };
}

const realF32 = fc.integer({ min: 0, max: 6 }).map((n) => new Float32Array(n).fill(0.5));
const dataLike = fc.oneof(realF32, impostor, fc.anything(), fc.constant(new Uint8Array(4).fill(1)),
  fc.constant([1, 2, 3, 4]), fc.constant(new Float64Array(4)));

/** A matrix-shaped argument whose fields may be wrong, lie or throw. */
const matrixLike = fc.oneof(
  fc.record({ rows: sizes, cols: sizes, data: dataLike }),
  fc.record({ rows: fc.constantFrom(2), cols: fc.constantFrom(2), values: fc.array(dataLike, { minLength: 1, maxLength: 4 }), throwAt: fc.integer({ min: 0, max: 5 }) })
    .map(({ rows, cols, values, throwAt }) => {
      const source = lying([new Float32Array(4), ...values], throwAt);
      return { rows, cols, get data() { return source.value; }, [fc.toStringMethod]: () => `{rows: 2, cols: 2, data: getter throwing at read ${throwAt}}` };
    }),
  fc.constant(new Proxy({}, { get(t, p) {
    // symbols (toStringTag, fast-check's printer) read through; every named field throws
    if (p === fc.toStringMethod) return () => 'Proxy(get throws)';
    if (typeof p === 'symbol') return Reflect.get(t, p);
    throw new Error('proxy trap');
  } })),
  fc.constant(new Proxy({ rows: 2, cols: 2, data: new Float32Array(4), [fc.toStringMethod]: () => 'Proxy(ownKeys throws)' },
    { ownKeys() { throw new Error('ownKeys trap'); } })),
  fc.anything(),
);

const maskLike = fc.oneof(
  fc.record({ rows: sizes, cols: sizes, data: fc.oneof(impostor, fc.constant(new Uint8Array(16).fill(1)), fc.anything()) }),
  fc.integer({ min: 0, max: 5 }).map((throwAt) => {
    const source = lying([new Uint8Array(16).fill(1), { [Symbol.toStringTag]: 'Uint8Array', length: 16 }, new Uint8Array(1)], throwAt);
    return { rows: 4, cols: 4, get data() { return source.value; }, [fc.toStringMethod]: () => `{mask getter throwing at read ${throwAt}}` };
  }),
  fc.anything(),
);

const optionValue = fc.oneof(fc.anything(), sizes, fc.constantFrom('chunked', 'reference', 'materialized', 'other'));

// ---------------------------------------------------------------- properties
test('attention: any q, k, v, mask and options return or throw a coded Error', () => {
  const heapBefore = engine.info().heapBytes;
  fc.assert(fc.property(
    fc.record({ q: fc.oneof(fc.constant(example.q), matrixLike), k: fc.oneof(fc.constant(example.k), matrixLike), v: fc.oneof(fc.constant(example.v), matrixLike) }),
    fc.record({ mask: maskLike, variant: optionValue, causal: optionValue, scale: optionValue, blockQ: optionValue, blockK: optionValue, rowOffset: optionValue, returnWeights: optionValue }, { requiredKeys: [] }),
    (qkv, opts) => { codeOf(() => engine.attention({ ...qkv, ...opts })); },
  ), RUNS);
  assert.equal(engine.info().heapBytes, heapBefore, 'the wasm heap grew');
  assert.equal(engine.attention(example).out.rows, 4, 'still usable');
});

test('every other entry point: any argument returns or throws a coded Error', () => {
  const heapBefore = engine.info().heapBytes;
  const calls = [
    (x) => engine.rowStats(x),
    (x) => engine.jacobianNorm(x),
    (x) => engine.softmaxRow(x),
    (x) => engine.softmaxRow({ logits: x }),
    (x) => engine.experiment(x),
    (x) => engine.experiment({ n: 2, dk: 2, seeds: x, scale: true }),
    (x) => engine.scoreMatrixBytes(x),
    (x) => engine.scoreMatrixBytes({ n: x, bytesPerElement: 4 }),
    (x) => engine.onlineSoftmaxTrace(x),
    (x) => engine.onlineSoftmaxTrace({ ...example, row: 0, blockK: x }),
    (x) => engine.onlineSoftmaxTrace({ q: x, k: example.k, v: example.v, row: 0, blockK: 2 }),
    (x) => engine.logitStats(x),
    (x) => engine.logitStats({ q: example.q, k: x }),
    (x) => engine.randomNormal(x),
    (x) => engine.randomNormal({ seed: 1, rows: x, cols: 2 }),
    (x) => engine.keyValues(x).release(),
    (x) => engine.keyValues({ k: x, v: example.v }).release(),
    (x) => {
      const kv = engine.keyValues({ k: example.k, v: example.v });
      try { kv.attention(x); } finally { kv.release(); }
    },
    (x) => {
      const kv = engine.keyValues({ k: example.k, v: example.v });
      try { kv.attention({ q: x }); } finally { kv.release(); }
    },
  ];
  const arg = fc.oneof(matrixLike, fc.anything(), fc.array(fc.oneof(fc.double(), fc.anything()), { maxLength: 5 }),
    fc.constant([1, 2, 3]), fc.constant(new Float32Array([0.5, 0.5])), sizes,
    fc.constant(new Proxy([1, 2], {
      get(t, p) {
        if (p === fc.toStringMethod) return () => 'Proxy([1, 2], index 1 throws)';
        if (typeof p === 'symbol') return Reflect.get(t, p);
        if (p === '1') throw new Error('index trap');
        return Reflect.get(t, p);
      },
    })));
  fc.assert(fc.property(fc.integer({ min: 0, max: calls.length - 1 }), arg, (which, x) => { codeOf(() => calls[which](x)); }), RUNS);
  assert.equal(engine.info().heapBytes, heapBefore, 'the wasm heap grew');
});

test('sizes past 2^31 and 2^32 are refused in JS with a code, before any allocation', () => {
  const heapBefore = engine.info().heapBytes;
  fc.assert(fc.property(
    fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 32 + 1, 65536 * 65537, 2 ** 53 - 1),
    fc.constantFrom(1, 2, 65537),
    fc.integer({ min: 0, max: 16 }),
    (rows, cols, length) => {
      const m = { rows, cols, data: new Float32Array(length) };
      const code = codeOf(() => engine.attention({ q: m, k: m, v: m }));
      assert.ok(code === 'ShapeMismatch' || code === 'TooLarge', code);
      const maskCode = codeOf(() => engine.attention({ ...example, mask: { rows, cols, data: new Uint8Array(length) } }));
      assert.equal(maskCode, 'ShapeMismatch');
    },
  ), { seed: 13, numRuns: 100 });
  assert.equal(engine.info().heapBytes, heapBefore, 'the wasm heap grew');
});

test('valid random inputs: every variant agrees and the heap stays flat over repeated calls', () => {
  const small = fc.integer({ min: 1, max: 9 });
  const matrixOf = (rows, cols) => fc.array(fc.float({ min: -4, max: 4, noNaN: true }), { minLength: rows * cols, maxLength: rows * cols })
    .map((xs) => ({ rows, cols, data: Float32Array.from(xs) }));
  const problem = fc.tuple(small, small, small, small).chain(([L, S, dk, dv]) => fc.record({
    q: matrixOf(L, dk), k: matrixOf(S, dk), v: matrixOf(S, dv),
    causal: fc.boolean(), blockQ: fc.integer({ min: 1, max: 12 }), blockK: fc.integer({ min: 1, max: 12 }),
  }));
  // warm up: the first calls may grow the heap once
  for (let i = 0; i < 3; i++) engine.attention({ ...example, returnWeights: true });
  const heapBefore = engine.info().heapBytes;
  fc.assert(fc.property(problem, ({ q, k, v, causal, blockQ, blockK }) => {
    const ref = engine.attention({ q, k, v, causal, variant: 'reference' });
    const mat = engine.attention({ q, k, v, causal, returnWeights: true });
    const chunk = engine.attention({ q, k, v, causal, variant: 'chunked', blockQ, blockK });
    const kv = engine.keyValues({ k, v });
    const stored = kv.attention({ q, causal, variant: 'chunked', blockQ, blockK });
    kv.release();
    for (const r of [mat, chunk, stored])
      for (let i = 0; i < ref.out.data.length; i++)
        assert.ok(Math.abs(r.out.data[i] - ref.out.data[i]) <= 1e-5 * 4 + 1e-6, `out[${i}] ${r.out.data[i]} vs ${ref.out.data[i]}`);
    for (let i = 0; i < q.rows; i++) {
      let sum = 0;
      for (let j = 0; j < k.rows; j++) {
        const w = mat.weights.data[i * k.rows + j];
        assert.ok(Number.isFinite(w) && w >= 0);
        sum += w;
      }
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
    }
  }), { seed: 13, numRuns: 200 });
  assert.equal(engine.info().heapBytes, heapBefore, 'the wasm heap grew');
});

test('a getter that changes between reads never changes what the engine computes', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), (n) => {
    // first read: the real data; later reads (if any) would be a different, longer array
    let reads = 0;
    const real = engine.randomNormal({ seed: n, rows: n, cols: 2 });
    const q = { rows: n, cols: 2, get data() { reads++; return reads === 1 ? real.data : new Float32Array(1e5).fill(1e30); } };
    const r = engine.attention({ q, k: real, v: real });
    const want = engine.attention({ q: real, k: real, v: real });
    assert.deepEqual(Array.from(r.out.data), Array.from(want.out.data));
    assert.equal(reads, 1);
  }), { seed: 13, numRuns: 20 });
});
