// Draws a heatmap's matrix on its canvas: one pixel per cell scaled up without smoothing, the
// axis labels (thinned when cells are small), the numbers inside cells that fit them
// (cell-number.mjs), grid lines and the selected cell. The keyboard's current cell is not
// drawn on the canvas: a box over it (`cursor`, placeCursor) moves instead. Redrawing the
// whole canvas for each arrow key cost a full repaint and, at a phone's device scale of 3, a
// new bitmap of millions of pixels to hand to the compositor per key press.
// A draw reads no layout: the available width comes from a ResizeObserver on the stage, the
// page font is read once (and again when the web fonts arrive).
//
//   createCanvasPainter(ctx, opts, parts) → {draw(), placeCursor(), destroy()}
//     parts: {el (the wrapper: data-cell-w / data-cell-h), stage, canvas, cursor, view, lut, words, digits}
//     opts: the heatmap's (labelWidth, cellHeight, maxCell, maxHeight, showValues)
//   draw() writes view.layout = {labelW, labelH, cell, cellH, W, H} (CSS px), which the pointer
//   and the tooltip (heatmap-interaction.mjs) read.

import { numberForms, fitNumber } from './cell-number.mjs';
import { MASKED, colourIndex, darkColour } from './heatmap-colours.mjs';

export function createCanvasPainter(ctx, opts, { el, stage, canvas, cursor, view, lut, words, digits }) {
  const maxCell = opts.maxCell ?? 56;
  const { rowName, colName } = words;
  let availW = 0;          // the stage's width, kept by the ResizeObserver (no layout read per draw)
  let fontFamily = null;   // the page font, read once (getComputedStyle forces a style pass)
  const off = document.createElement('canvas');   // one pixel per cell, scaled onto the canvas

  function font(size, weight = 400) {
    if (!fontFamily) fontFamily = (el.isConnected && getComputedStyle(el).fontFamily) || null;
    return `${weight} ${size}px ${fontFamily || 'sans-serif'}`;
  }

  function draw() {
    const { m, lo, hi, selected } = view;
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
    const layout = view.layout;
    if (!layout || layout.W !== W || layout.H !== H) { canvas.style.width = `${W}px`; canvas.style.height = `${H}px`; }
    view.layout = { labelW, labelH, cell, cellH, W, H };
    if (el.dataset.cellW !== cell.toFixed(2)) el.dataset.cellW = cell.toFixed(2);
    if (el.dataset.cellH !== cellH.toFixed(2)) el.dataset.cellH = cellH.toFixed(2);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);

    // cells: one pixel per cell, scaled up without smoothing
    const img = new ImageData(m.cols, m.rows);
    for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) {
      const v = view.valueAt(i, j);
      const p = (i * m.cols + j) * 4;
      if (Number.isFinite(v)) {
        const k = colourIndex(v, lo, hi) * 3;
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
        const v = view.valueAt(i, j);
        const form = fitNumber(numberForms(v, ctx.fmt, digits), measure, room);
        if (!form) continue;   // (the table and the tooltip still have it)
        const dark = Number.isFinite(v) && darkColour(lut, colourIndex(v, lo, hi));
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
    placeCursor();
  }

  // The box over the keyboard's current cell, while the canvas has the focus (site.css
  // .heatmap-cursor: the same white and magenta rings the canvas drew before)
  function placeCursor() {
    const { layout, cur, m } = view;
    const show = Boolean(layout && m && document.activeElement === canvas);
    if (cursor.hidden !== !show) cursor.hidden = !show;
    if (!show) return;
    const s = Math.max(layout.cell, 3), sh = Math.max(layout.cellH, 3);
    const st = cursor.style;
    st.left = `${layout.labelW + cur.j * layout.cell}px`;
    st.top = `${layout.labelH + cur.i * layout.cellH}px`;
    st.width = `${s}px`;
    st.height = `${sh}px`;
  }

  let ro = null;
  if (typeof ResizeObserver !== 'undefined') {
    // called after layout, so reading the width here forces nothing
    ro = new ResizeObserver(() => { const w = stage.clientWidth; if (w !== availW) { availW = w; draw(); } });
    ro.observe(stage);
  }
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(() => { fontFamily = null; draw(); });

  return { draw, placeCursor, destroy() { if (ro) ro.disconnect(); } };
}
