// Section 3: two roads to the same output. The row-by-row loop (each query's
// row of scores built, used, thrown away: the engine's 'chunked' variant with
// blockQ = 1) and the matrix form (the whole n×n held: 'materialized'), on the
// same numbers; their outputs agree (max |difference| shown) and the bytes the
// matrix form must hold come from engine.scoreMatrixBytes for the current n.
//
// data-testid hooks:
//   s3-n, s3-seed, s3-causal      controls (n = 4 uses the worked example, larger n random data)
//   s3-row                        the loop's current query row (slider)
//   s3-play                       step through the rows
//   s3-loop-row                   heatmap of the one row the loop holds
//   s3-matrix                     heatmap of the full weights (n ≤ 512)
//   s3-maxdiff                    max |out_loop − out_matrix| (text)
//   s3-bytes                      bytes of the n×n matrix (text)
//   s3-memory                     table: scores held at once and the kernel's whole scratch
//                                 (engine scratchBytes), loop and matrix; cells s3-mem-{scores,scratch}-{loop,matrix}
//                                 carry data-bytes; s3-scratch: the note that says why the two rows differ
//   s3-fold-memory                the fold holding s3-memory and s3-scratch (closed unless s3.fold.memory=1)
//   s3-status                     engine error for this section
// URL state (s3.*): n, seed, causal, row (slider moves write it once the slider rests), fold.memory.
//
// Redraws: for n ≤ 64 the engine's results for every n of the slider (4…64, for the current
// seed and causal setting) and, per n, the loop's row for every query are computed in the
// background after the first render (nearest first, one at a time, while nothing else runs),
// so a move of the n or row slider to a computed position redraws within its input event.
// The cache holds engine results only; an uncomputed position (or n > 64) waits for the engine.

import { fold } from '../widgets/fold.mjs';
import { exampleWords } from '../lesson/worked-example.mjs';
import { createHeatmap } from '../widgets/heatmap.mjs';
import { slider, checkbox, numberField, button, controlRow } from '../widgets/controls.mjs';
import { el, h, prose, patch } from '../dom.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { backgroundFill, nearestFirst } from '../engine-link/background-fill.mjs';
import { N_VALUES, D, DRAW_MAX, CACHE_MAX_N, computeRoads, loopRow, loopRows, memoryHeld } from './s3-compute.mjs';
// Heatmap boxes that keep their size for every n, so a move of the n slider redraws the two
// canvases and a few numbers, not the layout of the page below (site.css, "section 3"):
// a row-label band wide enough for every label set (the words of n = 4, numbers up to 2048,
// 13 px, both page fonts), and a matrix that fills the same square (≤ MAT_SIDE px) for every n.
const LABEL_BAND = 48;
const MAT_SIDE = 420;
const ROW_H = 56;   // the loop's row: site.css keeps its box 22 + ROW_H + 2 px tall

