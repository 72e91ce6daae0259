// Section 6: the causal mask. One toggle (URL key s6.causal) drives the three
// heatmaps of the section: equal scores (row i spreads 1/(i+1)), random Q/K,
// and a rectangular L×S case (top-left alignment as PyTorch's is_causal, or
// bottom-right via the engine's rowOffset / an explicit mask when L > S).
// All weights come from engine.attention(..., causal, returnWeights: true).
//
// URL state (section s6): causal (bool, default true), n (2…12), seed (0…1e9),
//   L (1…12), S (1…12), align ('tl' | 'br').
// data-testid hooks:
//   s6-causal (checkbox), s6-n, s6-seed, s6-L, s6-S (text inputs, errors in <id>-error),
//   s6-align-tl, s6-align-br (radios), s6-status,
//   s6-equal (heatmap of equal scores), s6-equal-rows (list, one <li> per row with data-w),
//   s6-upper (upper-triangle statement; data-max, data-nonzero, data-sum),
//   s6-random (heatmap), s6-random-live, s6-rect (heatmap), s6-rect-live, s6-rect-masked.

import { createHeatmap } from '../widgets/heatmap.mjs';
import { checkbox, intField, radioGroup, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial } from '../dom.mjs';
import { intIn } from '../state.mjs';

