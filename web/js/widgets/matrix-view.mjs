// Read-only small matrix as a real <table> (LTR), numbers in the page's numerals.
//
// Usage:
//   import { matrixView } from '../widgets/matrix-view.mjs';
//   const mv = matrixView(ctx, { caption: 's2.qCaption', rowLabels: WORDS, colLabels: null,
//                                digits: 2, testid: 's2-Q', onCellActivate: (i, j) => … });
//   root.append(mv.el);  mv.update(matrix);   // −Infinity shows as −∞
// With onCellActivate every number is a <button> (click or Enter).

import { ltrNumber } from '../i18n/numerals.mjs';

export function matrixView(ctx, opts = {}) {
  const el = document.createElement('figure');
  el.className = 'matrix-view-fig';
  if (opts.testid) el.dataset.testid = opts.testid;
  const cap = document.createElement('figcaption');
  if (opts.caption) cap.append(typeof opts.caption === 'string' ? ctx.tNode(opts.caption) : opts.caption);
  const box = document.createElement('div');
  box.className = 'matrix-view';
  box.dir = 'ltr';
  el.append(cap, box);
  const digits = opts.digits ?? 2;
  const fmtV = (v) => (v === -Infinity ? '−∞' : Number.isNaN(v) ? '—'
    : ltrNumber(ctx.fmt(v, { maximumFractionDigits: digits, minimumFractionDigits: opts.fixed ? digits : 0 })));

  function update(m) {
    box.textContent = '';
    const table = document.createElement('table');
    if (opts.colLabels) {
      const thead = document.createElement('thead');
      const tr = document.createElement('tr');
      if (opts.rowLabels) tr.append(document.createElement('td'));
      for (let j = 0; j < m.cols; j++) {
        const th = document.createElement('th');
        th.scope = 'col';
        th.textContent = opts.colLabels[j] ?? '';
        tr.append(th);
      }
      thead.append(tr);
      table.append(thead);
    }
    const tbody = document.createElement('tbody');
    for (let i = 0; i < m.rows; i++) {
      const tr = document.createElement('tr');
      if (opts.rowLabels) {
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = opts.rowLabels[i] ?? '';
        tr.append(th);
      }
      for (let j = 0; j < m.cols; j++) {
        const td = document.createElement('td');
        const v = m.data[i * m.cols + j];
        if (opts.onCellActivate) {
          const b = document.createElement('button');
          b.type = 'button';
          b.className = 'cell-btn';
          b.textContent = fmtV(v);
          b.addEventListener('click', () => opts.onCellActivate(i, j, v));
          td.append(b);
        } else td.textContent = fmtV(v);
        if (!Number.isFinite(v)) td.className = 'masked';
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.append(tbody);
    box.append(table);
  }
  if (opts.value) update(opts.value);
  return { el, update };
}