export async function mount(root, ctx) {
  const { tNode, fmt, state, engine } = ctx;
  const { P, H3 } = prose(ctx);
  const tid = (e, id) => { e.dataset.testid = id; return e; };
  // 1.2e-7 → "۱٫۲ × ۱۰⁻⁷" as an LTR isolate with a real superscript
  const sci = (x) => {
    if (x === 0 || !Number.isFinite(x)) return fmt(x);
    const e = Math.floor(Math.log10(Math.abs(x)));
    if (e >= -3 && e <= 5) return fmt(x, { maximumSignificantDigits: 2 });
    return ctx.ltrExpr([`${fmt(x / 10 ** e, { maximumFractionDigits: 1 })} × ${fmt(10)}`,
      el('sup', null, ctx.ltrExpr(`${e < 0 ? '−' : ''}${fmt(Math.abs(e))}`, 'ltr'))]);
  };

  root.append(P('s3.intro'));
  let n = N_VALUES.includes(state.get('n', 4)) ? state.get('n', 4) : 4;
  let data = null;   // {q, k, v}
  let cur = null;    // the result on screen (compute()), its .rows once the loop's rows are known
  let seq = 0;

  // ---------------------------------------------------------------- controls
  const nCtl = slider(ctx, {
    label: 's3.n', values: N_VALUES, value: state.get('n', 4), testid: 's3-n',
    onChange: (v) => { state.setLater({ n: v === 4 ? null : v, row: null }); rowCtl.value = 0; recompute(); },
  });
  const seedCtl = numberField(ctx, {
    label: 's3.seed', value: state.get('seed', 1), min: 0, max: 1e9, integer: true, testid: 's3-seed',
    onChange: (v) => { state.set('seed', v === 1 ? null : v); recompute(); },
  });
  const causalCtl = checkbox(ctx, {
    label: 's3.causal', checked: state.get('causal', false), testid: 's3-causal',
    onChange: (on) => { state.set('causal', on ? true : null); recompute(); },
  });
  const dataNote = el('p', 'note');
  root.append(controlRow(nCtl, seedCtl, causalCtl), dataNote);
  const status = tid(el('div'), 's3-status');
  status.setAttribute('aria-live', 'polite');
  root.append(status);

  // ---------------------------------------------------------------- the two roads
  const loop = el('div', 'road');
  const matrix = el('div', 'road');
  root.append(el('div', 'roads', loop, matrix));

  loop.append(H3('s3.loopTitle'), P('s3.loopText'));
  const rowCtl = slider(ctx, {
    label: 's3.row', min: 0, max: 3, step: 1, value: state.get('row', 0), testid: 's3-row',
    format: (v) => rowName(v),
    onInput: (v) => showRow(v),
    onChange: (v) => state.setLater({ row: v === 0 ? null : v }),
  });
  let playing = null;
  let playLabel = 's3.play';
  const setPlayLabel = (key) => {   // (rebuilt only when it changes: every move of n stops the play)
    if (key === playLabel) return;
    playLabel = key;
    play.el.textContent = ''; play.el.append(tNode(key));
  };
  const play = button(ctx, {
    label: 's3.play', testid: 's3-play',
    onClick: () => {
      if (playing) { stopPlay(); return; }
      let i = 0;
      const step = () => {
        rowCtl.value = i; showRow(i);
        i++;
        if (i >= n) { stopPlay(); return; }
        playing = setTimeout(step, n <= 16 ? 700 : 60);
      };
      setPlayLabel('s3.stop');
      step();
    },
  });
  function stopPlay() {
    clearTimeout(playing); playing = null;
    setPlayLabel('s3.play');
  }
  // one row, always ROW_H tall: at n ≥ 128 its cells are narrower than a pixel, and square
  // cells made it a hairline in a box kept for 56 px cells (issue 12, item 2)
  const loopRowHm = createHeatmap(ctx, {
    label: 's3.loopRowLabel', min: 0, max: 1, digits: 2, testid: 's3-loop-row', exportName: 'loop-row',
    maxCell: ROW_H, cellHeight: ROW_H, labelWidth: LABEL_BAND, colTitle: 's3.keys', rowTitle: 's3.queries',
  });
  const loopHeld = el('p', 'stat-line');
  loop.append(controlRow(rowCtl, play), loopRowHm.el, loopHeld);

  matrix.append(H3('s3.matrixTitle'), P('s3.matrixText'));
  const matHm = createHeatmap(ctx, {
    label: 's3.matrixLabel', min: 0, max: 1, digits: 2, testid: 's3-matrix', exportName: 'weights',
    maxCell: MAT_SIDE / N_VALUES[0], maxHeight: MAT_SIDE, labelWidth: LABEL_BAND,
    colTitle: 's3.keys', rowTitle: 's3.queries',
  });
  const matTooBig = el('p', 'note');
  const matHeld = el('p', 'stat-line');
  matrix.append(matHm.el, matTooBig, matHeld);

  // ---------------------------------------------------------------- agreement + memory
  root.append(H3('s3.agreeTitle'));
  const agree = tid(el('p', 'callout'), 's3-maxdiff');
  const bytesP = tid(el('p'), 's3-bytes');
  const memSlot = el('div', 'table-slot');
  const scratchP = tid(el('p', 'note'), 's3-scratch');
  // the bytes of this run: engineering detail, folded so it does not interrupt the core path
  const memFold = fold(ctx, { name: 'memory', summary: 'path.fold.s3memory', why: 'path.fold.s3memoryWhy', testid: 's3-fold-memory' });
  memFold.body.append(memSlot, scratchP);
  root.append(agree, bytesP, memFold.el, P('s3.why'));

  // ---------------------------------------------------------------- computing
  function rowName(i) {
    return n === 4 ? exampleWords(ctx.lang)[i] : fmt(i + 1);
  }
  const labels = (count) => (count === 4 && n === 4 ? exampleWords(ctx.lang) : null);

  // every number of one (n, seed, causal), and every row of it (n ≤ 64): s3-compute.mjs
  const compute = (p) => computeRoads(engine, p);
  const fillRows = (r) => loopRows(engine, r);

  // results per n (≤ 64) for the current seed and causal setting
  let cache = new Map();
  let cacheFor = '';
  const want = () => ({ n: nCtl.value, seed: seedCtl.value, causal: causalCtl.checked });
  const cacheOf = (p) => {
    const g = `${p.seed}|${p.causal}`;
    if (g !== cacheFor) { cache = new Map(); cacheFor = g; }
    return cache;
  };
  const keep = (r) => { if (r.n <= CACHE_MAX_N && `${r.seed}|${r.causal}` === cacheFor) cache.set(r.n, r); };

  // first the rows of what is on screen, then the other n, nearest first
  const fill = backgroundFill(async () => {
    if (cur && cur.n <= CACHE_MAX_N && !cur.rows) { await fillRows(cur); return true; }
    const p = want();
    const have = cacheOf(p);
    const next = nearestFirst(N_VALUES, p.n).find((v) => v <= CACHE_MAX_N && (!have.has(v) || !have.get(v).rows));
    if (next == null) return false;
    const r = have.get(next);
    if (r) await fillRows(r);
    else keep(await compute({ ...p, n: next }));   // (its rows on the next turn, if the settings still hold)
    return true;
  });

  function apply(r) {
    if (status.firstChild) status.textContent = '';
    cur = r;
    data = r.d;
    n = r.n;
    render(r);
  }

  async function recompute() {
    const my = ++seq;
    stopPlay();
    const p = want();
    const known = cacheOf(p).get(p.n);
    if (known) { apply(known); fill.schedule(); return; }
    try {
      const r = await fill.foreground(() => compute(p));
      keep(r);
      if (my !== seq) return;
      apply(r);
    } catch (err) {
      if (my === seq) ctx.showError(status, err);
    } finally {
      fill.schedule();
    }
  }

  function render({ loopRes, matRes, bytes32, bytes16, maxDiff, causal }) {
    // The canvases before the text: a canvas resolves its font against the page's styles, so a
    // DOM change made before it would make the browser recompute them in the middle of the move.
    if (matRes.weights) {
      if (matHm.el.hidden) matHm.el.hidden = false;
      if (matTooBig.firstChild) matTooBig.textContent = '';
      matHm.update(matRes.weights, { rowLabels: labels(n), colLabels: labels(n) });
    } else {
      matHm.el.hidden = true;
      patch(matTooBig, tNode('s3.tooBigToDraw', { n, max: DRAW_MAX }));
    }
    rowCtl.input.max = String(n - 1);
    if (rowCtl.value > n - 1) rowCtl.value = 0;
    rowCtl.refresh();
    showRow(rowCtl.value);
    patch(dataNote, n === 4 ? tNode('s3.dataExample') : tNode('s3.dataRandom', { n, d: D }));

    patch(matHeld, tNode('s3.matrixHeld', { cells: n * n, bytes: ctx.fmtBytes(bytes32) }));

    const diffNode = el('strong', 'num', sci(maxDiff));
    diffNode.dataset.value = String(maxDiff);
    const agreed = maxDiff < 1e-5;
    // with the mask on, "they agree with the mask too" belongs with the agreement, not the memory
    patch(agree, tNode(agreed ? 's3.agree' : 's3.disagree', { diff: diffNode, n, d: data.v.cols }),
      ...(agreed && causal ? [' ', tNode('s3.causalNote')] : []));

    // one row of the engine's n×n figure: what the loop holds of the scores
    const rowBytes = bytes32 / n;
    patch(bytesP, tNode('s3.bytes', {
      n, cells: n * n, b32: ctx.fmtBytes(bytes32), b16: ctx.fmtBytes(bytes16),
      row: ctx.fmtBytes(rowBytes),
    }));
    const mem = memoryHeld({ n, bytes32, loopRes, matRes });
    renderMemory(mem.scoresLoop, mem.scoresMatrix, mem.scratchLoop, mem.scratchMatrix);
    patch(scratchP, tNode(mem.noteKey, { ratio: fmt(mem.ratio, { maximumFractionDigits: 1 }) }));
  }

  // Two things are counted, and they are labelled apart (issue 12, item 3): the scores each
  // road holds at once (what grows as n²), and everything the kernel allocated in this run,
  // which also holds buffers of a fixed size (engine scratchBytes).
  function renderMemory(rowBytes, matBytes, loopScratch, matScratch) {
    const cell = (id, bytes) => { const c = h('span', { testid: id }, ctx.fmtBytes(bytes)); c.dataset.bytes = String(bytes); return c; };
    memSlot.textContent = '';
    memSlot.append(simpleTable(ctx, {
      testid: 's3-memory', caption: 's3.mem.caption', stack: true,
      headers: ['s3.mem.what', 's3.mem.loop', 's3.mem.matrix'],
      rows: [
        [tNode('s3.mem.scores'), cell('s3-mem-scores-loop', rowBytes), cell('s3-mem-scores-matrix', matBytes)],
        [tNode('s3.mem.scratch'), cell('s3-mem-scratch-loop', loopScratch), cell('s3-mem-scratch-matrix', matScratch)],
      ],
    }));
  }

  let rowSeq = 0;
  function drawRow(i, weights) {
    loopRowHm.update(weights, { rowLabels: [rowName(i)], colLabels: labels(n) });
    patch(loopHeld, tNode('s3.loopHeld', { row: rowName(i), s: n, bytes: ctx.fmtBytes(weights.data.byteLength) }));
  }
  async function showRow(i) {
    if (!data) return;
    const my = ++rowSeq;
    const r = cur;
    if (r.rows && r.rows[i]) { drawRow(i, r.rows[i]); return; }
    try {
      const weights = await loopRow(engine, r, i);
      if (my !== rowSeq || r !== cur) return;
      drawRow(i, weights);
    } catch (err) {
      if (my === rowSeq) ctx.showError(status, err);
    }
  }

  n = nCtl.value;
  await recompute();
}
