// Editable matrix: a grid of text inputs that accepts Persian, Arabic-Indic or Latin digits.
//
// Usage:
//   import { createMatrixEditor } from '../widgets/matrix-editor.mjs';
//   const ed = createMatrixEditor(ctx, {
//     label: 's2.xLabel',                     // text key or Node (the group's name)
//     value: { rows: 4, cols: 3, data: Float32Array.from([...]) },
//     rowLabels: ['the', 'cat', 'sat', 'down'], colLabels: null,   // optional
//     min: -100, max: 100,                    // optional bounds (err.matrix.range)
//     testid: 's2-x',                         // wrapper; inputs are `${testid}-r${i}c${j}`,
//                                             // message `${testid}-msg`, reset `${testid}-reset`
//   });
//   root.append(ed.el);
//   ed.addEventListener('change', (e) => use(e.detail.matrix));   // only ever a valid matrix
//   ed.value;          // the last valid matrix (a copy)
//   ed.setValue(m);    // replace without emitting
// Bad input (letters, empty, NaN, out of range, or a pasted block with too many /
// too few cells) shows a message in the page language next to the grid, marks the
// field aria-invalid and keeps the previous valid matrix (no `change` is emitted).
// Pasting a block ("1 0 0\n0 1 0…", tabs or spaces between cells, newlines or ';'
// between rows) into any cell fills the whole matrix when the shape matches; a smaller
// block (one row from a spreadsheet) fills from the caret's cell (rules: paste-cells.mjs).

import { parseNumber, ltrNumber } from '../i18n/numerals.mjs';
import { placePaste } from './paste-cells.mjs';
import { spokenText } from '../dom.mjs';

let uid = 0;

