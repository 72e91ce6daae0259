// Section 8, part 2 ("at scale"): one head, d = 64, at a length n the learner picks. The
// materialized path is asked first (the engine refuses an n×n matrix past its memory budget
// before allocating it), then the chunked path runs through an engine pool created for the run
// and terminated after it, with progress, clock, time left and cancel; each finished run adds a
// row to a table. What it shows and its testids: s8-chunked.mjs's header.
//
//   mountLongRun(root, ctx, st) → Promise (once the budget paragraph is written)
//     st: the section's state (bigN, bigCausal), read and written here

import { createEnginePool } from '../engine-link/engine-pool.mjs';
import { countdownEstimate } from '../engine-link/row-tasks.mjs';
import { select, checkbox, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { longRun } from '../widgets/long-run.mjs';
import { fold } from '../widgets/fold.mjs';
import { h, setT } from '../dom.mjs';
import { BIG_D, BIG_BLOCK, BIG_SEED, BIG_NS, BIG_DEFAULT, askMaterialized, runChunked } from './s8-compute.mjs';

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

export async function mountLongRun(root, ctx, st) {
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
    if (history.length) bigTable.append(runsTable(ctx, history, { bytes, sec1 }));
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
    resultBox.append(...runChecks(ctx, r, { n, need, bytes }));
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

// The table of finished runs, oldest first: the materialized path's time or its refusal, the
// chunked path's time, speed, scratch memory and workers.
function runsTable(ctx, history, { bytes, sec1 }) {
  const { fmt } = ctx;
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
  return wrap;
}

// Under a finished chunked run: its rows checked against the engine's reference, and in a fold
// its scratch memory beside the n×n matrix it never held, and the checksum of all outputs.
function runChecks(ctx, r, { n, need, bytes }) {
  const { fmt } = ctx;
  const rows = r.checks.map((c) => fmt(c.row + 1));   // engine rows are 0-based; prose counts from 1
  return [
    h('p', {}, ctx.tNode('s8.big.check', {
      r1: rows[0], r2: rows[1] ?? rows[0], r3: rows[2] ?? rows[0], diff: fmt(r.maxDiff, { maximumSignificantDigits: 2 }),
    })),
    s8Fold(ctx, 'run',
      h('p', {}, ctx.tNode('s8.big.scratch', {
        scratch: bytes(r.scratch), full: bytes(need),
        ratio: fmt(need / Math.max(1, r.scratch), { maximumFractionDigits: 0 }), inputs: bytes(3 * n * r.d * 4),
      })),
      h('p', {}, ctx.tNode('s8.big.checksum', { count: fmt(n * r.d), sum: fmt(r.checksum, { maximumFractionDigits: 4 }) }))),
  ];
}
