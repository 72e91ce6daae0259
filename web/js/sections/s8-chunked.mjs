// Section 8: chunked attention. Part 1 steps through online softmax for one
// query row, tile by tile (engine.onlineSoftmaxTrace), and ends with the
// materialized result and the max difference. Part 2 ("at scale") runs one
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
//   bigN (4096…131072, default 131072), bigCausal (bool, default true).
// data-testid hooks:
//   s8-keys, s8-block, s8-seed (text inputs; errors in <id>-error), s8-scores (score strip),
//   s8-first, s8-prev, s8-next, s8-last (buttons; aria-disabled at the ends), s8-step (data-step, data-steps),
//   s8-explain (current step text), s8-trace-table (rows up to the current step),
//   s8-final (shown on the last step), s8-maxdiff (data-diff = max |online − materialized|),
//   s8-big-n (select), s8-big-causal (checkbox), s8-run, s8-cancel, s8-progress (<progress>),
//   s8-elapsed (data-ms), s8-eta (data-ms when known),
//   s8-mat-status (data-state = running|refused|done|cancelled|failed; data-n, data-need (bytes of the
//     n×n matrix), data-budget when refused, data-ms when done),
//   s8-chunk-status (data-state = waiting|running|done|cancelled|failed; when done: data-n, data-d,
//     data-causal, data-workers, data-ms, data-gflops, data-scratch (per worker), data-heap (largest wasm
//     heap of a worker), data-checksum, data-maxdiff (max |chunked − reference| over the checked rows)),
//   s8-checks (the check paragraphs), s8-big-table (one row per finished run; data-n, data-refused,
//     data-ms, data-gflops, data-scratch on each <tr>).

