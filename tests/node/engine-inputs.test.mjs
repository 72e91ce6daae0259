// Issue 13, items 3 and 4 and the keyValues leak: arguments whose fields
// change between reads (getters, lying Symbol.toStringTag) must be read once
// in engine.mjs and refused there with an error.code, never reach the wasm
// bindings, never read out of bounds and never leak the wasm heap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';

import { example, loadEngine, mat } from './engine-fixtures.mjs';

const engine = await loadEngine();
// a full garbage collection on demand, without starting node with --expose-gc
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

/** An object that says it is a Uint8Array/Float32Array (toStringTag) but is not one. */
const impostor = (tag, length) => ({
  [Symbol.toStringTag]: tag,
  length,
  findIndex: () => -1,
});

test('a mask whose data changes after the check, with L·S past 2^32, is refused with a code (no OOB read)', () => {
  const L = 65536, S = 65537;
  const q = { rows: L, cols: 1, data: new Float32Array(L) };
  const k = { rows: S, cols: 1, data: new Float32Array(S) };
  let reads = 0;
  const mask = {
    rows: L,
    cols: S,
    // the first reads look like an L·S Uint8Array; later ones are 65536 bytes, which
    // is L·S modulo 2^32 (the size check of a 32-bit build)
    get data() { reads++; return reads <= 3 ? impostor('Uint8Array', L * S) : new Uint8Array(65536).fill(1); },
  };
  assert.throws(() => engine.attention({ q, k, v: k, mask, variant: 'chunked' }), (error) => {
    assert.ok(error instanceof Error, String(error));
    assert.equal(typeof error.code, 'string', `no .code on: ${error}`);
    return true;
  });
  assert.ok(reads <= 1, `mask.data was read ${reads} times`);
  // still usable
  assert.equal(engine.attention(example).out.rows, 4);
});

test('Symbol.toStringTag does not make an object a typed array', () => {
  const fake = { rows: 2, cols: 2, data: impostor('Float32Array', 4) };
  assert.throws(() => engine.attention({ q: fake, k: fake, v: fake }), { code: 'BadArgument' });
  const fakeMask = { rows: 4, cols: 4, data: impostor('Uint8Array', 16) };
  assert.throws(() => engine.attention({ ...example, mask: fakeMask }), { code: 'BadArgument' });
  // a real Float32Array that lies about its length
  const liar = new Float32Array(4);
  Object.defineProperty(liar, 'length', { get: () => 1e6 });
  const r = engine.attention({ q: { rows: 2, cols: 2, data: liar }, k: mat([[1, 0], [0, 1]]), v: mat([[1, 0], [0, 1]]) });
  assert.equal(r.out.data.length, 4);
});

test('a data getter that throws on its fourth read: an error with a code and a flat wasm heap', () => {
  const n = 128;  // q and k of 64 KiB each, the copies the old bindings leaked
  const q = engine.randomNormal({ seed: 1, rows: n, cols: n });
  const k = engine.randomNormal({ seed: 2, rows: n, cols: n });
  const attempt = () => {
    let reads = 0;
    const v = {
      rows: n,
      cols: n,
      get data() { if (++reads === 4) throw new TypeError('fourth read'); return k.data; },
    };
    try {
      engine.attention({ q, k, v, variant: 'reference' });
      return null;
    } catch (error) {
      return error;
    }
  };
  attempt();
  const before = engine.info().heapBytes;
  for (let i = 0; i < 300; i++) {
    const error = attempt();
    if (error) assert.equal(typeof error.code, 'string', `no .code on: ${error}`);
  }
  assert.equal(engine.info().heapBytes, before, 'the wasm heap grew');
});

test('a getter that throws on the first read becomes BadArgument, with the original as cause', () => {
  const boom = new Error('boom');
  const q = { rows: 1, cols: 1, get data() { throw boom; } };
  assert.throws(() => engine.attention({ q, k: q, v: q }), (error) => {
    assert.equal(error.code, 'BadArgument');
    assert.match(error.message, /^attention: /);
    assert.equal(error.cause, boom);
    return true;
  });
});

