// Every invalid argument to the engine's JS API throws an Error with a clear
// English message and an `error.code` the pages translate. What only JS can
// check (types, whole numbers, typed-array kinds, data lengths) is caught in
// engine.mjs; every rule about shapes and values (q/k/v agreeing, the scale,
// return_weights with chunked, TooLarge) by the engine itself, whose message
// passes through the bindings (C++ names: logit_stats, ...). The engine stays
// usable after each.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { example, loadEngine, mat } from './engine-fixtures.mjs';

const engine = await loadEngine();
const { q, k, v } = example;  // 4x2, 4x2, 4x2

/** Asserts that fn() throws an Error with this code and a message matching every pattern. */
function throwsCode(fn, code, ...patterns) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof Error, `not an Error: ${error}`);
    assert.equal(error.code, code, `code for: ${error.message}`);
    for (const p of patterns) assert.match(error.message, p);
    return true;
  });
}

test('ShapeMismatch: q/k widths, k/v rows, data length, mask shape', () => {
  throwsCode(() => engine.attention({ q: mat([[1, 2, 3]]), k, v }), 'ShapeMismatch', /^attention: /, /q is 1x3/, /k is 4x2/, /d_k/);
  throwsCode(() => engine.attention({ q, k, v: mat([[1, 2]]) }), 'ShapeMismatch', /v is 1x2/, /one per key/);
  throwsCode(() => engine.attention({ q: { rows: 2, cols: 2, data: new Float32Array(3) }, k, v }), 'ShapeMismatch',
    /q\.data has 3 numbers but q is 2x2 \(needs 4\)/);
  const mask3 = { rows: 3, cols: 4, data: new Uint8Array(12).fill(1) };
  throwsCode(() => engine.attention({ q, k, v, mask: mask3 }), 'ShapeMismatch', /mask is 3x4 but the scores are 4x4/);
  const shortMask = { rows: 4, cols: 4, data: new Uint8Array(15).fill(1) };
  throwsCode(() => engine.attention({ q, k, v, mask: shortMask }), 'ShapeMismatch', /mask\.data has 15 entries/);
  throwsCode(() => engine.logitStats({ q: mat([[1, 2, 3]]), k }), 'ShapeMismatch', /^logit_stats: /);
  throwsCode(() => engine.onlineSoftmaxTrace({ q, k, v: mat([[1]]), row: 0, blockK: 2 }), 'ShapeMismatch', /^online_softmax_trace: /);
});

test('ZeroDimension: d = 0, no rows, empty vectors, n = 0', () => {
  const d0 = { rows: 4, cols: 0, data: new Float32Array(0) };
  throwsCode(() => engine.attention({ q: d0, k: d0, v }), 'ZeroDimension', /q is 4x0/, /at least 1/);
  throwsCode(() => engine.attention({ q, k, v: { rows: 0, cols: 2, data: new Float32Array(0) } }), 'ZeroDimension', /v is 0x2/);
  throwsCode(() => engine.rowStats({ rows: 0, cols: 0, data: new Float32Array(0) }), 'ZeroDimension', /^rowStats: weights is 0x0/);
  throwsCode(() => engine.softmaxRow({ logits: [] }), 'ZeroDimension', /logits is empty/);
  throwsCode(() => engine.jacobianNorm(new Float32Array(0)), 'ZeroDimension', /p is empty/);
  throwsCode(() => engine.experiment({ n: 0, dk: 4, seeds: [1], scale: true }), 'ZeroDimension', /n is 0/);
  throwsCode(() => engine.experiment({ n: 4, dk: 0, seeds: [1], scale: true }), 'ZeroDimension', /dk is 0/);
  throwsCode(() => engine.randomNormal({ seed: 1, rows: 0, cols: 3 }), 'ZeroDimension', /rows is 0/);
});

test('NonFinite: NaN or Infinity in a matrix, a vector or the scale', () => {
  const bad = mat([[0, 1], [1, 0], [1, 1], [0, 1]]);
  bad.data[5] = NaN;
  throwsCode(() => engine.attention({ q: bad, k, v }), 'NonFinite', /q has NaN at row 2, column 1/, /finite/);
  const inf = mat([[0, 1], [1, 0], [1, 1], [0, Infinity]]);
  throwsCode(() => engine.attention({ q, k, v: inf }), 'NonFinite', /v has Infinity at row 3, column 1/);
  throwsCode(() => engine.attention({ q, k, v, scale: NaN }), 'NonFinite', /scale is nan/);
  throwsCode(() => engine.attention({ q, k, v, scale: Infinity }), 'NonFinite', /scale is inf/);
  throwsCode(() => engine.softmaxRow({ logits: [1, NaN] }), 'NonFinite', /logits has NaN at index 1/);
  throwsCode(() => engine.logitStats({ q, k, scale: -Infinity }), 'NonFinite', /^logit_stats: scale/);
  throwsCode(() => engine.rowStats(mat([[0.5, NaN]])), 'NonFinite', /weights has NaN/);
});

