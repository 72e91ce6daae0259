// Property tests (fast-check) of the grader (web/js/practice/grading.mjs): the
// stated rule |x − expected| ≤ max(abs, rel·|expected|) for any input, in every
// script, and refusal of questions that are not finite.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { gradeNumeric, toleranceFor } from '../../web/js/practice/grading.mjs';
import { parseNumber, formatNumber } from '../../web/js/i18n/numerals.mjs';

const STATUSES = ['correct', 'wrong', 'unparseable'];
const expectedArb = fc.double({ min: -1e12, max: 1e12, noNaN: true });
const tolArb = fc.record({
  abs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 10, noNaN: true })),
  rel: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.5, noNaN: true })),
});
const lang = fc.constantFrom('fa', 'ar');
const input = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }),
  fc.double({ noNaN: true }).map(String),
  fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), lang).map(([x, l]) => formatNumber(x, { lang: l, maximumSignificantDigits: 17 })));

test('any input: one of three statuses, and the status follows the stated rule exactly', () => {
  fc.assert(fc.property(input, expectedArb, tolArb, fc.boolean(), (s, expected, tol, percentOk) => {
    const r = gradeNumeric(s, expected, { ...tol, percentOk });
    if (!STATUSES.includes(r.status)) return false;
    const parsed = parseNumber(s, { allowPercent: percentOk });
    if (!parsed.ok) return r.status === 'unparseable' && r.reason === parsed.reason && r.value === null;
    const t = toleranceFor(expected, tol);
    const inside = Math.abs(parsed.value - expected) <= t + 1e-12 * Math.max(1, Math.abs(expected));
    return r.value === parsed.value && r.tolerance === t && (r.status === 'correct') === inside;
  }), { numRuns: 3000 });
});

test('the expected value itself, written in the page digits of either edition, is always right', () => {
  fc.assert(fc.property(expectedArb, tolArb, lang, fc.boolean(), (expected, tol, l, latinDigits) => {
    const s = formatNumber(expected, { lang: l, latinDigits, maximumSignificantDigits: 17, useGrouping: false });
    return gradeNumeric(s, expected, tol).status === 'correct';
  }));
});

test('a wider tolerance never turns a right answer wrong', () => {
  fc.assert(fc.property(input, expectedArb, tolArb, fc.double({ min: 0, max: 5, noNaN: true }), (s, expected, tol, extra) => {
    const narrow = gradeNumeric(s, expected, tol).status;
    const wide = gradeNumeric(s, expected, { abs: tol.abs + extra, rel: tol.rel }).status;
    return narrow !== 'correct' || wide === 'correct';
  }));
});

test('an answer clearly outside the tolerance is wrong, on either side', () => {
  fc.assert(fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), tolArb, fc.double({ min: 1e-3, max: 1e3, noNaN: true }), fc.boolean(), (expected, tol, gap, above) => {
    const t = toleranceFor(expected, tol);
    const x = above ? expected + t + gap : expected - t - gap;
    return gradeNumeric(String(x), expected, tol).status === 'wrong';
  }));
});

test('a question that is not finite is refused whatever the input', () => {
  const badNumber = fc.constantFrom(Infinity, -Infinity, NaN);
  fc.assert(fc.property(input, fc.oneof(
    fc.tuple(badNumber, tolArb),
    fc.tuple(expectedArb, fc.record({ abs: badNumber, rel: fc.constant(0) })),
    fc.tuple(expectedArb, fc.record({ abs: fc.constant(0), rel: badNumber })),
    fc.tuple(expectedArb, fc.record({ abs: fc.double({ max: -1e-9, noNaN: true }), rel: fc.constant(0) })),
  ), (s, [expected, tol]) => {
    assert.throws(() => gradeNumeric(s, expected, tol), { name: 'RangeError', code: 'bad-question' });
    return true;
  }));
});
