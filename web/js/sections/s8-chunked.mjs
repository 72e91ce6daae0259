// Section 8: chunked attention. Part 1 steps through online softmax for one
// query row, tile by tile (engine.onlineSoftmaxTrace), and ends with the
// materialized result and the max difference. With the causal option the
// trace is the engine's causal trace of row i (tiles past the row are never
// read, the diagonal tile is partly masked), and a tile grid shows, for every
// query tile, which key tiles are full, partly masked (the diagonal) or skipped
// (s8-compute.mjs classifyTile; the browser test checks it against the engine's causal weights).
// The numbers come from s8-compute.mjs (no DOM, tested in Node); this file keeps the URL
// state, the controls and the drawing.
// Engineering detail (memory budget, worker pool, scratch and checksum) sits in
// native <details> folds whose open state is in the URL. Part 2 ("at scale") runs one
// head, d = 64, at a length n the learner picks (up to 131,072, the default):
//   1. the materialized path is asked first, in one engine with its real default
//      memory budget, for the whole n×n matrix: past the budget the engine
//      refuses before allocating it ('TooLarge') and the page says how much it
//      would need (scoreMatrixBytes: 64 GiB at n = 131,072); below, it runs;
//   2. the chunked path runs through an engine pool (engine-pool.mjs: query rows
//      split across plain Web Workers, each with its own engine, rowOffset per
//      slice) with a progress bar, elapsed time, an estimate of the time left and
//      a cancel button; at the end: time, GFLOP/s (2·n²·d flops causal, 4·n²·d
//      otherwise), scratch memory per worker, three rows checked against the
//      engine's reference, and the sum of all outputs.
// Q, K, V come from the engine's randomNormal (seeds 1, 2, 3) inside every worker.
// The pool is created for a run and terminated after it (its memory goes with it),
// so part 2 never stalls or kills the calls of the other sections.
//
// URL state (section s8): keys (2…16), block (1…16), seed (0…1e9), step (0…tiles+1),
//   causal (bool, default false), row (traced query row, 0…keys−1), qt (query tile shown in the grid),
//   more.<fold> (1 when a fold is open: budget, workers, run),
//   bigN (4096…131072, default 131072), bigCausal (bool, default true).
// data-testid hooks:
//   s8-keys, s8-block, s8-seed (text inputs; errors in <id>-error), s8-scores (score strip),
//   s8-first, s8-prev, s8-next, s8-last (buttons; aria-disabled at the ends), s8-step (data-step, data-steps),
//   s8-explain (current step text), s8-trace-table (rows up to the current step),
//   s8-final (shown on the last step), s8-maxdiff (data-diff = max |online − materialized|),
//   s8-causal (checkbox), s8-row (text input), s8-scores li.masked (keys the mask hides from the row),
//   s8-tiles (grid <table>: td[data-q][data-k][data-kind = full|partial|skip], tr.is-current),
//   s8-tile-counts (data-full, data-partial, data-skip, data-computed, data-visible),
//   s8-qt-prev, s8-qt-next, s8-qt (data-qt, data-qts), s8-qt-explain,
//   s8-fold-budget, s8-fold-workers, s8-fold-run (<details>),
//   s8-big-n (select), s8-big-causal (checkbox), s8-run, s8-cancel, s8-progress (<progress>),
//   s8-elapsed (data-ms), s8-eta (data-ms when known),
//   s8-mat-status (data-state = running|refused|done|cancelled|failed; data-n, data-need (bytes of the
//     n×n matrix), data-budget when refused, data-ms when done),
//   s8-chunk-status (data-state = waiting|running|done|cancelled|failed; data-first-done / data-first-ms:
//     rows done at the first progress update and ms from the start of the chunked call; when done: data-n, data-d,
//     data-causal, data-workers, data-ms, data-gflops, data-scratch (per worker), data-heap (largest wasm
//     heap of a worker), data-checksum, data-maxdiff (max |chunked − reference| over the checked rows)),
//   s8-checks (the check paragraphs), s8-big-table (one row per finished run; data-n, data-refused,
//     data-ms, data-gflops, data-scratch on each <tr>).

