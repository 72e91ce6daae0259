// Section 4: why the scores are divided by √d_k — measured live by the engine.
// Q and K are N(0,1) draws from the engine's generator (randomNormal(seed) with
// 2n rows: Q = first n, K = last n, the same stream experiment() uses), so the
// heatmap, the variance numbers and the tables agree with each other.
//
// URL state (ctx.state, section s4): dk (1…1024, from DK_VALUES), n (2…128),
//   scale ('off' | 'sqrt' | 'dk'), seed (0…1e9).
// data-testid hooks:
//   s4-dk (range input), s4-n, s4-seed (text inputs; errors in s4-n-error, s4-seed-error),
//   s4-scale-off, s4-scale-sqrt, s4-scale-dk (radios), s4-status (busy / engine error line),
//   s4-heatmap (+ heatmap widget's -canvas/-table/-png/-csv), s4-max-weight, s4-entropy,
//   s4-rms (logits softmax saw), s4-var (msq / rms unscaled / rms scaled, data-msq, data-rms-off,
//   data-rms-on), s4-ratio (softmax weight ratio of ±σ logits), s4-table-a, s4-verdict-a,
//   s4-table-b, s4-seeds-chart, s4-seeds-live, s4-dk-live (1/d_k scaling),
//   s4-sweep-run, s4-sweep-cancel, s4-sweep-progress (<progress>), s4-sweep-status,
//   s4-sweep-chart, s4-cross50, s4-cross10 (data-dk = interpolated crossing, data-a/b brackets),
//   s4-on-range, s4-grad-chart, s4-grad-live (data-off64, data-on64, data-off1024, data-on1024).
// Every number is computed by the engine (worker), through s4-compute.mjs (no DOM, tested in
// Node); this file keeps the URL state, the controls and the drawing.
//
// The core path (entropy collapse, the variance argument, √d_k vs d_k) is always shown; the
// replication tables, the per-seed chart, the d_k sweep and the Jacobian norm are in folds
// (widgets/fold.mjs; testids s4-fold-tables, s4-fold-seeds, s4-fold-sweep, s4-fold-grad, URL
// keys s4.fold.<name>=1). Their engine work starts when one of them is first opened.

import { createHeatmap } from '../widgets/heatmap.mjs';
import { slider, intField, radioGroup, controlRow } from '../widgets/controls.mjs';
import { createChart } from '../widgets/chart.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial, liveLine } from '../dom.mjs';
import { oneOf, intIn } from '../state.mjs';
import { fold } from '../widgets/fold.mjs';
import { cite } from '../lesson/references.mjs';
import { backgroundFill, nearestFirst } from '../engine-link/background-fill.mjs';
import {
  DK_VALUES, SCALES, N_MIN, N_MAX, SEED_MAX, SWEEP_DK, SWEEP_SEEDS, MANY_SEEDS, ARTICLE,
  computeScaling, computeSeedTables, computeSweep,
} from './s4-compute.mjs';

// Weight ratios above this are said in words (s4.var.huge), not in 20-odd digits.
const HUGE_RATIO = 1e6;

// Number formats every part of the section uses (page numerals, via ctx.fmt).
function formats(ctx) {
  return {
    f: (x, d = 4) => ctx.fmt(x, { maximumFractionDigits: d }),
    f6: (x) => ctx.fmt(x, { minimumFractionDigits: 6, maximumFractionDigits: 6 }),
    pct: (x) => ctx.pct(x),
  };
}

