// Section 5's row of logits as typed (web/js/sections/s5-row.mjs): a word is "not a number"
// (not "write 2 to 16 numbers"), a comma between two digits means what it means in every number
// field of the lesson ("1,5" = 1.5, "1,234" refused as ambiguous), and each refusal has its
// own message, with the token the learner typed, in every edition.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { parseLogitRow } from '../../web/js/sections/s5-row.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';

const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));

test('words, commas and counts get their own reason; every token is read before the count', () => {
  assert.deepEqual(parseLogitRow('abc'), { error: 's5.err.token', token: 'abc' });
  assert.deepEqual(parseLogitRow('1,234 5'), { error: 's5.err.ambiguous', token: '1,234' });
  assert.deepEqual(parseLogitRow('1,2,3'), { error: 's5.err.comma', token: '1,2,3' });
  assert.deepEqual(parseLogitRow('7'), { error: 's5.err.count' });
  assert.deepEqual(parseLogitRow(Array(17).fill('1').join(' ')), { error: 's5.err.count' });
  assert.deepEqual(parseLogitRow('1 2e31'), { error: 's5.err.big', token: '2e31' });
  assert.equal(parseLogitRow('1 Infinity').error, 's5.err.notFinite');
});

test('"1,5" is 1.5 as in a matrix cell; comma + space, «،» and «٫» in the page digits', () => {
  assert.deepEqual(parseLogitRow('1,5 2'), { row: [1.5, 2] });
  assert.deepEqual(parseLogitRow('۳, ۴،۵٫۵'), { row: [3, 4, 5.5] });
  assert.deepEqual(parseLogitRow('٣, ٤،٥٫٥'), { row: [3, 4, 5.5] });
  assert.deepEqual(parseLogitRow('1000; 999 998'), { row: [1000, 999, 998] });
});

test('every reason has a message of its own in every edition, quoting the token where there is one', () => {
  const withToken = ['s5.err.token', 's5.err.ambiguous', 's5.err.comma', 's5.err.big', 's5.err.notFinite'];
  for (const [lang, dict] of Object.entries(texts)) {
    const keys = [...withToken, 's5.err.count'];
    for (const k of keys) assert.ok(typeof dict[k] === 'string' && dict[k].length > 0, `${lang} ${k}`);
    for (const k of withToken) assert.ok(dict[k].includes('[token]'), `${lang} ${k} quotes the token`);
    assert.equal(new Set(keys.map((k) => dict[k])).size, keys.length, `${lang}: distinct messages`);
  }
});