test('keyValues handles that are never released are freed after garbage collection', async () => {
  const k = engine.randomNormal({ seed: 3, rows: 512, cols: 64 });  // 128 KiB each for K and V
  const make = () => { engine.keyValues({ k, v: k }); };
  for (let i = 0; i < 4; i++) make();
  for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
  const before = engine.info().heapBytes;
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 40; i++) make();  // 40 x 256 KiB = 10 MiB unreleased per round
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(engine.info().heapBytes, before, 'the wasm heap grew');
});

// Issue 13, items 1 and 2, through the WebAssembly build and keyValues (the worker pool's path).
test('inputs near FLT_MAX: every variant gives the reference answer, no dropped key or zeroed row', () => {
  const cases = [
    { q: mat([[3e38, 3e38]]), k: mat([[2, -2], [0, 0]]), v: mat([[5], [7]]), want: 6 },
    { q: mat([[3e38]]), k: mat([[-1e-38], [0]]), v: mat([[5], [7]]), scale: 2, want: 6.995 },
    { q: mat([[1]]), k: mat([[0], [0]]), v: mat([[3e38], [3e38]]), want: 3e38 },
  ];
  for (const { q, k, v, scale, want } of cases) {
    for (const variant of engine.variants()) {
      for (const causal of [false, true]) {
        // causal with rowOffset 1: the one query row still sees both keys
        const r = engine.attention({ q, k, v, scale, variant, causal, rowOffset: causal ? 1 : 0, blockQ: 1, blockK: 1 });
        assert.deepEqual(r.maskedRows, [], `${variant}`);
        const got = r.out.data[0];
        assert.ok(Math.abs(got - want) <= 1e-3 * Math.abs(want), `${variant} causal=${causal}: ${got}, want ${want}`);
      }
    }
    const kv = engine.keyValues({ k, v });
    const got = kv.attention({ q, scale, variant: 'chunked' }).out.data[0];
    kv.release();
    assert.ok(Math.abs(got - want) <= 1e-3 * Math.abs(want), `keyValues: ${got}, want ${want}`);
    for (const blockK of [1, 2]) {
      const t = engine.onlineSoftmaxTrace({ q, k, v, scale, row: 0, blockK });
      assert.ok(Math.abs(t.out[0] - want) <= 1e-3 * Math.abs(want), `trace blockK=${blockK}: ${t.out[0]}, want ${want}`);
    }
  }
});

test('a getter that shrinks a checked resizable buffer: BadArgument, no TypeError, a flat wasm heap', () => {
  const n = 128;  // q and k of 64 KiB each: the copies a TypeError inside the binding leaked
  const q = engine.randomNormal({ seed: 1, rows: n, cols: n });
  const k = engine.randomNormal({ seed: 2, rows: n, cols: n });
  const attempt = () => {
    const buffer = new ArrayBuffer(n * n * 4, { maxByteLength: n * n * 4 });
    const data = new Float32Array(buffer, 0, n * n);
    data.set(k.data);
    // v is checked first; the mask's rows are read after it, and shrink v's buffer
    const mask = { get rows() { buffer.resize(0); return n; }, cols: n, data: new Uint8Array(n * n).fill(1) };
    try {
      engine.attention({ q, k, v: { rows: n, cols: n, data }, mask, variant: 'reference' });
      return null;
    } catch (error) {
      return error;
    }
  };
  const first = attempt();
  assert.ok(first instanceof Error, 'the call was not refused');
  assert.equal(first.code, 'BadArgument', `${first.name}: ${first.message}`);
  assert.match(first.message, /^attention: the buffer of v\.data was resized or detached/);
  const before = engine.info().heapBytes;
  for (let i = 0; i < 300; i++) assert.equal(attempt()?.code, 'BadArgument');
  assert.equal(engine.info().heapBytes, before, 'the wasm heap grew');
});

test('a getter that detaches a checked buffer: BadArgument too', () => {
  const { q, k, v } = example;
  const data = Float32Array.from(v.data);
  const mask = { get rows() { structuredClone(data.buffer, { transfer: [data.buffer] }); return 4; }, cols: 4, data: new Uint8Array(16).fill(1) };
  assert.throws(() => engine.attention({ q, k, v: { rows: 4, cols: 2, data }, mask }),
    (e) => e.code === 'BadArgument' && /v\.data was resized or detached/.test(e.message));
  assert.equal(engine.attention({ q, k, v }).out.rows, 4);  // still usable
});
