// Section 4, the core path: the d_k slider, n, seed and scale; the attention weights as a
// heatmap with the max weight, entropy and logit size; the variance argument; and why √d_k
// rather than d_k. Every move redraws from the engine (s4-compute.mjs computeScaling); the
// slider's other positions are computed in the background so a move redraws at once.
// testids and URL keys: s4-scaling.mjs's header.
//
//   mountCorePath(root, ctx, st, {onN(), onSeed()}) → {refresh(), status}
//     st: the section's state (dk, n, scale, seed), read and written here;
//     onN / onSeed: after n or the seed changed and the core path redraws (the folds follow);
//     status: the line where engine errors are shown (the folds write theirs there too)

import { createHeatmap } from '../widgets/heatmap.mjs';
import { slider, intField, radioGroup, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial, liveLine } from '../dom.mjs';
import { cite } from '../lesson/references.mjs';
import { backgroundFill, nearestFirst } from '../engine-link/background-fill.mjs';
import { DK_VALUES, N_MIN, N_MAX, SEED_MAX, computeScaling } from './s4-compute.mjs';
import { formats } from './s4-formats.mjs';

// Weight ratios above this are said in words (s4.var.huge), not in 20-odd digits.
const HUGE_RATIO = 1e6;

export function mountCorePath(root, ctx, st, { onN, onSeed }) {
  const { engine, state, fmt } = ctx;
  const { f, f6, pct } = formats(ctx);

  // The slider redraws at once (refresh() coalesces moves that arrive while it computes);
  // the URL (history.replaceState, slow) is written once the slider rests.
  const dkCtl = slider(ctx, {
    label: 's4.ctl.dk', values: DK_VALUES, value: st.dk, testid: 's4-dk',
    onInput: (v) => { st.dk = v; state.setLater({ dk: v }); refresh(); },
  });
  const nCtl = intField(ctx, {
    label: 's4.ctl.n', value: st.n, min: N_MIN, max: N_MAX, errKey: 's4.err.n', testid: 's4-n',
    onChange: (v) => { st.n = v; state.set('n', v); refresh(); onN(); },
  });
  const seedCtl = intField(ctx, {
    label: 's4.ctl.seed', value: st.seed, min: 0, max: SEED_MAX, errKey: 's4.err.seed', testid: 's4-seed',
    onChange: (v) => { st.seed = v; state.set('seed', v); refresh(); onSeed(); },
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

  return { refresh, status };
}