// ------------------------------------------------------------------ section
export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const { f, f6, pct } = formats(ctx);

  const st = {
    dk: oneOf(DK_VALUES, state.get('dk', 64), 64),
    n: intIn(state.get('n', 8), N_MIN, N_MAX, 8),
    scale: oneOf(SCALES, state.get('scale', 'off'), 'off'),
    seed: intIn(state.get('seed', 1), 0, SEED_MAX, 1),
  };

  // ---- intro + controls
  const lead = h('p', { class: 'lead' }, ctx.tNode('s4.lead'), ' ', cite(ctx, 'vaswani2017'));
  root.append(lead, h('p', {}, ctx.tNode('s4.entropyIntro')), h('p', {}, ctx.tNode('s4.natNote')),
    h('p', {}, ctx.tNode('s4.logitDef')));

  // The slider redraws at once (refresh() coalesces moves that arrive while it computes);
  // the URL (history.replaceState, slow) is written once the slider rests.
  const dkCtl = slider(ctx, {
    label: 's4.ctl.dk', values: DK_VALUES, value: st.dk, testid: 's4-dk',
    onInput: (v) => { st.dk = v; state.setLater({ dk: v }); refresh(); },
  });
  const nCtl = intField(ctx, {
    label: 's4.ctl.n', value: st.n, min: N_MIN, max: N_MAX, errKey: 's4.err.n', testid: 's4-n',
    onChange: (v) => { st.n = v; state.set('n', v); refresh(); if (sweepWork) sweep.schedule(); },
  });
  const seedCtl = intField(ctx, {
    label: 's4.ctl.seed', value: st.seed, min: 0, max: SEED_MAX, errKey: 's4.err.seed', testid: 's4-seed',
    onChange: (v) => { st.seed = v; state.set('seed', v); refresh(); if (seedWork) seeds.refresh(); },
  });
  const scaleCtl = radioGroup(ctx, {
    legend: 's4.ctl.scale', name: 's4-scale', value: st.scale,
    options: [
      { value: 'off', label: 's4.ctl.scaleOff', testid: 's4-scale-off' },
      { value: 'sqrt', label: 's4.ctl.scaleSqrt', testid: 's4-scale-sqrt' },
      { value: 'dk', label: 's4.ctl.scaleDk', testid: 's4-scale-dk' },
    ],
    onChange: (v) => { st.scale = v; state.set('scale', v); refresh(); },
  });
  const status = h('p', { class: 'status-line', testid: 's4-status', 'aria-live': 'polite' });
  root.append(h('div', { class: 'experiment-panel' }, controlRow(dkCtl, nCtl, seedCtl), scaleCtl.el, status));

  const heat = createHeatmap(ctx, { label: 's4.heatCaption', min: 0, max: 1, digits: 2, testid: 's4-heatmap', exportName: 's4-weights' });
  const outMax = h('p', { testid: 's4-max-weight' });
  const outH = h('p', { testid: 's4-entropy' });
  const outRms = h('p', { testid: 's4-rms' });
  root.append(h('div', { class: 'experiment-result' }, heat.el, h('div', { class: 'readouts' }, outMax, outH, outRms)));

  // ---- variance argument
  const varLive = h('p', { testid: 's4-var' });
  const ratioP = h('p', { testid: 's4-ratio' });
  root.append(h('h3', {}, ctx.tNode('s4.var.title')), h('p', {}, ctx.tNode('s4.var.p1'), ' ', cite(ctx, 'vaswani2017')), varLive, ratioP);

  // ---- why √d_k and not d_k (uses the same data, scale 1/d_k)
  const dkLive = h('p', { testid: 's4-dk-live' });

  // "busy" shows only when a recompute is slow: a quick one (lesson sizes take a few ms)
  // would otherwise flash the line on and off and move everything below it twice.
  let busyTimer = null;
  const busy = (on) => {
    clearTimeout(busyTimer);
    if (on) {
      busyTimer = setTimeout(() => {
        status.textContent = '';
        status.append(ctx.tNode('s4.busy'));
        root.classList.add('is-computing');
      }, 250);
    } else root.classList.remove('is-computing');
  };

  const compute = (p) => computeScaling(engine, p);

  // Lines whose numbers follow the slider (dom.mjs liveLine: the formulas are rendered once).
  const lineMax = liveLine(ctx, outMax, 's4.out.max');
  const lineH = liveLine(ctx, outH, 's4.out.entropy');
  const lineRms = liveLine(ctx, outRms, 's4.out.rms');
  const lineVar = liveLine(ctx, varLive, 's4.var.live');
  const lineRatio = liveLine(ctx, ratioP, 's4.var.p2');
  const lineDk = liveLine(ctx, dkLive, 's4.dk.live');

  function render({ n, dk, seed, uniform, main, byDk, ls, lsDk, rmsSeen, ratioOff, ratioOn }) {
    heat.update(main.weights);   // (the canvas first, then the text around it)
    lineMax({ v: f6(main.maxW), inv: f(1 / n) });
    lineH({ h: f(main.meanH), u: f(uniform), share: pct(main.share) });
    lineRms({ rms: f(rmsSeen, 3) });
    outMax.dataset.value = String(main.maxW);
    outH.dataset.value = String(main.meanH);
    outH.dataset.share = String(main.share);
    lineVar({
      dk: fmt(dk), n: fmt(n), seed: fmt(seed, { useGrouping: false }),
      msq: f(ls.meanSqUnscaled, 2), rmsOff: f(ls.rmsUnscaled, 3), rmsOn: f(ls.rmsScaled, 3),
    });
    Object.assign(varLive.dataset, { msq: ls.meanSqUnscaled, rmsOff: ls.rmsUnscaled, rmsOn: ls.rmsScaled });
    // At large d_k the unscaled ratio is astronomically large (about e^64 ≈ 6·10^27 at d_k = 1024):
    // 28 digits say nothing, "more than a million" says it (s4.var.huge).
    const ratioText = (x) => (x > HUGE_RATIO ? ctx.t('s4.var.huge', { limit: fmt(HUGE_RATIO) })
      : fmt(x, { maximumSignificantDigits: 3 }));
    lineRatio({ ratioOff: ratioText(ratioOff), ratioOn: ratioText(ratioOn) });
    lineDk({
      dk: fmt(dk), rms: f(lsDk.rmsScaled, 4), pred: f(1 / Math.sqrt(dk), 4),
      max: f(byDk.maxW, 4), inv: f(1 / n), share: pct(byDk.share),
    });
    if (status.firstChild) status.textContent = '';
  }

  // The slider's other positions, computed by the engine while the learner reads: results for
  // the current n, seed and scale at each d_k (nearest first, one at a time, after 150 ms of
  // rest). A move to a computed d_k redraws within the input event, in the next frame.
  const results = new Map();     // d_k → compute() result, for resultsFor
  let resultsFor = '';
  const groupOf = (p) => `${p.n}|${p.seed}|${p.scale}`;
  const resultsOf = (p) => {
    if (groupOf(p) !== resultsFor) { results.clear(); resultsFor = groupOf(p); }
    return results;
  };
  const fill = backgroundFill(async () => {
    const p = { ...st };
    const have = resultsOf(p);
    const next = nearestFirst(DK_VALUES, p.dk).find((dk) => !have.has(dk));
    if (next == null) return false;
    const r = await compute({ ...p, dk: next });
    if (groupOf(r) === resultsFor) results.set(r.dk, r);
    return true;
  });

  const refresh = serial(async () => {
    const p = { ...st };
    const known = resultsOf(p).get(p.dk);
    if (known) { render(known); fill.schedule(); return; }
    busy(true);
    try {
      const r = await fill.foreground(() => compute(p));
      if (groupOf(r) === resultsFor) results.set(r.dk, r);
      render(r);
    } catch (err) {
      busy(false);
      setT(ctx, status, 's4.err.engine');
      status.dataset.code = err && err.code ? err.code : 'Unknown';
    } finally {
      busy(false);
    }
    fill.schedule();
  });

  // ---- √d_k vs d_k: the end of the core path
  root.append(h('h3', {}, ctx.tNode('s4.dk.title')), h('p', {}, ctx.tNode('s4.dk.p1')), dkLive);

  // ---- for the curious: four folds, their engine work started on first opening
  let seedWork = false, sweepWork = false;
  const startSeedWork = () => { if (!seedWork) { seedWork = true; seeds.refresh(); } };
  const startSweep = () => { if (!sweepWork) { sweepWork = true; sweep.run(); } };
  const fTables = fold(ctx, { name: 'tables', summary: 's4.fold.tables', why: 's4.fold.tablesWhy', testid: 's4-fold-tables', onOpen: () => startSeedWork() });
  const fSeeds = fold(ctx, { name: 'seeds', summary: 's4.fold.seeds', why: 's4.fold.seedsWhy', testid: 's4-fold-seeds', onOpen: () => startSeedWork() });
  const fSweep = fold(ctx, { name: 'sweep', summary: 's4.fold.sweep', why: 's4.fold.sweepWhy', testid: 's4-fold-sweep', onOpen: () => startSweep() });
  const fGrad = fold(ctx, { name: 'grad', summary: 's4.fold.grad', why: 's4.fold.gradWhy', testid: 's4-fold-grad', onOpen: () => startSweep() });
  root.append(h('p', {}, ctx.tNode('s4.curious')), fTables.el, fSeeds.el, fSweep.el, fGrad.el);
  const seeds = seedFolds(ctx, fTables, fSeeds, { seedOf: () => st.seed, status });
  const sweep = sweepFolds(ctx, fSweep, fGrad, { nOf: () => st.n });

  await refresh();
  // A fold the URL opened starts its work from its toggle event; this covers a browser that
  // fired it before mount() was done (both starts run once).
  if (fTables.open || fSeeds.open) startSeedWork();
  if (fSweep.open || fGrad.open) startSweep();   // not awaited: fills in while the learner reads
}

