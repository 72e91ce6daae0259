// Where pasted text goes in a matrix editor (walkthrough ar #12). Pure (no DOM), so Node tests
// run the rules the page runs (tests/node/paste-cells.test.mjs).
// - Lines (newline or «;») are rows; inside a line, numbers are split by tabs, spaces, «،» and
//   commas that are not between digits (numerals.mjs splitNumberList: "٠,٥" stays one number).
// - What is not a number's own text is dropped before counting: brackets and a leading
//   "x =" or "W_Q =", so "x = [0, 1, 1]" is 3 numbers, not 5 words.
// - A block as large as the matrix fills it (also one line holding all its numbers, row after
//   row); a smaller block (a row copied from a spreadsheet) fills from the cell the caret is in
//   when it fits there; otherwise nothing changes and the caller says how many numbers came.
// Tokens are not parsed here: the editor's own check then names any cell it cannot read.

import { splitNumberList } from '../i18n/numerals.mjs';

/** The pasted text as rows of number tokens. */
export function pastedRows(text) {
  return String(text).split(/\r?\n|;/)
    .map((line) => line.replace(/^[^=\d\u06f0-\u06f9\u0660-\u0669]*=/, '').replace(/[[\](){}]/g, ' '))
    .map((line) => splitNumberList(line))
    .filter((r) => r.length > 0);
}

/**
 * placePaste(text, {rows, cols}, caret = {row, col}) →
 *   {ok: true, cells: [{row, col, text}]}  or  {ok: false, got: <numbers pasted>}
 */
export function placePaste(text, { rows, cols }, caret = { row: 0, col: 0 }) {
  const block = pastedRows(text);
  const got = block.reduce((a, r) => a + r.length, 0);
  const at = (r0, c0) => ({ ok: true, cells: block.flatMap((r, i) => r.map((t, j) => ({ row: r0 + i, col: c0 + j, text: t }))) });
  const rectangular = block.length > 0 && block.every((r) => r.length === block[0].length);
  if (rectangular && block.length === rows && block[0].length === cols) return at(0, 0);
  if (block.length === 1 && got === rows * cols) {
    return { ok: true, cells: block[0].map((t, k) => ({ row: Math.floor(k / cols), col: k % cols, text: t })) };
  }
  if (rectangular && caret.row + block.length <= rows && caret.col + block[0].length <= cols) return at(caret.row, caret.col);
  return { ok: false, got };
}
