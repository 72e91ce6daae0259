// A heatmap's numbers as a real table (<th>/<td>, up to maxTable rows and columns, default 64)
// in a closed <details>: what a screen reader or a reader who wants the digits reads. With
// onCellActivate each value is a button that activates its cell (via 'table').
// Built lazily: while the <details> is closed, a new matrix drops the old table and the new
// one is built when the page is idle (or at once when the <details> opens), so a slider redraw
// costs the canvas, not thousands of cells.
//
//   createHeatmapTable(ctx, opts, {testid, view, words}) → {el, matrixChanged(), cancel()}
//     matrixChanged(): view.m, or its labels, changed; cancel(): no build pending (destroy)

import { nodeOf } from '../dom.mjs';
import { language } from '../i18n/languages.mjs';

export function createHeatmapTable(ctx, opts, { testid, view, words }) {
  const maxTable = opts.maxTable ?? 64;
  const { fmtV, rowName, colName, cellText } = words;
  let tableStale = true;   // the <details> table no longer matches view.m

  const details = document.createElement('details');
  details.className = 'heatmap-table';
  const summary = document.createElement('summary');
  summary.append(ctx.tNode('site.showTable'));
  const tableWrap = document.createElement('div');
  tableWrap.className = 'table-scroll ltr-scroll';
  tableWrap.dir = 'ltr';   // so a wide table scrolls from its first column (see site.css)
  details.append(summary, tableWrap);

  function buildTable() {
    tableStale = false;
    tableWrap.textContent = '';
    const { m } = view;
    if (!m) return;
    const R = Math.min(m.rows, maxTable), C = Math.min(m.cols, maxTable);
    const table = document.createElement('table');
    table.dir = 'ltr';
    table.dataset.testid = `${testid}-table`;
    const caption = document.createElement('caption');
    caption.dir = language(document.documentElement.lang).dir;   // prose inside the LTR table
    caption.append(opts.label ? nodeOf(ctx, opts.label) : '');
    table.append(caption);
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    // the corner names the axes when the caller gave them; an empty corner is a <td>
    // (an empty <th> is an unnamed header to screen readers)
    const corner = document.createElement(opts.rowTitle || opts.colTitle ? 'th' : 'td');
    if (opts.rowTitle || opts.colTitle) {
      corner.scope = 'col';
      corner.append(opts.rowTitle ? nodeOf(ctx, opts.rowTitle) : '', ' \\ ', opts.colTitle ? nodeOf(ctx, opts.colTitle) : '');
    }
    hr.append(corner);
    for (let j = 0; j < C; j++) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = colName(j);
      hr.append(th);
    }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (let i = 0; i < R; i++) {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = rowName(i);
      tr.append(th);
      for (let j = 0; j < C; j++) {
        const td = document.createElement('td');
        const v = view.valueAt(i, j);
        if (opts.onCellActivate) {
          const b = document.createElement('button');
          b.type = 'button';
          b.className = 'cell-btn';
          b.textContent = fmtV(v);
          b.dataset.i = String(i); b.dataset.j = String(j);
          b.setAttribute('aria-label', cellText(i, j));
          td.append(b);
        } else td.textContent = fmtV(v);
        if (!Number.isFinite(v)) td.className = 'masked';
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.append(thead, tbody);
    tableWrap.append(table);
    if (R < m.rows || C < m.cols) {
      const note = document.createElement('p');
      note.className = 'note';
      note.dir = language(document.documentElement.lang).dir;
      note.append(ctx.tNode('site.tableTruncated', { rows: R, cols: C }));
      tableWrap.append(note);
    }
  }

  // The table: built at once while the <details> is open, else when idle or when it opens.
  let tableJob = null;
  const cancelTableJob = () => {
    if (tableJob == null) return;
    if (typeof cancelIdleCallback === 'function') cancelIdleCallback(tableJob); else clearTimeout(tableJob);
    tableJob = null;
  };
  const buildTableLater = () => {
    cancelTableJob();
    const run = () => { tableJob = null; if (tableStale) buildTable(); };
    tableJob = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 1000 }) : setTimeout(run, 50);
  };
  details.addEventListener('toggle', () => { if (details.open && tableStale) { cancelTableJob(); buildTable(); } });

  tableWrap.addEventListener('click', (ev) => {
    const b = ev.target.closest && ev.target.closest('button.cell-btn');
    if (!b || !opts.onCellActivate) return;
    const i = Number(b.dataset.i), j = Number(b.dataset.j);
    view.cur = { i, j };
    opts.onCellActivate(i, j, view.valueAt(i, j), { via: 'table' });
  });

  function matrixChanged() {
    tableStale = true;
    if (details.open) { cancelTableJob(); buildTable(); } else { tableWrap.textContent = ''; buildTableLater(); }
  }

  return { el: details, matrixChanged, cancel: cancelTableJob };
}
