// Canvas heatmap of a matrix, with a keyboard-reachable data table, PNG/CSV export.
//
// Usage:
//   import { createHeatmap } from '../widgets/heatmap.mjs';
//   const hm = createHeatmap(ctx, {
//     label: 's2.weightsLabel',          // text key (or Node): caption + aria-label
//     rowLabels: ['the', 'cat', …],      // optional; default 1…rows in page numerals
//     colLabels: […],
//     rowTitle: 's2.queries', colTitle: 's2.keys',   // optional axis names (text keys)
//     min: 0, max: 1,                    // optional fixed colour range (else from the finite data)
//     digits: 2,                         // decimals shown in cells / table / tooltip
//     showValues: 'auto',                // numbers in cells when they fit ('auto' | true | false)
//     palette: 'viridis',                // or 'cividis' (both colour-blind safe)
//     onCellActivate: (i, j, value, { via }) => …,   // tap / click / Enter on a cell (canvas or
//                                        // table); via: 'touch' | 'mouse' | 'key' | 'table'. It may
//                                        // return the element that explains the cell: after a tap
//                                        // or a click the page then shows its start, the cell kept
//     testid: 's2-weights',              // on the wrapper; canvas = `${testid}-canvas`,
//                                        // table = `${testid}-table`, buttons `${testid}-png`, `${testid}-csv`
//     exportName: 'weights',             // file name stem for downloads
//     labelWidth: 48,                    // optional: least width (CSS px) of the row-label band; a
//                                        // band wide enough for every label set keeps the drawing's
//                                        // size when only the labels change (default: the labels' width)
//     cellHeight: 56,                    // optional: every row this tall (CSS px) whatever the cell
//                                        // width (a single row of 2048 keys stays a visible band);
//                                        // default: square cells
//     maskLegend: 'window.reach.zeroCell', // optional: text key of the grey legend (default site.maskedCell)
//   });
//   root.append(hm.el);
//   hm.update({ rows, cols, data: Float32Array }, { rowLabels, colLabels });  // −Infinity = masked (grey, "−∞")
//   hm.select(i, j);   // outline a cell (null clears)
// The canvas is focusable: arrow keys move the current cell, Enter/Space activates it,
// the value is announced in a polite live region. Focus stays on the canvas (a caller that
// explains the cell should announce it through a live region, not take the focus). A tapped
// or clicked cell becomes the current one at once (a tap focuses the canvas before its click:
// the tooltip named the previous cell), stays where it was on screen whatever the caller moved
// above it, and its tooltip stays clear of the row labels; after a tap the tooltip sits
// above the cell, where the finger does not hide it.
// A number drawn in a cell takes the most precise form that fits it (cell-number.mjs: fewer
// decimals, then 3–1 significant digits × 10 to a power); the colour-bar ends likewise. The
// table, the tooltip and the live region keep the value with `digits` decimals.
// The wrapper carries data-cell-w / data-cell-h: the drawn cell size in CSS px. The <details> table holds the same
// numbers (up to maxTable rows/cols, default 64) as real <th>/<td>. While the <details> is
// closed, an update drops the old table and builds the new one when the page is idle (or at
// once when the <details> opens), so a slider redraw costs the canvas, not thousands of cells.
// Redraws read no layout (the available width comes from a ResizeObserver) and each
// update records a `heatmap:<testid>` performance measure (engine/bench/page-metrics.mjs).

import { ltrNumber } from '../i18n/numerals.mjs';
import { numberForms, fitNumber } from './cell-number.mjs';
import { captionedFigure, textOf, nodeOf } from '../dom.mjs';
import { pageDigits } from '../i18n/i18n.mjs';
import { language } from '../i18n/languages.mjs';

