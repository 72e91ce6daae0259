// Section 5's row of logits as the learner types it: which numbers, or which message and why.
// Pure (no DOM): tested in Node (tests/node/s5-row.test.mjs); s5-max-subtraction.mjs shows it.
//
// The numbers are separated by spaces, the Arabic comma «،», semicolons, or a Latin comma that
// is not between two digits ("1, 2"). A Latin comma between two digits belongs to the number and
// is read as everywhere else in the lesson (numerals.mjs parseNumber, the matrix editor, the
// practice answers): "1,5" = 1.5, "1,234" is ambiguous and refused. The split itself is
// numerals.mjs splitNumberList, shared with the refresher's list fields. Every token is checked
// before the count, so "abc" is "not a number", not "too few numbers".
//
// Usage:
//   parseLogitRow('1,5 2')   // { row: [1.5, 2] }
//   parseLogitRow('abc')     // { error: 's5.err.token', token: 'abc' }
//   parseLogitRow('7')       // { error: 's5.err.count' }
import { parseNumber, splitNumberList } from '../i18n/numerals.mjs';

export const MIN_LEN = 2, MAX_LEN = 16, MAX_ABS = 1e30;

/** {row} or {error: message key, token?: the token as typed}. */
export function parseLogitRow(text) {
  const out = [];
  for (const token of splitNumberList(text)) {
    const r = parseNumber(token);
    if (!r.ok) {
      const error = r.reason === 'not-finite' ? 's5.err.notFinite' : r.reason === 'ambiguous' ? 's5.err.ambiguous'
        : token.includes(',') ? 's5.err.comma' : 's5.err.token';
      return { error, token };
    }
    if (Math.abs(r.value) > MAX_ABS) return { error: 's5.err.big', token };
    out.push(r.value);
  }
  if (out.length < MIN_LEN || out.length > MAX_LEN) return { error: 's5.err.count' };
  return { row: out };
}