import { createEnginePool } from '../engine-link/engine-pool.mjs';
import { countdownEstimate } from '../engine-link/row-tasks.mjs';
import { select, checkbox, intField, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { longRun } from '../widgets/long-run.mjs';
import { fold } from '../widgets/fold.mjs';
import { h, setT, serial } from '../dom.mjs';
import { oneOf, intIn } from '../state.mjs';
import { ltrNumber } from '../i18n/numerals.mjs';
import { traceCells } from './s8-trace-row.mjs';
import {
  D, KEYS_MAX, BLOCK_MAX, SEED_MAX, BIG_D, BIG_BLOCK, BIG_SEED, BIG_NS, BIG_DEFAULT, EQUAL_TOL,
  tileGrid, computeTrace, askMaterialized, runChunked,
} from './s8-compute.mjs';

// A fold "for the curious" (widgets/fold.mjs): closed unless the URL says more.<id>=1
// (the key s8 links have always used), its first paragraph says why it is there.
function s8Fold(ctx, id, ...body) {
  const f = fold(ctx, { name: id, key: `more.${id}`, summary: `s8.fold.${id}`, why: `s8.fold.${id}Why`, testid: `s8-fold-${id}` });
  f.body.append(...body);
  return f.el;
}

// Bytes in the page's unit words (MiB, GiB, …), or plain MiB where the text has none.
const bytesOf = (ctx) => (b) => (ctx.has && ctx.has('site.unit.MiB') ? ctx.fmtBytes(b)
  : `${ctx.fmt(b / 2 ** 20, { maximumFractionDigits: 2 })} MiB`);

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const st = {
    keys: intIn(state.get('keys', 10), 2, KEYS_MAX, 10),
    block: intIn(state.get('block', 3), 1, BLOCK_MAX, 3),
    seed: intIn(state.get('seed', 7), 0, SEED_MAX, 7),
    step: intIn(state.get('step', 0), 0, 64, 0),
    causal: state.get('causal', false) === true,
    row: intIn(state.get('row', 0), 0, KEYS_MAX - 1, 0),
    qt: intIn(state.get('qt', 0), 0, KEYS_MAX - 1, 0),
    bigN: oneOf(BIG_NS, state.get('bigN', BIG_DEFAULT), BIG_DEFAULT),
    bigCausal: state.get('bigCausal', true) !== false,
  };
  const f3 = (x) => fmt(x, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
  // vectors as mathematics writes them: left to right, component 0 on the left (like the heatmaps)
  const vec = (a) => ctx.ltrExpr(`(${Array.from(a, f3).join(', ')})`, 'ltr vec');

  // the lead in two paragraphs: the three running quantities, then where the idea comes from
  const years = { y1: fmt(2018, { useGrouping: false }), y2: fmt(2022, { useGrouping: false }) };
  root.append(h('p', { class: 'lead' }, ctx.tNode('s8.lead', years)), h('p', {}, ctx.tNode('s8.lead2', years)));

  // ================================================================ part 1: the trace
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

  // ---- the query-tile view: every query tile against every key tile under the causal rule
  const qtPrev = btn('s8.tiles.prev', 's8-qt-prev'), qtNext = btn('s8.tiles.next', 's8-qt-next');
  const qtLabel = h('span', { class: 'step-label', testid: 's8-qt', 'aria-live': 'polite' });
  const qtExplain = h('div', { class: 'step-explain', testid: 's8-qt-explain', 'aria-live': 'polite' });
  const tileCounts = h('p', { testid: 's8-tile-counts' });
  const tileSlot = h('div', { class: 'table-slot tile-grid-slot' });
  const tileCap = h('p', { class: 'tile-grid-cap', id: 's8-tiles-cap' }, ctx.tNode('s8.tiles.caption'));
  const legend = h('ul', { class: 'tile-legend' },
    ...['full', 'partial', 'skip'].map((k) => h('li', {}, h('span', { class: `tile-swatch kind-${k}`, 'aria-hidden': 'true' }), ctx.tNode(`s8.tiles.kind.${k}`))));
  root.append(h('h3', {}, ctx.tNode('s8.tiles.title')), h('p', {}, ctx.tNode('s8.tiles.p')), tileCounts, legend, tileCap, tileSlot,
    h('div', { class: 'stepper' }, qtPrev, qtLabel, qtNext), qtExplain);

  function renderTiles() {
    const n = data.keys, b = data.block, causal = data.causal;
    const { T, span, kinds, count, computed, visible } = tileGrid(n, b, causal);
    st.qt = Math.min(st.qt, T - 1);
    setT(ctx, tileCounts, causal ? 's8.tiles.counts' : 's8.tiles.countsFull', {
      n: fmt(n), b: fmt(b), tiles: fmt(T * T), full: fmt(count.full), partial: fmt(count.partial), skip: fmt(count.skip),
      computed: fmt(computed), all: fmt(n * n), visible: fmt(visible),
    });
    Object.assign(tileCounts.dataset, { full: count.full, partial: count.partial, skip: count.skip, computed, visible });

    // the grid: rows are query tiles, columns key tiles; a word per cell for screen readers
    // labelled by the paragraph above it: a <caption> would wrap to the width of a small grid
    const table = h('table', { class: 'tile-grid', dir: 'ltr', testid: 's8-tiles', 'aria-labelledby': tileCap.id },
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }),
        ...Array.from({ length: T }, (_, ki) => h('th', { scope: 'col' }, fmt(ki + 1))))));
    const tbody = h('tbody');
    kinds.forEach((row, qi) => {
      const tr = h('tr', { class: qi === st.qt ? 'is-current' : null },
        h('th', { scope: 'row' }, fmt(qi + 1)));
      row.forEach((kind, ki) => tr.append(h('td', { class: `kind-${kind}`, dataset: { q: qi, k: ki, kind } },
        h('span', { class: 'visually-hidden' }, ctx.t(`s8.tiles.word.${kind}`)))));
      tbody.append(tr);
    });
    table.append(tbody);
    tileSlot.textContent = '';
    tileSlot.append(table);

    // the current query tile in words
    const [q0, q1] = span(st.qt);
    const ids = (kind) => kinds[st.qt].map((k, i) => (k === kind ? i : -1)).filter((i) => i >= 0);
    // tiles, keys and rows are shown counted from 1, as everywhere in the prose
    const list = (a) => (a.length ? (a.length === 1 ? fmt(a[0] + 1) : ctx.t('s8.range', { from: fmt(a[0] + 1), to: fmt(a[a.length - 1] + 1) })) : ctx.t('s8.tiles.none'));
    // «tile k of T»: a from–to form here read as a row range next to the rows' own range
    setT(ctx, qtLabel, 's8.tiles.qtOf', { k: fmt(st.qt + 1), last: fmt(T) });
    qtLabel.dataset.qt = String(st.qt);
    qtLabel.dataset.qts = String(T);
    for (const [bt, off] of [[qtPrev, st.qt === 0], [qtNext, st.qt === T - 1]]) {
      if (off) bt.setAttribute('aria-disabled', 'true'); else bt.removeAttribute('aria-disabled');
    }
    qtExplain.textContent = '';
    qtExplain.append(h('p', {}, ctx.tNode('s8.tiles.qtRows', { t: fmt(st.qt + 1), r0: fmt(q0 + 1), r1: fmt(q1) })));
    const ul = h('ul', { class: 'calc-list' });
    for (const kind of ['full', 'partial', 'skip']) {
      ul.append(h('li', { dataset: { kind, tiles: ids(kind).join(',') } }, ctx.tNode(`s8.tiles.li.${kind}`, { list: list(ids(kind)), count: fmt(ids(kind).length) })));
    }
    qtExplain.append(ul);
  }
  const goQt = (t) => { if (!data) return; st.qt = Math.max(0, Math.min(Math.ceil(data.keys / data.block) - 1, t)); state.set('qt', st.qt || null); renderTiles(); };
  qtPrev.addEventListener('click', () => goQt(st.qt - 1));
  qtNext.addEventListener('click', () => goQt(st.qt + 1));

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
    const { scores, trace } = data;
    const T = trace.steps.length;
    const total = T + 2;                       // start, one per tile, result
    const s = st.step;
    const cur = s >= 1 && s <= T ? trace.steps[s - 1] : null;
    setT(ctx, setup, 's8.setup', { d: fmt(D), keys: fmt(data.keys), seed: fmt(data.seed, { useGrouping: false }), block: fmt(data.block) });
    setup.append(' ', ctx.tNode(data.causal ? 's8.setupCausal' : 's8.setupRow', { row: fmt(data.row + 1), first: fmt(1) }));

    // score strip: tiles, processed keys, the current tile and its max
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

    setT(ctx, stepLabel, 's8.stepOf', { k: fmt(s + 1), total: fmt(total) });
    stepLabel.dataset.step = String(s);
    stepLabel.dataset.steps = String(total);
    // aria-disabled, not disabled: the focused button keeps focus at either end
    for (const [b, off] of [[bFirst, s === 0], [bPrev, s === 0], [bNext, s === total - 1], [bLast, s === total - 1]]) {
      if (off) b.setAttribute('aria-disabled', 'true'); else b.removeAttribute('aria-disabled');
    }

    // explanation of the current step
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

    // the table of tiles processed so far
    const upto = Math.min(T, s);
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

    // the result
    finalBox.hidden = s !== total - 1;
    finalBox.textContent = '';
    if (s === total - 1) {
      const { diff } = data;
      finalBox.append(h('p', {}, ctx.tNode('s8.final', { out: vec(trace.out), ref: vec(data.mat) })));
      const md = h('p', { class: 'big-result', testid: 's8-maxdiff' }, ctx.tNode('s8.maxdiff', { diff: fmt(diff, { maximumSignificantDigits: 3 }) }));
      md.dataset.diff = String(diff);
      md.dataset.refDiff = String(trace.maxAbsDiff);
      finalBox.append(md);
      if (diff < EQUAL_TOL) finalBox.append(h('p', {}, ctx.tNode('s8.equal')));
    }
    renderTiles();
  }

  const go = (s) => { if (!data) return; st.step = Math.max(0, Math.min(data.trace.steps.length + 1, s)); state.set('step', st.step); render(); };
  bFirst.addEventListener('click', () => go(0));
  bPrev.addEventListener('click', () => go(st.step - 1));
  bNext.addEventListener('click', () => go(st.step + 1));
  bLast.addEventListener('click', () => go(Infinity));

  await load();

  await atScale(root, ctx, st);
}

