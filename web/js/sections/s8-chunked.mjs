// Section 8: chunked attention. Part 1 steps through online softmax for one
// query row, tile by tile (engine.onlineSoftmaxTrace), and ends with the
// materialized result and the max difference. With the causal option the
// trace is the engine's causal trace of row i (tiles past the row are never
// read, the diagonal tile is partly masked), and a tile grid shows, for every
// query tile, which key tiles are full, partly masked (the diagonal) or skipped
// (s8-compute.mjs classifyTile; the browser test checks it against the engine's causal weights).
// The numbers come from s8-compute.mjs (no DOM, tested in Node); the section's other files
// keep the URL state, the controls and the drawing.
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
//
// The parts, one file each: s8-step-through.mjs (part 1's trace), s8-tile-grid.mjs (the
// query-tile view), s8-long-run.mjs (part 2). This file reads the URL state they share and
// mounts them in page order.

import { oneOf, intIn } from '../state.mjs';
import { h } from '../dom.mjs';
import { mountStepThrough } from './s8-step-through.mjs';
import { mountTileGrid } from './s8-tile-grid.mjs';
import { mountLongRun } from './s8-long-run.mjs';
import { KEYS_MAX, BLOCK_MAX, SEED_MAX, BIG_NS, BIG_DEFAULT } from './s8-compute.mjs';

export async function mount(root, ctx) {
  const { state, fmt } = ctx;
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

  // the lead in two paragraphs: the three running quantities, then where the idea comes from
  const years = { y1: fmt(2018, { useGrouping: false }), y2: fmt(2022, { useGrouping: false }) };
  root.append(h('p', { class: 'lead' }, ctx.tNode('s8.lead', years)), h('p', {}, ctx.tNode('s8.lead2', years)));

  // part 1: the trace, then the tile grid that follows its keys, block and causal rule
  const trace = mountStepThrough(root, ctx, st, { onRender: (data) => tiles.show(data) });
  const tiles = mountTileGrid(root, ctx, st);
  await trace.load();

  await mountLongRun(root, ctx, st);
}
