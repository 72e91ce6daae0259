// Numeric grading: the stated tolerance max(abs, rel·|expected|) at its boundaries,
// percent answers, and unparseable input.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gradeNumeric, gradeQuestion, toleranceFor } from '../../web/js/practice/grading.mjs';

const status = (input, expected, opts) => gradeNumeric(input, expected, opts).status;

test('tolerance is max(abs, rel·|expected|)', () => {
  assert.equal(toleranceFor(100, { abs: 0.5, rel: 0.01 }), 1);
  assert.equal(toleranceFor(10, { abs: 0.5, rel: 0.01 }), 0.5);
  assert.equal(toleranceFor(-200, { rel: 0.01 }), 2);
  assert.equal(toleranceFor(3, {}), 0);
});

test('absolute tolerance boundary: inside and exactly on it pass, just outside fails', () => {
  const opts = { abs: 0.05 };
  assert.equal(status('0.25', 0.25, opts), 'correct');
  assert.equal(status('0.3', 0.25, opts), 'correct', 'exactly on the boundary (binary rounding absorbed)');
  assert.equal(status('0.2', 0.25, opts), 'correct');
  assert.equal(status('0.3001', 0.25, opts), 'wrong');
  // 1.1 − 1.0 = 0.10000000000000009 in binary: on the boundary for a person, so accepted.
  assert.equal(status('1.1', 1.0, { abs: 0.1 }), 'correct');
  assert.equal(status('1.1000001', 1.0, { abs: 0.1 }), 'wrong');
  assert.equal(status('0.1999', 0.25, opts), 'wrong');
});

test('relative tolerance boundary scales with the expected value', () => {
  const opts = { rel: 0.01 };
  assert.equal(status('1010', 1000, opts), 'correct');
  assert.equal(status('1010.01', 1000, opts), 'wrong');
  assert.equal(status('-990', -1000, opts), 'correct');
  assert.equal(status('-989.9', -1000, opts), 'wrong');
  assert.equal(status('0', 0, opts), 'correct', 'zero expected, zero tolerance');
  assert.equal(status('0.000001', 0, opts), 'wrong');
});

test('zero tolerance means exact', () => {
  assert.equal(status('16', 16), 'correct');
  assert.equal(status('16.0001', 16), 'wrong');
});

test('answers in every numeral system grade the same', () => {
  for (const s of ['0.37', '۰٫۳۷', '٠٫٣٧', '0,37', '.37']) {
    assert.equal(status(s, 0.3679, { abs: 0.006 }), 'correct', s);
  }
});

test('result carries value, expected and tolerance', () => {
  assert.deepEqual(gradeNumeric('۲', 2.004, { abs: 0.01 }), { status: 'correct', value: 2, expected: 2.004, tolerance: 0.01 });
  assert.deepEqual(gradeNumeric('3', 2, { abs: 0.5 }), { status: 'wrong', value: 3, expected: 2, tolerance: 0.5 });
});

test('unparseable input says why and is never correct', () => {
  assert.deepEqual(gradeNumeric('', 1, { abs: 1 }), { status: 'unparseable', value: null, expected: 1, tolerance: 1, reason: 'empty' });
  assert.equal(gradeNumeric('abc', 1, { abs: 1 }).reason, 'invalid');
  assert.equal(gradeNumeric('1,234', 1234, { abs: 1 }).reason, 'ambiguous');
  assert.equal(gradeNumeric('1e999', 1, { abs: 1 }).reason, 'not-finite');
});

test('percent answers: 25% and 0.25 both right; plain 25 is wrong with a note', () => {
  const opts = { abs: 0.006, percentOk: true };
  assert.equal(status('25%', 0.25, opts), 'correct');
  assert.equal(status('۲۵٪', 0.25, opts), 'correct');
  assert.equal(status('0.25', 0.25, opts), 'correct');
  assert.equal(status('30%', 0.25, opts), 'wrong');
  const plain = gradeNumeric('25', 0.25, opts);
  assert.equal(plain.status, 'wrong');
  assert.equal(plain.note, 'percent-missing');
  assert.equal(gradeNumeric('40', 0.25, opts).note, undefined, 'no note when 40% is wrong too');
  assert.equal(status('25%', 0.25, { abs: 0.006 }), 'unparseable', 'no percent sign unless allowed');
});

test('gradeQuestion uses the question tolerance and percent flag', () => {
  const q = { answer: 0.5, tolerance: { abs: 0.006, rel: 0.01 }, percentOk: true };
  assert.equal(gradeQuestion('50٪', q).status, 'correct');
  assert.equal(gradeQuestion('0.51', q).status, 'wrong');
  assert.equal(gradeQuestion('0.505', q).status, 'correct');
});

// Issue 13: an expected value of ±Infinity with a relative tolerance made the
// tolerance infinite, so every answer was "correct"; NaN made every answer wrong.
// A question like that is broken: the grader refuses it instead of grading.
test('a non-finite expected value or tolerance is refused, never graded', () => {
  for (const expected of [Infinity, -Infinity, NaN, '1', null, undefined]) {
    assert.throws(() => gradeNumeric('1', expected, { rel: 0.01 }), { name: 'RangeError', code: 'bad-question' }, String(expected));
    assert.throws(() => gradeNumeric('abc', expected, { abs: 1 }), RangeError, 'refused before the input is read');
  }
  for (const tol of [{ abs: Infinity }, { rel: Infinity }, { abs: NaN }, { abs: -1 }, { rel: -0.5 }, { abs: '1' }]) {
    assert.throws(() => gradeNumeric('1', 2, tol), { name: 'RangeError', code: 'bad-question' }, JSON.stringify(tol));
  }
  assert.throws(() => gradeQuestion('1', { answer: Infinity, tolerance: { rel: 0.01 } }), RangeError);
  assert.throws(() => toleranceFor(NaN, { abs: 1 }), RangeError);
});
