// A plain data table from header keys and rows of cells, in a horizontally
// scrolling wrapper (.table-scroll) for narrow screens.
//
// Usage:
//   import { simpleTable } from '../widgets/table.mjs';
//   slot.append(simpleTable(ctx, { caption: 's7.table.caption', headers: ['s7.col.n', 's7.col.pairs'],
//     rows: [[fmt(512), fmt(262144)], …], testid: 's7-table' }));   // rowHeader defaults to true
// caption and headers: text keys or Nodes; cells: strings or Nodes. With rowHeader
// the first cell of each row is a <th scope="row">. data-testid goes on the <table>.

import { h } from '../dom.mjs';

/** A simple table from header keys and rows of cells (strings or Nodes). */
export function simpleTable(ctx, { caption, headers, rows, testid, rowHeader = true }) {
  const table = h('table', { class: 'data-table', testid });
  if (caption) { const c = h('caption'); c.append(typeof caption === 'string' ? ctx.tNode(caption) : caption); table.append(c); }
  const thead = h('thead');
  const tr = h('tr');
  for (const k of headers) { const th = h('th', { scope: 'col' }); th.append(typeof k === 'string' ? ctx.tNode(k) : k); tr.append(th); }
  thead.append(tr);
  const tbody = h('tbody');
  for (const r of rows) {
    const row = h('tr');
    r.forEach((cell, i) => {
      const c = h(i === 0 && rowHeader ? 'th' : 'td', i === 0 && rowHeader ? { scope: 'row' } : {});
      c.append(cell instanceof Node ? cell : String(cell));
      row.append(c);
    });
    tbody.append(row);
  }
  table.append(thead, tbody);
  return h('div', { class: 'table-scroll' }, table);
}