const D = 8;   // width of the random example's Q and K

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const st = {
    causal: state.get('causal', true),
    n: intIn(state.get('n', 6), 2, 12, 6),
    seed: intIn(state.get('seed', 3), 0, 1e9, 3),
    L: intIn(state.get('L', 3), 1, 12, 3),
    S: intIn(state.get('S', 5), 1, 12, 5),
    align: state.get('align', 'tl') === 'br' ? 'br' : 'tl',
  };
  const w4 = (x) => fmt(x, { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  // rows and keys are counted from 1 in prose and labels (0-based indices only in code, s9)
  const idxLabels = (k) => Array.from({ length: k }, (_, i) => fmt(i + 1));

  root.append(h('p', { class: 'lead' }, ctx.tNode('s6.lead')));

  const causalCtl = checkbox(ctx, {
    label: 's6.ctl.causal', checked: st.causal, testid: 's6-causal',
    onChange: (on) => { st.causal = on; state.set('causal', on); refresh(); },
  });
  const nCtl = intField(ctx, {
    label: 's6.ctl.n', value: st.n, min: 2, max: 12, errKey: 's6.err.int', testid: 's6-n',
    onChange: (v) => { st.n = v; state.set('n', v); refresh(); },
  });
  const status = h('p', { class: 'status-line', testid: 's6-status', 'aria-live': 'polite' });
  root.append(h('div', { class: 'experiment-panel sticky-toggle' }, controlRow(causalCtl, nCtl), status));

  // ---- equal scores
  const eqHeat = createHeatmap(ctx, { label: 's6.eq.caption', min: 0, max: 1, digits: 3, showValues: 'auto', testid: 's6-equal', exportName: 's6-equal' });
  const eqRows = h('ul', { class: 'row-list', testid: 's6-equal-rows' });
  const upper = h('p', { testid: 's6-upper' });
  root.append(h('h3', {}, ctx.tNode('s6.eq.title')), h('p', {}, ctx.tNode('s6.eq.p')),
    h('div', { class: 'experiment-result' }, eqHeat.el, h('div', { class: 'readouts' }, eqRows, upper)));

  // ---- random scores
  const seedCtl = intField(ctx, {
    label: 's6.ctl.seed', value: st.seed, min: 0, max: 1e9, errKey: 's6.err.int', testid: 's6-seed',
    onChange: (v) => { st.seed = v; state.set('seed', v); refresh(); },
  });
  const randHeat = createHeatmap(ctx, { label: 's6.rand.caption', min: 0, max: 1, digits: 2, testid: 's6-random', exportName: 's6-random' });
  const randLive = h('p', { testid: 's6-random-live' });
  root.append(h('h3', {}, ctx.tNode('s6.rand.title')), h('p', {}, ctx.tNode('s6.rand.p')),
    h('div', { class: 'experiment-panel' }, controlRow(seedCtl)),
    h('div', { class: 'experiment-result' }, randHeat.el, h('div', { class: 'readouts' }, randLive)));

  // ---- why
  root.append(h('h3', {}, ctx.tNode('s6.why.title')), h('p', {}, ctx.tNode('s6.why.p1')), h('p', {}, ctx.tNode('s6.why.p2')));

  // ---- L ≠ S
  const LCtl = intField(ctx, {
    label: 's6.ctl.L', value: st.L, min: 1, max: 12, errKey: 's6.err.int', testid: 's6-L',
    onChange: (v) => { st.L = v; state.set('L', v); refresh(); },
  });
  const SCtl = intField(ctx, {
    label: 's6.ctl.S', value: st.S, min: 1, max: 12, errKey: 's6.err.int', testid: 's6-S',
    onChange: (v) => { st.S = v; state.set('S', v); refresh(); },
  });
  const alignCtl = radioGroup(ctx, {
    legend: 's6.ctl.align', name: 's6-align', value: st.align,
    options: [
      { value: 'tl', label: 's6.align.topLeft', testid: 's6-align-tl' },
      { value: 'br', label: 's6.align.bottomRight', testid: 's6-align-br' },
    ],
    onChange: (v) => { st.align = v; state.set('align', v); refresh(); },
  });
  const rectHeat = createHeatmap(ctx, { label: 's6.rect.caption', min: 0, max: 1, digits: 2, testid: 's6-rect', exportName: 's6-rect' });
  const rectLive = h('p', { testid: 's6-rect-live' });
  const rectMasked = h('p', { testid: 's6-rect-masked' });
  root.append(h('h3', {}, ctx.tNode('s6.rect.title')), h('p', {}, ctx.tNode('s6.rect.p')),
    h('div', { class: 'experiment-panel' }, controlRow(LCtl, SCtl), alignCtl.el),
    h('div', { class: 'experiment-result' }, rectHeat.el, h('div', { class: 'readouts' }, rectLive, rectMasked)));

  const at = (m, i, j) => m.data[i * m.cols + j];

  const refresh = serial(async () => {
    const { causal, n, seed, L, S, align } = st;
    try {
      // equal scores: Q = 0, so every q·k = 0
      const zeros = (r, c) => ({ rows: r, cols: c, data: new Float32Array(r * c) });
      const kEq = await engine.randomNormal({ seed: 1, rows: n, cols: 4 });
      const eq = await engine.attention({ q: zeros(n, 4), k: kEq, v: zeros(n, 1), causal, returnWeights: true });
      // random scores
      const qr = await engine.randomNormal({ seed, rows: n, cols: D });
      const kr = await engine.randomNormal({ seed: seed + 1, rows: n, cols: D });
      const rnd = await engine.attention({ q: qr, k: kr, v: zeros(n, 1), causal, returnWeights: true });
      // rectangle L×S
      const qR = await engine.randomNormal({ seed: seed + 2, rows: L, cols: D });
      const kR = await engine.randomNormal({ seed: seed + 3, rows: S, cols: D });
      const rectArgs = { q: qR, k: kR, v: zeros(S, 1), returnWeights: true };
      if (causal && align === 'br' && S >= L) Object.assign(rectArgs, { causal: true, rowOffset: S - L });
      else if (causal && align === 'br') {
        // L > S: rows i < L − S would need a negative offset; pass the same rule as an explicit mask
        const mask = new Uint8Array(L * S);
        for (let i = 0; i < L; i++) for (let j = 0; j < S; j++) mask[i * S + j] = j <= i + S - L ? 1 : 0;
        Object.assign(rectArgs, { mask: { rows: L, cols: S, data: mask } });
      } else rectArgs.causal = causal;
      const rect = await engine.attention(rectArgs);

      // ---- equal scores
      eqHeat.update(eq.weights, { rowLabels: idxLabels(n), colLabels: idxLabels(n) });
      eqRows.textContent = '';
      for (let i = 0; i < n; i++) {
        const k = causal ? i + 1 : n;
        const li = h('li');
        li.dataset.w = String(at(eq.weights, i, 0));
        li.append(ctx.tNode(causal ? 's6.eq.rowOn' : 's6.eq.rowOff', {
          i: fmt(i + 1), k: fmt(k),   // prose counts rows from 1 (s6.eq.p)
          w: w4(at(eq.weights, i, 0)), expect: w4(1 / k),
        }));
        eqRows.append(li);
      }
      let mx = 0, nz = 0, sum = 0;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        const w = at(eq.weights, i, j);
        mx = Math.max(mx, w); if (w !== 0) nz++; sum += w;
      }
      const count = (n * (n - 1)) / 2;
      if (causal) setT(ctx, upper, 's6.zero.on', { count: fmt(count), max: fmt(mx, { maximumFractionDigits: 20 }), nz: fmt(nz) });
      else setT(ctx, upper, 's6.zero.off', { count: fmt(count), sum: fmt(sum, { maximumFractionDigits: 3 }), share: ctx.pct(sum / n) });
      Object.assign(upper.dataset, { max: mx, nonzero: nz, sum, causal });

      // ---- random
      randHeat.update(rnd.weights, { rowLabels: idxLabels(n), colLabels: idxLabels(n) });
      let up = 0;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) up += at(rnd.weights, i, j);
      setT(ctx, randLive, 's6.rand.live', { w00: w4(at(rnd.weights, 0, 0)), upper: fmt(up, { maximumFractionDigits: 4 }) });
      Object.assign(randLive.dataset, { w00: at(rnd.weights, 0, 0), upper: up });

      // ---- rectangle
      rectHeat.update(rect.weights, { rowLabels: idxLabels(L), colLabels: idxLabels(S) });
      const visible = (i) => { let c = 0; for (let j = 0; j < S; j++) if (Number.isFinite(at(rect.scores, i, j))) c++; return c; };
      if (causal) setT(ctx, rectLive, 's6.rect.live', { first: fmt(visible(0)), last: fmt(visible(L - 1)) });
      else setT(ctx, rectLive, 's6.rect.offNote');
      const masked = rect.maskedRows || [];
      if (masked.length) setT(ctx, rectMasked, 's6.rect.masked', { count: fmt(masked.length), rows: masked.map((i) => fmt(i + 1)).join('، ') });
      else rectMasked.textContent = '';
      rectMasked.dataset.count = String(masked.length);
      status.textContent = '';
    } catch (err) {
      setT(ctx, status, 's6.err.engine');
      status.dataset.code = (err && err.code) || 'Unknown';
    }
  });

  // Other pages/sections may flip the shared key (e.g. a language switch keeps the URL).
  window.addEventListener('statechange', () => {
    if (!causalCtl.input.isConnected) return;   // this section was built again (a recompute after a crash)
    const c = state.get('causal', true);
    if (c !== st.causal) { st.causal = c; causalCtl.checked = c; refresh(); }
  });

  await refresh();
}
