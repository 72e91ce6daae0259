// A plain data table from header keys and rows of cells, in a horizontally
// scrolling wrapper (.table-scroll) for narrow screens.
//
// Usage:
//   import { simpleTable } from '../widgets/table.mjs';
//   slot.append(simpleTable(ctx, { caption: 's7.table.caption', headers: ['s7.col.n', 's7.col.pairs'],
//     rows: [[fmt(512), fmt(262144)], …], testid: 's7-table' }));   // rowHeader defaults to true
// caption and headers: text keys or Nodes; cells: strings or Nodes. With rowHeader
// the first cell of each row is a <th scope="row">. data-testid goes on the <table>.
// stack: true gives the table a phone form (issue 21 item 7): when the table is wider than
// its place (a phone), data-form="cards" (site.css .table-stack) makes each row a card, its row header on top and one
// "column name: value" line per cell, so the number a paragraph talks about is on screen
// without a sideways swipe. The column names come from data-label through CSS generated
// content, so a cell's text stays its value (the table's headers still name it).

import { h } from '../dom.mjs';

/** A simple table from header keys and rows of cells (strings or Nodes). */
export function simpleTable(ctx, { caption, headers, rows, testid, rowHeader = true, stack = false }) {
  const table = h('table', { class: 'data-table', testid });
  if (caption) { const c = h('caption'); c.append(typeof caption === 'string' ? ctx.tNode(caption) : caption); table.append(c); }
  const thead = h('thead');
  const tr = h('tr');
  for (const k of headers) { const th = h('th', { scope: 'col' }); th.append(typeof k === 'string' ? ctx.tNode(k) : k); tr.append(th); }
  thead.append(tr);
  // the column names as plain text, shown before each value in the card form (CSS attr())
  const labels = headers.map((k) => (typeof k === 'string' ? ctx.t(k) : k.getAttribute?.('aria-label') || k.textContent));
  const tbody = h('tbody');
  for (const r of rows) {
    const row = h('tr');
    r.forEach((cell, i) => {
      const c = h(i === 0 && rowHeader ? 'th' : 'td', i === 0 && rowHeader ? { scope: 'row' } : {});
      if (stack) c.dataset.label = labels[i];   // a card's title names its column too («H_kv: 8»)
      c.append(cell instanceof Node ? cell : String(cell));
      row.append(c);
    });
    tbody.append(row);
  }
  table.append(thead, tbody);
  const wrap = h('div', { class: stack ? 'table-scroll table-stack' : 'table-scroll' }, table);
  if (stack) fitForm(wrap, table);
  return wrap;
}

// The card form only when the table is wider than its place (a two-column table that fits a
// phone stays a table). Measured again only when the place's width changes: the form changes
// the height, and a height change must not start another measurement.
function fitForm(wrap, table) {
  if (typeof ResizeObserver === 'undefined') return;
  let width = -1;
  new ResizeObserver(() => {
    const w = wrap.clientWidth;
    if (!w || w === width) return;
    width = w;
    delete wrap.dataset.form;
    if (table.scrollWidth > w + 1) wrap.dataset.form = 'cards';
  }).observe(wrap);
}
