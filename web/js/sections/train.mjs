// Chapter 14: watching attention learn (issue 24, items 4 and 5).
// Part 1 trains a small character model from random weights on the lesson's own prose
// (models/<lang>.corpus.txt, fetched when the section mounts) in a worker of its own (a second
// engine client: a run never holds back the page's other engine calls), with the loss curve,
// the unigram and bigram baselines (train-compute.mjs, equal to the shipped model's json), the
// tokens per second, the attention of one head on a held-out line and a sample, all updated as
// it learns. The run is saved in IndexedDB (train-store.mjs) and comes back after a reload.
// Part 2 is the gradient of the loss at the output, p − y, on the run's own numbers.
// Part 3 steps through the backward pass of attention tile by tile (train-backward-steps.mjs,
// its numbers from train-backward.mjs).
//
// URL state (section train): size ('small' | 'default'; default from the screen and the cores),
//   seed (0…999,999), layer, head (1-based, of the run's model); part 3's bstep: its file.
// data-testid hooks:
//   train-size, train-seed (controls), train-run (data-action = start | pause | resume),
//   train-reset, train-status (data-state = loading | idle | running | paused | done | error,
//   data-step, data-loss (last training step's loss), data-val (held-out loss at data-val-step),
//   data-val-step, data-tps (tokens per second)), train-chart, train-saved (data-state = none |
//   saved | restored | refused | unavailable | busy, data-reason, data-step: the step saved),
//   train-fresh (starts a fresh run after a refused save), train-layer, train-head, train-attn
//   (heatmap), train-sample (data-step), train-grad (table of p − y; data-step); part 3's
//   train-bk-*: train-backward-steps.mjs.
// Test hook: window.__train = {engine (this section's client), modelId(), validation}.

import { createHeatmap } from '../widgets/heatmap.mjs';
import { createChart } from '../widgets/chart.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { select, intField, controlRow } from '../widgets/controls.mjs';
import { h, setT } from '../dom.mjs';
import { oneOf, intIn } from '../state.mjs';
import { createEngineClient } from '../engine-link/engine-client.mjs';
import { corpusData, baselines, SIZES, TOTAL_STEPS, defaultSize, modelConfig, chunkSeed, validationWindows,
  showcaseTokens, detokenize, tokensPerSecond, encodeRun, curvePoints } from './train-compute.mjs';
import { crossEntropyRow } from './train-backward.mjs';
import { mountBackwardSteps } from './train-backward-steps.mjs';
import { glyph, modelLanguage } from './model-compute.mjs';
import { openRunStore } from './train-store.mjs';

const CHUNK_MS = 1200;          // a training call lasts about this long; then the curve's held-out point, the map, the sample
const SAVE_EVERY_MS = 5000;     // the run is written at most this often while it trains (and at each pause)
const SHOW_LEN = 24;            // characters of the held-out line whose attention is shown
const SAMPLE_LEN = 60;

// resolves in the next frame's animation callbacks, or after 100 ms in a tab that draws no
// frames (hidden): a run training in the background must not wait for the tab to be shown
const nextFrame = () => new Promise((resolve) => {
  if (typeof requestAnimationFrame !== 'function') { resolve(); return; }
  requestAnimationFrame(() => resolve());
  setTimeout(resolve, 100);
});

// a character as a row/column label, the same as chapter 13's (␣ space, ¦ half-space, ↵ newline, ◌ before a lone mark)
const charLabel = glyph;

