// Section 8: chunked attention. Part 1 steps through online softmax for one
// query row, tile by tile (engine.onlineSoftmaxTrace), and ends with the
// materialized result and the max difference. Part 2 runs attention at growing
// n (d = 64): the materialized path under a lowered memory budget (refused
// with 'TooLarge' past it) and the chunked path (runChunkedAtScale) with a
// progress bar and a cancel button. Part 2 uses its OWN engine worker (a second
// createEngineClient), so a long run or a cancel never stalls or kills the
// calls of the other sections, and the lowered budget never leaks to them.
//
// URL state (section s8): keys (2…16), block (1…16), seed (0…1e9), step (0…tiles+1),
//   maxN (1024…65536), bigCausal (bool).
// data-testid hooks:
//   s8-keys, s8-block, s8-seed (text inputs; errors in <id>-error), s8-scores (score strip),
//   s8-first, s8-prev, s8-next, s8-last (buttons; aria-disabled at the ends), s8-step (data-step, data-steps),
//   s8-explain (current step text), s8-trace-table (rows up to the current step),
//   s8-final (shown on the last step), s8-maxdiff (data-diff = max |online − materialized|),
//   s8-max-n (select), s8-big-causal (checkbox), s8-run, s8-cancel, s8-progress (<progress>),
//   s8-mat-status (data-state = refused|done|running), s8-chunk-status (data-state = done|running|cancelled),
//   s8-big-table (one row per n; data-n, data-refused, data-scratch, data-full on each <tr>).

import { createEngineClient } from '../engine-client.mjs';
import { select, checkbox, intField, controlRow } from '../widgets/controls.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { ltrNumber } from '../numerals.mjs';

const D = 4, DV = 3;                       // the traced example: q, k of width 4, v of width 3
const BIG_D = 64, BIG_BLOCK = 64;
const BIG_NS = [1024, 2048, 4096, 8192, 16384, 32768, 65536];
const DEMO_BUDGET = 32 * 2 ** 20;          // 32 MiB for the materialized attempts of this demo only

