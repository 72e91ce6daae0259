// Chapter 11 (issue 15): sliding-window attention. Three experiments, every number
// from the engine (the maths in window-compute.mjs, shared with tests/node/window-compute.test.mjs):
//   1. the band: engine.attention with `window` (and causal on/off), its weights as a
//      heatmap, and engine.visiblePairs with the window against n² and n(n+1)/2;
//   2. the reach after k stacked layers: V = identity through k causal windowed layers
//      (equal scores), the nonzero columns of the result are the tokens that reach each
//      position; the last token's reach is shown next to the formula k·(w − 1);
//   3. the long run: the chapter-8 chunked run through the engine pool, full causal
//      against causal with a window, for n = 2,048 doubling up to a chosen size, timed
//      on this device, drawn against n, with the predicted ratio of visible pairs.
//
// URL state (section window): n (4…64, default 16), w (1…64, default 4), causal (bool,
//   default true), k (1…8, default 2), runW (1…131072, default 512), runMax (2048…131072, default 16384).
// data-testid hooks:
//   window-n, window-w, window-k, window-run-w (text inputs; errors in <id>-error), window-causal (checkbox),
//   window-status (engine failure), window-band (heatmap of weights), window-pairs (data-pairs, data-full,
//   data-causal-pairs), window-rows (what w counts; data-per-row = keys per row, comma-separated),
//   window-reach-map (heatmap of log10 influence), window-reach (data-reach (engine), data-formula),
//   window-run-max (select), window-run, window-cancel, window-progress, window-run-status
//   (data-state = idle|running|done|cancelled|failed), window-run-chart, window-run-table
//   (one <tr> per size: data-n, data-full-ms, data-win-ms, data-ratio (measured), data-predicted,
//   data-maxdiff (max |chunked − reference| over the check rows of both runs)).

