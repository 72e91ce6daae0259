// Section 5: subtracting the row max before exp — shift invariance in maths,
// overflow (inf/NaN) in float32 without it. Every weight comes from
// engine.softmaxRow (float32, with and without subtractMax); the overflow
// threshold is found live by bisection on the engine's own `overflowed` flag.
//
// URL state (section s5): row = the logits, Latin digits joined by "_" (e.g. 1000_999_998).
// data-testid hooks:
//   s5-row (text input), s5-row-hint (the input rule), s5-row-error (message), s5-apply (button),
//   s5-preset-0 … s5-preset-4 (preset buttons), s5-table (table: key, naive, stable, logit, shifted:
//   the two weight columns, the point of the section, first, so a phone shows them unscrolled),
//   s5-naive (status of the unguarded softmax; data-overflowed="true|false"),
//   s5-stable (sum of the stable weights; data-sum), s5-shift (naive softmax on x − max, data-diff),
//   s5-threshold (bisection result; data-ok, data-bad).

import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { ltrNumber } from '../i18n/numerals.mjs';
import { parseLogitRow, MIN_LEN, MAX_LEN, MAX_ABS } from './s5-row.mjs';

const PRESETS = [
  [1000, 999, 998],
  [2, 1, 0.1],
  [89, 88, 0],
  [-1000, -1001, -1002],
  [50, 88, 88.5, 3],
];

function decodeRow(s) {
  if (!s) return null;
  const v = String(s).split('_').map(Number);
  return v.length >= MIN_LEN && v.length <= MAX_LEN && v.every((x) => Number.isFinite(x) && Math.abs(x) <= MAX_ABS) ? v : null;
}