// Part 2, one head at length n: the materialized path asked first, then the chunked path
// through an engine pool, with progress, clock, cancel and a table of finished runs.
async function atScale(root, ctx, st) {
  const { engine, state, fmt } = ctx;
  const bytes = bytesOf(ctx);
  // one decimal from a second up; below, two significant digits (a 44 ms run
  // read "0.0 seconds" with one decimal)
  const sec1 = (ms) => (ms < 1000 ? fmt(ms / 1000, { maximumSignificantDigits: 2 })
    : fmt(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
  const sec0 = (ms) => fmt(Math.round(ms / 1000), { maximumFractionDigits: 0 });
  const causalPairsBn = (BIG_DEFAULT * (BIG_DEFAULT + 1)) / 2 / 1e9;
  const poolSize = (() => { const hc = navigator.hardwareConcurrency || 2; return Math.max(1, Math.min(hc, 4)); })();

  const bigP = h('p', {}, ctx.tNode('s8.big.p', { d: fmt(BIG_D), bq: fmt(BIG_BLOCK), bk: fmt(BIG_BLOCK), seed: fmt(BIG_SEED) }));
  const budgetP = h('p');
  const workersP = h('p', {}, ctx.tNode('s8.big.workers', { w: fmt(poolSize) }));
  const timeP = h('p', { class: 'note' }, ctx.tNode('s8.big.timeNote', {
    n: fmt(BIG_DEFAULT), bn: fmt(causalPairsBn, { maximumFractionDigits: 1 }),
  }));
  const runBtn = h('button', { type: 'button', class: 'btn btn-primary btn-big', testid: 's8-run' });
  const setRunLabel = () => setT(ctx, runBtn, 's8.big.run', { n: fmt(st.bigN) });
  const nCtl = select(ctx, {
    label: 's8.big.n', value: st.bigN, testid: 's8-big-n',
    options: BIG_NS.map((n) => ({ value: n, label: fmt(n) })),
    onChange: (v) => { st.bigN = Number(v); state.set('bigN', st.bigN); setRunLabel(); },
  });
  const causalCtl = checkbox(ctx, { label: 's8.big.causal', checked: st.bigCausal, testid: 's8-big-causal',
    onChange: (on) => { st.bigCausal = on; state.set('bigCausal', on); } });
  setRunLabel();
  const cancelBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's8-cancel', disabled: true }, ctx.tNode('s8.big.cancel'));
  const prog = h('progress', { max: '1', value: '0', testid: 's8-progress' });
  prog.setAttribute('aria-label', ctx.t('s8.big.progress'));
  const elapsedEl = h('span', { class: 'run-clock', testid: 's8-elapsed' });
  const etaEl = h('span', { class: 'run-clock', testid: 's8-eta' });
  const matStatus = h('p', { testid: 's8-mat-status', 'aria-live': 'polite' });
  const chunkStatus = h('p', { testid: 's8-chunk-status', 'aria-live': 'polite' });
  const clockRow = h('p', { class: 'run-clocks', hidden: true }, elapsedEl, etaEl);
  const resultBox = h('div', { class: 'big-summary', testid: 's8-checks', hidden: true });
  const bigTable = h('div', { class: 'table-slot' });
  root.append(h('h3', {}, ctx.tNode('s8.big.title', { n: fmt(BIG_DEFAULT) })), bigP, timeP,
    s8Fold(ctx, 'budget', budgetP), s8Fold(ctx, 'workers', workersP),
    h('div', { class: 'experiment-panel' }, controlRow(nCtl, causalCtl),
      h('div', { class: 'run-row' }, runBtn, cancelBtn, prog), clockRow),
    h('div', { class: 'experiment-result big-run' },
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.matLabel')), matStatus,
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.chunkLabel')), chunkStatus, resultBox, bigTable));
  setT(ctx, matStatus, 's8.big.idle');
  setT(ctx, chunkStatus, 's8.big.idle');

  // the budget paragraph: the default budget as the page's engine reports it. The budget is the
  // address space minus what is in use, so it moves: a refusal rewrites this paragraph with the
  // budget it was refused under, and the page never shows two budgets (4 GiB here, 3.9 there)
  const showBudget = (b) => { budgetP.dataset.budget = String(b); setT(ctx, budgetP, 's8.big.budget', { def: bytes(b) }); };
  try {
    showBudget(await engine.memoryBudget());
  } catch { /* the paragraph stays empty; the run still works */ }

  const history = [];        // finished runs, newest last

  function drawHistory() {
    bigTable.textContent = '';
    if (!history.length) return;
    const wrap = simpleTable(ctx, {
      testid: 's8-big-table', caption: ctx.tNode('s8.big.tableCaption', { d: fmt(BIG_D) }), stack: true,
      headers: ['s8.big.col.n', 's8.big.col.mask', 's8.big.col.mat', 's8.big.col.chunk', 's8.big.col.gflops',
        's8.big.col.scratch', 's8.big.col.workers'],
      rows: history.map((r) => [
        fmt(r.n),
        ctx.tNode(r.causal ? 's8.big.yes' : 's8.big.no'),
        r.refused ? ctx.tNode('s8.big.cellRefused', { need: bytes(r.need) }) : ctx.tNode('s8.big.cellSec', { sec: sec1(r.matMs) }),
        ctx.tNode('s8.big.cellSec', { sec: sec1(r.ms) }),
        fmt(r.gflops, { maximumFractionDigits: 1 }),
        bytes(r.scratch),
        fmt(r.workers),
      ]),
    });
    wrap.querySelectorAll('tbody tr').forEach((tr, i) => {
      const r = history[i];
      Object.assign(tr.dataset, { n: r.n, refused: !!r.refused, ms: r.ms, gflops: r.gflops, scratch: r.scratch });
    });
    bigTable.append(wrap);
  }

  const setState = (node, s) => { node.dataset.state = s; };
  const clearData = (node) => { for (const k of Object.keys(node.dataset)) if (k !== 'testid') delete node.dataset[k]; };

  // the run in progress: its pool, its clock, and which path it is on (what a failure reports)
  let pool = null, ticker = null, phase = 'mat';
  async function run(signal) {
    const n = st.bigN, causal = st.bigCausal;
    prog.value = 0;
    resultBox.hidden = true; resultBox.textContent = '';
    clearData(matStatus); clearData(chunkStatus);
    clockRow.hidden = true;
    setState(chunkStatus, 'waiting');
    setT(ctx, chunkStatus, 's8.big.chunkWaiting');
    pool = createEnginePool();
    const row = { n, causal };
    phase = 'mat';
    // ---- 1. the materialized path: one engine, the whole n×n matrix, the real budget
    const m = await askMaterialized(engine, pool, { n, causal }, {
      signal,
      onAsking: (need) => {
        Object.assign(matStatus.dataset, { n, need });
        setState(matStatus, 'running');
        setT(ctx, matStatus, 's8.big.matAsking', { n: fmt(n) });
      },
    });
    const { need } = m;
    row.need = need;
    if (m.refused) {
      row.refused = true;
      matStatus.dataset.budget = m.budget;
      setT(ctx, matStatus, 's8.big.refused', { n: fmt(n), need: bytes(need), budget: bytes(m.budget) });
      showBudget(m.budget);
      setState(matStatus, 'refused');
    } else {
      row.matMs = m.ms;
      matStatus.dataset.ms = m.ms;
      setT(ctx, matStatus, 's8.big.matDone', { sec: sec1(m.ms), need: bytes(need) });
      setState(matStatus, 'done');
    }

    // ---- 2. the chunked path through the pool
    phase = 'chunk';
    setState(chunkStatus, 'running');
    setT(ctx, chunkStatus, 's8.big.chunkRunning', { done: fmt(0), total: fmt(n) });
    const t0 = performance.now();
    let last = { done: 0, total: n, workDone: 0, workTotal: 1 };
    const timeLeft = countdownEstimate();   // counts down between progress reports
    const tick = () => {
      const el = performance.now() - t0;
      elapsedEl.dataset.ms = String(Math.round(el));
      setT(ctx, elapsedEl, 's8.big.elapsed', { sec: sec0(el) });
      const left = timeLeft(el, last);
      if (left == null) { delete etaEl.dataset.ms; setT(ctx, etaEl, 's8.big.etaUnknown'); }
      else { etaEl.dataset.ms = String(Math.round(left)); setT(ctx, etaEl, 's8.big.eta', { sec: sec0(Math.max(1000, left)) }); }
    };
    clockRow.hidden = false;
    tick();
    ticker = setInterval(tick, 1000);
    // one task per query tile (runChunked): with the pool's default of 16 tasks per worker,
    // 4,096 rows at n = 131,072, the first update came after the most expensive sixteenth
    // of a worker's share
    const r = await runChunked(pool, { n, causal }, {
      signal,
      onProgress: (p) => {
        if (!('firstDone' in chunkStatus.dataset)) {
          chunkStatus.dataset.firstDone = String(p.done);
          chunkStatus.dataset.firstMs = String(Math.round(performance.now() - t0));
        }
        last = p;
        prog.value = p.done / p.total;
        setT(ctx, chunkStatus, 's8.big.chunkRunning', { done: fmt(p.done), total: fmt(p.total) });
        tick();
      },
    });
    clearInterval(ticker); ticker = null;
    tick();
    delete etaEl.dataset.ms;
    etaEl.textContent = '';
    prog.value = 1;
    const { gflops, maxDiff } = r;
    Object.assign(row, { ms: r.ms, gflops, scratch: r.scratch, workers: r.workers });
    Object.assign(chunkStatus.dataset, {
      n, d: r.d, causal, workers: r.workers, ms: r.ms, gflops, scratch: r.scratch, heap: r.heap,
      checksum: r.checksum, maxdiff: maxDiff,
    });
    setT(ctx, chunkStatus, causal ? 's8.big.chunkDone' : 's8.big.chunkDoneFull', {
      sec: sec1(r.ms), w: fmt(r.workers), gflops: fmt(gflops, { maximumFractionDigits: 1 }),
    });
    setState(chunkStatus, 'done');
    const rows = r.checks.map((c) => fmt(c.row + 1));   // engine rows are 0-based; prose counts from 1
    resultBox.append(
      h('p', {}, ctx.tNode('s8.big.check', {
        r1: rows[0], r2: rows[1] ?? rows[0], r3: rows[2] ?? rows[0], diff: fmt(maxDiff, { maximumSignificantDigits: 2 }),
      })),
      s8Fold(ctx, 'run',
        h('p', {}, ctx.tNode('s8.big.scratch', {
          scratch: bytes(r.scratch), full: bytes(need),
          ratio: fmt(need / Math.max(1, r.scratch), { maximumFractionDigits: 0 }), inputs: bytes(3 * n * r.d * 4),
        })),
        h('p', {}, ctx.tNode('s8.big.checksum', { count: fmt(n * r.d), sum: fmt(r.checksum, { maximumFractionDigits: 4 }) }))),
    );
    resultBox.hidden = false;
    history.push(row);
    drawHistory();
  }
  // Either outcome leaves the path that was running marked, and the chunked path (not yet
  // started when the materialized one stopped) idle with the same state.
  const stopped = (state, show) => {
    const node = phase === 'mat' ? matStatus : chunkStatus;
    show(node);
    setState(node, state);
    if (phase === 'mat') { setT(ctx, chunkStatus, 's8.big.idle'); setState(chunkStatus, state); }
  };
  longRun({
    runBtn, cancelBtn, inputs: [nCtl.input, causalCtl.input],
    start: run,
    cancelled: () => stopped('cancelled', (node) => setT(ctx, node, 's8.big.cancelled')),
    failed: (err) => {
      console.error('s8 at scale', err);
      stopped('failed', (node) => { node.textContent = ''; node.append(ctx.errorNode(err)); });
    },
    always: () => {
      if (ticker) clearInterval(ticker);
      ticker = null;
      // no estimate outlives its run (after a cancel it said "estimating…" for good)
      delete etaEl.dataset.ms;
      etaEl.textContent = '';
      if (pool) pool.terminate();
      pool = null;
    },
  });
}
