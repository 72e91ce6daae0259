// Chapter 12: prefill, decode and the KV cache, and a calculator for real models.
// Part 1 steps through generation (engine.generationTrace: a cache prefilled with a
// prompt, then one decode step per token, each compared with full causal attention).
// Part 2 counts (query, key) pairs per generated token with and without a cache
// (engine.visiblePairs). Part 3 is the cache calculator for published model shapes
// (kvcache-presets.mjs; exact BigInt bytes checked against engine counts). Part 4
// compares the arithmetic intensity of a decode step and of a prefill for the
// calculator's shape. All numbers: kvcache-compute.mjs (also run by a Node test).
//
// URL state (section kvcache): step (0…steps), model (preset key | 'custom'),
//   n (1…4,194,304), dtype ('fp32' | 'fp16' | 'bf16'), batch (1…1024),
//   custom only: layers (1…256), hq (1…256), hkv (1…256), dh (1…1024), win (0…4,194,304), wl (0…layers).
// data-testid hooks:
//   kvcache-setup, kvcache-reset, kvcache-prev, kvcache-next (aria-disabled at the ends),
//   kvcache-step (data-step, data-steps), kvcache-explain (data-length, data-bytes, data-diff, data-kind),
//   kvcache-k1, kvcache-k2 (heatmaps of the cached keys of each key/value head), kvcache-w (the new row's weights),
//   kvcache-cost-chart, kvcache-cost-table, kvcache-cost-live,
//   kvcache-model, kvcache-dtype (selects), kvcache-n, kvcache-batch, kvcache-layers, kvcache-hq, kvcache-hkv,
//   kvcache-dh, kvcache-win, kvcache-wl (text inputs; errors in <id>-error), kvcache-custom (the custom fields),
//   kvcache-shape (the preset's shape), kvcache-calc (data-stale), kvcache-stale, kvcache-status,
//   kvcache-result (data-bytes, data-engine-bytes), kvcache-mha (data-bytes), kvcache-score (data-bytes),
//   kvcache-int (data-decode, data-prefill: flops per byte),
//   kvcache-hand (data-balance, data-decode-busy, data-prefill-busy: the hand example's processor).

import { createHeatmap } from '../widgets/heatmap.mjs';
import { createChart } from '../widgets/chart.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { select, intField, controlRow } from '../widgets/controls.mjs';
import { h, setT, serial } from '../dom.mjs';
import { oneOf } from '../state.mjs';
import { cite } from '../lesson/references.mjs';
import { readable } from '../lesson/byte-sizes.mjs';
import { PRESETS, MODEL_KEYS } from './kvcache-presets.mjs';
import { DTYPES, TRACE_SHAPE, computeTrace, traceStep, computeCost, computeIntensity, computeCalculator, handExample } from './kvcache-compute.mjs';