import { createHeatmap } from '../widgets/heatmap.mjs';
import { createChart } from '../widgets/chart.mjs';
import { checkbox, intField, select, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { longRun } from '../widgets/long-run.mjs';
import { createEnginePool, checkRowsFor } from '../engine-link/engine-pool.mjs';
import { cite } from '../lesson/references.mjs';
import { h, setT, serial } from '../dom.mjs';
import { computeBand, computeReach, rowsSentence, predictRatio, runSizes } from './window-compute.mjs';

const RUN_D = 64, RUN_SEED = 1, RUN_BLOCK = 64;
const RUN_MAXES = [2048, 4096, 8192, 16384, 32768, 65536, 131072];
const RUN_MAX_DEFAULT = 16384;
const MISTRAL_W = 4096;   // Mistral 7B v0.1's window (jiang2023, Table 1: window_size)

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const okInt = (v, lo, hi, d) => (Number.isInteger(v) && v >= lo && v <= hi ? v : d);
  const st = {
    n: okInt(state.get('n', 16), 4, 64, 16),
    w: okInt(state.get('w', 4), 1, 64, 4),
    causal: state.get('causal', true) !== false,
    k: okInt(state.get('k', 2), 1, 8, 2),
    runW: okInt(state.get('runW', 512), 1, 131072, 512),
    runMax: RUN_MAXES.includes(state.get('runMax', RUN_MAX_DEFAULT)) ? state.get('runMax', RUN_MAX_DEFAULT) : RUN_MAX_DEFAULT,
  };
  const labels = (k) => Array.from({ length: k }, (_, i) => fmt(i + 1));
  const para = (key, params, ...refs) => {
    const p = h('p', {}, ctx.tNode(key, params));
    if (refs.length) p.append(' ', cite(ctx, ...refs));
    return p;
  };

  root.append(h('p', { class: 'lead' }, ctx.tNode('window.lead')));
  root.append(para('window.intro.p1'), para('window.intro.p2', {}));

  // ================================================================ 1. the band
  const status = h('p', { class: 'status-line', testid: 'window-status', 'aria-live': 'polite' });
  const nCtl = intField(ctx, { label: 'window.ctl.n', value: st.n, min: 4, max: 64, errKey: 'window.err.int', explain: true, testid: 'window-n',
    onChange: (v) => { st.n = v; state.set('n', v); refresh(); } });
  const wCtl = intField(ctx, { label: 'window.ctl.w', value: st.w, min: 1, max: 64, errKey: 'window.err.int', explain: true, testid: 'window-w',
    onChange: (v) => { st.w = v; state.set('w', v); refresh(); } });
  const causalCtl = checkbox(ctx, { label: 'window.ctl.causal', checked: st.causal, testid: 'window-causal',
    onChange: (on) => { st.causal = on; state.set('causal', on); refresh(); } });
  const band = createHeatmap(ctx, { label: 'window.band.caption', min: 0, max: 1, digits: 2, showValues: 'auto',
    rowTitle: 'window.band.queries', colTitle: 'window.band.keys', testid: 'window-band', exportName: 'window-band' });
  const rowsP = h('p', { testid: 'window-rows' });
  const pairsP = h('p', { testid: 'window-pairs' });
  root.append(h('h3', {}, ctx.tNode('window.band.title')), para('window.band.p1', {}), para('window.band.p2', {}),
    h('div', { class: 'experiment-panel' }, controlRow(nCtl, wCtl, causalCtl), status),
    h('div', { class: 'experiment-result' }, band.el, h('div', { class: 'readouts' }, rowsP, pairsP)));

  // ================================================================ 2. the reach
  const kCtl = intField(ctx, { label: 'window.ctl.k', value: st.k, min: 1, max: 8, errKey: 'window.err.int', explain: true, testid: 'window-k',
    onChange: (v) => { st.k = v; state.set('k', v); refresh(); } });
  const reachMap = createHeatmap(ctx, { label: 'window.reach.caption', digits: 2, showValues: false,
    maskLegend: 'window.reach.zeroCell',   // its grey cells are exact zeros (log10 0 = −∞), not masked ones
    rowTitle: 'window.reach.outputs', colTitle: 'window.reach.tokens', testid: 'window-reach-map', exportName: 'window-reach' });
  const reachP = h('p', { class: 'big-result', testid: 'window-reach' });
  root.append(h('h3', {}, ctx.tNode('window.reach.title')), para('window.reach.p1', {}), para('window.reach.p2', {}),
    h('div', { class: 'experiment-panel' }, controlRow(kCtl)),
    h('div', { class: 'experiment-result' }, reachMap.el, h('div', { class: 'readouts' }, reachP)),
    para('window.reach.p3', {}, 'jiang2023'));

  // ================================================================ models
  root.append(h('h3', {}, ctx.tNode('window.models.title')),
    para('window.models.p1', {}, 'beltagy2020'), para('window.models.p2', { mw: fmt(MISTRAL_W) }, 'jiang2023'), para('window.models.p3', {}, 'beltagy2020'));

  const refresh = serial(async () => {
    const { n, w, causal, k } = st;
    try {
      const b = await computeBand(engine, { n, w, causal });
      const r = await computeReach(engine, { n, w, k });
      band.update(b.weights, { rowLabels: labels(n), colLabels: labels(n) });
      const { key, counts } = rowsSentence(b);
      setT(ctx, rowsP, key, {
        // "[n] keys" agrees with its count (Arabic: مفتاحًا واحدًا، مفتاحين، ٤ مفاتيح، ١١ مفتاحًا)
        w: fmt(w), prev: fmt(w - 1), prevKeys: w > 1 ? ctx.tNodePlural('window.band.keys', w - 1) : '',
        n: fmt(n), both: ctx.tNodePlural('window.band.keys', counts.both),
        first: ctx.tNodePlural('window.band.keys', counts.first), last: ctx.tNodePlural('window.band.keys', counts.last),
      });
      if (w >= n) rowsP.append(' ', ctx.tNode('window.band.wide', { w: fmt(w), n: fmt(n) }));
      rowsP.dataset.perRow = b.perRow.join(',');
      setT(ctx, pairsP, 'window.band.pairs', {
        pairs: fmt(b.pairs), full: fmt(b.full), causalPairs: fmt(b.causalPairs),
        share: ctx.pct(b.pairs / b.full), n: fmt(n),
      });
      Object.assign(pairsP.dataset, { pairs: b.pairs, full: b.full, causalPairs: b.causalPairs });

      // log10 of the influence: a path through k layers multiplies k weights, so the far
      // end of the reach is orders of magnitude below the diagonal; none at all = −∞ (grey)
      const lg = new Float32Array(n * n);
      let lo = 0;
      for (let i = 0; i < n * n; i++) {
        const x = r.influence.data[i];
        lg[i] = x > 0 ? Math.log10(x) : -Infinity;
        if (x > 0) lo = Math.min(lo, lg[i]);
      }
      reachMap.update({ rows: n, cols: n, data: lg }, { rowLabels: labels(n), colLabels: labels(n) });
      setT(ctx, reachP, 'window.reach.live', {
        k: fmt(k), w: fmt(w), n: fmt(n), reach: fmt(r.reach), formula: fmt(r.formula), kw: fmt(k * (w - 1)),
        from: fmt(n - r.reach), to: fmt(n),
      });
      Object.assign(reachP.dataset, { reach: r.reach, formula: r.formula, k, w, n });
      status.textContent = '';
      delete status.dataset.code;
    } catch (err) {
      setT(ctx, status, 'window.err.engine');
      status.dataset.code = (err && err.code) || 'Unknown';
    }
  });
  await refresh();

  // ================================================================ 3. the long run
  const runWCtl = intField(ctx, { label: 'window.ctl.runW', value: st.runW, min: 1, max: 131072, errKey: 'window.err.int', explain: true,
    testid: 'window-run-w', onChange: (v) => { st.runW = v; state.set('runW', v === 512 ? null : v); } });
  const maxCtl = select(ctx, {
    label: 'window.ctl.runMax', value: st.runMax, testid: 'window-run-max',
    options: RUN_MAXES.map((n) => ({ value: n, label: fmt(n) })),
    onChange: (v) => { st.runMax = Number(v); state.set('runMax', st.runMax === RUN_MAX_DEFAULT ? null : st.runMax); },
  });
  const runBtn = h('button', { type: 'button', class: 'btn btn-primary', testid: 'window-run' }, ctx.tNode('window.run.go'));
  const cancelBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'window-cancel', disabled: true }, ctx.tNode('window.run.cancel'));
  const prog = h('progress', { max: '1', value: '0', testid: 'window-progress' });
  prog.setAttribute('aria-label', ctx.t('window.run.progress'));
  const runStatus = h('p', { testid: 'window-run-status', 'aria-live': 'polite', dataset: { state: 'idle' } });
  const secs = (ms) => fmt(ms / 1000, ms < 1000 ? { maximumSignificantDigits: 2 } : { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const chart = createChart(ctx, {
    title: 'window.run.chartTitle', xLabel: 'window.run.x', yLabel: 'window.run.y',
    formatX: (v) => fmt(v), formatY: (v) => secs(v * 1000), yMin: 0,
    series: [{ label: 'window.run.full', kind: 'line' }, { label: 'window.run.win', kind: 'line' }],
    tableLabel: 'window.run.chartTable', testid: 'window-run-chart',
  });
  chart.el.hidden = true;   // shown with the first finished size
  const tableSlot = h('div', { class: 'table-slot' });
  setT(ctx, runStatus, 'window.run.idle');
  root.append(h('h3', {}, ctx.tNode('window.run.title')), para('window.run.p1', { d: fmt(RUN_D) }), para('window.run.p2', {}),
    h('div', { class: 'experiment-panel' }, controlRow(runWCtl, maxCtl), h('div', { class: 'run-row' }, runBtn, cancelBtn, prog)),
    h('div', { class: 'experiment-result big-run' }, runStatus, chart.el, tableSlot),
    h('p', { class: 'note' }, ctx.tNode('window.run.measured')));

  const rows = [];
  function draw() {
    chart.el.hidden = !rows.length;   // empty axes before the first run say nothing
    chart.update([rows.map((r) => ({ x: r.n, y: r.fullMs / 1000 })), rows.map((r) => ({ x: r.n, y: r.winMs / 1000 }))]);
    tableSlot.textContent = '';
    if (!rows.length) return;
    const t = simpleTable(ctx, {
      testid: 'window-run-table', caption: ctx.tNode('window.run.tableCaption', { w: fmt(rows[0].w), d: fmt(RUN_D) }),
      stack: true,
      headers: ['window.run.col.n', 'window.run.col.full', 'window.run.col.win', 'window.run.col.ratio', 'window.run.col.predicted'],
      rows: rows.map((r) => [fmt(r.n), ctx.tNode('window.run.sec', { sec: secs(r.fullMs) }), ctx.tNode('window.run.sec', { sec: secs(r.winMs) }),
        fmt(r.winMs / r.fullMs, { maximumSignificantDigits: 2 }), fmt(r.predicted, { maximumSignificantDigits: 2 })]),
    });
    t.querySelectorAll('tbody tr').forEach((tr, i) => {
      const r = rows[i];
      Object.assign(tr.dataset, { n: r.n, fullMs: r.fullMs, winMs: r.winMs, ratio: r.winMs / r.fullMs, predicted: r.predicted, maxdiff: r.maxDiff });
    });
    tableSlot.append(t);
  }

  let pool = null;
  async function series(signal) {
    const w = st.runW, sizes = runSizes(st.runMax);
    rows.length = 0;
    draw();
    prog.value = 0;
    runStatus.dataset.state = 'running';
    pool = createEnginePool();
    // progress: visible pairs done over the series' total (full and windowed runs of every size)
    const work = [];
    for (const n of sizes) work.push(await predictRatio(engine, { n, w }));
    const total = work.reduce((s, p) => s + p.causal + p.windowed, 0);
    let before = 0;
    for (const [i, n] of sizes.entries()) {
      const one = async (window, pairs) => {
        setT(ctx, runStatus, window ? 'window.run.runningWin' : 'window.run.runningFull', { n: fmt(n), w: fmt(w) });
        const args = { n, d: RUN_D, seed: RUN_SEED, causal: true, variant: 'chunked', blockQ: RUN_BLOCK, blockK: RUN_BLOCK };
        if (window) args.window = window;
        const r = await pool.attentionSeeded(args, {
          signal, checkRows: checkRowsFor(n),
          onProgress: (p) => { prog.value = (before + pairs * (p.workDone / Math.max(1, p.workTotal))) / total; },
        });
        before += pairs;
        prog.value = before / total;
        return r;
      };
      const full = await one(0, work[i].causal);
      const win = await one(w, work[i].windowed);
      const maxDiff = Math.max(...full.checks.map((c) => c.maxAbsDiff), ...win.checks.map((c) => c.maxAbsDiff));
      rows.push({ n, w, fullMs: full.ms, winMs: win.ms, predicted: work[i].ratio, maxDiff });
      draw();
    }
    prog.value = 1;
    runStatus.dataset.state = 'done';
    const lastRow = rows[rows.length - 1];
    setT(ctx, runStatus, 'window.run.done', {
      n: fmt(lastRow.n), w: fmt(w), ratio: fmt(lastRow.winMs / lastRow.fullMs, { maximumSignificantDigits: 2 }),
      predicted: fmt(lastRow.predicted, { maximumSignificantDigits: 2 }),
      diff: fmt(Math.max(...rows.map((r) => r.maxDiff)), { maximumSignificantDigits: 2 }),
    });
  }
  longRun({
    runBtn, cancelBtn, inputs: [runWCtl.input, maxCtl.input],
    start: series,
    cancelled: () => {
      runStatus.dataset.state = 'cancelled';
      setT(ctx, runStatus, 'window.run.cancelled');
    },
    failed: (err) => {
      console.error('window long run', err);
      runStatus.dataset.state = 'failed';
      runStatus.textContent = '';
      runStatus.append(ctx.errorNode(err));
    },
    always: () => { if (pool) pool.terminate(); pool = null; },
  });
}
