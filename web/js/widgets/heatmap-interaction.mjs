// What a heatmap's canvas does under a mouse, a finger and the keyboard: the tooltip of the
// cell pointed at or current, arrow keys / Home / End moving the current cell, Enter / Space,
// a tap or a click activating a cell (opts.onCellActivate, via 'touch' | 'mouse' | 'key'),
// the cell's words in a polite live region. Focus stays on the canvas.
//
//   wireInteraction(opts, {canvas, stage, tip, live, view, words, placeCursor})
//     view: the heatmap's state; this reads m and layout and moves view.cur
//     placeCursor: moves the box over the current cell (heatmap-canvas.mjs); the canvas is
//     not redrawn for a move of the current cell (what the canvas shows is the same)

const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };

// The page's fixed top bar (pages/where-bar.mjs sets --where-h): what lies under it is hidden.
const barHeight = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--where-h')) || 0;

export function wireInteraction(opts, { canvas, stage, tip, live, view, words, placeCursor }) {
  const { cellText } = words;
  let touchTip = false;   // the last pointer was a finger or a pen

  function cellFromEvent(ev) {
    const { layout, m } = view;
    if (!layout || !m) return null;
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left - layout.labelW;
    const y = ev.clientY - r.top - layout.labelH;
    const j = Math.floor(x / layout.cell), i = Math.floor(y / layout.cellH);
    if (i < 0 || j < 0 || i >= m.rows || j >= m.cols) return null;
    return { i, j, x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  // After a tap or click, the cell must still be on screen (whatever the caller's reaction
  // changed on the page): scroll the page by the least amount that shows it.
  function keepInView(i, j) {
    const { layout } = view;
    if (!layout) return;
    const r = canvas.getBoundingClientRect();
    const top = r.top + layout.labelH + i * layout.cellH, bottom = top + layout.cellH;
    const vh = window.innerHeight || document.documentElement.clientHeight;
    if (top < 0) window.scrollBy(0, top - 8);
    else if (bottom > vh) window.scrollBy(0, bottom - vh + 8);
    const x = r.left + layout.labelW + (j + 0.5) * layout.cell;
    const sr = stage.getBoundingClientRect();
    if (x < sr.left || x > sr.right) stage.scrollLeft += x - (sr.left + sr.right) / 2;
  }

  // The tooltip of cell c: centred on it but never over the row labels (nor past the map's
  // end); below it for a mouse or the keyboard, above it after a touch (the finger covers the
  // cell and what is under it), below again on the first row (above is the column labels).
  function showTip(c) {
    const { layout } = view;
    if (!c || !layout) { tip.hidden = true; return; }
    setText(tip, cellText(c.i, c.j));
    tip.hidden = false;
    const w = tip.offsetWidth, hTip = tip.offsetHeight;
    const x = layout.labelW + (c.j + 0.5) * layout.cell;
    const left = Math.max(layout.labelW, Math.min(x - w / 2, layout.W - w));
    const above = touchTip && c.i > 0;
    const y = above ? layout.labelH + c.i * layout.cellH - hTip - 4 : layout.labelH + (c.i + 1) * layout.cellH + 4;
    tip.style.left = `${Math.round(Math.max(0, left))}px`;
    tip.style.top = `${Math.round(y)}px`;
    tip.dataset.i = String(c.i);
    tip.dataset.j = String(c.j);
  }

  // After a tap or click on (i, j): the caller may have moved things above the map (an
  // explanation placed under the map that was tapped): scroll back by what that moved the
  // map, so the cell stays under the finger; then show the start of the explanation it
  // returned, as far as the cell can stay on screen; then make sure the cell is on screen.
  function activateAt(i, j, via) {
    const before = canvas.getBoundingClientRect().top;
    const explained = opts.onCellActivate(i, j, view.valueAt(i, j), { via });
    const moved = canvas.getBoundingClientRect().top - before;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
    const { layout } = view;
    if (explained && explained.getBoundingClientRect && layout) {
      const vh = window.innerHeight || document.documentElement.clientHeight;
      const r = explained.getBoundingClientRect();
      const cellTop = canvas.getBoundingClientRect().top + layout.labelH + i * layout.cellH;
      // its start at most 40% down the screen (less when all of it fits below that)
      const want = r.top - Math.max(vh * 0.4, vh - r.height - 16);
      const room = cellTop - barHeight() - 8;
      const by = Math.min(want, room);
      if (by > 0) window.scrollBy(0, by);
    }
  }

  canvas.addEventListener('pointerdown', (ev) => {
    touchTip = ev.pointerType !== 'mouse';
    // the focus that follows (before the click) shows this cell's tooltip, not the old one's
    const c = cellFromEvent(ev);
    if (c) view.cur = { i: c.i, j: c.j };
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (ev.pointerType !== 'mouse') return;   // (a finger's move scrolls the page)
    touchTip = false;
    const c = cellFromEvent(ev);
    showTip(c || (document.activeElement === canvas ? view.cur : null));
    canvas.style.cursor = c && opts.onCellActivate ? 'pointer' : '';
  });
  canvas.addEventListener('mouseleave', () => { if (document.activeElement !== canvas) tip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const c = cellFromEvent(ev);
    if (!c) return;
    view.cur = { i: c.i, j: c.j };
    if (opts.onCellActivate) activateAt(c.i, c.j, touchTip ? 'touch' : 'mouse');
    placeCursor();
    showTip(view.cur);
    live.textContent = cellText(view.cur.i, view.cur.j);
    keepInView(c.i, c.j);
  });
  canvas.addEventListener('focus', () => { placeCursor(); showTip(view.cur); live.textContent = cellText(view.cur.i, view.cur.j); });
  canvas.addEventListener('blur', () => { tip.hidden = true; placeCursor(); });
  canvas.addEventListener('keydown', (ev) => {
    const { m } = view;
    if (!m) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      Home: [0, -Infinity], End: [0, Infinity] };
    const { cur } = view;
    if (ev.key in moves) {
      touchTip = false;
      const [di, dj] = moves[ev.key];
      view.cur = {
        i: Math.max(0, Math.min(m.rows - 1, cur.i + di)),
        j: Math.max(0, Math.min(m.cols - 1, Number.isFinite(dj) ? cur.j + dj : (dj > 0 ? m.cols - 1 : 0))),
      };
      ev.preventDefault();
      placeCursor(); showTip(view.cur);
      live.textContent = cellText(view.cur.i, view.cur.j);
    } else if ((ev.key === 'Enter' || ev.key === ' ') && opts.onCellActivate) {
      ev.preventDefault();
      opts.onCellActivate(cur.i, cur.j, view.valueAt(cur.i, cur.j), { via: 'key' });
    }
  });
}