const COST_T = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
const TABLE_T = [1024, 8192, 131072];
const MAX_N = 4194304;
const CUSTOM_LIMITS = { layers: [1, 256], hq: [1, 256], hkv: [1, 256], dh: [1, 1024], win: [0, MAX_N], wl: [0, 256] };

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const okInt = (v, lo, hi, d) => (Number.isInteger(v) && v >= lo && v <= hi ? v : d);
  const big = (x) => fmt(x, { maximumFractionDigits: 0 });
  const num = (x, d = 2) => fmt(x, { maximumFractionDigits: d });
  // a tiny difference as a plain decimal, like chapter 8's (0.00000012): one number, no bidi puzzle
  const sci = (x) => fmt(x, { maximumSignificantDigits: 2 });

  // ================================================================ part 1: prefill and decode
  const S = TRACE_SHAPE;
  const steps = S.steps;   // decode steps; step 0 is the prefill
  const st = { step: okInt(state.get('step', 0), 0, steps, 0) };
  root.append(h('p', { class: 'lead' }, ctx.tNode('kvcache.lead')));
  root.append(h('h3', {}, ctx.tNode('kvcache.gen.title')),
    h('p', {}, ctx.tNode('kvcache.gen.p1')),
    h('p', {}, ctx.tNode('kvcache.gen.p2'), ' ', cite(ctx, 'pope2022')));
  root.append(h('p', { testid: 'kvcache-setup' }, ctx.tNode('kvcache.gen.setup', {
    P: big(S.prompt), T: big(steps), hq: big(S.headsQ), hkv: big(S.headsKv), d: big(S.dk),
  })));

  const btn = (key, testid) => h('button', { type: 'button', class: 'btn btn-secondary', testid }, ctx.tNode(key));
  const bReset = btn('kvcache.gen.reset', 'kvcache-reset'), bPrev = btn('kvcache.gen.prev', 'kvcache-prev'), bNext = btn('kvcache.gen.next', 'kvcache-next');
  const stepLabel = h('span', { class: 'step-label', testid: 'kvcache-step', 'aria-live': 'polite' });
  const explain = h('div', { class: 'step-explain', testid: 'kvcache-explain', 'aria-live': 'polite' });
  const genStatus = h('p', { class: 'status-line', 'aria-live': 'polite' });
  const headMap = (i) => createHeatmap(ctx, {
    label: ctx.tNode('kvcache.gen.kCaption', { h: big(i + 1) }), rowTitle: 'kvcache.gen.tokens', colTitle: 'kvcache.gen.kCols',
    digits: 2, palette: 'cividis', testid: `kvcache-k${i + 1}`, exportName: `kvcache-k${i + 1}`, labelWidth: 32,
  });
  const kMaps = Array.from({ length: S.headsKv }, (_, i) => headMap(i));
  const wMap = createHeatmap(ctx, {
    label: 'kvcache.gen.wCaption', rowTitle: 'kvcache.gen.qHeads', colTitle: 'kvcache.gen.keys',
    min: 0, max: 1, digits: 2, testid: 'kvcache-w', exportName: 'kvcache-weights', labelWidth: 32,
  });
  root.append(h('div', { class: 'stepper' }, bReset, bPrev, bNext, stepLabel), genStatus, explain,
    h('div', { class: 'experiment-result kv-maps' }, ...kMaps.map((m) => m.el)),
    h('p', {}, ctx.tNode('kvcache.gen.wNote')), wMap.el);

  let trace = null;
  const labels = (from, to) => Array.from({ length: to - from }, (_, i) => fmt(from + i + 1));
  function renderStep() {
    if (!trace) return;
    const s = trace.trace[st.step];
    const decode = s.kind === 'decode';
    setT(ctx, stepLabel, decode ? 'kvcache.gen.stepDecode' : 'kvcache.gen.stepPrefill', { s: big(st.step), last: big(steps), tok: big(s.first + 1) });
    stepLabel.dataset.step = String(st.step);
    stepLabel.dataset.steps = String(steps);
    for (const [b, off] of [[bPrev, st.step === 0], [bReset, st.step === 0], [bNext, st.step === steps]]) {
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }
    const params = {
      P: big(S.prompt), tok: big(s.first + 1), len: big(s.length), hkv: big(S.headsKv), hq: big(S.headsQ),
      bytes: big(s.bytes), rows: big(s.length), diff: sci(s.maxAbsDiff),
    };
    explain.textContent = '';
    explain.append(h('p', {}, ctx.tNode(decode ? 'kvcache.gen.explainDecode' : 'kvcache.gen.explainPrefill', params)),
      h('p', {}, ctx.tNode('kvcache.gen.explainCheck', params)));
    Object.assign(explain.dataset, { kind: s.kind, length: s.length, bytes: s.bytes, diff: s.maxAbsDiff });
    // the cached keys of each key/value head, and the newest row's weights (traceStep)
    const view = traceStep(trace, st.step, S);
    kMaps.forEach((m, hd) => m.update(view.keys[hd], { rowLabels: labels(0, s.length), colLabels: labels(0, S.dk) }));
    wMap.update(view.weights, { rowLabels: labels(0, S.headsQ), colLabels: labels(0, view.weights.cols) });
  }
  const go = (k) => {
    const next = Math.max(0, Math.min(steps, k));
    if (next === st.step) return;
    st.step = next;
    state.set('step', st.step || null);
    renderStep();
  };
  bReset.addEventListener('click', () => go(0));
  bPrev.addEventListener('click', () => go(st.step - 1));
  bNext.addEventListener('click', () => go(st.step + 1));

  // ================================================================ part 2: cost per token
  const costChart = createChart(ctx, {
    title: 'kvcache.cost.chartTitle', xLabel: 'kvcache.cost.x', yLabel: 'kvcache.cost.y', xLog: true, yLog: true,
    xTicks: [256, 2048, 16384, 131072], series: [{ label: 'kvcache.cost.cached', kind: 'line' }, { label: 'kvcache.cost.recompute', kind: 'line' }],
    formatX: (v) => big(v), formatY: (v) => big(v), tableLabel: 'kvcache.cost.chartTable', testid: 'kvcache-cost-chart',
  });
  const costTableSlot = h('div', { class: 'table-slot' });
  const costLive = h('p', { testid: 'kvcache-cost-live' });
  root.append(h('h3', {}, ctx.tNode('kvcache.cost.title')), h('p', {}, ctx.tNode('kvcache.cost.p1')),
    h('p', {}, ctx.tNode('kvcache.cost.p2')), costChart.el, costTableSlot, costLive, h('p', {}, ctx.tNode('kvcache.cost.p3')));

  // ================================================================ part 3: the calculator
  const calc = {
    model: oneOf(Object.fromEntries(MODEL_KEYS.map((k) => [k, 1])), state.get('model', 'llama3-8b'), 'llama3-8b'),
    n: okInt(state.get('n', 8192), 1, MAX_N, 8192),
    dtype: oneOf(DTYPES, state.get('dtype', 'bf16'), 'bf16'),
    batch: okInt(state.get('batch', 1), 1, 1024, 1),
  };
  const base = PRESETS['llama3-8b'];
  const custom = {
    layers: okInt(state.get('layers', base.layers), 1, 256, base.layers),
    hq: okInt(state.get('hq', base.headsQ), 1, 256, base.headsQ),
    hkv: okInt(state.get('hkv', base.headsKv), 1, 256, base.headsKv),
    dh: okInt(state.get('dh', base.dHead), 1, 1024, base.dHead),
    win: okInt(state.get('win', 0), 0, MAX_N, 0),
    wl: okInt(state.get('wl', 0), 0, 256, 0),
  };
  const shapeOf = () => {
    if (calc.model !== 'custom') return PRESETS[calc.model];
    return { layers: custom.layers, headsQ: custom.hq, headsKv: custom.hkv, dHead: custom.dh, window: custom.win, windowedLayers: custom.win > 0 ? custom.wl : 0 };
  };

  const status = h('p', { class: 'status-line', testid: 'kvcache-status', 'aria-live': 'polite' });
  const staleNote = h('p', { class: 'stale-note', id: 'kvcache-stale-note', testid: 'kvcache-stale', 'aria-live': 'polite', hidden: true });
  const refused = new Set();
  let ruleBroken = false;
  const markStale = () => {
    const stale = refused.size > 0 || ruleBroken;
    calcBox.dataset.stale = String(stale);
    calcBox.classList.toggle('is-stale', stale);
    staleNote.hidden = !stale;
    if (stale) setT(ctx, staleNote, 'kvcache.calc.stale'); else staleNote.textContent = '';
  };
  const field = (obj, key, label, [min, max], errKey = 'kvcache.err.range') => intField(ctx, {
    label, value: obj[key], min, max, errKey, testid: `kvcache-${key}`, explain: true,
    onValidity: (ok) => { if (ok) refused.delete(key); else refused.add(key); markStale(); },
    onChange: (v) => { obj[key] = v; state.set(key, v); runCalc(); },
  });
  const modelCtl = select(ctx, {
    label: 'kvcache.calc.model', value: calc.model, testid: 'kvcache-model',
    options: MODEL_KEYS.map((k) => ({ value: k, label: `kvcache.model.${k}` })),
    onChange: (v) => {
      if (v === 'custom' && calc.model !== 'custom') {   // custom starts from the shape on screen
        const p = PRESETS[calc.model];
        Object.assign(custom, { layers: p.layers, hq: p.headsQ, hkv: p.headsKv, dh: p.dHead, win: p.window, wl: p.windowedLayers });
        for (const [k, c] of Object.entries(customCtls)) c.value = custom[k];
      }
      calc.model = v;
      state.set('model', v);
      saveCustom();
      runCalc();
    },
  });
  const saveCustom = () => {
    for (const k of Object.keys(custom)) state.set(k, calc.model === 'custom' ? custom[k] : null);
    customBox.hidden = calc.model !== 'custom';
    shapeP.hidden = calc.model === 'custom';
    if (calc.model !== 'custom') for (const k of Object.keys(custom)) refused.delete(k);
    markStale();
  };
  const nCtl = field(calc, 'n', 'kvcache.calc.n', [1, MAX_N]);
  const dtypeCtl = select(ctx, {
    label: 'kvcache.calc.dtype', value: calc.dtype, testid: 'kvcache-dtype',
    options: Object.entries(DTYPES).map(([name, b]) => ({ value: name, label: ctx.t('kvcache.calc.dtypeOpt', { name: ctx.t(`s7.calc.dtypeName.${name}`), b: fmt(b) }) })),
    onChange: (v) => { calc.dtype = v; state.set('dtype', v); runCalc(); },
  });
  const batchCtl = field(calc, 'batch', 'kvcache.calc.batch', [1, 1024]);
  const customCtls = {
    layers: field(custom, 'layers', 'kvcache.calc.layers', CUSTOM_LIMITS.layers),
    hq: field(custom, 'hq', 'kvcache.calc.hq', CUSTOM_LIMITS.hq),
    hkv: field(custom, 'hkv', 'kvcache.calc.hkv', CUSTOM_LIMITS.hkv),
    dh: field(custom, 'dh', 'kvcache.calc.dh', CUSTOM_LIMITS.dh),
    win: field(custom, 'win', 'kvcache.calc.win', CUSTOM_LIMITS.win),
    wl: field(custom, 'wl', 'kvcache.calc.wl', CUSTOM_LIMITS.wl),
  };
  const customBox = h('div', { testid: 'kvcache-custom', hidden: calc.model !== 'custom' },
    controlRow(customCtls.layers, customCtls.hq, customCtls.hkv), controlRow(customCtls.dh, customCtls.win, customCtls.wl));
  const shapeP = h('p', { class: 'note', testid: 'kvcache-shape', hidden: calc.model === 'custom' });
  const result = h('p', { class: 'big-result', testid: 'kvcache-result' });
  const mhaP = h('p', { testid: 'kvcache-mha' });
  const scoreP = h('p', { testid: 'kvcache-score' });
  const calcBox = h('div', { class: 'experiment-result stack calc-result', testid: 'kvcache-calc', 'data-stale': 'false' },
    staleNote, result, h('p', { class: 'note' }, ctx.tNode('kvcache.calc.formula')), mhaP, scoreP);
  root.append(h('h3', {}, ctx.tNode('kvcache.calc.title')),
    h('p', {}, ctx.tNode('kvcache.calc.p1'), ' ', cite(ctx, 'kwon2023')),
    h('p', {}, ctx.tNode('kvcache.calc.p2', { mw: ctx.fmt(PRESETS['mistral-7b'].window) }), ' ', cite(ctx, 'llama3', 'jiang2023', 'gemma2', 'qwen2')),
    h('div', { class: 'experiment-panel' }, controlRow(modelCtl, nCtl, dtypeCtl, batchCtl), customBox, shapeP, status),
    calcBox);

  // ================================================================ part 4: arithmetic intensity
  const intP = h('p', { testid: 'kvcache-int' });
  const intP2 = h('p');
  const handP = h('p', { testid: 'kvcache-hand' });
  root.append(h('h3', {}, ctx.tNode('kvcache.int.title')), h('p', {}, ctx.tNode('kvcache.int.p1')),
    intP, intP2, handP, h('p', {}, ctx.tNode('kvcache.int.p3'), ' ', cite(ctx, 'pope2022')), h('p', {}, ctx.tNode('kvcache.int.p4')));

  const inUnit = (bytes, system) => {
    const r = readable(bytes, system);
    // fixed digits: a whole value shows as 1.00 like its neighbour 1.07 (review-ar-16 #7: «١ غيبيبايت» read badly)
    const fd = r.fractionDigits;
    return ctx.t(`site.unit.${r.unit}`, { n: fmt(r.value, { minimumFractionDigits: fd, maximumFractionDigits: fd }) });
  };
  // a Node, not a string: a string placeholder is set as one number (no line break inside)
  const bytesText = (b) => (b < 1000n ? ctx.tNode('site.unit.B', { n: fmt(b) }) : ctx.tNode('kvcache.calc.bytes', { bytes: fmt(b), dec: inUnit(b, 'decimal'), bin: inUnit(b, 'binary') }));

  const runCalc = serial(async () => {
    if (refused.size) return;
    const sh = shapeOf();
    // the rules between fields: every key/value head serves the same number of query heads,
    // and no more windowed layers than layers
    if (sh.headsQ % sh.headsKv !== 0) { setT(ctx, status, 'kvcache.err.groups', { hq: big(sh.headsQ), hkv: big(sh.headsKv) }); status.dataset.code = 'groups'; markBad(true); return; }
    if (sh.window > 0 && sh.windowedLayers > sh.layers) { setT(ctx, status, 'kvcache.err.wl', { wl: big(sh.windowedLayers), layers: big(sh.layers) }); status.dataset.code = 'wl'; markBad(true); return; }
    markBad(false);
    try {
      const b = DTYPES[calc.dtype];
      const r = await computeCalculator(engine, { ...sh, n: calc.n, bytesPerElement: b, batch: calc.batch });
      setT(ctx, result, 'kvcache.calc.result', { what: bytesText(r.cache) });
      result.dataset.bytes = String(r.cache);
      result.dataset.engineBytes = String(r.engineCache);
      const ratio = sh.headsQ / sh.headsKv;
      setT(ctx, mhaP, ratio === 1 ? 'kvcache.calc.mhaSame' : 'kvcache.calc.mha', { what: bytesText(r.mha), g: big(ratio) });
      mhaP.dataset.bytes = String(r.mha);
      setT(ctx, scoreP, 'kvcache.calc.score', { what: bytesText(r.score), n: big(calc.n), ratio: num(Number(r.score) / Number(r.cache), 1) });
      scoreP.dataset.bytes = String(r.score);
      if (calc.model !== 'custom') {
        setT(ctx, shapeP, sh.window ? 'kvcache.calc.shapeWin' : 'kvcache.calc.shape', {
          layers: big(sh.layers), hq: big(sh.headsQ), hkv: big(sh.headsKv), dh: big(sh.dHead), w: big(sh.window), wl: big(sh.windowedLayers),
        });
      }
      const it = await computeIntensity(engine, { headsQ: sh.headsQ, headsKv: sh.headsKv, dHead: sh.dHead, S: calc.n, P: calc.n, bytesPerElement: b });
      setT(ctx, intP, 'kvcache.int.live', {
        n: big(calc.n), dflops: big(it.decodeFlops), dbytes: big(it.decodeBytes), di: num(it.decodeIntensity),
        pflops: big(it.prefillFlops), pbytes: big(it.prefillBytes), pi: num(it.prefillIntensity, 0),
      });
      intP.dataset.decode = String(it.decodeIntensity);
      intP.dataset.prefill = String(it.prefillIntensity);
      setT(ctx, intP2, 'kvcache.int.live2', { g: big(ratio), b: big(b), ratio: big(Math.round(it.prefillIntensity / it.decodeIntensity)) });
      const hand = handExample(it);
      setT(ctx, handP, 'kvcache.int.hand', {
        tflops: big(hand.teraFlops), tbytes: big(hand.teraBytes), balance: big(Math.round(hand.balance)),
        di: num(it.decodeIntensity), dbusy: ctx.pct(hand.decodeBusy, { maximumFractionDigits: 1 }),
        pi: num(it.prefillIntensity, 0), pbusy: ctx.pct(hand.prefillBusy, { maximumFractionDigits: 0 }),
      });
      Object.assign(handP.dataset, { balance: String(hand.balance), decodeBusy: String(hand.decodeBusy), prefillBusy: String(hand.prefillBusy) });
      status.textContent = '';
      delete status.dataset.code;
    } catch (err) {
      setT(ctx, status, 'kvcache.err.engine');
      status.dataset.code = (err && err.code) || 'Unknown';
    }
  });
  // a rule between fields is broken: the result on screen is for older values
  function markBad(bad) { ruleBroken = bad; markStale(); if (!bad && status.dataset.code && status.dataset.code !== 'engine') { status.textContent = ''; delete status.dataset.code; } }

  // ---- first render
  saveCustom();
  try {
    trace = await computeTrace(engine, S);
    renderStep();
  } catch (err) {
    setT(ctx, genStatus, 'kvcache.err.engine');
  }
  try {
    const cost = await computeCost(engine, COST_T);
    costChart.update([cost.map((c) => ({ x: c.T, y: c.stepCached })), cost.map((c) => ({ x: c.T, y: c.stepRecompute }))]);
    const rows = (await computeCost(engine, TABLE_T)).map((c) => [big(c.T), big(c.stepCached), big(c.stepRecompute), big(c.totalCached), big(c.totalRecompute)]);
    costTableSlot.append(simpleTable(ctx, {
      testid: 'kvcache-cost-table', caption: 'kvcache.cost.caption', stack: true,
      headers: ['kvcache.cost.col.T', 'kvcache.cost.col.stepCached', 'kvcache.cost.col.stepRecompute', 'kvcache.cost.col.totalCached', 'kvcache.cost.col.totalRecompute'],
      rows,
    }));
    const last = cost[cost.length - 1];
    setT(ctx, costLive, 'kvcache.cost.live', { T: big(last.T), a: big(last.stepCached), b: big(last.stepRecompute), r: num(last.stepRatio, 1) });
  } catch (err) {
    setT(ctx, genStatus, 'kvcache.err.engine');
  }
  await runCalc();
}
