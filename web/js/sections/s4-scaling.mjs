// Section 4: why the scores are divided by √d_k — measured live by the engine.
// Q and K are N(0,1) draws from the engine's generator (randomNormal(seed) with
// 2n rows: Q = first n, K = last n, the same stream experiment() uses), so the
// heatmap, the variance numbers and the tables agree with each other.
//
// URL state (ctx.state, section s4): dk (1…1024, from DK_VALUES), n (2…128),
//   scale ('off' | 'sqrt' | 'dk'), seed (0…1e9).
// data-testid hooks:
//   s4-dk (range input), s4-n, s4-seed (text inputs; errors in s4-n-error, s4-seed-error),
//   s4-scale-off, s4-scale-sqrt, s4-scale-dk (radios), s4-status (busy / engine error line),
//   s4-heatmap (+ heatmap widget's -canvas/-table/-png/-csv), s4-max-weight, s4-entropy,
//   s4-rms (logits softmax saw), s4-var (msq / rms unscaled / rms scaled, data-msq, data-rms-off,
//   data-rms-on), s4-ratio (softmax weight ratio of ±σ logits), s4-table-a, s4-verdict-a,
//   s4-table-b, s4-seeds-chart, s4-seeds-live, s4-dk-live (1/d_k scaling),
//   s4-sweep-run, s4-sweep-cancel, s4-sweep-progress (<progress>), s4-sweep-status,
//   s4-sweep-chart, s4-cross50, s4-cross10 (data-dk = interpolated crossing, data-a/b brackets),
//   s4-on-range, s4-grad-chart, s4-grad-live (data-off64, data-on64, data-off1024, data-on1024).
// Every number is computed by the engine (worker), through s4-compute.mjs (no DOM, tested in
// Node); the section's other files keep the URL state, the controls and the drawing.
//
// The core path (entropy collapse, the variance argument, √d_k vs d_k) is always shown; the
// replication tables, the per-seed chart, the d_k sweep and the Jacobian norm are in folds
// (widgets/fold.mjs; testids s4-fold-tables, s4-fold-seeds, s4-fold-sweep, s4-fold-grad, URL
// keys s4.fold.<name>=1). Their engine work starts when one of them is first opened.
//
// The parts, one file each: s4-core-path.mjs (controls, heatmap, the live lines),
// s4-seed-folds.mjs and s4-sweep-folds.mjs (the folds), s4-formats.mjs (their number formats).
// This file reads the URL state, mounts the parts in page order and starts each fold's engine
// work on its first opening.

import { h } from '../dom.mjs';
import { oneOf, intIn } from '../state.mjs';
import { fold } from '../widgets/fold.mjs';
import { cite } from '../lesson/references.mjs';
import { DK_VALUES, SCALES, N_MIN, N_MAX, SEED_MAX } from './s4-compute.mjs';
import { mountCorePath } from './s4-core-path.mjs';
import { seedFolds } from './s4-seed-folds.mjs';
import { sweepFolds } from './s4-sweep-folds.mjs';

export async function mount(root, ctx) {
  const { state } = ctx;
  const st = {
    dk: oneOf(DK_VALUES, state.get('dk', 64), 64),
    n: intIn(state.get('n', 8), N_MIN, N_MAX, 8),
    scale: oneOf(SCALES, state.get('scale', 'off'), 'off'),
    seed: intIn(state.get('seed', 1), 0, SEED_MAX, 1),
  };

  // ---- intro + the core path
  const lead = h('p', { class: 'lead' }, ctx.tNode('s4.lead'), ' ', cite(ctx, 'vaswani2017'));
  root.append(lead, h('p', {}, ctx.tNode('s4.entropyIntro')), h('p', {}, ctx.tNode('s4.natNote')),
    h('p', {}, ctx.tNode('s4.logitDef')));
  // a new n reruns an opened sweep, a new seed the opened seed folds
  const core = mountCorePath(root, ctx, st, {
    onN: () => { if (sweepWork) sweep.schedule(); },
    onSeed: () => { if (seedWork) seeds.refresh(); },
  });

  // ---- for the curious: four folds, their engine work started on first opening
  let seedWork = false, sweepWork = false;
  const startSeedWork = () => { if (!seedWork) { seedWork = true; seeds.refresh(); } };
  const startSweep = () => { if (!sweepWork) { sweepWork = true; sweep.run(); } };
  const fTables = fold(ctx, { name: 'tables', summary: 's4.fold.tables', why: 's4.fold.tablesWhy', testid: 's4-fold-tables', onOpen: () => startSeedWork() });
  const fSeeds = fold(ctx, { name: 'seeds', summary: 's4.fold.seeds', why: 's4.fold.seedsWhy', testid: 's4-fold-seeds', onOpen: () => startSeedWork() });
  const fSweep = fold(ctx, { name: 'sweep', summary: 's4.fold.sweep', why: 's4.fold.sweepWhy', testid: 's4-fold-sweep', onOpen: () => startSweep() });
  const fGrad = fold(ctx, { name: 'grad', summary: 's4.fold.grad', why: 's4.fold.gradWhy', testid: 's4-fold-grad', onOpen: () => startSweep() });
  root.append(h('p', {}, ctx.tNode('s4.curious')), fTables.el, fSeeds.el, fSweep.el, fGrad.el);
  const seeds = seedFolds(ctx, fTables, fSeeds, { seedOf: () => st.seed, status: core.status });
  const sweep = sweepFolds(ctx, fSweep, fGrad, { nOf: () => st.n });

  await core.refresh();
  // A fold the URL opened starts its work from its toggle event; this covers a browser that
  // fired it before mount() was done (both starts run once).
  if (fTables.open || fSeeds.open) startSeedWork();
  if (fSweep.open || fGrad.open) startSweep();   // not awaited: fills in while the learner reads
}