test('BadArgument: unknown variant, bad scale, block sizes, mask values, types', () => {
  throwsCode(() => engine.attention({ q, k, v, variant: 'flash' }), 'BadArgument',
    /unknown variant 'flash'/, /'materialized', 'chunked' or 'reference'/);
  throwsCode(() => engine.attention({ q, k, v, scale: 0 }), 'BadArgument', /scale is 0/, /greater than 0/);
  throwsCode(() => engine.attention({ q, k, v, scale: -1 }), 'BadArgument', /scale is -1/);
  throwsCode(() => engine.attention({ q, k, v, scale: '0.5' }), 'BadArgument', /scale must be a number/);
  throwsCode(() => engine.attention({ q, k, v, variant: 'chunked', returnWeights: true }), 'BadArgument',
    /return_weights is not available with the chunked variant/);
  throwsCode(() => engine.attention({ q, k, v, variant: 'chunked', blockK: 0 }), 'BadArgument', /blockK is 0/);
  throwsCode(() => engine.attention({ q, k, v, variant: 'chunked', blockQ: 1.5 }), 'BadArgument', /blockQ must be a whole number/);
  throwsCode(() => engine.attention({ q, k, v, rowOffset: -1 }), 'BadArgument', /rowOffset is -1/);
  throwsCode(() => engine.attention({ q, k, v, causal: 'yes' }), 'BadArgument', /causal must be true or false/);
  throwsCode(() => engine.attention({ q, k, v, retrunWeights: true }), 'BadArgument', /unknown option 'retrunWeights'/);
  throwsCode(() => engine.attention(), 'BadArgument', /q must be a matrix/);
  throwsCode(() => engine.attention([q, k, v]), 'BadArgument', /expected an options object, got an Array/);
  throwsCode(() => engine.attention({ q: { rows: 4, cols: 2, data: [0, 1, 1, 0, 1, 1, 0, 1] }, k, v }), 'BadArgument',
    /q\.data must be a Float32Array, got an Array/, /new Float32Array/);
  throwsCode(() => engine.attention({ q: { rows: 4, cols: 2, data: new Float64Array(8) }, k, v }), 'BadArgument',
    /got a Float64Array/);
  throwsCode(() => engine.attention({ q: { rows: '4', cols: 2, data: new Float32Array(8) }, k, v }), 'BadArgument',
    /q\.rows must be a whole number/);
  const mask2 = { rows: 4, cols: 4, data: new Uint8Array(16).fill(2) };
  throwsCode(() => engine.attention({ q, k, v, mask: mask2 }), 'BadArgument', /mask has 2 at row 0, column 0/, /1 for visible/);
  const boolMask = { rows: 4, cols: 4, data: new Array(16).fill(1) };
  throwsCode(() => engine.attention({ q, k, v, mask: boolMask }), 'BadArgument', /mask\.data must be a Uint8Array/);
  throwsCode(() => engine.onlineSoftmaxTrace({ q, k, v, row: 4, blockK: 2 }), 'BadArgument', /row is 4 but q has only 4 rows/);
  throwsCode(() => engine.onlineSoftmaxTrace({ q, k, v, row: 0 }), 'BadArgument', /blockK must be a whole number/);
  throwsCode(() => engine.softmaxRow({ logits: 'abc' }), 'BadArgument', /logits must be a Float32Array or an array of numbers/);
  throwsCode(() => engine.softmaxRow({ logits: [1, '2'] }), 'BadArgument', /logits\[1\] must be a number/);
  throwsCode(() => engine.experiment({ n: 8, dk: 4, seeds: [], scale: true }), 'BadArgument', /seeds must be a non-empty array/);
  throwsCode(() => engine.experiment({ n: 8, dk: 4, seeds: [-1], scale: true }), 'BadArgument', /seeds\[0\] is -1/);
  throwsCode(() => engine.experiment({ n: 8, dk: 4, seeds: [1] }), 'BadArgument', /scale must be true or false/);
  throwsCode(() => engine.scoreMatrixBytes({ n: 0, bytesPerElement: 4 }), 'BadArgument', /n is 0/);
  throwsCode(() => engine.scoreMatrixBytes({ n: 1024, bytesPerElement: 2.5 }), 'BadArgument', /bytesPerElement must be a whole number/);
  throwsCode(() => engine.randomNormal({ seed: 1.5, rows: 1, cols: 1 }), 'BadArgument', /seed must be a whole number/);
  throwsCode(() => engine.setMemoryBudget(-5), 'BadArgument', /bytes is -5/);
});

