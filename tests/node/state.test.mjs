// URL state (web/js/state.mjs) in a stand-in browser: query values that name
// inherited properties, empty values, and the shared own-property lookup.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installFakeBrowser } from './fake-browser.mjs';

const browser = installFakeBrowser();
const { getParam, scoped, oneOf, hasOwnKey, intIn } = await import('../../web/js/state.mjs');

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('oneOf: only own keys of the table pass; inherited names fall back to the default', () => {
  const DTYPES = { fp32: 4, fp16: 2, bf16: 2 };
  assert.equal(oneOf(DTYPES, 'fp32', 'fp16'), 'fp32');
  for (const bad of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', '', 'FP32', 4, null, undefined]) {
    assert.equal(oneOf(DTYPES, bad, 'fp16'), 'fp16', String(bad));
    assert.equal(hasOwnKey(DTYPES, bad), false, String(bad));
  }
  // A table with a null prototype works too, and so does an array of choices.
  assert.equal(oneOf(Object.assign(Object.create(null), { a: 1 }), 'a', 'b'), 'a');
  assert.equal(oneOf(['off', 'sqrt', 'dk'], 'dk', 'off'), 'dk');
  assert.equal(oneOf(['off', 'sqrt', 'dk'], 'length', 'off'), 'off', 'array properties are not choices');
  assert.equal(oneOf(['off', 'sqrt', 'dk'], '0', 'off'), 'off', 'indices are not choices');
});

test('intIn: whole numbers inside [lo, hi] pass, the ends included; anything else falls back', () => {
  assert.equal(intIn(2, 2, 16, 10), 2);
  assert.equal(intIn(16, 2, 16, 10), 16);
  assert.equal(intIn(0, 0, 1e9, 7), 0);
  for (const bad of [1, 17, 2.5, -0.5, NaN, Infinity, '8', true, null, undefined]) assert.equal(intIn(bad, 2, 16, 10), 10, String(bad));
});

test('?s7.dtype=toString is not a dtype (the lookup in s7 uses oneOf)', () => {
  browser.setSearch('?s7.dtype=toString');
  const st = scoped('s7');
  assert.equal(oneOf({ fp32: 4, fp16: 2, bf16: 2 }, st.get('dtype', 'fp16'), 'fp16'), 'fp16');
});

test('no section or practice module looks a URL value up with `in`', () => {
  const dirs = ['web/js/sections', 'web/js/practice', 'web/js/practice/blocks', 'web/js/pages'];
  const offenders = [];
  for (const d of dirs) {
    for (const f of readdirSync(path.join(REPO, d)).filter((x) => x.endsWith('.mjs'))) {
      const src = readFileSync(path.join(REPO, d, f), 'utf8');
      // state.get(...) in TABLE, getParam(...) in TABLE
      for (const m of src.matchAll(/(?:state|st|ctx\.state)\.get\([^)]*\)\s+in\s+\w+/g)) offenders.push(`${d}/${f}: ${m[0]}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('a number key: empty or blank values are absent, not 0', () => {
  for (const q of ['?s4.n=', '?s4.n=%20', '?s4.n=+']) {
    browser.setSearch(q);
    assert.equal(getParam('s4', 'n', 8), 8, q);
  }
  browser.setSearch('?s4.n=16');
  assert.equal(getParam('s4', 'n', 8), 16);
});

// Found by the property test: a value finite as a double but beyond float32 became Infinity.
test('a matrix value beyond float32 range is refused, not turned into Infinity', async () => {
  const { decodeMatrix } = await import('../../web/js/state.mjs');
  assert.equal(decodeMatrix('2x1_0_3.4028235677973366e+38'), null);
  assert.equal(decodeMatrix('1x2_-1e39_0'), null);
  assert.deepEqual(Array.from(decodeMatrix('1x2_3.4e38_0').data), [Math.fround(3.4e38), 0]);
});

test('setLater gathers a slider\'s moves into one write once it rests; a direct set of the same key in between wins', async () => {
  browser.setSearch('');
  const st = scoped('model');
  st.setLater({ text: 'abc', pos: null });
  st.setLater({ text: 'abcd' });
  assert.equal(st.get('text', ''), '', 'nothing is written while the input moves');
  st.set('pos', 3);                      // a click on a position right after typing
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(st.get('text', ''), 'abcd', 'the latest value is written');
  assert.equal(st.get('pos', 0), 3, 'the gathered pos: null does not undo the later click');
  st.reset();
});
