// Section 8, the query-tile view: every query tile against every key tile under the causal rule
// (s8-compute.mjs tileGrid: full, partly masked on the diagonal, or skipped), the counts, and
// one query tile at a time in words, with its own stepper.
// testids and URL keys: s8-chunked.mjs's header.
//
//   mountTileGrid(root, ctx, st) → {show(data)}
//     st: the section's state (qt read and written here);
//     show(data): draw the grid for computeTrace's result (keys, block, causal)

import { h, setT } from '../dom.mjs';
import { tileGrid } from './s8-compute.mjs';

export function mountTileGrid(root, ctx, st) {
  const { state, fmt } = ctx;
  const btn = (key, testid) => h('button', { type: 'button', class: 'btn btn-secondary', testid }, ctx.tNode(key));
  const qtPrev = btn('s8.tiles.prev', 's8-qt-prev'), qtNext = btn('s8.tiles.next', 's8-qt-next');
  const qtLabel = h('span', { class: 'step-label', testid: 's8-qt', 'aria-live': 'polite' });
  const qtExplain = h('div', { class: 'step-explain', testid: 's8-qt-explain', 'aria-live': 'polite' });
  const tileCounts = h('p', { testid: 's8-tile-counts' });
  const tileSlot = h('div', { class: 'table-slot tile-grid-slot' });
  const tileCap = h('p', { class: 'tile-grid-cap', id: 's8-tiles-cap' }, ctx.tNode('s8.tiles.caption'));
  const legend = h('ul', { class: 'tile-legend' },
    ...['full', 'partial', 'skip'].map((k) => h('li', {}, h('span', { class: `tile-swatch kind-${k}`, 'aria-hidden': 'true' }), ctx.tNode(`s8.tiles.kind.${k}`))));
  root.append(h('h3', {}, ctx.tNode('s8.tiles.title')), h('p', {}, ctx.tNode('s8.tiles.p')), tileCounts, legend, tileCap, tileSlot,
    h('div', { class: 'stepper' }, qtPrev, qtLabel, qtNext), qtExplain);

  let data = null;   // the trace whose keys, block and causal rule the grid shows

  function renderTiles() {
    const n = data.keys, b = data.block, causal = data.causal;
    const { T, span, kinds, count, computed, visible } = tileGrid(n, b, causal);
    st.qt = Math.min(st.qt, T - 1);
    setT(ctx, tileCounts, causal ? 's8.tiles.counts' : 's8.tiles.countsFull', {
      n: fmt(n), b: fmt(b), tiles: fmt(T * T), full: fmt(count.full), partial: fmt(count.partial), skip: fmt(count.skip),
      computed: fmt(computed), all: fmt(n * n), visible: fmt(visible),
    });
    Object.assign(tileCounts.dataset, { full: count.full, partial: count.partial, skip: count.skip, computed, visible });

    // the grid: rows are query tiles, columns key tiles; a word per cell for screen readers
    // labelled by the paragraph above it: a <caption> would wrap to the width of a small grid
    const table = h('table', { class: 'tile-grid', dir: 'ltr', testid: 's8-tiles', 'aria-labelledby': tileCap.id },
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }),
        ...Array.from({ length: T }, (_, ki) => h('th', { scope: 'col' }, fmt(ki + 1))))));
    const tbody = h('tbody');
    kinds.forEach((row, qi) => {
      const tr = h('tr', { class: qi === st.qt ? 'is-current' : null },
        h('th', { scope: 'row' }, fmt(qi + 1)));
      row.forEach((kind, ki) => tr.append(h('td', { class: `kind-${kind}`, dataset: { q: qi, k: ki, kind } },
        h('span', { class: 'visually-hidden' }, ctx.t(`s8.tiles.word.${kind}`)))));
      tbody.append(tr);
    });
    table.append(tbody);
    tileSlot.textContent = '';
    tileSlot.append(table);

    // the current query tile in words
    const [q0, q1] = span(st.qt);
    const ids = (kind) => kinds[st.qt].map((k, i) => (k === kind ? i : -1)).filter((i) => i >= 0);
    // tiles, keys and rows are shown counted from 1, as everywhere in the prose
    const list = (a) => (a.length ? (a.length === 1 ? fmt(a[0] + 1) : ctx.t('s8.range', { from: fmt(a[0] + 1), to: fmt(a[a.length - 1] + 1) })) : ctx.t('s8.tiles.none'));
    // «tile k of T»: a from–to form here read as a row range next to the rows' own range
    setT(ctx, qtLabel, 's8.tiles.qtOf', { k: fmt(st.qt + 1), last: fmt(T) });
    qtLabel.dataset.qt = String(st.qt);
    qtLabel.dataset.qts = String(T);
    for (const [bt, off] of [[qtPrev, st.qt === 0], [qtNext, st.qt === T - 1]]) {
      if (off) bt.setAttribute('aria-disabled', 'true'); else bt.removeAttribute('aria-disabled');
    }
    qtExplain.textContent = '';
    qtExplain.append(h('p', {}, ctx.tNode('s8.tiles.qtRows', { t: fmt(st.qt + 1), r0: fmt(q0 + 1), r1: fmt(q1) })));
    const ul = h('ul', { class: 'calc-list' });
    for (const kind of ['full', 'partial', 'skip']) {
      ul.append(h('li', { dataset: { kind, tiles: ids(kind).join(',') } }, ctx.tNode(`s8.tiles.li.${kind}`, { list: list(ids(kind)), count: fmt(ids(kind).length) })));
    }
    qtExplain.append(ul);
  }
  const goQt = (t) => { if (!data) return; st.qt = Math.max(0, Math.min(Math.ceil(data.keys / data.block) - 1, t)); state.set('qt', st.qt || null); renderTiles(); };
  qtPrev.addEventListener('click', () => goQt(st.qt - 1));
  qtNext.addEventListener('click', () => goQt(st.qt + 1));

  return { show(d) { data = d; renderTiles(); } };
}