test('TooLarge comes from the engine itself, through the bindings, and the engine stays usable', () => {
  // 50,000 x 50,000 float scores and weights: 20 GB, far over the 4 GiB a wasm32 heap can hold
  const tall = { rows: 50_000, cols: 1, data: new Float32Array(50_000).fill(0.5) };
  throwsCode(() => engine.attention({ q: tall, k: tall, v: tall, returnWeights: true }), 'TooLarge',
    /^attention: /, /memory budget/);
  engine.setMemoryBudget(100);
  try {
    throwsCode(() => engine.attention({ q, k, v }), 'TooLarge', /more than the memory budget of 100 bytes/);
  } finally {
    engine.setMemoryBudget(0);
  }
  const r = engine.attention({ q, k, v });
  assert.equal(r.out.rows, 4);
});

test('the KV cache refuses a huge number of heads with TooLarge, before the heap grows', () => {
  // natively this was a std::length_error, here an 'Internal' error or 230 MB of heap for good
  throwsCode(() => engine.kvCache({ headsKv: 2 ** 31, dk: 1, dv: 1 }), 'TooLarge', /^KvCache: /, /memory budget/);
  throwsCode(() => engine.kvCache({ headsKv: 2 ** 53 - 1, dk: 1, dv: 1 }), 'TooLarge');
  const before = engine.info().heapBytes;
  engine.setMemoryBudget(1024);
  try {
    throwsCode(() => engine.kvCache({ headsKv: 1e7, dk: 1, dv: 1 }), 'TooLarge', /10000000 key\/value heads/);
  } finally {
    engine.setMemoryBudget(0);
  }
  assert.equal(engine.info().heapBytes, before, 'the wasm heap grew');
  engine.kvCache({ headsKv: 8, dk: 1, dv: 1 }).delete();
});

test('every error code the engine can throw has a message in every language of the site', async () => {
  const { readFile } = await import('node:fs/promises');
  const { LANGUAGES } = await import('../../web/js/i18n/languages.mjs');
  const codes = engine.errorCodes();
  // the five of engine.hpp, and the bindings' code for an engine defect
  for (const code of ['ShapeMismatch', 'ZeroDimension', 'NonFinite', 'TooLarge', 'BadArgument', 'Internal'])
    assert.ok(codes.includes(code), `errorCodes() lacks ${code}`);
  // the engine link's own codes (worker, transport, page)
  codes.push('Cancelled', 'EngineCrashed', 'EngineLoad', 'Unknown');
  assert.ok(LANGUAGES.length >= 2);
  for (const { code: lang } of LANGUAGES) {
    const text = JSON.parse(await readFile(new URL(`../../web/text/${lang}/err.json`, import.meta.url), 'utf8'));
    for (const code of codes) {
      const message = text[`err.engine.${code}`];
      assert.equal(typeof message, 'string', `${lang}: no err.engine.${code}`);
      assert.ok(message.trim().length > 0, `${lang}: err.engine.${code} is empty`);
    }
  }
});

// The variant list the JS tests sweep (engine.variants(), from the engine's own table): each
// name is accepted, 'reference' is among them, and an unknown name's message lists them all.
test('variants(): the engine\'s own list, each accepted by attention()', () => {
  const names = engine.variants();
  assert.ok(names.includes('reference') && names.length >= 3, `variants: ${names}`);
  assert.equal(new Set(names).size, names.length);
  for (const variant of names) assert.equal(engine.attention({ q, k, v, variant }).out.rows, q.rows, variant);
  try { engine.attention({ q, k, v, variant: 'flash' }); assert.fail('flash accepted'); } catch (e) {
    for (const name of names) assert.match(e.message, new RegExp(`'${name}'`));
  }
  names.push('mutated');
  assert.ok(!engine.variants().includes('mutated'), 'a copy each call');
});
