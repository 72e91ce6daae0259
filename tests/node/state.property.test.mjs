// Property tests (fast-check) of URL state (web/js/state.mjs) under hostile
// query strings: reading never throws and returns the default's type, table
// lookups accept only the table's own keys, matrices decode to valid shapes or
// nothing, and encode → decode keeps every value (to the 1e-6 the URL keeps).
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { installFakeBrowser } from './fake-browser.mjs';

const browser = installFakeBrowser();
const { getParam, setParam, scoped, oneOf, hasOwnKey, decodeMatrix, encodeMatrix, getMatrix } = await import('../../web/js/state.mjs');

const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).concat(Object.getOwnPropertyNames(Array.prototype), ['__proto__', 'prototype']);
// Values a crafted link can carry: any text, prototype names, numbers in odd spellings.
const value = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom('', ' ', 'NaN', 'Infinity', '-Infinity', '1e309', '0x10', '0b1', '1_000', '۱۲', '٣', '-0', 'true', '1', '0', 'null', 'undefined'));
const query = fc.array(fc.tuple(fc.constantFrom('s4.n', 's4.dk', 's7.dtype', 's2.causal', 's2.x', 'x', 's4.n'), value), { maxLength: 6 })
  .map((pairs) => '?' + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
const rawQuery = fc.string({ unit: 'binary', maxLength: 80 }).map((s) => '?' + s);

test('getParam never throws and returns the type of its default; numbers are finite', () => {
  fc.assert(fc.property(fc.oneof(query, rawQuery), (q) => {
    browser.setSearch(q);
    const n = getParam('s4', 'n', 8);
    const b = getParam('s2', 'causal', false);
    const s = getParam('s7', 'dtype', 'fp16');
    assert.ok(typeof n === 'number' && Number.isFinite(n));
    assert.equal(typeof b, 'boolean');
    assert.equal(typeof s, 'string');
    return true;
  }), { numRuns: 2000 });
});

test('a number key reads exactly what Number() reads from a non-blank value, else the default', () => {
  fc.assert(fc.property(value, (v) => {
    browser.setSearch(`?s4.n=${encodeURIComponent(v)}`);
    const x = Number(v);
    const want = v.trim() !== '' && Number.isFinite(x) ? x : 8;
    return Object.is(getParam('s4', 'n', 8), want);
  }), { numRuns: 2000 });
});

test('oneOf: a URL value passes only when it is an own key (or element) of the table', () => {
  const DTYPES = { fp32: 4, fp16: 2, bf16: 2 };
  const SCALES = ['off', 'sqrt', 'dk'];
  fc.assert(fc.property(value, (v) => {
    const d = oneOf(DTYPES, v, 'fp16');
    const sc = oneOf(SCALES, v, 'off');
    return (d === 'fp16' || (d === v && Object.keys(DTYPES).includes(v))) &&
      (sc === 'off' || (sc === v && SCALES.includes(v))) &&
      hasOwnKey(DTYPES, v) === Object.keys(DTYPES).includes(v);
  }), { numRuns: 2000 });
});

test('decodeMatrix never throws: null, or rows × cols finite values', () => {
  const matrixish = fc.oneof(value,
    fc.tuple(fc.nat(20), fc.nat(20), fc.array(fc.oneof(fc.double(), fc.constantFrom('', 'x', '1e999', '-0')), { maxLength: 30 }))
      .map(([r, c, vals]) => `${r}x${c}_${vals.join('_')}`));
  fc.assert(fc.property(matrixish, (s) => {
    const m = decodeMatrix(s);
    if (m === null) return true;
    return m.rows >= 1 && m.cols >= 1 && m.data.length === m.rows * m.cols && m.data.every(Number.isFinite);
  }), { numRuns: 2000 });
});

test('setMatrix → getMatrix keeps every value to 1e-6 (then float32), through the real query string', () => {
  const f32 = fc.float({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
  fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.array(f32, { minLength: 36, maxLength: 36 }), fc.constantFrom('?', '?s4.n=3&x=%00'), (rows, cols, vals, start) => {
    browser.setSearch(start);
    const m = { rows, cols, data: Float32Array.from(vals.slice(0, rows * cols)) };
    scoped('s2').setMatrix('x', m);
    const back = getMatrix('s2', 'x', null);
    assert.ok(back, encodeMatrix(m));
    assert.equal(back.rows, rows);
    assert.equal(back.cols, cols);
    back.data.forEach((x, i) => {
      const want = Math.fround(Math.round(m.data[i] * 1e6) / 1e6);
      assert.ok(Math.abs(x - want) <= Math.abs(want) * 1e-7 + 1e-12, `${x} vs ${want}`);
    });
    return true;
  }), { numRuns: 500 });
});

test('setParam writes only its own key; other keys of a hostile query survive byte for byte', () => {
  fc.assert(fc.property(query, value, (q, v) => {
    browser.setSearch(q);
    const before = new URLSearchParams(q);
    before.delete('s9.k');
    setParam('s9', 'k', v);
    const after = new URLSearchParams(browser.search);
    assert.equal(after.get('s9.k'), v);
    after.delete('s9.k');
    assert.equal(after.toString(), before.toString());
    return true;
  }), { numRuns: 1000 });
});