export function createMatrixEditor(ctx, opts) {
  const id = `me-${++uid}`;
  const testid = opts.testid || id;
  const min = opts.min ?? -1e6, max = opts.max ?? 1e6;
  let valid = { rows: opts.value.rows, cols: opts.value.cols, data: Float32Array.from(opts.value.data) };
  const initial = { rows: valid.rows, cols: valid.cols, data: Float32Array.from(valid.data) };
  const target = new EventTarget();

  const el = document.createElement('fieldset');
  el.className = 'matrix-editor';
  el.dataset.testid = testid;
  const legend = document.createElement('legend');
  legend.append(typeof opts.label === 'string' ? ctx.tNode(opts.label) : (opts.label || ''));
  const grid = document.createElement('div');
  grid.className = 'matrix-grid';
  grid.dir = 'ltr';
  const msg = document.createElement('p');
  msg.className = 'field-error';
  msg.id = `${id}-msg`;
  msg.dataset.testid = `${testid}-msg`;
  msg.setAttribute('aria-live', 'polite');
  const reset = document.createElement('button');
  reset.type = 'button';
  reset.className = 'btn btn-small';
  reset.dataset.testid = `${testid}-reset`;
  reset.append(ctx.tNode('site.reset'));
  el.append(legend, grid, msg, reset);

  let inputs = [];
  const fmtCell = (x) => ltrNumber(ctx.fmt(x, { useGrouping: false, maximumFractionDigits: 4 }));

  function build() {
    grid.textContent = '';
    inputs = [];
    const { rows, cols } = valid;
    const hasRowL = !!opts.rowLabels, hasColL = !!opts.colLabels;
    grid.style.setProperty('--cols', String(cols + (hasRowL ? 1 : 0)));
    if (hasColL) {
      if (hasRowL) grid.append(document.createElement('span'));
      for (let j = 0; j < cols; j++) {
        const s = document.createElement('span');
        s.className = 'matrix-col-label';
        s.textContent = opts.colLabels[j] ?? '';
        grid.append(s);
      }
    }
    for (let i = 0; i < rows; i++) {
      if (hasRowL) {
        const s = document.createElement('span');
        s.className = 'matrix-row-label';
        s.textContent = opts.rowLabels[i] ?? '';
        grid.append(s);
      }
      for (let j = 0; j < cols; j++) {
        const inp = document.createElement('input');
        inp.type = 'text';
        inp.inputMode = 'decimal';
        inp.autocomplete = 'off';
        inp.spellcheck = false;
        inp.dir = 'ltr';
        inp.className = 'matrix-cell';
        inp.dataset.testid = `${testid}-r${i}c${j}`;
        inp.dataset.i = String(i); inp.dataset.j = String(j);
        inp.value = fmtCell(valid.data[i * cols + j]);
        inp.setAttribute('aria-label', ctx.t('site.matrixCell', {
          name: spokenText(legend).trim(), row: opts.rowLabels ? opts.rowLabels[i] : ctx.fmt(i + 1), col: ctx.fmt(j + 1),
        }));
        inp.setAttribute('aria-describedby', msg.id);
        grid.append(inp);
        inputs.push(inp);
      }
    }
  }

  function showError(key, params) {
    msg.textContent = '';
    msg.append(ctx.tNode(key, params));
    el.classList.add('invalid');
  }
  function clearError() {
    msg.textContent = '';
    el.classList.remove('invalid');
  }

  // Read every cell; returns the matrix or null after showing the first problem.
  function readAll() {
    const data = new Float32Array(valid.rows * valid.cols);
    let firstBad = null;
    for (const inp of inputs) {
      const i = +inp.dataset.i, j = +inp.dataset.j;
      const r = parseNumber(inp.value);
      let key = null;
      // (a comma between digits is a decimal comma, as in every number field: numerals.mjs)
      if (!r.ok) key = r.reason === 'empty' || inp.value.trim() === '' ? 'err.matrix.empty'
        : r.reason === 'ambiguous' ? 'err.matrix.ambiguous' : 'err.matrix.notNumber';
      else if (!Number.isFinite(r.value)) key = 'err.matrix.notNumber';
      else if (r.value < min || r.value > max) key = 'err.matrix.range';
      if (key) {
        inp.setAttribute('aria-invalid', 'true');
        if (!firstBad) firstBad = { key, i, j };
      } else {
        inp.removeAttribute('aria-invalid');
        data[i * valid.cols + j] = r.value;
      }
    }
    if (firstBad) {
      showError(firstBad.key, {
        row: opts.rowLabels ? opts.rowLabels[firstBad.i] : ctx.fmt(firstBad.i + 1),
        col: ctx.fmt(firstBad.j + 1), min, max,
      });
      return null;
    }
    clearError();
    return { rows: valid.rows, cols: valid.cols, data };
  }

  let timer = null;
  function commit() {
    clearTimeout(timer);
    const m = readAll();
    if (!m) return;
    let same = true;
    for (let k = 0; k < m.data.length; k++) if (m.data[k] !== valid.data[k]) { same = false; break; }
    if (same) return;
    valid = m;
    emit();
  }
  function emit() {
    target.dispatchEvent(new CustomEvent('change', {
      detail: { matrix: { rows: valid.rows, cols: valid.cols, data: Float32Array.from(valid.data) } },
    }));
  }

  grid.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(commit, 350); });
  grid.addEventListener('change', commit);
  grid.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target.matches('input')) { e.preventDefault(); commit(); }
  });
  grid.addEventListener('paste', (e) => {
    const text = (e.clipboardData || window.clipboardData)?.getData('text') || '';
    if (!/[\s;\t\n]/.test(text.trim())) return;          // a single number: let the input take it
    e.preventDefault();
    // the whole matrix, or a smaller block (one spreadsheet row) from the caret's cell (paste-cells.mjs)
    const k = inputs.indexOf(e.target);
    const caret = k < 0 ? { row: 0, col: 0 } : { row: Math.floor(k / valid.cols), col: k % valid.cols };
    const placed = placePaste(text, { rows: valid.rows, cols: valid.cols }, caret);
    if (!placed.ok) {
      showError('err.matrix.shape', { expected: valid.rows * valid.cols, got: placed.got, rows: valid.rows, cols: valid.cols });
      return;
    }
    for (const c of placed.cells) inputs[c.row * valid.cols + c.col].value = c.text;
    commit();
  });
  reset.addEventListener('click', () => {
    valid = { rows: initial.rows, cols: initial.cols, data: Float32Array.from(initial.data) };
    build(); clearError(); emit();
  });

  build();

  return {
    el,
    get value() { return { rows: valid.rows, cols: valid.cols, data: Float32Array.from(valid.data) }; },
    setValue(m) { valid = { rows: m.rows, cols: m.cols, data: Float32Array.from(m.data) }; build(); clearError(); },
    /** Make `reset` go back to this matrix instead of the first value. */
    setDefault(m) { initial.rows = m.rows; initial.cols = m.cols; initial.data = Float32Array.from(m.data); },
    addEventListener: (...a) => target.addEventListener(...a),
    removeEventListener: (...a) => target.removeEventListener(...a),
    get invalid() { return el.classList.contains('invalid'); },
  };
}