export async function mount(root, ctx) {
  const { state, fmt, lang } = ctx;
  const num = (x, d = 3) => fmt(x, { minimumFractionDigits: d, maximumFractionDigits: d });
  const big = (x) => fmt(x, { maximumFractionDigits: 0 });

  // ---------------------------------------------------------------- the text
  root.append(h('p', { class: 'lead' }, ctx.tNode('train.lead')));
  const res = await fetch(new URL(`../../models/${modelLanguage(lang)}.corpus.txt`, import.meta.url));
  if (!res.ok) throw Object.assign(new Error(`corpus ${res.status}`), { code: 'EngineLoad' });
  const data = corpusData(await res.text());
  const V = data.vocab.length;
  const base = baselines(data);

  const auto = defaultSize({ width: globalThis.innerWidth || 1280, cores: globalThis.navigator?.hardwareConcurrency });
  const st = {
    size: oneOf(SIZES, state.get('size', auto), auto),
    seed: intIn(state.get('seed', 1), 0, 999999, 1),
    layer: 1, head: 1,
  };
  // savedAt: the saved copy this tab last read or wrote (a save over any other is refused: another tab's)
  const run = { id: null, step: 0, history: { train: [], val: [] }, tps: 0, running: false, stop: null, locked: false, savedAt: null };

  // ================================================================ part 1: train it yourself
  root.append(h('h3', {}, ctx.tNode('train.run.title')),
    h('p', {}, ctx.tNode('train.run.p1', { chars: big(data.train.length), val: big(data.val.length), V: big(V) })),
    h('p', {}, ctx.tNode('train.run.p2', { uni: num(base.unigram, 2), bi: num(base.bigram, 2), lnV: num(base.uniform, 2) })));

  const sizeSel = select(ctx, {
    label: 'train.ctl.size', testid: 'train-size', value: st.size,
    options: Object.keys(SIZES).map((k) => ({ value: k, label: `train.size.${k}` })),
    onChange: (v) => { if (v === st.size) return; st.size = v; state.set('size', v === auto ? null : v); fresh(); },
  });
  const seedField = intField(ctx, {
    label: 'train.ctl.seed', value: st.seed, min: 0, max: 999999, errKey: 'train.err.seed', testid: 'train-seed',
    onChange: (v) => { if (v === st.seed) return; st.seed = v; state.set('seed', v === 1 ? null : v); fresh(); },
  });
  const bRun = h('button', { type: 'button', class: 'btn btn-primary', testid: 'train-run' });
  const bReset = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'train-reset' }, ctx.tNode('train.ctl.reset'));
  const status = h('p', { class: 'status-line train-status', testid: 'train-status', 'aria-live': 'polite', 'data-state': 'loading' });
  const savedLine = h('p', { class: 'status-line', testid: 'train-saved', 'aria-live': 'polite', 'data-state': 'none' });
  const sizeNote = h('p', { class: 'train-size-note' });
  root.append(controlRow(sizeSel, seedField), sizeNote, h('div', { class: 'stepper' }, bRun, bReset), status, savedLine);

  const chart = createChart(ctx, {
    title: 'train.chart.title', xLabel: 'train.chart.x', yLabel: 'train.chart.y', xMin: 0,
    series: [{ label: 'train.chart.train', kind: 'line' }, { label: 'train.chart.val', kind: 'points' }],
    formatX: (v) => big(v), formatY: (v) => num(v, 1), tableLabel: 'train.chart.table', testid: 'train-chart',
  });
  root.append(chart.el, h('p', {}, ctx.tNode('train.chart.note')));

  // attention of one head on a held-out line, and a sample
  const showIds = showcaseTokens(data, SHOW_LEN);
  const showChars = Array.from(detokenize(showIds, data));
  const layerSel = h('div'), headSel = h('div');
  const attn = createHeatmap(ctx, {
    label: 'train.attn.caption', rowTitle: 'train.attn.rows', colTitle: 'train.attn.cols',
    min: 0, max: 1, digits: 2, showValues: false, testid: 'train-attn', exportName: 'train-attention', labelWidth: 24,
  });
  attn.el.classList.add('train-attn');
  const sample = h('p', { class: 'train-sample', testid: 'train-sample', lang, dir: document.documentElement.dir || 'rtl' });
  root.append(h('h3', {}, ctx.tNode('train.attn.title')), h('p', {}, ctx.tNode('train.attn.p1')),
    h('div', { class: 'control-row' }, layerSel, headSel), attn.el, h('p', {}, ctx.tNode('train.attn.legend')),
    h('p', {}, ctx.tNode('train.sample.p1')), sample);

  // ================================================================ part 2: p − y
  const gradSlot = h('div', { class: 'table-slot', testid: 'train-grad' });
  const gradLine = h('p', { 'aria-live': 'polite' });
  const gradFormula = h('div', { class: 'formula' });
  root.append(h('h3', {}, ctx.tNode('train.grad.title')), h('p', {}, ctx.tNode('train.grad.p1')), gradFormula,
    h('p', {}, ctx.tNode('train.grad.p2')), gradLine, gradSlot, h('p', {}, ctx.tNode('train.grad.p3')));
  gradFormula.append(ctx.renderMath('L = -\\ln p_{y} ,\\qquad \\frac{\\partial L}{\\partial z_i} = p_i - y_i', { display: true }));

  // ---------------------------------------------------------------- the worker of this chapter
  const trainer = createEngineClient();
  const store = openRunStore();
  const validation = validationWindows(data, SIZES.small.length);   // the same windows for both sizes
  globalThis.__train = { engine: trainer, modelId: () => run.id, validation, data };

  const size = () => SIZES[st.size];
  function setState(s) { status.dataset.state = s; renderButtons(); }
  function renderButtons() {
    const s = status.dataset.state;
    const action = run.running ? 'pause' : run.step > 0 ? 'resume' : 'start';
    bRun.dataset.action = action;
    setT(ctx, bRun, `train.ctl.${action}`);
    const off = run.locked || s === 'loading' || s === 'error' || (s === 'done' && !run.running);
    bRun.disabled = off;
    bReset.disabled = s === 'loading';
    sizeSel.input.disabled = run.running || run.locked;
    seedField.input.disabled = run.running || run.locked;
  }
  function renderStatus() {
    const lastT = run.history.train.at(-1), lastV = run.history.val.at(-1);
    const params = {
      step: big(run.step), total: big(TOTAL_STEPS),
      loss: lastT ? num(lastT[1]) : '—', val: lastV ? num(lastV[1]) : '—', tps: big(run.tps),
    };
    setT(ctx, status, run.tps > 0 ? 'train.status.withSpeed' : 'train.status.line', params);
    Object.assign(status.dataset, {
      step: String(run.step), loss: lastT ? String(lastT[1]) : '', val: lastV ? String(lastV[1]) : '',
      valStep: lastV ? String(lastV[0]) : '', tps: String(Math.round(run.tps)),
    });
  }
  // While a run goes, the status line (a polite live region) is rewritten at most every STATUS_MS,
  // not at every step (tens per second): less work per step, and a screen reader is not flooded.
  const STATUS_MS = 500;
  let statusTimer = null;
  function statusSoon() {
    if (statusTimer === null) statusTimer = setTimeout(() => { statusTimer = null; renderStatus(); }, STATUS_MS);
  }
  // The chart (and its data table) is redrawn at most every CHART_MS while a run goes, with the
  // training curve averaged to a few hundred points: the page stays responsive at step 3,000.
  const CHART_MS = 1000;
  let chartTimer = null, chartAt = 0;
  function renderChart() {
    if (chartTimer !== null) return;
    chartTimer = setTimeout(() => requestAnimationFrame(() => {
      chartTimer = null;
      chartAt = performance.now();
      chart.update([curvePoints(run.history.train), run.history.val.map(([x, y]) => ({ x, y }))], {
        guides: [
          { axis: 'y', value: base.uniform, label: ctx.t('train.chart.uniform', { v: num(base.uniform, 2) }) },
          { axis: 'y', value: base.unigram, label: ctx.t('train.chart.unigram', { v: num(base.unigram, 2) }) },
          { axis: 'y', value: base.bigram, label: ctx.t('train.chart.bigram', { v: num(base.bigram, 2) }) },
        ],
      });
    }), Math.max(0, CHART_MS - (performance.now() - chartAt)));
  }
  function renderSizeNote() {
    const c = size().config;
    setT(ctx, sizeNote, st.size === auto ? 'train.size.noteAuto' : 'train.size.note', {
      w: big(c.width), l: big(c.layers), h: big(c.heads), T: big(c.context), b: big(size().batch),
    });
  }

  function headSelects(config) {
    const mk = (slot, key, n, testid) => {
      st[key] = intIn(state.get(key, 1), 1, n, 1);
      const s = select(ctx, {
        label: `train.ctl.${key}`, testid, value: st[key],
        options: Array.from({ length: n }, (_, i) => ({ value: i + 1, label: big(i + 1) })),
        onChange: (v) => { st[key] = v; state.set(key, v === 1 ? null : v); showModel(); },
      });
      slot.replaceChildren(s.el);
    };
    mk(layerSel, 'layer', config.layers, 'train-layer');
    mk(headSel, 'head', config.heads, 'train-head');
  }

  // What the model does now: the held-out loss point, the attention map, a sample, p − y.
  // The engine calls come first and every write to the page then lands in one frame: written
  // as each answer arrived, a training chunk dirtied four frames in a row, and a key press
  // during any of them waited for its layout and paint.
  let lastShown = -1;
  async function showModel({ val = false } = {}) {
    if (run.id === null) return;
    const id = run.id, step = run.step;
    let valLoss = null;
    if (val && !(run.history.val.at(-1)?.[0] === step)) {
      valLoss = await trainer.charModelEvaluate({ id, ...validation });
      if (id !== run.id) return;
    }
    const f = await trainer.charModelForward({ id, tokens: showIds });
    if (id !== run.id) return;
    let text = null;
    if (step !== lastShown) {
      lastShown = step;
      const s = await trainer.charModelSample({ id, prompt: Array.from(showIds.subarray(0, 8)), count: SAMPLE_LEN, temperature: 0.8, seed: st.seed + 1 });
      if (id !== run.id) return;
      text = detokenize(showIds.subarray(0, 8), data) + detokenize(s, data);
    }
    await nextFrame();
    if (id !== run.id) return;
    if (valLoss !== null) {
      run.history.val.push([step, valLoss]);
      renderStatus();
      renderChart();
    }
    const m = f.attention[st.layer - 1]?.[st.head - 1];
    if (m) attn.update(m, { rowLabels: showChars.map(charLabel), colLabels: showChars.map(charLabel) });
    attn.el.dataset.step = String(step);
    // p − y at the last position of the line: what the model gives the character that follows it
    const T = showIds.length - 1;
    const probs = f.probs.data.subarray((T - 1) * V, T * V);
    const g = crossEntropyRow(probs, showIds[T], 5);
    const ch = (i) => h('bdi', {}, `«${charLabel(String.fromCodePoint(data.vocab[i]))}»`);
    setT(ctx, gradLine, 'train.grad.live', { step: big(step), loss: num(g.loss), next: ctx.t('train.grad.nextChar') });
    gradLine.append(' ', ch(showIds[T]));
    gradSlot.replaceChildren(simpleTable(ctx, {
      caption: 'train.grad.caption', headers: ['train.grad.char', 'train.grad.p', 'train.grad.y', 'train.grad.g'],
      rows: g.rows.map((r) => [ch(r.id), num(r.p), big(r.y), num(r.g)]), testid: 'train-grad-table',
    }));
    gradSlot.dataset.step = String(step);
    if (text !== null) {
      sample.textContent = text;
      sample.dataset.step = String(step);
    }
  }

  // ---------------------------------------------------------------- saving
  let lastSave = 0, saving = Promise.resolve();
  function save() {
    if (run.id === null || run.locked) return saving;
    const id = run.id;
    saving = saving.then(async () => {
      const bytes = await trainer.charModelSave({ id, format: 'f32', optimizer: true, vocabulary: data.vocab });
      const record = encodeRun({ lang, size: st.size, seed: st.seed, step: run.step, history: run.history, checkpoint: bytes });
      const r = await store.save(lang, record, { expect: run.savedAt });
      lastSave = performance.now();
      if (!r.ok && r.reason === 'conflict') {
        // another tab trained this run since: stop here rather than overwrite its progress
        run.locked = true;
        pause();
        savedLine.dataset.state = 'busy';
        setT(ctx, savedLine, 'train.saved.busy');
        renderButtons();
        return;
      }
      if (r.ok) {
        run.savedAt = JSON.parse(record.meta).savedAt; savedLine.dataset.state = 'saved'; delete savedLine.dataset.reason; savedLine.dataset.step = String(JSON.parse(record.meta).step); setT(ctx, savedLine, 'train.saved.saved', { step: big(run.step) }); }
      else { savedLine.dataset.state = 'unavailable'; savedLine.dataset.reason = r.reason; setT(ctx, savedLine, 'train.saved.notSaved'); }
    }).catch(() => {});
    return saving;
  }

  // ---------------------------------------------------------------- the loop
  async function trainLoop() {
    if (run.running || run.id === null || run.step >= TOTAL_STEPS) return;
    run.running = true;
    setState('running');
    let stepsPerCall = 5;
    try {
      while (run.running && run.step < TOTAL_STEPS) {
        const stop = new AbortController();
        run.stop = stop;
        const t0 = performance.now();
        let last = t0, lastStep = run.step;
        const steps = Math.min(stepsPerCall, TOTAL_STEPS - run.step);
        const r = await trainer.request('charModelTrain', [{
          id: run.id, tokens: data.train, steps, batch: size().batch, length: size().length, seed: chunkSeed(st.seed, run.step),
        }], {
          signal: stop.signal,
          onProgress: (p) => {
            run.history.train.push([p.step, p.loss]);
            run.step = p.step;
            const now = performance.now();
            if (now - last > 250) { run.tps = tokensPerSecond(st.size, p.step - lastStep, now - last); last = now; lastStep = p.step; }
            statusSoon();
            renderChart();
          },
        });
        run.step = r.step;
        const ms = performance.now() - t0;
        if (r.losses.length > 0) stepsPerCall = Math.max(1, Math.min(200, Math.round((r.losses.length * CHUNK_MS) / Math.max(1, ms))));
        await showModel({ val: true });
        if (performance.now() - lastSave > SAVE_EVERY_MS) save();
        if (r.aborted) break;
      }
    } catch (e) {
      run.running = false;
      clearTimeout(statusTimer);
      statusTimer = null;
      setState('error');
      ctx.showError(status, e);
      return;
    }
    run.running = false;
    run.stop = null;
    await save();
    clearTimeout(statusTimer);
    statusTimer = null;
    renderStatus();
    setState(run.step >= TOTAL_STEPS ? 'done' : 'paused');
  }
  function pause() { if (run.stop) run.stop.abort(); run.running = false; renderButtons(); }

  // a new model with random weights (seed, size), its step-0 loss on the held-out windows
  async function newModel() {
    if (run.id !== null) { const old = run.id; run.id = null; trainer.charModelDelete({ id: old }).catch(() => {}); }
    const r = await trainer.charModelCreate(modelConfig(st.size, V, st.seed));
    run.id = r.id;
    run.step = 0;
    run.tps = 0;
    run.history = { train: [], val: [] };
    lastShown = -1;
    headSelects(r.config);
    await showModel({ val: true });
    renderStatus();
    renderChart();
  }
  let freshChain = Promise.resolve();
  function fresh() {
    pause();
    freshChain = freshChain.then(async () => {
      setState('loading');
      await saving;
      await store.clear(lang);
      run.savedAt = null;
      run.locked = false;
      savedLine.dataset.state = 'none';
      savedLine.textContent = '';
      renderSizeNote();
      await newModel();
      setState('idle');
    }).catch((e) => { setState('error'); ctx.showError(status, e); });
    return freshChain;
  }

  bRun.addEventListener('click', () => { if (run.running) pause(); else trainLoop(); });
  bReset.addEventListener('click', () => fresh());

  // ---------------------------------------------------------------- start: the saved run, or a fresh one
  renderSizeNote();
  renderButtons();
  await trainer.ready;
  async function restoreOrFresh() {
    setState('loading');
    const got = await store.load(lang);
    if (got.status === 'ok') {
      try {
        const r = await trainer.charModelLoad({ bytes: got.run.checkpoint });
        if (r.vocabulary.length !== V || r.vocabulary.some((c, i) => c !== data.vocab[i])) throw Object.assign(new Error('vocabulary'), { code: 'vocabulary' });
        st.size = got.run.size; st.seed = got.run.seed;
        sizeSel.value = st.size; seedField.value = st.seed;
        state.setMany({ size: st.size === auto ? null : st.size, seed: st.seed === 1 ? null : st.seed });
        run.id = r.id;
        run.savedAt = got.run.savedAt;
        run.step = got.run.step;
        run.history = { train: got.run.history.train.slice(), val: got.run.history.val.slice() };
        headSelects(r.config);
        renderSizeNote();
        await showModel({ val: true });
        renderStatus();
        renderChart();
        savedLine.dataset.state = 'restored';
        savedLine.dataset.step = String(run.step);
        setT(ctx, savedLine, 'train.saved.restored', { step: big(run.step) });
        setState(run.step >= TOTAL_STEPS ? 'done' : run.step > 0 ? 'paused' : 'idle');
        return;
      } catch {
        got.status = 'refused';
        got.reason = 'checkpoint';
      }
    }
    await newModel();
    if (got.status === 'refused') {
      // the damaged copy stays until the reader starts a fresh run (a newer site's copy is not lost)
      savedLine.dataset.state = 'refused';
      savedLine.dataset.reason = got.reason;
      setT(ctx, savedLine, `train.saved.${got.reason}`);
      const again = h('button', { type: 'button', class: 'btn btn-secondary', testid: 'train-fresh' }, ctx.tNode('train.saved.fresh'));
      again.addEventListener('click', () => fresh());
      savedLine.append(' ', again);
      run.refused = true;
    } else if (got.status === 'unavailable') {
      savedLine.dataset.state = 'unavailable';
      setT(ctx, savedLine, 'train.saved.unavailable');
    }
    setState('idle');
  }
  await restoreOrFresh();

  // ================================================================ part 3: the backward, tile by tile
  await mountBackwardSteps(root, ctx);
}