export async function mount(root, ctx) {
  const { engine, state, fmt } = ctx;
  const okInt = (v, lo, hi, d) => (Number.isInteger(v) && v >= lo && v <= hi ? v : d);
  const st = {
    keys: okInt(state.get('keys', 10), 2, 16, 10),
    block: okInt(state.get('block', 3), 1, 16, 3),
    seed: okInt(state.get('seed', 7), 0, 1e9, 7),
    step: okInt(state.get('step', 0), 0, 64, 0),
    maxN: BIG_NS.includes(state.get('maxN', 16384)) ? state.get('maxN', 16384) : 16384,
    bigCausal: state.get('bigCausal', true),
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

  // ================================================================ part 2: growing n
  const bigP = h('p', {}, ctx.tNode('s8.big.p', { d: fmt(BIG_D), bq: fmt(BIG_BLOCK), bk: fmt(BIG_BLOCK) }));
  const budgetP = h('p', { class: 'note' });
  const timeP = h('p', { class: 'note' }, ctx.tNode('s8.big.timeNote', { from: fmt(BIG_NS[0]) }));
  const maxNCtl = select(ctx, {
    label: 's8.big.n', value: st.maxN, testid: 's8-max-n',
    options: BIG_NS.map((n) => ({ value: n, label: fmt(n) })),
    onChange: (v) => { st.maxN = Number(v); state.set('maxN', st.maxN); },
  });
  const causalCtl = checkbox(ctx, { label: 's8.big.causal', checked: st.bigCausal, testid: 's8-big-causal',
    onChange: (on) => { st.bigCausal = on; state.set('bigCausal', on); } });
  const runBtn = h('button', { type: 'button', class: 'btn btn-primary', testid: 's8-run' }, ctx.tNode('s8.big.run'));
  const cancelBtn = h('button', { type: 'button', class: 'btn btn-secondary', testid: 's8-cancel', disabled: true }, ctx.tNode('s8.big.cancel'));
  const prog = h('progress', { max: '1', value: '0', testid: 's8-progress' });
  prog.setAttribute('aria-label', ctx.t('s8.big.progress'));
  const matStatus = h('p', { testid: 's8-mat-status', 'aria-live': 'polite' });
  const chunkStatus = h('p', { testid: 's8-chunk-status', 'aria-live': 'polite' });
  const inputsP = h('p', { class: 'note' });
  const bigTable = h('div', { class: 'table-slot' });
  root.append(h('h3', {}, ctx.tNode('s8.big.title')), bigP, budgetP, timeP,
    h('div', { class: 'experiment-panel' }, controlRow(maxNCtl, causalCtl), h('div', { class: 'run-row' }, runBtn, cancelBtn, prog)),
    h('div', { class: 'experiment-result big-run' },
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.matLabel')), matStatus,
      h('p', { class: 'run-label' }, ctx.tNode('s8.big.chunkLabel')), chunkStatus, inputsP, bigTable));
  setT(ctx, matStatus, 's8.big.idle');
  setT(ctx, chunkStatus, 's8.big.idle');

  // the budget paragraph needs the default budget and n=65536's matrix: ask the main engine
  try {
    const def = await engine.memoryBudget();
    const full64 = await engine.scoreMatrixBytes({ n: 65536, bytesPerElement: 4 });
    setT(ctx, budgetP, 's8.big.budget', {
      def: bytes(def), budget: bytes(DEMO_BUDGET), n64: fmt(65536), gib64: fmt(full64 / 2 ** 30),
    });
  } catch { /* the paragraph stays empty; the run still works */ }

  let big = null;           // the second engine client, created on first run
  let running = false;
  let cancelled = false;
  const resultRows = [];

  function drawBigTable() {
    bigTable.textContent = '';
    if (!resultRows.length) return;
    const sec = (ms) => fmt(ms / 1000, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const wrap = simpleTable(ctx, {
      testid: 's8-big-table', caption: ctx.tNode('s8.big.tableCaption', { d: fmt(BIG_D) }),
      headers: ['s8.big.col.n', 's8.big.col.mat', 's8.big.col.chunk', 's8.big.col.scratch', 's8.big.col.full'],
      rows: resultRows.map((r) => [
        fmt(r.n),
        r.refused ? ctx.tNode('s8.big.cellRefused') : r.matMs != null ? sec(r.matMs) : '…',
        r.chunkMs != null ? sec(r.chunkMs) : '…',
        r.scratch != null ? bytes(r.scratch) : '…',
        bytes(r.full),
      ]),
    });
    wrap.querySelectorAll('tbody tr').forEach((tr, i) => {
      const r = resultRows[i];
      Object.assign(tr.dataset, { n: r.n, refused: !!r.refused, full: r.full });
      if (r.scratch != null) tr.dataset.scratch = r.scratch;
    });
    bigTable.append(wrap);
  }

  async function run() {
    if (running) return;
    running = true; cancelled = false;
    runBtn.disabled = true; cancelBtn.disabled = false;
    resultRows.length = 0;
    drawBigTable();
    if (!big) big = createEngineClient();
    const causal = st.bigCausal;
    try {
      for (const n of BIG_NS.filter((x) => x <= st.maxN)) {
        if (cancelled) break;
        const row = { n, full: await big.scoreMatrixBytes({ n, bytesPerElement: 4 }) };
        resultRows.push(row);
        drawBigTable();

        // materialized, under the lowered budget (restored right after)
        matStatus.dataset.state = 'running';
        setT(ctx, matStatus, 's8.big.matRunning');
        const q = await big.randomNormal({ seed: 1, rows: n, cols: BIG_D });
        const k = await big.randomNormal({ seed: 2, rows: n, cols: BIG_D });
        const v = await big.randomNormal({ seed: 3, rows: n, cols: BIG_D });
        await big.setMemoryBudget(DEMO_BUDGET);
        try {
          const t0 = performance.now();
          const r = await big.attention({ q, k, v, causal, variant: 'materialized' });
          row.matMs = performance.now() - t0;
          setT(ctx, matStatus, 's8.big.matDone', { ms: fmt(row.matMs, { maximumFractionDigits: 0 }), scratch: bytes(r.scratchBytes) });
          matStatus.dataset.state = 'done';
        } catch (err) {
          if (err && err.code === 'TooLarge') {
            row.refused = true;
            setT(ctx, matStatus, 's8.big.refused', { need: bytes(row.full), budget: bytes(DEMO_BUDGET) });
            matStatus.dataset.state = 'refused';
          } else throw err;
        } finally {
          if (!cancelled) await big.setMemoryBudget(0);
        }
        drawBigTable();

        // chunked, never holding n×n
        chunkStatus.dataset.state = 'running';
        prog.value = 0;
        setT(ctx, chunkStatus, 's8.big.chunkRunning', { done: fmt(0), total: fmt(n) });
        const sum = await big.runChunkedAtScale({ n, d: BIG_D, causal, blockQ: BIG_BLOCK, blockK: BIG_BLOCK, seed: 1 }, ({ done, total }) => {
          prog.value = done / total;
          setT(ctx, chunkStatus, 's8.big.chunkRunning', { done: fmt(done), total: fmt(total) });
        });
        row.chunkMs = sum.ms;
        row.scratch = sum.scratchBytes;
        prog.value = 1;
        setT(ctx, chunkStatus, 's8.big.chunkDone', {
          sec: fmt(sum.ms / 1000, { maximumFractionDigits: 2 }), scratch: bytes(sum.scratchBytes), full: bytes(row.full),
          ratio: fmt(row.full / sum.scratchBytes, { maximumFractionDigits: 0 }),
        });
        chunkStatus.dataset.state = 'done';
        setT(ctx, inputsP, 's8.big.sizeNote', { inputs: bytes(sum.inputBytes) });
        drawBigTable();
      }
    } catch (err) {
      if (err && err.code === 'Cancelled') {
        setT(ctx, chunkStatus, 's8.big.cancelled');
        chunkStatus.dataset.state = 'cancelled';
      } else {
        setT(ctx, chunkStatus, 's8.big.failed', { code: (err && err.code) || 'Unknown' });
        chunkStatus.dataset.state = 'failed';
      }
    } finally {
      running = false;
      runBtn.disabled = false; cancelBtn.disabled = true;
    }
  }
  runBtn.addEventListener('click', run);
  cancelBtn.addEventListener('click', () => {
    if (!running || !big) return;
    cancelled = true;
    big.cancel();           // terminates only this section's worker; a fresh one starts (default budget)
  });
}
