// Section 8, part 1: online softmax for one query row, step by step, tile by tile (the engine's
// trace through s8-compute.mjs computeTrace): the controls (keys, block, seed, causal, row), the
// score strip, the stepper and what the current step did, the table of tiles so far, and on the
// last step the result beside the materialized one with their max difference.
// testids and URL keys: s8-chunked.mjs's header.
//
//   mountStepThrough(root, ctx, st, {onRender(data)}) → {load()}
//     st: the section's state (keys, block, seed, step, causal, row), read and written here;
//     onRender: called after each render with computeTrace's result (the tile grid follows it);
//     load(): recompute the trace and render it (one run at a time)

import { intField, checkbox, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { ltrNumber } from '../i18n/numerals.mjs';
import { traceCells } from './s8-trace-row.mjs';
import { D, KEYS_MAX, BLOCK_MAX, SEED_MAX, EQUAL_TOL, computeTrace } from './s8-compute.mjs';

export function mountStepThrough(root, ctx, st, { onRender }) {
  const { engine, state, fmt } = ctx;
  const f3 = (x) => fmt(x, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
  // vectors as mathematics writes them: left to right, component 0 on the left (like the heatmaps)
  const vec = (a) => ctx.ltrExpr(`(${Array.from(a, f3).join(', ')})`, 'ltr vec');
  const nums = { f3, vec };

  const status = h('p', { class: 'status-line', 'aria-live': 'polite' });
  const keysCtl = intField(ctx, { label: 's8.ctl.keys', value: st.keys, min: 2, max: KEYS_MAX, errKey: 's8.err.int', testid: 's8-keys',
    onChange: (v) => { st.keys = v; st.step = 0; save(); load(); } });
  const blockCtl = intField(ctx, { label: 's8.ctl.block', value: st.block, min: 1, max: BLOCK_MAX, errKey: 's8.err.int', testid: 's8-block',
    onChange: (v) => { st.block = v; st.step = 0; save(); load(); } });
  const seedCtl = intField(ctx, { label: 's8.ctl.seed', value: st.seed, min: 0, max: SEED_MAX, errKey: 's8.err.int', testid: 's8-seed',
    onChange: (v) => { st.seed = v; st.step = 0; save(); load(); } });
  const traceCausalCtl = checkbox(ctx, { label: 's8.ctl.causal', checked: st.causal, testid: 's8-causal',
    onChange: (on) => { st.causal = on; st.step = 0; save(); load(); } });
  // the learner counts rows from 1 (s2's rule for prose); st.row and the URL keep the engine's 0-based index
  // its range follows the key count: «12» with 10 keys is refused with «1 to 10», not clamped silently
  const rowCtl = intField(ctx, { label: 's8.ctl.row', value: st.row + 1, min: 1, max: () => st.keys, errKey: 's8.err.row', testid: 's8-row',
    onChange: (v) => { st.row = v - 1; st.step = 0; save(); load(); } });
  const setup = h('p');
  const strip = h('ol', { class: 'score-strip', dir: 'ltr', testid: 's8-scores' });
  root.append(h('div', { class: 'experiment-panel' }, controlRow(keysCtl, blockCtl, seedCtl), controlRow(traceCausalCtl, rowCtl), status), setup, strip);

  const btn = (key, testid) => h('button', { type: 'button', class: 'btn btn-secondary', testid }, ctx.tNode(key));
  const bFirst = btn('s8.first', 's8-first'), bPrev = btn('s8.prev', 's8-prev');
  const bNext = btn('s8.next', 's8-next'), bLast = btn('s8.last', 's8-last');
  const stepLabel = h('span', { class: 'step-label', testid: 's8-step', 'aria-live': 'polite' });
  const explain = h('div', { class: 'step-explain', testid: 's8-explain', 'aria-live': 'polite' });
  const traceSlot = h('div', { class: 'table-slot' });
  const finalBox = h('div', { class: 'step-final', testid: 's8-final', hidden: true });
  root.append(h('div', { class: 'stepper' }, bFirst, bPrev, stepLabel, bNext, bLast), explain, traceSlot, finalBox);

  let data = null;   // computeTrace's result: {scores, trace, mat, diff, keys, block, seed, row, causal}
  function save() {
    state.setMany({ keys: st.keys, block: st.block, seed: st.seed, step: st.step, causal: st.causal || null, row: st.row || null });
  }

  const load = serial(async () => {
    try {
      // a row past the last key (fewer keys now) becomes the last row
      if (st.row > st.keys - 1) { st.row = st.keys - 1; rowCtl.value = st.row + 1; save(); }
      data = await computeTrace(engine, { keys: st.keys, block: st.block, seed: st.seed, row: st.row, causal: st.causal });
      st.step = Math.min(st.step, data.trace.steps.length + 1);
      status.textContent = '';
      render();
    } catch (err) {
      setT(ctx, status, 's8.err.engine');
      status.dataset.code = (err && err.code) || 'Unknown';
    }
  });

  function render() {
    if (!data) return;
    const { trace } = data;
    const T = trace.steps.length;
    const total = T + 2;                       // start, one per tile, result
    const s = st.step;
    setT(ctx, setup, 's8.setup', { d: fmt(D), keys: fmt(data.keys), seed: fmt(data.seed, { useGrouping: false }), block: fmt(data.block) });
    setup.append(' ', ctx.tNode(data.causal ? 's8.setupCausal' : 's8.setupRow', { row: fmt(data.row + 1), first: fmt(1) }));
    drawStrip(ctx, strip, data, s, nums);

    setT(ctx, stepLabel, 's8.stepOf', { k: fmt(s + 1), total: fmt(total) });
    stepLabel.dataset.step = String(s);
    stepLabel.dataset.steps = String(total);
    // aria-disabled, not disabled: the focused button keeps focus at either end
    for (const [b, off] of [[bFirst, s === 0], [bPrev, s === 0], [bNext, s === total - 1], [bLast, s === total - 1]]) {
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }

    explainStep(ctx, explain, data, s, nums);
    drawTraceTable(ctx, traceSlot, trace, Math.min(T, s), nums);
    drawFinal(ctx, finalBox, data, s === total - 1, nums);
    onRender(data);
  }

  const go = (s) => { if (!data) return; st.step = Math.max(0, Math.min(data.trace.steps.length + 1, s)); state.set('step', st.step); render(); };
  bFirst.addEventListener('click', () => go(0));
  bPrev.addEventListener('click', () => go(st.step - 1));
  bNext.addEventListener('click', () => go(st.step + 1));
  bLast.addEventListener('click', () => go(Infinity));

  return { load };
}

// The score strip at step s: tiles, processed keys, the current tile and its max.
function drawStrip(ctx, strip, data, s, { f3 }) {
  const { fmt } = ctx;
  const { scores, trace } = data;
  const T = trace.steps.length;
  const cur = s >= 1 && s <= T ? trace.steps[s - 1] : null;
  strip.textContent = '';
  for (let j = 0; j < data.keys; j++) {
    const tile = Math.floor(j / data.block);
    const li = h('li', { class: `tile-${tile % 2 ? 'odd' : 'even'}` });
    if (j % data.block === 0) li.classList.add('tile-start');
    const masked = data.causal && j > data.row;
    if (masked) li.classList.add('masked');
    else if (s > T || (s >= 1 && j < trace.steps[s - 1].keyEnd)) li.classList.add('seen');
    if (cur && j >= cur.keyBegin && j < cur.keyEnd) {
      li.classList.add('in-tile');
      if (!masked && scores[j] === cur.tileMax) li.classList.add('tile-max');
    }
    li.setAttribute('aria-label', ctx.t('s8.scoreLabel', { j: fmt(j + 1) }) + ': ' + f3(scores[j]) + (masked ? ` (${ctx.t('s8.maskedWord')})` : ''));
    li.append(h('span', { class: 'k' }, fmt(j + 1)), h('span', { class: 'v' }, ltrNumber(f3(scores[j]))));
    strip.append(li);
  }
}

// What step s did: the start (and, causal, the tiles never read), or the tile's max, rescale,
// running sum and accumulator.
function explainStep(ctx, explain, data, s, { f3, vec }) {
  const { fmt } = ctx;
  const { trace } = data;
  const T = trace.steps.length;
  const cur = s >= 1 && s <= T ? trace.steps[s - 1] : null;
  explain.textContent = '';
  const tilesAll = Math.ceil(data.keys / data.block);
  // 0-based engine indices in, 1-based numbers out
  const span = (a, b) => (a === b ? fmt(a + 1) : ctx.t('s8.range', { from: fmt(a + 1), to: fmt(b + 1) }));
  if (s === 0) {
    explain.append(h('p', {}, ctx.tNode('s8.step.start')));
    if (data.causal && tilesAll > T) {
      explain.append(h('p', {}, ctx.tNode('s8.step.causalSkip', { row: fmt(data.row + 1), tiles: span(T, tilesAll - 1), count: fmt(tilesAll - T) })));
    }
  } else if (cur) {
    const contrib = cur.lNew - cur.lOld * cur.rescale;
    explain.append(h('p', {}, ctx.tNode('s8.step.tile', { tile: fmt(cur.tile + 1), from: fmt(cur.keyBegin + 1), to: fmt(cur.keyEnd), tmax: f3(cur.tileMax) })));
    if (data.causal && cur.keyEnd - 1 > data.row) {
      explain.append(h('p', {}, ctx.tNode('s8.step.diag', { row: fmt(data.row + 1), keys: span(data.row + 1, cur.keyEnd - 1), count: fmt(cur.keyEnd - 1 - data.row) })));
    }
    if (cur.tile === 0 || cur.mOld === -Infinity || cur.mOld == null) explain.append(h('p', {}, ctx.tNode('s8.step.firstTile', { mNew: f3(cur.mNew), rescale: f3(cur.rescale) })));
    else if (cur.mNew > cur.mOld) explain.append(h('p', {}, ctx.tNode('s8.step.raised', { mOld: f3(cur.mOld), mNew: f3(cur.mNew), rescale: f3(cur.rescale) })));
    else explain.append(h('p', {}, ctx.tNode('s8.step.kept', { mOld: f3(cur.mOld), rescale: f3(cur.rescale) })));
    explain.append(h('p', {}, ctx.tNode('s8.step.sum', { lOld: f3(cur.lOld), rescale: f3(cur.rescale), contrib: f3(contrib), lNew: f3(cur.lNew) })));
    explain.append(h('p', {}, ctx.tNode('s8.step.acc', { acc: vec(cur.acc) })));
  }
}

// The table of the first `upto` tiles processed, the last one marked current.
function drawTraceTable(ctx, traceSlot, trace, upto, { f3, vec }) {
  const { fmt } = ctx;
  traceSlot.textContent = '';
  if (upto > 0) {
    const rows = [];
    for (let i = 0; i < upto; i++) {
      // every number of the row with the left-to-right minus (s8-trace-row.mjs)
      rows.push(traceCells(trace.steps[i], { f3, fmt, t: (k, params) => ctx.t(k, params), vec }));
    }
    traceSlot.append(simpleTable(ctx, {
      testid: 's8-trace-table', caption: 's8.tableCaption', stack: true,
      headers: ['s8.col.tile', 's8.col.keys', 's8.col.tmax', 's8.col.m', 's8.col.rescale', 's8.col.l', 's8.col.acc'],
      rows,
    }));
    traceSlot.querySelectorAll('tbody tr')[upto - 1].classList.add('is-current');
  }
}

// The result, on the last step only: the online output beside the materialized one.
function drawFinal(ctx, finalBox, data, last, { vec }) {
  const { fmt } = ctx;
  const { trace } = data;
  finalBox.hidden = !last;
  finalBox.textContent = '';
  if (last) {
    const { diff } = data;
    finalBox.append(h('p', {}, ctx.tNode('s8.final', { out: vec(trace.out), ref: vec(data.mat) })));
    const md = h('p', { class: 'big-result', testid: 's8-maxdiff' }, ctx.tNode('s8.maxdiff', { diff: fmt(diff, { maximumSignificantDigits: 3 }) }));
    md.dataset.diff = String(diff);
    md.dataset.refDiff = String(trace.maxAbsDiff);
    finalBox.append(md);
    if (diff < EQUAL_TOL) finalBox.append(h('p', {}, ctx.tNode('s8.equal')));
  }
}