import { createEnginePool } from '../engine-pool.mjs';
import { checkRowsFor, estimateRemainingMs } from '../row-tasks.mjs';
import { select, checkbox, intField, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { ltrNumber } from '../numerals.mjs';

const D = 4, DV = 3;                       // the traced example: q, k of width 4, v of width 3
const BIG_D = 64, BIG_BLOCK = 64, BIG_SEED = 1;
const BIG_NS = [4096, 8192, 16384, 32768, 65536, 131072];
const BIG_DEFAULT = 131072;

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const okInt = (v, lo, hi, d) => (Number.isInteger(v) && v >= lo && v <= hi ? v : d);
  const st = {
    keys: okInt(state.get('keys', 10), 2, 16, 10),
    block: okInt(state.get('block', 3), 1, 16, 3),
    seed: okInt(state.get('seed', 7), 0, 1e9, 7),
    step: okInt(state.get('step', 0), 0, 64, 0),
    bigN: BIG_NS.includes(state.get('bigN', BIG_DEFAULT)) ? state.get('bigN', BIG_DEFAULT) : BIG_DEFAULT,
    bigCausal: state.get('bigCausal', true) !== false,
  };
  const f3 = (x) => fmt(x, { minimumFractionDigits: 3, maximumFractionDigits: 3 });
  // vectors as mathematics writes them: left to right, component 0 on the left (like the heatmaps)
  const vec = (a) => ctx.ltrExpr(`(${Array.from(a, f3).join(', ')})`, 'ltr vec');
  const bytes = (b) => (ctx.has && ctx.has('site.unit.MiB') ? ctx.fmtBytes(b) : `${fmt(b / 2 ** 20, { maximumFractionDigits: 2 })} MiB`);

  root.append(h('p', { class: 'lead' }, ctx.tNode('s8.lead', { y1: fmt(2018, { useGrouping: false }), y2: fmt(2022, { useGrouping: false }) })));

  // ================================================================ part 1: the trace
  const status = h('p', { class: 'status-line', 'aria-live': 'polite' });
  const keysCtl = intField(ctx, { label: 's8.ctl.keys', value: st.keys, min: 2, max: 16, errKey: 's8.err.int', testid: 's8-keys',
    onChange: (v) => { st.keys = v; st.step = 0; save(); load(); } });
  const blockCtl = intField(ctx, { label: 's8.ctl.block', value: st.block, min: 1, max: 16, errKey: 's8.err.int', testid: 's8-block',
    onChange: (v) => { st.block = v; st.step = 0; save(); load(); } });
  const seedCtl = intField(ctx, { label: 's8.ctl.seed', value: st.seed, min: 0, max: 1e9, errKey: 's8.err.int', testid: 's8-seed',
    onChange: (v) => { st.seed = v; st.step = 0; save(); load(); } });
  const setup = h('p');
  const strip = h('ol', { class: 'score-strip', dir: 'ltr', testid: 's8-scores' });
  root.append(h('div', { class: 'experiment-panel' }, controlRow(keysCtl, blockCtl, seedCtl), status), setup, strip);

  const btn = (key, testid) => h('button', { type: 'button', class: 'btn btn-secondary', testid }, ctx.tNode(key));
  const bFirst = btn('s8.first', 's8-first'), bPrev = btn('s8.prev', 's8-prev');
  const bNext = btn('s8.next', 's8-next'), bLast = btn('s8.last', 's8-last');
  const stepLabel = h('span', { class: 'step-label', testid: 's8-step', 'aria-live': 'polite' });
  const explain = h('div', { class: 'step-explain', testid: 's8-explain', 'aria-live': 'polite' });
  const traceSlot = h('div', { class: 'table-slot' });
  const finalBox = h('div', { class: 'step-final', testid: 's8-final', hidden: true });
  root.append(h('div', { class: 'stepper' }, bFirst, bPrev, stepLabel, bNext, bLast), explain, traceSlot, finalBox);

  let data = null;   // {scores, trace, mat}
  function save() { state.setMany({ keys: st.keys, block: st.block, seed: st.seed, step: st.step }); }

  const load = serial(async () => {
    try {
      const q = await engine.randomNormal({ seed: st.seed, rows: 1, cols: D });
      const k = await engine.randomNormal({ seed: st.seed + 1, rows: st.keys, cols: D });
      const v = await engine.randomNormal({ seed: st.seed + 2, rows: st.keys, cols: DV });
      const mat = await engine.attention({ q, k, v, variant: 'materialized', returnWeights: true });
      const trace = await engine.onlineSoftmaxTrace({ q, k, v, row: 0, blockK: st.block });
      data = { scores: mat.scores.data, mat: mat.out.data, trace, keys: st.keys, block: st.block, seed: st.seed };
      st.step = Math.min(st.step, trace.steps.length + 1);
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

    // score strip: tiles, processed keys, the current tile and its max
    strip.textContent = '';
    for (let j = 0; j < data.keys; j++) {
      const tile = Math.floor(j / data.block);
      const li = h('li', { class: `tile-${tile % 2 ? 'odd' : 'even'}` });
      if (j % data.block === 0) li.classList.add('tile-start');
      if (s > T || (s >= 1 && j < trace.steps[s - 1].keyEnd)) li.classList.add('seen');
      if (cur && j >= cur.keyBegin && j < cur.keyEnd) {
        li.classList.add('in-tile');
        if (scores[j] === cur.tileMax) li.classList.add('tile-max');
      }
      li.setAttribute('aria-label', ctx.t('s8.scoreLabel', { j: fmt(j) }) + ': ' + f3(scores[j]));
      li.append(h('span', { class: 'k' }, fmt(j)), h('span', { class: 'v' }, ltrNumber(f3(scores[j]))));
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
    if (s === 0) explain.append(h('p', {}, ctx.tNode('s8.step.start')));
    else if (cur) {
      const contrib = cur.lNew - cur.lOld * cur.rescale;
      explain.append(h('p', {}, ctx.tNode('s8.step.tile', { tile: fmt(cur.tile), from: fmt(cur.keyBegin), to: fmt(cur.keyEnd - 1), tmax: f3(cur.tileMax) })));
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
        const p = trace.steps[i];
        rows.push([
          fmt(p.tile),
          ctx.t('s8.range', { from: fmt(p.keyBegin), to: fmt(p.keyEnd - 1) }),
          f3(p.tileMax),
          ctx.t('s8.arrow', { a: p.mOld === -Infinity || p.mOld == null ? '\u2066−∞\u2069' : f3(p.mOld), b: f3(p.mNew) }),
          f3(p.rescale),
          ctx.t('s8.arrow', { a: f3(p.lOld), b: f3(p.lNew) }),
          vec(p.acc),
        ]);
      }
      traceSlot.append(simpleTable(ctx, {
        testid: 's8-trace-table', caption: 's8.tableCaption',
        headers: ['s8.col.tile', 's8.col.keys', 's8.col.tmax', 's8.col.m', 's8.col.rescale', 's8.col.l', 's8.col.acc'],
        rows,
      }));
      traceSlot.querySelectorAll('tbody tr')[upto - 1].classList.add('is-current');
    }

    // the result
    finalBox.hidden = s !== total - 1;
    finalBox.textContent = '';
    if (s === total - 1) {
      let diff = 0;
      for (let i = 0; i < DV; i++) diff = Math.max(diff, Math.abs(trace.out[i] - data.mat[i]));
      finalBox.append(h('p', {}, ctx.tNode('s8.final', { out: vec(trace.out), ref: vec(data.mat) })));
      const md = h('p', { class: 'big-result', testid: 's8-maxdiff' }, ctx.tNode('s8.maxdiff', { diff: fmt(diff, { maximumSignificantDigits: 3 }) }));
      md.dataset.diff = String(diff);
      md.dataset.refDiff = String(trace.maxAbsDiff);
      finalBox.append(md);
      if (diff < 1e-5) finalBox.append(h('p', {}, ctx.tNode('s8.equal')));
    }
  }

  const go = (s) => { if (!data) return; st.step = Math.max(0, Math.min(data.trace.steps.length + 1, s)); state.set('step', st.step); render(); };
  bFirst.addEventListener('click', () => go(0));
  bPrev.addEventListener('click', () => go(st.step - 1));
  bNext.addEventListener('click', () => go(st.step + 1));
  bLast.addEventListener('click', () => go(Infinity));

  await load();

  // ================================================================ part 2: at scale
  // one decimal from a second up; below, two significant digits (a 44 ms run
  // read "0.0 seconds" with one decimal)
  const sec1 = (ms) => (ms < 1000 ? fmt(ms / 1000, { maximumSignificantDigits: 2 })
    : fmt(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }));
  const sec0 = (ms) => fmt(Math.round(ms / 1000), { maximumFractionDigits: 0 });
  const causalPairsBn = (BIG_DEFAULT * (BIG_DEFAULT + 1)) / 2 / 1e9;
  const poolSize = (() => { const hc = navigator.hardwareConcurrency || 2; return Math.max(1, Math.min(hc, 4)); })();

  const bigP = h('p', {}, ctx.tNode('s8.big.p', { d: fmt(BIG_D), bq: fmt(BIG_BLOCK), bk: fmt(BIG_BLOCK), seed: fmt(BIG_SEED) }));
  const budgetP = h('p', { class: 'note' });
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
  root.append(h('h3', {}, ctx.tNode('s8.big.title', { n: fmt(BIG_DEFAULT) })), bigP, budgetP, workersP, timeP,
    h('div', { class: 'experiment-panel' }, controlRow(nCtl, causalCtl),
      h('div', { class: 'run-row' }, runBtn, cancelBtn, prog), clockRow),
    h('div', { class: 'experiment-result big-run' },
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.matLabel')), matStatus,
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.chunkLabel')), chunkStatus, resultBox, bigTable));
  setT(ctx, matStatus, 's8.big.idle');
  setT(ctx, chunkStatus, 's8.big.idle');

  // the budget paragraph: the default budget as the page's engine reports it
  try {
    setT(ctx, budgetP, 's8.big.budget', { def: bytes(await engine.memoryBudget()) });
  } catch { /* the paragraph stays empty; the run still works */ }

  let running = false;
  let abort = null;          // AbortController of the run in progress
  const history = [];        // finished runs, newest last

  function drawHistory() {
    bigTable.textContent = '';
    if (!history.length) return;
    const wrap = simpleTable(ctx, {
      testid: 's8-big-table', caption: ctx.tNode('s8.big.tableCaption', { d: fmt(BIG_D) }),
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

  async function run() {
    if (running) return;
    running = true;
    const n = st.bigN, causal = st.bigCausal, d = BIG_D;
    const ac = new AbortController();
    abort = ac;
    runBtn.disabled = true; cancelBtn.disabled = false; nCtl.input.disabled = true; causalCtl.input.disabled = true;
    prog.value = 0;
    resultBox.hidden = true; resultBox.textContent = '';
    clearData(matStatus); clearData(chunkStatus);
    clockRow.hidden = true;
    setState(chunkStatus, 'waiting');
    setT(ctx, chunkStatus, 's8.big.chunkWaiting');
    const pool = createEnginePool();
    const row = { n, causal };
    let ticker = null;
    let phase = 'mat';
    try {
      // ---- 1. the materialized path: one engine, the whole n×n matrix, the real budget
      const need = await engine.scoreMatrixBytes({ n, bytesPerElement: 4 });
      row.need = need;
      Object.assign(matStatus.dataset, { n, need });
      setState(matStatus, 'running');
      setT(ctx, matStatus, 's8.big.matAsking', { n: fmt(n) });
      try {
        const m = await pool.attentionSeeded({ n, d, seed: BIG_SEED, causal, variant: 'materialized' },
          { signal: ac.signal, taskRows: n });
        row.matMs = m.ms;
        matStatus.dataset.ms = m.ms;
        setT(ctx, matStatus, 's8.big.matDone', { sec: sec1(m.ms), need: bytes(need) });
        setState(matStatus, 'done');
      } catch (err) {
        if (!err || err.code !== 'TooLarge') throw err;
        row.refused = true;
        const said = /memory budget of (\d+) bytes/.exec(err.message || '');
        const budget = said ? Number(said[1]) : await engine.memoryBudget();
        matStatus.dataset.budget = budget;
        setT(ctx, matStatus, 's8.big.refused', { n: fmt(n), need: bytes(need), budget: bytes(budget) });
        setState(matStatus, 'refused');
      }

      // ---- 2. the chunked path through the pool
      phase = 'chunk';
      setState(chunkStatus, 'running');
      setT(ctx, chunkStatus, 's8.big.chunkRunning', { done: fmt(0), total: fmt(n) });
      const t0 = performance.now();
      let last = { done: 0, total: n, workDone: 0, workTotal: 1 };
      const tick = () => {
        const el = performance.now() - t0;
        elapsedEl.dataset.ms = String(Math.round(el));
        setT(ctx, elapsedEl, 's8.big.elapsed', { sec: sec0(el) });
        const left = estimateRemainingMs({ elapsedMs: el, workDone: last.workDone, workTotal: last.workTotal });
        if (left == null) { delete etaEl.dataset.ms; setT(ctx, etaEl, 's8.big.etaUnknown'); }
        else { etaEl.dataset.ms = String(Math.round(left)); setT(ctx, etaEl, 's8.big.eta', { sec: sec0(Math.max(1000, left)) }); }
      };
      clockRow.hidden = false;
      tick();
      ticker = setInterval(tick, 1000);
      const r = await pool.attentionSeeded({ n, d, seed: BIG_SEED, causal, variant: 'chunked', blockQ: BIG_BLOCK, blockK: BIG_BLOCK }, {
        signal: ac.signal,
        checkRows: checkRowsFor(n),
        onProgress: (p) => {
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
      const gflops = r.flops / (r.ms * 1e6);
      const maxDiff = Math.max(...r.checks.map((c) => c.maxAbsDiff));
      Object.assign(row, { ms: r.ms, gflops, scratch: r.scratchBytes, workers: r.workers });
      Object.assign(chunkStatus.dataset, {
        n, d, causal, workers: r.workers, ms: r.ms, gflops, scratch: r.scratchBytes, heap: r.heapBytes,
        checksum: r.checksum, maxdiff: maxDiff,
      });
      setT(ctx, chunkStatus, causal ? 's8.big.chunkDone' : 's8.big.chunkDoneFull', {
        sec: sec1(r.ms), w: fmt(r.workers), gflops: fmt(gflops, { maximumFractionDigits: 1 }),
      });
      setState(chunkStatus, 'done');
      const rows = r.checks.map((c) => fmt(c.row));
      resultBox.append(
        h('p', {}, ctx.tNode('s8.big.scratch', {
          scratch: bytes(r.scratchBytes), full: bytes(need),
          ratio: fmt(need / Math.max(1, r.scratchBytes), { maximumFractionDigits: 0 }), inputs: bytes(3 * n * d * 4),
        })),
        h('p', {}, ctx.tNode('s8.big.check', {
          r1: rows[0], r2: rows[1] ?? rows[0], r3: rows[2] ?? rows[0], diff: fmt(maxDiff, { maximumSignificantDigits: 2 }),
        })),
        h('p', {}, ctx.tNode('s8.big.checksum', { count: fmt(n * d), sum: fmt(r.checksum, { maximumFractionDigits: 4 }) })),
      );
      resultBox.hidden = false;
      history.push(row);
      drawHistory();
    } catch (err) {
      const node = phase === 'mat' ? matStatus : chunkStatus;
      if (err && err.code === 'Cancelled') {
        setT(ctx, node, 's8.big.cancelled');
        setState(node, 'cancelled');
        if (phase === 'mat') { setT(ctx, chunkStatus, 's8.big.idle'); setState(chunkStatus, 'cancelled'); }
      } else {
        console.error('s8 at scale', err);
        node.textContent = '';
        node.append(ctx.errorNode(err));
        setState(node, 'failed');
        if (phase === 'mat') { setT(ctx, chunkStatus, 's8.big.idle'); setState(chunkStatus, 'failed'); }
      }
    } finally {
      if (ticker) clearInterval(ticker);
      pool.terminate();
      abort = null;
      running = false;
      runBtn.disabled = false; cancelBtn.disabled = true; nCtl.input.disabled = false; causalCtl.input.disabled = false;
    }
  }
  runBtn.addEventListener('click', run);
  cancelBtn.addEventListener('click', () => { if (running && abort) abort.abort(); });
}
