// What a reader types into a number box (walkthroughs of 2026-12-05: fa #17, ar #11):
// «0/05» (the handwritten Persian decimal), «5-» (a minus left after the digits by a
// right-to-left keyboard) and «131 072» (digits grouped by spaces) are refused with a reason
// that names the fix, in the page's language; a whole-number practice answer takes digit
// grouping like every whole-number field of the lesson. Tested on the parser and the
// message choosers the pages import (numerals.mjs, grading.mjs, controls.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseNumber } from '../../web/js/i18n/numerals.mjs';
import { gradeNumeric } from '../../web/js/practice/grading.mjs';
import { numberReasonKey } from '../../web/js/widgets/controls.mjs';

const text = (lang, file) =>
  JSON.parse(readFileSync(new URL(`../../web/text/${lang}/${file}.json`, import.meta.url), 'utf8'));

const SLIPS = [
  ['0/05', 'slash-decimal'], ['۰/۰۵', 'slash-decimal'], ['٠/٥', 'slash-decimal'],
  ['5-', 'trailing-minus'], ['۵-', 'trailing-minus'], ['٠٫٤٣٨-', 'trailing-minus'], ['5−', 'trailing-minus'],
  ['131 072', 'space-group'], ['١٣١ ٠٧٢', 'space-group'], ['1\u202f234\u00a0567', 'space-group'],
];

test('each slip has its own reason, in plain and in whole-number fields', () => {
  for (const [typed, reason] of SLIPS) {
    assert.deepEqual(parseNumber(typed), { ok: false, reason }, typed);
    assert.deepEqual(parseNumber(typed, { integer: true }), { ok: false, reason }, `${typed} (integer)`);
  }
});

test('what is not one of the slips stays invalid or readable as before', () => {
  for (const typed of ['1/2/3', '5--', '1 2', '12 34', '/5', 'abc']) {
    assert.equal(parseNumber(typed).reason, 'invalid', typed);
  }
  assert.deepEqual(parseNumber('-5'), { ok: true, value: -5 });
  assert.deepEqual(parseNumber('۱۳۱٬۰۷۲'), { ok: true, value: 131072 });
});

test('every reason has a message in both languages, for practice answers and for lesson fields', () => {
  for (const lang of ['fa', 'ar']) {
    const practice = text(lang, 'practice');
    const err = text(lang, 'err');
    for (const [, reason] of SLIPS) {
      assert.equal(typeof practice[`practice.parse.${reason}`], 'string', `${lang} practice.parse.${reason}`);
      const key = numberReasonKey(reason);
      assert.equal(key, `err.number.${reason}`);
      assert.equal(typeof err[key], 'string', `${lang} ${key}`);
    }
  }
  assert.equal(numberReasonKey('ambiguous'), 'err.number.invalid');
  assert.equal(numberReasonKey('empty'), 'err.number.empty');
});

test('a whole-number practice answer takes digit grouping (practice exercise 15: 65,520)', () => {
  const exact = { abs: 1e-6, rel: 0 };
  assert.equal(gradeNumeric('65,520', 65520, exact).status, 'correct');
  assert.equal(gradeNumeric('۶۵٬۵۲۰', 65520, exact).status, 'correct');
  assert.equal(gradeNumeric('١٢٨،٠٠٠', 128000, exact).status, 'correct');
  // a decimal answer keeps the decimal comma and still refuses the ambiguous form
  assert.equal(gradeNumeric('0,5', 0.5, { abs: 0.01 }).status, 'correct');
  assert.equal(gradeNumeric('1,234', 1.234, { abs: 0.01 }).reason, 'ambiguous');
  assert.equal(gradeNumeric('0/05', 0.05, { abs: 0.01 }).reason, 'slash-decimal');
});
