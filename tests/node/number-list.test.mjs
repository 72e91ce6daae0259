// The refresher's list fields (intro.mjs parseList) and s5's score row read a typed list of
// numbers by one rule (numerals.mjs splitNumberList): a comma between two digits belongs to the
// number, as parseNumber reads it everywhere else in the lesson ("٠,٥" = 0.5, never 0 and 5).
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseNumber } from '../../web/js/i18n/numerals.mjs';
import { parseList } from '../../web/js/sections/intro.mjs';

const ctx = { parseNumber: (s) => parseNumber(s) };

test('intro list: a comma between digits is a decimal mark, as in s5 and the answers', () => {
  assert.deepEqual(parseList(ctx, '٠,٥، ١'), { value: [0.5, 1] });
  assert.deepEqual(parseList(ctx, '0,5 0,25 0,25'), { value: [0.5, 0.25, 0.25] });
  assert.deepEqual(parseList(ctx, '۰,۵ ۱'), { value: [0.5, 1] });
});

test('intro list: separators are spaces, «،», «؛», ";" and a Latin comma not between digits', () => {
  assert.deepEqual(parseList(ctx, '1, 2, 3'), { value: [1, 2, 3] });
  assert.deepEqual(parseList(ctx, '١،٢،٣'), { value: [1, 2, 3] });
  assert.deepEqual(parseList(ctx, '1;2 ؛ 3'), { value: [1, 2, 3] });
  assert.deepEqual(parseList(ctx, '٠٫٥،\u200e ٠٫٢٥،\u200e ٠٫٢٥'), { value: [0.5, 0.25, 0.25] });
  assert.deepEqual(parseList(ctx, '-1 ,2'), { value: [-1, 2] });
});

test('intro list: a comma-joined run is refused with a message about the comma, not split silently', () => {
  const r = parseList(ctx, '1,2,3');
  assert.equal(r.error, 's5.err.comma');
  assert.equal(r.params.token, '1,2,3');
  assert.equal(parseList(ctx, '1,234').error, 's5.err.ambiguous');
  assert.equal(parseList(ctx, 'abc').error, 'intro.err.number');
  assert.equal(parseList(ctx, '  ').error, 'intro.err.empty');
});
