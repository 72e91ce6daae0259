// Small SVG chart (lines and/or points) with axes, a legend and the same data
// as a real <table> behind a <details>, for the lesson's measured sweeps.
//
// Usage:
//   import { createChart } from '../widgets/chart.mjs';
//   const ch = createChart(ctx, {
//     title: 's4.sweep.chartTitle',        // text key (or Node): <figcaption> + aria-label
//     xLabel: 's4.sweep.x', yLabel: 's4.sweep.y',   // text keys (plain text in the SVG)
//     xLog: true, yLog: false,             // log axes (base 2 ticks when the range is < 2^14, else 10)
//     xMin, xMax, yMin, yMax,              // optional fixed ranges (else from the data)
//     xTicks: [1, 4, 16, 64],              // optional explicit ticks
//     formatX: (v) => ctx.fmt(v), formatY: (v) => ctx.pct(v),   // tick + table text
//     series: [{ label: 's4.sweep.off', kind: 'line' }, { label: 's4.sweep.on', kind: 'points' }],
//     tableLabel: 's4.chartTable', testid: 's4-sweep-chart',
//   });
//   root.append(ch.el);
//   ch.update([[{x, y}, …], [{x, y}, …]], { guides: [{ axis: 'y', value: 0.5, label: '۵۰٪' }] });
//   ch.setBusy(true);                       // dims the plot while a new sweep runs
//
// Direction: the page is RTL but the plot keeps the mathematical convention
// (x grows to the right, y upwards), as Persian and Arabic textbooks print
// graphs; the SVG is an LTR island, its words are still shaped RTL by the
// browser. Ticks, legend and table use the page's numerals (via formatX/Y).
// Hooks: data-testid on the <figure> (testid), `${testid}-svg`, `${testid}-table`;
// the figure carries data-points="<count>" once data has been drawn.
// No inline styles: colours and strokes come from css/experiments.css classes.

import { captionedFigure, textOf, nodeOf } from '../dom.mjs';

const SVGNS = 'http://www.w3.org/2000/svg';
let uid = 0;

function svg(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.append(e);
  return e;
}

