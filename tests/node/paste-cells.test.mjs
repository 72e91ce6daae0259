// Pasting into a matrix editor (walkthrough ar #12): one row copied from a spreadsheet fills the
// row from the caret's cell; "x = [0, 1, 1]" counts 3 numbers, not 5; a whole matrix fills it
// wherever the caret is; a block that fits nowhere changes nothing and reports the count.
// The rules the editor runs: web/js/widgets/paste-cells.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { placePaste, pastedRows } from '../../web/js/widgets/paste-cells.mjs';

const X = { rows: 4, cols: 3 };   // s2's x: 4 words × 3 features
const where = (r) => r.cells.map((c) => `${c.row},${c.col}=${c.text}`);

test('one spreadsheet row fills the caret\'s row, from the caret\'s cell', () => {
  assert.deepEqual(where(placePaste('١٫٥\t٢٫٥\t٣٫٥', X, { row: 0, col: 0 })), ['0,0=١٫٥', '0,1=٢٫٥', '0,2=٣٫٥']);
  assert.deepEqual(where(placePaste('7\t8\n', X, { row: 2, col: 1 })), ['2,1=7', '2,2=8']);
  assert.deepEqual(placePaste('7\t8\t9', X, { row: 2, col: 1 }), { ok: false, got: 3 }, 'does not fit from column 2');
});

test('only numbers are counted: names, "=", brackets and list commas are not cells', () => {
  assert.deepEqual(pastedRows('x = [0, 1, 1]'), [['0', '1', '1']]);
  assert.deepEqual(pastedRows('W_Q = [[2, 0], [0, 3]]'), [['2', '0', '0', '3']]);
  assert.deepEqual(pastedRows('[0, 4]\n[5, 0]'), [['0', '4'], ['5', '0']]);
  assert.deepEqual(pastedRows('٠,٥ 1'), [['٠,٥', '1']], 'a comma between digits stays inside its number');
  assert.deepEqual(placePaste('x = [0, 1, 1, 2, 5]', X, { row: 0, col: 0 }), { ok: false, got: 5 });
});

test('the whole matrix fills it from any caret, as a block or as one line', () => {
  const whole = '2 0 0\n0 5 0\n0 0 7\n3 1 0';
  const r = placePaste(whole, X, { row: 3, col: 2 });
  assert.equal(r.cells.length, 12);
  assert.deepEqual(where(r).slice(0, 4), ['0,0=2', '0,1=0', '0,2=0', '1,0=0']);
  assert.deepEqual(where(placePaste('1 2 3 4 5 6 7 8 9 10 11 12', X, { row: 1, col: 1 })).at(-1), '3,2=12');
  assert.deepEqual(placePaste('1 2\n3', X), { ok: false, got: 3 }, 'ragged rows fit nowhere');
});