const FLOAT32_MAX = (2 - 2 ** -23) * 2 ** 127;

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  let row = decodeRow(state.get('row', '')) || PRESETS[0];

  const fw = (x) => (Number.isNaN(x) ? fmt(NaN) : fmt(x, { minimumFractionDigits: 6, maximumFractionDigits: 6 }));
  const fl = (x) => fmt(x, { maximumFractionDigits: 4 });
  // A row reads like mathematics, left to right (element 0 on the left, as in the heatmaps).
  // A left-to-right mark after each number keeps Arabic-Indic digits (bidi class AN) from
  // turning the row into one right-to-left run inside the LTR field; parseNumber ignores it.
  const show = (r) => r.map((x) => `${ltrNumber(fmt(x, { useGrouping: false, maximumFractionDigits: 6 }))}\u200e`).join('  ');

  // The largest finite float32, (2 − 2⁻²³)·2¹²⁷, as a reader writes it: 3.4 × 10³⁸ in the
  // page's digits (inside KaTeX its digits stayed Latin next to the engine's «۸۸٫۷۲۲»).
  const exp10 = Math.floor(Math.log10(FLOAT32_MAX));
  const fmax = h('span', { class: 'num', dir: 'ltr', testid: 's5-fmax', 'data-value': String(FLOAT32_MAX) },
    fmt(FLOAT32_MAX / 10 ** exp10, { maximumFractionDigits: 1 }), ' × ', fmt(10), h('sup', {}, fmt(exp10)));
  root.append(h('p', { class: 'lead' }, ctx.tNode('s5.lead')), h('p', {}, ctx.tNode('s5.why', { fmax })));
  const thresholdP = h('p', { testid: 's5-threshold' });
  root.append(thresholdP);

  // ---- input
  const inputId = 's5-row-input';
  // LTR like every row and matrix of the lesson; show() and markRow() add the marks that keep
  // Arabic-Indic digits in order (see show above).
  const input = h('input', { type: 'text', id: inputId, dir: 'ltr', autocomplete: 'off', spellcheck: 'false', testid: 's5-row', class: 'row-input' });
  // While typing: a mark after every number that is followed by a separator (caret kept).
  const markRow = () => {
    const v = input.value;
    const caret = input.selectionStart ?? v.length;
    const fix = (str) => str.replace(/\u200e/g, '').replace(/([0-9\u06f0-\u06f9\u0660-\u0669])(?=[\s,،;؛])/g, '$1\u200e');
    const nv = fix(v);
    if (nv === v) return;
    const before = fix(v.slice(0, caret)).length;
    input.value = nv;
    input.setSelectionRange(before, before);
  };
  input.addEventListener('input', markRow);
  const hint = h('span', { class: 'hint', id: 's5-row-hint', testid: 's5-row-hint' }, ctx.tNode('s5.input.hint'));
  const msg = h('span', { class: 'field-error', id: 's5-row-err', 'aria-live': 'polite', testid: 's5-row-error' });
  input.setAttribute('aria-describedby', 's5-row-hint s5-row-err');
  const apply = h('button', { type: 'button', class: 'btn btn-primary', testid: 's5-apply' }, ctx.tNode('s5.input.apply'));
  const lab = h('label', { for: inputId });
  lab.append(ctx.tNode('s5.input.label'));
  const presetRow = h('div', { class: 'preset-row' }, h('span', {}, ctx.tNode('s5.preset.label')));
  PRESETS.forEach((p, i) => {
    const b = h('button', { type: 'button', class: 'btn btn-small', testid: `s5-preset-${i}` },
      ctx.ltrExpr(p.map((x) => fmt(x, { useGrouping: false, maximumFractionDigits: 6 })).join('  '), 'ltr'));
    b.addEventListener('click', () => { input.value = show(p); commit(); });
    presetRow.append(b);
  });
  const field = h('div', { class: 'control control-text' }, lab, h('div', { class: 'input-row' }, input, apply), hint, msg);
  root.append(h('div', { class: 'experiment-panel' }, field, presetRow));

  const tableSlot = h('div', { class: 'table-slot' });
  const naiveP = h('p', { testid: 's5-naive' });
  const stableP = h('p', { testid: 's5-stable' });
  const shiftP = h('p', { testid: 's5-shift' });
  root.append(h('div', { class: 'experiment-result stack' }, tableSlot, naiveP, stableP, shiftP),
    h('p', {}, ctx.tNode('s5.underflow')), h('p', { class: 'note' }, ctx.tNode('s5.note')));

  // what the learner typed, quoted as typed (left to right, their own digits)
  const iso = (str) => { const b = document.createElement('bdi'); b.dir = 'ltr'; b.textContent = str; return b; };
  // the row, or its message (the rules: s5-row.mjs)
  function parseRow(text) {
    const p = parseLogitRow(text);
    if (p.row) return p;
    const params = p.error === 's5.err.count' ? { min: fmt(MIN_LEN), max: fmt(MAX_LEN) }
      : { token: iso(p.token) }; // s5.err.big writes its limit as the formula $10^{30}$ (MAX_ABS)
    return { error: p.error, params };
  }

  const compute = serial(async () => {
    const r = row;
    try {
      const naive = await engine.softmaxRow({ logits: r, subtractMax: false });
      const stable = await engine.softmaxRow({ logits: r, subtractMax: true });
      const mx = Math.max(...r);
      const shifted = r.map((x) => Math.fround(x - mx));
      const shiftedNaive = await engine.softmaxRow({ logits: shifted, subtractMax: false });
      const diff = (a, b) => { let d = 0; for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i])); return d; };
      const sum = (a) => Array.from(a).reduce((s, x) => s + x, 0);

      tableSlot.textContent = '';
      tableSlot.append(simpleTable(ctx, {
        testid: 's5-table', caption: 's5.tableCaption',
        headers: ['s5.col.index', 's5.col.naive', 's5.col.stable', 's5.col.logit', 's5.col.shifted'],
        rows: r.map((x, j) => [fmt(j + 1), fw(naive.weights[j]), fw(stable.weights[j]), fl(x), fl(shifted[j])]),
      }));
      naiveP.dataset.overflowed = String(!!naive.overflowed);
      if (naive.overflowed) setT(ctx, naiveP, 's5.naive.overflow', { sum: fmt(sum(naive.weights), { maximumFractionDigits: 6 }) });
      else setT(ctx, naiveP, 's5.naive.ok', { diff: fmt(diff(naive.weights, stable.weights), { maximumSignificantDigits: 2 }) });
      naiveP.classList.toggle('is-bad', !!naive.overflowed);
      const s = sum(stable.weights);
      setT(ctx, stableP, 's5.stable', { sum: fmt(s, { maximumFractionDigits: 6 }) });
      stableP.dataset.sum = String(s);
      const d = diff(shiftedNaive.weights, stable.weights);
      setT(ctx, shiftP, 's5.shift', { c: fl(mx), diff: fmt(d, { maximumSignificantDigits: 2 }) });
      shiftP.dataset.diff = String(d);
      msg.textContent = '';
    } catch (err) {
      setT(ctx, msg, 's5.err.engine');
    }
  });

  function commit() {
    const p = parseRow(input.value);
    if (p.error) {
      setT(ctx, msg, p.error, p.params);
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    msg.textContent = '';
    row = p.row;
    input.value = show(row);
    state.set('row', row.join('_'));
    compute();
  }
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } });
  input.addEventListener('change', commit);
  apply.addEventListener('click', commit);

  input.value = show(row);
  await compute();

  // ---- where does exp overflow in float32? Bisection on the engine's flag.
  try {
    let ok = 0, bad = 200;
    for (let i = 0; i < 40; i++) {
      const mid = (ok + bad) / 2;
      const r = await engine.softmaxRow({ logits: [mid, 0], subtractMax: false });
      if (r.overflowed) bad = mid; else ok = mid;
    }
    setT(ctx, thresholdP, 's5.threshold', {
      ok: fmt(Math.floor(ok * 1000) / 1000, { minimumFractionDigits: 3 }), bad: fmt(Math.ceil(bad * 1000) / 1000, { minimumFractionDigits: 3 }),
    });
    Object.assign(thresholdP.dataset, { ok, bad });
  } catch { /* the threshold line is optional */ }
}
