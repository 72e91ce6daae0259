// Grading of numeric answers. The rule shown to the learner and used here:
//   correct  ⇔  |x − expected| <= tolerance,  tolerance = max(abs, rel·|expected|)
// (a tiny 1e-12 slack absorbs binary rounding exactly at the boundary, so
// "0.25 ± 0.05" accepts 0.3 as a person would expect).
//
// Percent answers (opts.percentOk): the expected value is a fraction (a
// weight); "25%" / "۲۵٪" is read as 0.25, plain "0.25" is accepted too. A
// plain "25" is graded as 25 (wrong) but flagged with note 'percent-missing'
// when 25% would have been right, so the page can say what went wrong.

import { parseNumber } from '../i18n/numerals.mjs';

const SLACK = 1e-12;

const isFinite = (x) => typeof x === 'number' && Number.isFinite(x);

// A question whose expected value or tolerance is not a finite number is broken
// (an infinite tolerance would accept every answer, NaN none): refuse it.
function checkQuestion(expected, abs, rel) {
  if (!isFinite(expected) || !isFinite(abs) || !isFinite(rel) || abs < 0 || rel < 0) {
    throw Object.assign(new RangeError(`grading: expected ${expected} ± {abs: ${abs}, rel: ${rel}} is not a finite question`),
      { code: 'bad-question' });
  }
}

/** max(abs, rel·|expected|). Throws a RangeError (code 'bad-question') unless all are finite and tolerances ≥ 0. */
export function toleranceFor(expected, { abs = 0, rel = 0 } = {}) {
  checkQuestion(expected, abs, rel);
  return Math.max(abs, rel * Math.abs(expected));
}

const within = (x, expected, tol) => Math.abs(x - expected) <= tol + SLACK * Math.max(1, Math.abs(expected));

/**
 * gradeNumeric(input, expected, {abs, rel, percentOk}) →
 *   {status: 'correct'|'wrong'|'unparseable', value, expected, tolerance, reason?, note?}
 * `reason` (unparseable only) is parseNumber's reason; `note` may be 'percent-missing'.
 * Throws a RangeError with code 'bad-question' when expected or the tolerance is not finite.
 */
export function gradeNumeric(input, expected, { abs = 0, rel = 0, percentOk = false } = {}) {
  const tolerance = toleranceFor(expected, { abs, rel });
  // a whole-number answer graded exactly: commas group digits, as in every integer field
  // of the lesson ("65,520" is 65520, never an ambiguous decimal)
  const integer = Number.isInteger(expected) && abs < 1 && rel === 0;
  const parsed = parseNumber(input, { allowPercent: percentOk, integer });
  if (!parsed.ok) return { status: 'unparseable', value: null, expected, tolerance, reason: parsed.reason };
  const value = parsed.value;
  if (within(value, expected, tolerance)) return { status: 'correct', value, expected, tolerance };
  const result = { status: 'wrong', value, expected, tolerance };
  if (percentOk && within(value / 100, expected, tolerance)) result.note = 'percent-missing';
  return result;
}

/** Grade against a generated question (generators.mjs). */
export function gradeQuestion(input, q) {
  return gradeNumeric(input, q.answer, { ...q.tolerance, percentOk: q.percentOk });
}