// The folds on seeds: the article's two tables recomputed from the learner's seed, and one
// seed against many. → {refresh()}: recomputes (one run at a time) and redraws.
function seedFolds(ctx, fTables, fSeeds, { seedOf, status }) {
  const { engine, fmt } = ctx;
  const { f, f6, pct } = formats(ctx);
  // ---- table A (article's first table, recomputed with the learner's seed)
  const tA = h('div', { class: 'table-slot' });
  const verdictA = h('p', { testid: 's4-verdict-a' });
  const seedNoteA = h('p', { class: 'note' });
  fTables.body.append(
    h('h3', {}, ctx.tNode('s4.tA.title', { n: fmt(ARTICLE.n), dk: fmt(ARTICLE.dk) })),
    h('p', {}, ctx.tNode('s4.tA.p', {
      aMaxOff: f6(ARTICLE.maxOff), aHOff: f(ARTICLE.hOff), aMaxOn: f6(ARTICLE.maxOn), aHOn: f(ARTICLE.hOn), aU: f(ARTICLE.uniform),
    }), ' ', cite(ctx, 'article')),
    tA, verdictA, seedNoteA,
  );

  // ---- table B (three widths × five seeds)
  const tB = h('div', { class: 'table-slot' });
  const tBp = h('p');
  fTables.body.append(h('h3', {}, ctx.tNode('s4.tB.title')), tBp, tB);

  // ---- one seed vs many
  const seedsP1 = h('p');
  const seedsChart = createChart(ctx, {
    title: 's4.seeds.chartTitle', xLabel: 's4.seeds.x', yLabel: 's4.seeds.y',
    series: [{ label: 's4.seeds.series', kind: 'points' }, { label: 's4.seeds.mean', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0, useGrouping: false }), formatY: (v) => f(v, 2),
    tableLabel: 's4.chartTable', testid: 's4-seeds-chart',
  });
  const seedsLive = h('p', { testid: 's4-seeds-live' });
  fSeeds.body.append(h('h3', {}, ctx.tNode('s4.seeds.title')), seedsP1, seedsChart.el, seedsLive, h('p', { class: 'note' }, ctx.tNode('s4.seeds.lesson')));

  const refreshSeedTables = serial(async () => {
    let r;
    try {
      r = await computeSeedTables(engine, { seed: seedOf() });
    } catch (err) {
      setT(ctx, status, 's4.err.engine');
      return;
    }
    drawSeedTables(r);
  });

  function drawSeedTables({ seed, off, on, trend, many }) {
    const a = ARTICLE;
    const o = off.mean, n1 = on.mean;
    tA.textContent = '';
    tA.append(simpleTable(ctx, {
      testid: 's4-table-a',
      stack: true,   // five columns: cards on a phone (issue 21 item 7)
      headers: ['s4.tA.colQuantity', 's4.tA.colArticleOff', 's4.tA.colOursOff', 's4.tA.colArticleOn', 's4.tA.colOursOn'],
      rows: [
        [ctx.tNode('s4.tA.rowMax'), f6(a.maxOff), f6(o.maxWeight), f6(a.maxOn), f6(n1.maxWeight)],
        [ctx.tNode('s4.tA.rowH'), f(a.hOff), f(o.meanEntropy), f(a.hOn), f(n1.meanEntropy)],
        [ctx.tNode('s4.tA.rowShare'), pct(a.hOff / a.uniform), pct(o.entropyShare), pct(a.hOn / a.uniform), pct(n1.entropyShare)],
        [ctx.tNode('s4.tA.rowU'), f(a.uniform), f(off.uniformEntropy), f(a.uniform), f(on.uniformEntropy)],
      ],
    }));
    setT(ctx, verdictA, 's4.tA.verdict', {
      offMax: f(o.maxWeight, 4), onMax: f(n1.maxWeight, 4), offShare: pct(o.entropyShare), onShare: pct(n1.entropyShare),
      aOffShare: pct(a.hOff / a.uniform), aOnShare: pct(a.hOn / a.uniform),
    });
    setT(ctx, seedNoteA, 's4.tA.seedNote', { seed: fmt(seed, { useGrouping: false }) });

    const f5 = (x) => fmt(x, { minimumFractionDigits: 5, maximumFractionDigits: 5 });
    const f2 = (x) => fmt(x, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const rows = trend.map((r) => {
      const t = a.trend[r.dk];
      return [fmt(r.dk), f5(t.max), f5(r.maxWeight), f2(t.h), f2(r.meanEntropy), pct(t.share), pct(r.entropyShare)];
    });
    setT(ctx, tBp, 's4.tB.p', {
      n: fmt(a.n), a16: f(a.trend[16].h, 2), a64: f(a.trend[64].h, 2), a256: f(a.trend[256].h, 2),
      s16: pct(a.trend[16].share), s64: pct(a.trend[64].share), s256: pct(a.trend[256].share),
      from: fmt(seed, { useGrouping: false }), to: fmt(seed + 4, { useGrouping: false }),
    });
    tB.textContent = '';
    tB.append(simpleTable(ctx, {
      testid: 's4-table-b',
      stack: true,
      headers: ['s4.tB.colDk', 's4.tB.colMaxA', 's4.tB.colMaxO', 's4.tB.colHA', 's4.tB.colHO', 's4.tB.colShareA', 's4.tB.colShareO'],
      rows,
    }));

    // many seeds, one by one (the article's 0.27 → 0.30 correction)
    setT(ctx, seedsP1, 's4.seeds.p1', {
      dk: fmt(a.dk), a1: f(a.single64, 2), a5: f(a.five64, 2), n: fmt(a.n), cells: fmt(a.n * a.n), many: fmt(MANY_SEEDS),
    });
    const first = many.seeds[0], last = many.seeds[many.seeds.length - 1];
    seedsChart.update([many.points, [{ x: first, y: many.mean }, { x: last, y: many.mean }]]);
    setT(ctx, seedsLive, 's4.seeds.live', {
      seed: fmt(seed, { useGrouping: false }), single: f(many.single, 3),
      from: fmt(seed, { useGrouping: false }), to5: fmt(seed + 4, { useGrouping: false }), mean5: f(many.mean5, 3),
      many: fmt(MANY_SEEDS), meanMany: f(many.mean, 3), min: f(many.min, 3), max: f(many.max, 3), sd: f(many.sd, 3),
    });
    Object.assign(seedsLive.dataset, { single: many.single, mean5: many.mean5, meanMany: many.mean, sd: many.sd });
  }

  return { refresh: refreshSeedTables };
}

// The folds on the d_k sweep: the entropy share and where it crosses 50 % and 10 %, and the
// softmax Jacobian's norm. → {run(), schedule()}: run now, or once n has rested for 350 ms.
function sweepFolds(ctx, fSweep, fGrad, { nOf }) {
  const { engine, fmt } = ctx;
  const { f } = formats(ctx);
  // ---- sweep over d_k (worker, one experiment call per point, cancellable)
  const sweepP = h('p');
  const runBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's4-sweep-run' }, ctx.tNode('s4.sweep.run'));
  const stopBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's4-sweep-cancel', disabled: true }, ctx.tNode('s4.sweep.cancel'));
  const prog = h('progress', { max: '1', value: '0', testid: 's4-sweep-progress' });
  prog.setAttribute('aria-label', ctx.t('s4.sweep.chartTitle'));
  const sweepStatus = h('p', { class: 'status-line', testid: 's4-sweep-status', 'aria-live': 'polite' });
  const shareChart = createChart(ctx, {
    title: 's4.sweep.chartTitle', xLabel: 's4.sweep.x', yLabel: 's4.sweep.y', xLog: true, yMin: 0, yMax: 1,
    xTicks: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    series: [{ label: 's4.sweep.off', kind: 'line' }, { label: 's4.sweep.on', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0 }), formatY: (v) => ctx.pct(v, { maximumFractionDigits: 0 }),
    tableLabel: 's4.chartTable', testid: 's4-sweep-chart',
  });
  const cross50 = h('p', { testid: 's4-cross50' });
  const cross10 = h('p', { testid: 's4-cross10' });
  const onRange = h('p', { testid: 's4-on-range' });
  const gradChart = createChart(ctx, {
    title: 's4.grad.chartTitle', xLabel: 's4.sweep.x', yLabel: 's4.grad.y', xLog: true, yMin: 0,
    xTicks: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    series: [{ label: 's4.sweep.off', kind: 'line' }, { label: 's4.sweep.on', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0 }), formatY: (v) => f(v, 3),
    tableLabel: 's4.chartTable', testid: 's4-grad-chart',
  });
  const gradLive = h('p', { testid: 's4-grad-live' });
  fSweep.body.append(
    h('h3', {}, ctx.tNode('s4.sweep.title')), sweepP,
    h('div', { class: 'run-row' }, runBtn, stopBtn, prog), sweepStatus,
    shareChart.el, cross50, cross10, onRange,
  );
  fGrad.body.append(h('h3', {}, ctx.tNode('s4.grad.title')), h('p', {}, ctx.tNode('s4.grad.p')), gradChart.el, gradLive);

  let sweepGen = 0;
  let sweepTimer = null;
  function scheduleSweep() { clearTimeout(sweepTimer); sweepTimer = setTimeout(runSweep, 350); }

  async function runSweep() {
    const gen = ++sweepGen;
    const n = nOf();
    setT(ctx, sweepP, 's4.sweep.p', {
      dk64: fmt(64), points: fmt(SWEEP_DK.length), minDk: fmt(SWEEP_DK[0]), maxDk: fmt(SWEEP_DK[SWEEP_DK.length - 1]),
      seeds: fmt(SWEEP_SEEDS.length), n: fmt(n),
    });
    runBtn.disabled = true; stopBtn.disabled = false;
    shareChart.setBusy(true); gradChart.setBusy(true);
    prog.value = 0;
    const t0 = performance.now();
    try {
      const r = await computeSweep(engine, { n }, {
        stopped: () => gen !== sweepGen,
        onStep: (done, total) => {
          prog.value = done / total;
          setT(ctx, sweepStatus, 's4.sweep.progress', { done: fmt(done), total: fmt(total) });
        },
      });
      if (!r || gen !== sweepGen) return;
      prog.value = 1;
      setT(ctx, sweepStatus, 's4.sweep.done', {
        total: fmt(r.total), runs: fmt(r.runs), sec: fmt((performance.now() - t0) / 1000, { maximumFractionDigits: 1 }),
      });
      drawSweep(r);
    } catch (err) {
      if (gen === sweepGen) setT(ctx, sweepStatus, 's4.err.engine');
    } finally {
      if (gen === sweepGen) {
        runBtn.disabled = false; stopBtn.disabled = true;
        shareChart.setBusy(false); gradChart.setBusy(false);
      }
    }
  }

  function drawSweep({ n, off, on, J, cross50: c50, cross10: c10, onMin, onMax }) {
    const sOff = off.map((p) => ({ x: p.dk, y: p.share }));
    const sOn = on.map((p) => ({ x: p.dk, y: p.share }));
    const guides = [
      { axis: 'y', value: 0.5, label: ctx.pct(0.5, { maximumFractionDigits: 0 }) },
      { axis: 'y', value: 0.1, label: ctx.pct(0.1, { maximumFractionDigits: 0 }) },
    ];
    for (const [el, c, level] of [[cross50, c50, 0.5], [cross10, c10, 0.1]]) {
      const p = ctx.pct(level, { maximumFractionDigits: 0 });
      el.removeAttribute('data-dk');
      if (c.kind === 'cross') {
        setT(ctx, el, 's4.sweep.cross', { p, d: fmt(c.x, { maximumSignificantDigits: 2 }), a: fmt(c.a), b: fmt(c.b) });
        Object.assign(el.dataset, { dk: c.x, a: c.a, b: c.b });
        guides.push({ axis: 'x', value: c.x, label: `≈ ${fmt(c.x, { maximumSignificantDigits: 2 })}` });
      } else if (c.kind === 'startBelow') {
        setT(ctx, el, 's4.sweep.startBelow', { p, a: fmt(c.a) });
      } else {
        setT(ctx, el, 's4.sweep.noCross', { p, min: ctx.pct(c.min) });
      }
    }
    setT(ctx, onRange, 's4.sweep.onRange', { min: ctx.pct(onMin), max: ctx.pct(onMax), n: fmt(n) });
    shareChart.update([sOff, sOn], { guides });

    gradChart.update([off.map((p) => ({ x: p.dk, y: p.jac })), on.map((p) => ({ x: p.dk, y: p.jac }))],
      { guides: [{ axis: 'y', value: J.uniJ, label: ctx.t('s4.grad.uniform') }] });
    const at = (arr, dk) => arr.find((p) => p.dk === dk).jac;
    const offA = at(off, 64), onA = at(on, 64), offB = at(off, 1024), onB = at(on, 1024);
    setT(ctx, gradLive, 's4.grad.live', {
      n: fmt(n), uniJ: f(J.uniJ, 3), oneJ: f(J.oneJ, 3), maxJ: f(J.maxJ, 3), dkA: fmt(64), dkB: fmt(1024),
      offA: f(offA, 3), onA: f(onA, 3), ratioA: fmt(onA / offA, { maximumSignificantDigits: 2 }),
      offB: f(offB, 4), onB: f(onB, 3), ratioB: fmt(onB / offB, { maximumSignificantDigits: 2 }),
    });
    Object.assign(gradLive.dataset, { off64: offA, on64: onA, off1024: offB, on1024: onB, uniform: J.uniJ });
  }

  runBtn.addEventListener('click', () => runSweep());
  stopBtn.addEventListener('click', () => {
    sweepGen++;
    runBtn.disabled = false; stopBtn.disabled = true;
    shareChart.setBusy(false); gradChart.setBusy(false);
    setT(ctx, sweepStatus, 's4.sweep.cancelled');
  });

  return { run: runSweep, schedule: scheduleSweep };
}