const PALETTES = {
  viridis: ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'],
  cividis: ['#00224e', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#fee838'],
};
const MASKED = [222, 222, 222];

function hexToRgb(h) {
  const n = parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function makeLut(name) {
  const stops = (PALETTES[name] || PALETTES.viridis).map(hexToRgb);
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (stops.length - 1);
    const a = Math.min(stops.length - 2, Math.floor(x));
    const f = x - a;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(stops[a][c] * (1 - f) + stops[a + 1][c] * f);
  }
  return lut;
}
function luminance(r, g, b) {
  const l = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * l(r) + 0.7152 * l(g) + 0.0722 * l(b);
}

let uid = 0;

export function createHeatmap(ctx, opts = {}) {
  const id = `hm-${++uid}`;
  const digits = opts.digits ?? 2;
  const maxTable = opts.maxTable ?? 64;
  const maxCell = opts.maxCell ?? 56;
  const lut = makeLut(opts.palette || 'viridis');
  const testid = opts.testid || id;

  let m = null;
  let rowLabels = opts.rowLabels || null;
  let colLabels = opts.colLabels || null;
  let lo = 0, hi = 1;
  let cur = { i: 0, j: 0 };
  let selected = null;
  let layout = null;
  let availW = 0;          // the stage's width, kept by the ResizeObserver (no layout read per draw)
  let fontFamily = null;   // the page font, read once (getComputedStyle forces a style pass)
  let tableStale = true;   // the <details> table no longer matches m
  const off = document.createElement('canvas');   // one pixel per cell, scaled onto the canvas

  // ---- DOM
  const { el, cap } = captionedFigure(ctx, { cls: 'heatmap', capClass: 'heatmap-caption', id, testid, label: opts.label });
  // stage: scrolls when the matrix is wider than the page; inner: LTR box the size of the
  // canvas (rows top-down, columns left to right, as matrices are written), at the start side.
  const stage = document.createElement('div');
  stage.className = 'heatmap-stage ltr-scroll';
  stage.dir = 'ltr';
  const inner = document.createElement('div');
  inner.className = 'heatmap-inner';
  inner.dir = 'ltr';
  const canvas = document.createElement('canvas');
  canvas.className = 'heatmap-canvas';
  canvas.tabIndex = 0;
  canvas.dir = 'ltr';
  canvas.setAttribute('role', 'img');
  canvas.dataset.testid = `${testid}-canvas`;
  const tip = document.createElement('div');
  tip.className = 'heatmap-tip';
  tip.hidden = true;
  tip.dir = 'auto';
  inner.append(canvas, tip);
  stage.append(inner);
  const live = document.createElement('div');
  live.className = 'visually-hidden';
  live.setAttribute('aria-live', 'polite');

  const legend = document.createElement('div');
  legend.className = 'heatmap-legend';
  const legLo = document.createElement('span');
  const legBar = document.createElement('canvas');
  legBar.className = 'heatmap-legend-bar';
  legBar.width = 128; legBar.height = 10;
  legBar.setAttribute('aria-hidden', 'true');
  const legHi = document.createElement('span');
  const legMask = document.createElement('span');
  legMask.className = 'heatmap-legend-mask';
  legMask.hidden = true;
  const legendBox = document.createElement('span');
  legendBox.className = 'heatmap-legend-ltr';
  legendBox.dir = 'ltr';
  legendBox.append(legLo, legBar, legHi);
  legend.append(legendBox, legMask);
  {
    const g = legBar.getContext('2d');
    if (g) for (let x = 0; x < 128; x++) {
      const k = Math.round((x / 127) * 255) * 3;
      g.fillStyle = `rgb(${lut[k]},${lut[k + 1]},${lut[k + 2]})`;
      g.fillRect(x, 0, 1, 10);
    }
  }

  const tools = document.createElement('div');
  tools.className = 'heatmap-tools';
  const pngBtn = document.createElement('button');
  pngBtn.type = 'button'; pngBtn.className = 'btn btn-small';
  pngBtn.dataset.testid = `${testid}-png`;
  pngBtn.append(ctx.tNode('site.exportPng'));
  const csvBtn = document.createElement('button');
  csvBtn.type = 'button'; csvBtn.className = 'btn btn-small';
  csvBtn.dataset.testid = `${testid}-csv`;
  csvBtn.append(ctx.tNode('site.exportCsv'));
  tools.append(pngBtn, csvBtn);

  const details = document.createElement('details');
  details.className = 'heatmap-table';
  const summary = document.createElement('summary');
  summary.append(ctx.tNode('site.showTable'));
  const tableWrap = document.createElement('div');
  tableWrap.className = 'table-scroll ltr-scroll';
  tableWrap.dir = 'ltr';   // so a wide table scrolls from its first column (see site.css)
  details.append(summary, tableWrap);

  el.append(cap, stage, legend, tools, details, live);

  // ---- helpers
  const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
  const valueAt = (i, j) => m.data[i * m.cols + j];
  const fmtV = (v) => {
    if (v === -Infinity) return '−∞';
    if (v === Infinity) return '∞';
    if (Number.isNaN(v)) return '—';
    return ltrNumber(ctx.fmt(v, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  };
  // labels given as strings ("Q3") follow the reader's digits too, also after a switch
  const rowName = (i) => (rowLabels && rowLabels[i] != null ? pageDigits(rowLabels[i]) : ctx.fmt(i + 1));
  const colName = (j) => (colLabels && colLabels[j] != null ? pageDigits(colLabels[j]) : ctx.fmt(j + 1));
  // (a Latin label is isolated: "sat" before ":" and the value turned the tooltip's RTL line
  // into "ستون ۰٫۵۱ :sat")
  const iso = (name) => (/[A-Za-z]/.test(name) ? `\u2068${name}\u2069` : name);
  const cellText = (i, j) => ctx.t('site.cellValue', {
    row: iso(rowName(i)), col: iso(colName(j)), value: fmtV(valueAt(i, j)),
  });

  function range() {
    if (opts.min != null && opts.max != null) { lo = opts.min; hi = opts.max; return; }
    let a = Infinity, b = -Infinity;
    for (const v of m.data) if (Number.isFinite(v)) { if (v < a) a = v; if (v > b) b = v; }
    if (!Number.isFinite(a)) { a = 0; b = 1; }
    lo = opts.min ?? a; hi = opts.max ?? b;
    if (hi === lo) hi = lo + 1;
  }
  const colourIndex = (v) => Math.max(0, Math.min(255, Math.round(((v - lo) / (hi - lo)) * 255)));

  function font(size, weight = 400) {
    if (!fontFamily) fontFamily = (el.isConnected && getComputedStyle(el).fontFamily) || null;
    return `${weight} ${size}px ${fontFamily || 'sans-serif'}`;
  }

  function draw() {
    if (!m) return;
    const g = canvas.getContext('2d');
    if (!g) return;
    const avail = Math.max(160, availW || stage.clientWidth || el.clientWidth || 320);
    g.font = font(13);
    let labelW = 0;
    for (let i = 0; i < m.rows && i < 512; i++) labelW = Math.max(labelW, g.measureText(rowName(i)).width);
    labelW = Math.max(Math.ceil(labelW) + 8, opts.labelWidth || 0);
    const labelH = 22;
    let cell = Math.min(maxCell, (avail - labelW - 2) / m.cols);
    if (opts.maxHeight) cell = Math.min(cell, opts.maxHeight / m.rows);
    cell = Math.max(cell, 0.25);
    const cellH = opts.cellHeight || cell;   // a row's height (square cells unless fixed)
    const W = Math.ceil(labelW + cell * m.cols + 2);
    const H = Math.ceil(labelH + cellH * m.rows + 2);
    const dpr = window.devicePixelRatio || 1;
    const bw = Math.round(W * dpr), bh = Math.round(H * dpr);
    if (canvas.width !== bw || canvas.height !== bh) { canvas.width = bw; canvas.height = bh; }
    // (same size: no style change, so the page around it needs no new layout)
    if (!layout || layout.W !== W || layout.H !== H) { canvas.style.width = `${W}px`; canvas.style.height = `${H}px`; }
    layout = { labelW, labelH, cell, cellH, W, H };
    if (el.dataset.cellW !== cell.toFixed(2)) el.dataset.cellW = cell.toFixed(2);
    if (el.dataset.cellH !== cellH.toFixed(2)) el.dataset.cellH = cellH.toFixed(2);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);

    // cells: one pixel per cell, scaled up without smoothing
    const img = new ImageData(m.cols, m.rows);
    for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) {
      const v = valueAt(i, j);
      const p = (i * m.cols + j) * 4;
      if (Number.isFinite(v)) {
        const k = colourIndex(v) * 3;
        img.data[p] = lut[k]; img.data[p + 1] = lut[k + 1]; img.data[p + 2] = lut[k + 2];
      } else { img.data[p] = MASKED[0]; img.data[p + 1] = MASKED[1]; img.data[p + 2] = MASKED[2]; }
      img.data[p + 3] = 255;
    }
    if (off.width !== m.cols || off.height !== m.rows) { off.width = m.cols; off.height = m.rows; }
    off.getContext('2d').putImageData(img, 0, 0);
    g.imageSmoothingEnabled = false;
    g.drawImage(off, labelW, labelH, cell * m.cols, cellH * m.rows);

    // labels (thinned when cells are small)
    g.fillStyle = '#1f2328';
    g.textBaseline = 'middle';
    const every = Math.max(1, Math.ceil(16 / cell));
    g.textAlign = 'right';
    for (let i = 0; i < m.rows; i += Math.max(1, Math.ceil(16 / cellH))) g.fillText(rowName(i), labelW - 6, labelH + (i + 0.5) * cellH);
    g.textAlign = 'center';
    const colEvery = Math.max(every, Math.ceil(44 / cell));
    for (let j = 0; j < m.cols; j += (cell >= 40 ? 1 : colEvery)) g.fillText(colName(j), labelW + (j + 0.5) * cell, labelH / 2);

    // values inside cells
    const show = opts.showValues === true || (opts.showValues !== false && cell >= 40);
    if (show) {
      const size = Math.min(14, Math.floor(Math.min(cell, cellH) / 3.4));
      const big = font(size), small = font(Math.round(size * 0.72));
      const room = cell - 6;   // 3 px clear of each cell edge
      const widths = new Map();
      const width = (text, f) => {
        const key = f + text;
        let w = widths.get(key);
        if (w === undefined) { g.font = f; w = g.measureText(text).width; widths.set(key, w); }
        return w;
      };
      const measure = (f) => width(f.text, big) + (f.sup ? width(f.sup, small) : 0);
      for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) {
        const v = valueAt(i, j);
        const form = fitNumber(numberForms(v, ctx.fmt, digits), measure, room);
        if (!form) continue;   // (the table and the tooltip still have it)
        let dark = false;
        if (Number.isFinite(v)) {
          const k = colourIndex(v) * 3;
          dark = luminance(lut[k], lut[k + 1], lut[k + 2]) < 0.3;
        }
        g.fillStyle = dark ? '#ffffff' : '#111111';
        const cx = labelW + (j + 0.5) * cell, cy = labelH + (i + 0.5) * cellH;
        g.font = big;
        if (!form.sup) { g.textAlign = 'center'; g.fillText(form.text, cx, cy); continue; }
        // mantissa×10 then the exponent, smaller and raised, centred together
        const wb = width(form.text, big), x0 = cx - (wb + width(form.sup, small)) / 2;
        g.textAlign = 'left';
        g.fillText(form.text, x0, cy);
        g.font = small;
        g.fillText(form.sup, x0 + wb, cy - size * 0.4);
      }
      g.textAlign = 'center';
    }
    // grid lines when cells are big enough
    if (cell >= 12) {
      g.strokeStyle = 'rgba(255,255,255,0.7)';
      g.lineWidth = 1;
      g.beginPath();
      for (let i = 0; i <= m.rows; i++) { g.moveTo(labelW, labelH + i * cellH); g.lineTo(labelW + m.cols * cell, labelH + i * cellH); }
      for (let j = 0; j <= m.cols; j++) { g.moveTo(labelW + j * cell, labelH); g.lineTo(labelW + j * cell, labelH + m.rows * cellH); }
      g.stroke();
    }
    const outline = (c, colour, w) => {
      g.strokeStyle = colour; g.lineWidth = w;
      const s = Math.max(cell, 3), sh = Math.max(cellH, 3);
      g.strokeRect(labelW + c.j * cell + w / 2, labelH + c.i * cellH + w / 2, s - w, sh - w);
    };
    if (selected) { outline(selected, '#000', 4); outline(selected, '#ff0', 2); }
    if (document.activeElement === canvas) { outline(cur, '#fff', 3); outline(cur, '#c2185b', 1.5); }
  }

  function buildTable() {
    tableStale = false;
    tableWrap.textContent = '';
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
        const v = valueAt(i, j);
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

  // A colour-bar end: the value as in the table when it is short, else 3 significant digits
  // × 10 to a power (a "۱٫۲۷×۱۰⁹" beside the bar instead of thirteen digits pushing it away).
  function setLegend(node, v) {
    const forms = numberForms(v, ctx.fmt, digits);
    const f = forms[0].text.length <= 9 ? forms[0] : (forms.find((x) => x.sup) || forms[forms.length - 1]);
    const key = `${f.text}^${f.sup}`;
    if (node.dataset.shown === key) return;
    node.dataset.shown = key;
    node.textContent = f.text;
    if (f.sup) { const sup = document.createElement('sup'); sup.textContent = f.sup; node.append(sup); }
  }

  function updateAria() {
    if (!m) return;
    canvas.setAttribute('aria-label', ctx.t('site.heatmapAria', {
      label: textOf(ctx, opts.label), rows: m.rows, cols: m.cols,
    }));
    // (written only when changed: a new text node would make the next canvas font read
    // recompute the page's styles in the middle of a redraw)
    setLegend(legLo, lo);
    setLegend(legHi, hi);
    let anyMasked = false;
    for (const v of m.data) if (!Number.isFinite(v)) { anyMasked = true; break; }
    legMask.hidden = !anyMasked;
    // (a map whose non-finite cells are not masked, e.g. zero influence on a log scale, names them itself)
    setText(legMask, anyMasked ? ctx.t(opts.maskLegend || 'site.maskedCell') : '');
  }

  function cellFromEvent(ev) {
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

  // The page's fixed top bar (pages/where-bar.mjs sets --where-h): what lies under it is hidden.
  const barHeight = () => parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--where-h')) || 0;

  // After a tap or click on (i, j): the caller may have moved things above the map (an
  // explanation placed under the map that was tapped): scroll back by what that moved the
  // map, so the cell stays under the finger; then show the start of the explanation it
  // returned, as far as the cell can stay on screen; then make sure the cell is on screen.
  function activateAt(i, j, via) {
    const before = canvas.getBoundingClientRect().top;
    const explained = opts.onCellActivate(i, j, valueAt(i, j), { via });
    const moved = canvas.getBoundingClientRect().top - before;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
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

  // ---- events
  let touchTip = false;   // the last pointer was a finger or a pen
  canvas.addEventListener('pointerdown', (ev) => {
    touchTip = ev.pointerType !== 'mouse';
    // the focus that follows (before the click) shows this cell's tooltip, not the old one's
    const c = cellFromEvent(ev);
    if (c) cur = { i: c.i, j: c.j };
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (ev.pointerType !== 'mouse') return;   // (a finger's move scrolls the page)
    touchTip = false;
    const c = cellFromEvent(ev);
    showTip(c || (document.activeElement === canvas ? cur : null));
    canvas.style.cursor = c && opts.onCellActivate ? 'pointer' : '';
  });
  canvas.addEventListener('mouseleave', () => { if (document.activeElement !== canvas) tip.hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const c = cellFromEvent(ev);
    if (!c) return;
    cur = { i: c.i, j: c.j };
    if (opts.onCellActivate) activateAt(c.i, c.j, touchTip ? 'touch' : 'mouse');
    draw();
    showTip(cur);
    live.textContent = cellText(cur.i, cur.j);
    keepInView(c.i, c.j);
  });
  canvas.addEventListener('focus', () => { draw(); showTip(cur); live.textContent = cellText(cur.i, cur.j); });
  canvas.addEventListener('blur', () => { tip.hidden = true; draw(); });
  canvas.addEventListener('keydown', (ev) => {
    if (!m) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      Home: [0, -Infinity], End: [0, Infinity] };
    if (ev.key in moves) {
      touchTip = false;
      const [di, dj] = moves[ev.key];
      cur = {
        i: Math.max(0, Math.min(m.rows - 1, cur.i + di)),
        j: Math.max(0, Math.min(m.cols - 1, Number.isFinite(dj) ? cur.j + dj : (dj > 0 ? m.cols - 1 : 0))),
      };
      ev.preventDefault();
      draw(); showTip(cur);
      live.textContent = cellText(cur.i, cur.j);
    } else if ((ev.key === 'Enter' || ev.key === ' ') && opts.onCellActivate) {
      ev.preventDefault();
      opts.onCellActivate(cur.i, cur.j, valueAt(cur.i, cur.j), { via: 'key' });
    }
  });
  tableWrap.addEventListener('click', (ev) => {
    const b = ev.target.closest && ev.target.closest('button.cell-btn');
    if (!b || !opts.onCellActivate) return;
    const i = Number(b.dataset.i), j = Number(b.dataset.j);
    cur = { i, j };
    opts.onCellActivate(i, j, valueAt(i, j), { via: 'table' });
  });

  function download(blob, name) {
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url; a.download = name;
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 2000);
  }
  const stem = () => opts.exportName || testid;
  pngBtn.addEventListener('click', () => { if (m) canvas.toBlob((b) => b && download(b, `${stem()}.png`), 'image/png'); });
  csvBtn.addEventListener('click', () => { if (m) download(new Blob([toCsv()], { type: 'text/csv;charset=utf-8' }), `${stem()}.csv`); });

  // CSV is data for other programs: Latin digits, '.' decimals, full float precision.
  function toCsv() {
    const q = (s) => `"${String(s).replace(/"/g, '""')}"`;
    const rn = (i) => (rowLabels && rowLabels[i] != null ? rowLabels[i] : i + 1);
    const cn = (j) => (colLabels && colLabels[j] != null ? colLabels[j] : j + 1);
    const lines = [['', ...Array.from({ length: m.cols }, (_, j) => cn(j))].map(q).join(',')];
    for (let i = 0; i < m.rows; i++) {
      const row = [q(rn(i))];
      for (let j = 0; j < m.cols; j++) {
        const v = valueAt(i, j);
        row.push(v === -Infinity ? '-inf' : v === Infinity ? 'inf' : String(v));
      }
      lines.push(row.join(','));
    }
    return '\uFEFF' + lines.join('\r\n') + '\r\n';
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

  let ro = null;
  if (typeof ResizeObserver !== 'undefined') {
    // called after layout, so reading the width here forces nothing
    ro = new ResizeObserver(() => { const w = stage.clientWidth; if (w !== availW) { availW = w; draw(); } });
    ro.observe(stage);
  }
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(() => { fontFamily = null; draw(); });
  // the reader switched digits (pages/page-common.mjs): the canvas, legend and table show them anew
  window.addEventListener('digits-changed', () => { if (m && el.isConnected) update(m); });

  function update(matrix, labels = {}) {
    const t0 = performance.now();
    m = { rows: matrix.rows, cols: matrix.cols, data: matrix.data };
    if (labels.rowLabels !== undefined) rowLabels = labels.rowLabels;
    if (labels.colLabels !== undefined) colLabels = labels.colLabels;
    cur = { i: Math.min(cur.i, m.rows - 1), j: Math.min(cur.j, m.cols - 1) };
    if (selected && (selected.i >= m.rows || selected.j >= m.cols)) selected = null;
    range();
    updateAria();
    draw();
    tableStale = true;
    if (details.open) { cancelTableJob(); buildTable(); } else { tableWrap.textContent = ''; buildTableLater(); }
    el.dataset.rows = String(m.rows);
    el.dataset.cols = String(m.cols);
    // `heatmap:<testid>`: when (and how long) this heatmap last redrew (engine/bench/page-metrics.mjs)
    try { performance.clearMeasures(`heatmap:${testid}`); performance.measure(`heatmap:${testid}`, { start: t0 }); } catch { /* old browsers */ }
  }

  return {
    el,
    update,
    select(i, j) { selected = i == null ? null : { i, j }; draw(); },
    toCsv: () => (m ? toCsv() : ''),
    redraw: draw,
    destroy() { if (ro) ro.disconnect(); cancelTableJob(); el.remove(); },
    get matrix() { return m; },
  };
}
