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
//
// The parts, one file each: heatmap-canvas.mjs (the drawing), heatmap-interaction.mjs (pointer,
// keyboard, tooltip), heatmap-table.mjs (the <details> table, built lazily), heatmap-legend.mjs
// (the colour bar), heatmap-export.mjs (PNG, CSV), heatmap-colours.mjs (palette and range),
// heatmap-words.mjs (a cell's value and names as text). This file builds the figure, keeps the
// state they share and runs an update through them.

import { captionedFigure, textOf } from '../dom.mjs';
import { makeLut, colourRange } from './heatmap-colours.mjs';
import { cellWords } from './heatmap-words.mjs';
import { createCanvasPainter } from './heatmap-canvas.mjs';
import { createLegend } from './heatmap-legend.mjs';
import { exportTools } from './heatmap-export.mjs';
import { createHeatmapTable } from './heatmap-table.mjs';
import { wireInteraction } from './heatmap-interaction.mjs';

let uid = 0;

export function createHeatmap(ctx, opts = {}) {
  const id = `hm-${++uid}`;
  const digits = opts.digits ?? 2;
  const lut = makeLut(opts.palette || 'viridis');
  const testid = opts.testid || id;

  // What the parts share, read when they run: the matrix on screen and its labels, the colour
  // range, the keyboard's current cell, the outlined cell, and where the last draw put the cells.
  const view = {
    m: null,
    rowLabels: opts.rowLabels || null,
    colLabels: opts.colLabels || null,
    lo: 0, hi: 1,
    cur: { i: 0, j: 0 },
    selected: null,
    layout: null,
    valueAt(i, j) { return this.m.data[i * this.m.cols + j]; },
  };
  const words = cellWords(ctx, view, digits);

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
  const cursor = document.createElement('div');
  cursor.className = 'heatmap-cursor';
  cursor.hidden = true;
  const tip = document.createElement('div');
  tip.className = 'heatmap-tip';
  tip.hidden = true;
  tip.dir = 'auto';
  inner.append(canvas, cursor, tip);
  stage.append(inner);
  const live = document.createElement('div');
  live.className = 'visually-hidden';
  live.setAttribute('aria-live', 'polite');

  const legend = createLegend(ctx, opts, lut, digits);
  const tools = exportTools(ctx, opts, { testid, canvas, view });
  const table = createHeatmapTable(ctx, opts, { testid, view, words });
  el.append(cap, stage, legend.el, tools.el, table.el, live);

  const painter = createCanvasPainter(ctx, opts, { el, stage, canvas, cursor, view, lut, words, digits });
  const draw = painter.draw;
  wireInteraction(opts, { canvas, stage, tip, live, view, words, placeCursor: painter.placeCursor });
  // the reader switched digits (pages/page-common.mjs): the canvas, legend and table show them anew
  window.addEventListener('digits-changed', () => { if (view.m && el.isConnected) update(view.m); });

  function update(matrix, labels = {}) {
    const t0 = performance.now();
    const m = { rows: matrix.rows, cols: matrix.cols, data: matrix.data };
    view.m = m;
    if (labels.rowLabels !== undefined) view.rowLabels = labels.rowLabels;
    if (labels.colLabels !== undefined) view.colLabels = labels.colLabels;
    view.cur = { i: Math.min(view.cur.i, m.rows - 1), j: Math.min(view.cur.j, m.cols - 1) };
    const { selected } = view;
    if (selected && (selected.i >= m.rows || selected.j >= m.cols)) view.selected = null;
    Object.assign(view, colourRange(m.data, opts));
    canvas.setAttribute('aria-label', ctx.t('site.heatmapAria', {
      label: textOf(ctx, opts.label), rows: m.rows, cols: m.cols,
    }));
    legend.show(view.lo, view.hi, m.data);
    draw();
    table.matrixChanged();
    el.dataset.rows = String(m.rows);
    el.dataset.cols = String(m.cols);
    // `heatmap:<testid>`: when (and how long) this heatmap last redrew (engine/bench/page-metrics.mjs)
    try { performance.clearMeasures(`heatmap:${testid}`); performance.measure(`heatmap:${testid}`, { start: t0 }); } catch { /* old browsers */ }
  }

  return {
    el,
    update,
    select(i, j) { view.selected = i == null ? null : { i, j }; draw(); },
    toCsv: () => (view.m ? tools.toCsv() : ''),
    redraw: draw,
    destroy() { painter.destroy(); table.cancel(); el.remove(); },
    get matrix() { return view.m; },
  };
}