function niceStep(span, target) {
  const raw = span / Math.max(1, target);
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

function linearTicks(lo, hi, target) {
  const step = niceStep(hi - lo, target);
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

function logTicks(lo, hi, target) {
  const base = Math.log2(hi / lo) <= 14 ? 2 : 10;
  const lb = Math.log(base);
  const a = Math.ceil(Math.log(lo) / lb - 1e-9), b = Math.floor(Math.log(hi) / lb + 1e-9);
  const every = Math.max(1, Math.ceil((b - a + 1) / Math.max(2, target)));
  const out = [];
  for (let e = a; e <= b; e += every) out.push(base ** e);
  return out;
}

export function createChart(ctx, opts = {}) {
  const id = `ch-${++uid}`;
  const testid = opts.testid || id;
  const seriesDefs = opts.series || [];
  const formatX = opts.formatX || ((v) => ctx.fmt(v, { maximumFractionDigits: 2 }));
  const formatY = opts.formatY || ((v) => ctx.fmt(v, { maximumFractionDigits: 3 }));

  let data = seriesDefs.map(() => []);
  let guides = [];

  const { el, cap } = captionedFigure(ctx, { cls: 'chart', capClass: 'chart-title', id, testid, label: opts.title });

  const legend = document.createElement('ul');
  legend.className = 'chart-legend';
  seriesDefs.forEach((s, i) => {
    const li = document.createElement('li');
    const sw = document.createElement('span');
    sw.className = `chart-swatch chart-s${i} chart-kind-${s.kind || 'line'}`;
    sw.setAttribute('aria-hidden', 'true');
    li.append(sw, nodeOf(ctx, s.label));
    legend.append(li);
  });

  const stage = document.createElement('div');
  stage.className = 'chart-stage';
  stage.dir = 'ltr';
  const root = svg('svg', { class: 'chart-svg', role: 'img', 'aria-labelledby': cap.id, focusable: 'false' });
  root.dataset.testid = `${testid}-svg`;
  stage.append(root);

  const details = document.createElement('details');
  details.className = 'chart-table';
  const summary = document.createElement('summary');
  summary.append(opts.tableLabel ? nodeOf(ctx, opts.tableLabel) : ctx.tNode('site.showTable'));
  const tableWrap = document.createElement('div');
  tableWrap.className = 'table-scroll';
  details.append(summary, tableWrap);

  el.append(cap, legend, stage, details);

  function bounds() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const pts of data) for (const p of pts) {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
      if (opts.xLog && p.x <= 0) continue;
      if (opts.yLog && p.y <= 0) continue;
      x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y);
    }
    for (const g of guides) if (g.axis === 'y' && Number.isFinite(g.value)) { y0 = Math.min(y0, g.value); y1 = Math.max(y1, g.value); }
    if (opts.xMin != null) x0 = opts.xMin;
    if (opts.xMax != null) x1 = opts.xMax;
    if (opts.yMin != null) y0 = opts.yMin;
    if (opts.yMax != null) y1 = opts.yMax;
    if (!Number.isFinite(x0)) { x0 = opts.xLog ? 1 : 0; x1 = opts.xLog ? 10 : 1; }
    if (!Number.isFinite(y0)) { y0 = opts.yLog ? 1 : 0; y1 = opts.yLog ? 10 : 1; }
    if (x1 === x0) x1 = opts.xLog ? x0 * 2 : x0 + 1;
    if (y1 === y0) { if (opts.yLog) { y0 /= 2; y1 *= 2; } else { y0 -= 0.5; y1 += 0.5; } }
    return { x0, x1, y0, y1 };
  }

  let stageW = 0;
  function draw() {
    root.textContent = '';
    // the width the ResizeObserver saw (reading clientWidth here forced a layout of the whole
    // page at every update of a chart redrawn twice a second while chapter 14 trains)
    const W = Math.max(280, Math.round(stageW || stage.clientWidth || 560));
    const H = Math.round(Math.max(210, Math.min(320, W * 0.55)));
    root.setAttribute('viewBox', `0 0 ${W} ${H}`);
    root.setAttribute('width', String(W));
    root.setAttribute('height', String(H));
    const { x0, x1, y0, y1 } = bounds();
    const yTicks = opts.yTicks || (opts.yLog ? logTicks(y0, y1, 5) : linearTicks(y0, y1, 5));
    // left margin from the widest y tick label (rough: 7.5 px per character)
    const yTickText = yTicks.map(formatY);
    const mL = 26 + Math.max(24, Math.max(...yTickText.map((s) => s.length)) * 7.5);
    const mR = 14, mT = 12, mB = 46;
    const pw = W - mL - mR, ph = H - mT - mB;
    const tx = (v) => {
      const f = opts.xLog ? (Math.log(v) - Math.log(x0)) / (Math.log(x1) - Math.log(x0)) : (v - x0) / (x1 - x0);
      return mL + f * pw;
    };
    const ty = (v) => {
      const f = opts.yLog ? (Math.log(v) - Math.log(y0)) / (Math.log(y1) - Math.log(y0)) : (v - y0) / (y1 - y0);
      return mT + (1 - f) * ph;
    };
    const maxXTicks = Math.max(3, Math.floor(pw / 56));
    let xTicks = opts.xTicks || (opts.xLog ? logTicks(x0, x1, maxXTicks) : linearTicks(x0, x1, maxXTicks));
    xTicks = xTicks.filter((v) => v >= x0 * (1 - 1e-9) && v <= x1 * (1 + 1e-9));
    // computed ticks are thinned here; explicit ones keep their grid lines and fitLabels
    // thins their labels by measured width, keeping the first and the last
    if (!opts.xTicks && xTicks.length > maxXTicks) { const k = Math.ceil(xTicks.length / maxXTicks); xTicks = xTicks.filter((_, i) => i % k === 0); }

    const grid = svg('g', { class: 'chart-grid' }, root);
    for (const v of yTicks) {
      if (v < y0 - 1e-12 || v > y1 + 1e-12) continue;
      const y = ty(v);
      svg('line', { x1: mL, x2: mL + pw, y1: y, y2: y }, grid);
      const t = svg('text', { x: mL - 6, y, class: 'chart-tick chart-tick-y', 'text-anchor': 'end', 'dominant-baseline': 'middle' }, root);
      t.textContent = formatY(v);
    }
    const xLabels = [];
    for (const v of xTicks) {
      const x = tx(v);
      svg('line', { x1: x, x2: x, y1: mT, y2: mT + ph }, grid);
      const t = svg('text', { x, y: mT + ph + 16, class: 'chart-tick chart-tick-x', 'text-anchor': 'middle' }, root);
      t.textContent = formatX(v);
      xLabels.push({ t, x });
    }
    svg('rect', { x: mL, y: mT, width: pw, height: ph, class: 'chart-frame' }, root);
    const xl = svg('text', { x: mL + pw / 2, y: H - 8, class: 'chart-axis-label', 'text-anchor': 'middle' }, root);
    xl.textContent = textOf(ctx, opts.xLabel);
    // the rotated y title: its centre line at 16 px keeps the glyphs' full height (Naskh is tall) inside
    const yl = svg('text', { x: 0, y: 0, class: 'chart-axis-label', 'text-anchor': 'middle',
      transform: `translate(16 ${mT + ph / 2}) rotate(-90)` }, root);
    yl.textContent = textOf(ctx, opts.yLabel);

    const guideLabels = [];
    for (const g of guides) {
      if (g.axis === 'y') {
        const y = ty(g.value);
        svg('line', { x1: mL, x2: mL + pw, y1: y, y2: y, class: 'chart-guide' }, root);
        // above its line, or below it when the line is at the plot's top (the label would leave
        // the chart: the training chart's ln V line is its highest value)
        const ly = y - 16 < mT ? y + 14 : y - 4;
        if (g.label) { const t = svg('text', { x: mL + pw - 4, y: ly, class: 'chart-guide-label', 'text-anchor': 'end' }, root); t.textContent = g.label; }
      } else if (g.axis === 'x' && g.value >= x0 && g.value <= x1) {
        const x = tx(g.value);
        svg('line', { x1: x, x2: x, y1: mT, y2: mT + ph, class: 'chart-guide' }, root);
        if (g.label) { const t = svg('text', { x: x + 4, y: mT + 12, class: 'chart-guide-label', 'text-anchor': 'start' }, root); t.textContent = g.label; guideLabels.push({ t, x }); }
      }
    }

    let count = 0;
    data.forEach((pts, i) => {
      const kind = (seriesDefs[i] && seriesDefs[i].kind) || 'line';
      const ok = pts.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (!opts.xLog || p.x > 0) && (!opts.yLog || p.y > 0));
      count += ok.length;
      const g = svg('g', { class: `chart-series chart-s${i} chart-kind-${kind}` }, root);
      if (kind !== 'points' && ok.length > 1) {
        svg('polyline', { points: ok.map((p) => `${tx(p.x).toFixed(1)},${ty(p.y).toFixed(1)}`).join(' '), class: 'chart-line' }, g);
      }
      if (kind !== 'line' || ok.length <= 24) {
        for (const p of ok) svg('circle', { cx: tx(p.x).toFixed(1), cy: ty(p.y).toFixed(1), r: kind === 'points' ? 3.5 : 2.6, class: 'chart-point' }, g);
      }
    });
    el.dataset.points = String(count);
    fitLabels(W, xLabels, guideLabels);
  }

  // Labels whole on a narrow screen (section 7's last x label was cut at 360 px): measured
  // once per draw, after every write. An edge tick label slides inwards to fit the SVG,
  // x labels that would overlap are thinned (the last one, the largest n, is kept), and
  // an x guide label near the right edge goes to the left of its line.
  function fitLabels(W, xLabels, guideLabels) {
    const PAD = 2, GAP = 6;
    const boxes = xLabels.map(({ t, x }) => {
      const w = t.getBBox().width;
      const c = Math.min(Math.max(x, PAD + w / 2), W - PAD - w / 2);
      if (c !== x) t.setAttribute('x', c.toFixed(1));
      return { t, l: c - w / 2, r: c + w / 2 };
    });
    if (boxes.length > 1 && boxes.some((b) => b.r > 0)) {
      const kept = [boxes[0]];
      for (const b of boxes.slice(1)) if (b.l >= kept[kept.length - 1].r + GAP) kept.push(b);
      const last = boxes[boxes.length - 1];
      if (kept[kept.length - 1] !== last) {
        while (kept.length > 1 && last.l < kept[kept.length - 1].r + GAP) kept.pop();
        kept.push(last);
      }
      for (const b of boxes) if (!kept.includes(b)) b.t.remove();
    }
    for (const { t, x } of guideLabels) {
      if (x + 4 + t.getBBox().width > W - PAD) { t.setAttribute('x', String(x - 4)); t.setAttribute('text-anchor', 'end'); }
    }
  }

  // The data table is built when its fold is open, or when it opens: a chart updated twice a
  // second (chapter 14's training curve) rebuilt a table of hundreds of rows no one was reading,
  // a third of the main thread's work during a run.
  let tableStale = true;
  details.addEventListener('toggle', () => { if (details.open && tableStale) buildTable(); });
  function buildTable() {
    tableStale = false;
    tableWrap.textContent = '';
    const xs = [...new Set(data.flatMap((pts) => pts.map((p) => p.x)))].sort((a, b) => a - b);
    if (!xs.length) return;
    const table = document.createElement('table');
    table.dataset.testid = `${testid}-table`;
    const caption = document.createElement('caption');
    if (opts.title) caption.append(nodeOf(ctx, opts.title));
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    const h0 = document.createElement('th');
    h0.scope = 'col';
    h0.append(nodeOf(ctx, opts.xLabel));
    hr.append(h0);
    for (const s of seriesDefs) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.append(nodeOf(ctx, s.label));
      hr.append(th);
    }
    thead.append(hr);
    const maps = data.map((pts) => new Map(pts.map((p) => [p.x, p.y])));
    const tbody = document.createElement('tbody');
    for (const x of xs) {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = formatX(x);
      tr.append(th);
      for (const m of maps) {
        const td = document.createElement('td');
        td.textContent = m.has(x) ? formatY(m.get(x)) : '—';
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.append(caption, thead, tbody);
    tableWrap.append(table);
  }

  if (typeof ResizeObserver !== 'undefined') {
    new ResizeObserver(() => { const w = stage.clientWidth; if (w && w !== stageW) { stageW = w; draw(); } }).observe(stage);
  }

  function update(series, extra = {}) {
    data = seriesDefs.map((_, i) => (series[i] || []).map((p) => ({ x: Number(p.x), y: Number(p.y) })));
    if (extra.guides) guides = extra.guides;
    draw();
    if (details.open) buildTable(); else tableStale = true;
  }

  return {
    el,
    update,
    redraw: draw,
    setBusy(on) { el.classList.toggle('is-busy', !!on); el.setAttribute('aria-busy', on ? 'true' : 'false'); },
    get data() { return data; },
  };
}
