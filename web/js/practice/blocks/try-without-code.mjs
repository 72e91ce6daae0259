// Block 1, "try it without code": six guided experiments. Each asks a question
// first; the learner commits a guess (radio choices), the guess is saved in the
// progress store (guesses["try.<id>"]), then the live engine result is revealed
// with an explanation and controls to keep experimenting. A committed guess stays
// committed: after a reload, an import or a guess made in another tab, the
// experiment shows it chosen, its verdict and the revealed result.
//
//   e1 √d_k scaling      engine.experiment (5 seeds) + attention/rowStats + heatmap
//   e2 causal mask       attention with equal scores, causal on/off + heatmap
//   e3 context doubling  scoreMatrixBytes
//   e4 max subtraction   softmaxRow with/without subtractMax
//   e5 chunked/online    onlineSoftmaxTrace on the worked example's «sat» row
//   e6 worked example    attention on the/cat/sat/down + heatmap
//
// data-testid hooks:
//   try-experiment (data-id="e1".."e6", data-revealed="true" after the reveal)
//   try-choice (radio inputs, data-value="c1".."c4"), try-commit, try-feedback (live region),
//   try-result (the revealed panel), try-live (live line under the controls),
//   try-<id>-<control> for controls (try-e1-dk, try-e1-scale, try-e2-n, try-e2-causal,
//   try-e3-n, try-e3-bpe, try-e3-heads, try-e4-shift, try-e5-block, try-e6-causal),
//   try-<id>-heat (heatmaps), try-e5-table.

import { slider, checkbox, select, controlRow } from '../../widgets/controls.mjs';
import { createHeatmap } from '../../widgets/heatmap.mjs';
import { projectQKV, exampleWords } from '../../lesson/worked-example.mjs';
import { h, patch } from '../../dom.mjs';
import { backgroundFill, nearestFirst } from '../../engine-link/background-fill.mjs';
import { recordGuess } from '../../store/records.mjs';
import {
  change, tx, p, quoted, liveRegion, say, choiceGroup, button, seededShuffle, num, table, safely, zeros, introAndList,
} from './ui.mjs';

const SEEDS = [1, 2, 3, 4, 5];

// Run fn only for the latest request: slider drags fire many changes.
function latest() {
  let token = 0;
  return async (fn) => {
    const mine = ++token;
    const r = await fn(() => mine === token);
    return r;
  };
}

// Like say(), but keeps the nodes that did not change and rewrites only the text that did
// (a slider move then re-lays out a few numbers, and a screen reader hears one update).
function patchRegion(region, ctx, key, params, kind = 'info') {
  patch(region, tx(ctx, key, params));
  if (region.dataset.kind !== kind) region.dataset.kind = kind;
}

// ---------------------------------------------------------------- experiments

const EXPERIMENTS = [
  {
    id: 'e1', choices: ['c1', 'c2', 'c3'], correct: 'c1',
    async reveal(ctx, out) {
      const [lo, hi] = await Promise.all([
        ctx.engine.experiment({ n: 8, dk: 16, seeds: SEEDS, scale: false }),
        ctx.engine.experiment({ n: 8, dk: 256, seeds: SEEDS, scale: false }),
      ]);
      out.append(p(ctx, 'practice.try.e1.result', {
        w16: num(ctx, lo.mean.maxWeight, 4), w256: num(ctx, hi.mean.maxWeight, 4),
        h16: ctx.pct(lo.mean.entropyShare), h256: ctx.pct(hi.mean.entropyShare), seeds: SEEDS.length,
      }, 'try-result-line'));
    },
    play(ctx, area) {
      const n = 8;
      const seed = 1;
      const DKS = [2, 4, 8, 16, 32, 64, 128, 256, 512];
      const live = liveRegion('try-live', { cls: 'try-live' });
      const hm = createHeatmap(ctx, {
        label: tx(ctx, 'practice.try.e1.heat', { seed }), min: 0, max: 1, digits: 2, testid: 'try-e1-heat',
        exportName: 'weights-dk',
      });
      // What the panel shows for one (d_k, scaled), computed by the engine.
      const compute = async (dk, scaled) => {
        const [q, k] = await Promise.all([
          ctx.engine.randomNormal({ seed, rows: n, cols: dk }),
          ctx.engine.randomNormal({ seed: seed + 1000, rows: n, cols: dk }),
        ]);
        const args = { q, k, v: zeros(n, 1), returnWeights: true };
        if (!scaled) args.scale = null;
        const a = await ctx.engine.attention(args);
        const st = await ctx.engine.rowStats(a.weights);
        return {
          dk, scaled, weights: a.weights,
          maxW: Math.max(...st.maxWeight), meanH: st.entropy.reduce((s, x) => s + x, 0) / n,
        };
      };
      const show = (r) => {
        hm.update(r.weights);
        patchRegion(live, ctx, 'practice.try.e1.live', { dk: r.dk, w: num(ctx, r.maxW, 4), h: ctx.pct(r.meanH / Math.log(n)) });
      };
      // The slider's other positions (and the other scaling) are computed in the background,
      // nearest first, one at a time while nothing else runs: a move to a computed d_k
      // redraws within its input event. The cache holds engine results only.
      const results = new Map();   // `${dk}|${scaled}` → compute() result
      const key = (dk, scaled) => `${dk}|${scaled}`;
      const fill = backgroundFill(async () => {
        const order = nearestFirst(DKS, dkCtl.value);
        const next = [scaleCtl.checked, !scaleCtl.checked].flatMap((sc) => order.map((dk) => [dk, sc]))
          .find(([dk, sc]) => !results.has(key(dk, sc)));
        if (!next) return false;
        const r = await compute(next[0], next[1]);
        results.set(key(r.dk, r.scaled), r);
        return true;
      });
      let token = 0;   // only the latest request draws: slider drags fire many changes
      const update = async () => {
        const mine = ++token;
        const dk = dkCtl.value;
        const scaled = scaleCtl.checked;
        const known = results.get(key(dk, scaled));
        if (known) { show(known); fill.schedule(); return; }
        const r = await fill.foreground(() => safely(ctx, live, () => compute(dk, scaled)));
        if (r) results.set(key(dk, scaled), r);
        if (r && mine === token) show(r);
        fill.schedule();
      };
      const dkCtl = slider(ctx, {
        label: 'practice.try.e1.dk', values: DKS, value: 16,
        onChange: update, testid: 'try-e1-dk',
      });
      const scaleCtl = checkbox(ctx, { label: 'practice.try.e1.scale', checked: false, onChange: update, testid: 'try-e1-scale' });
      area.append(controlRow(dkCtl, scaleCtl), live, hm.el);
      return update();
    },
  },
  {
    id: 'e2', choices: ['c1', 'c2', 'c3', 'c4'], correct: 'c1',
    async reveal(ctx, out) {
      const a = await ctx.engine.attention({ q: zeros(4, 2), k: zeros(4, 2), v: zeros(4, 1), causal: true, returnWeights: true });
      out.append(p(ctx, 'practice.try.e2.result', { w: num(ctx, a.weights.data[2 * 4 + 0], 4) }, 'try-result-line'));
    },
    play(ctx, area) {
      const hm = createHeatmap(ctx, { label: 'practice.try.e2.heat', min: 0, max: 1, digits: 2, testid: 'try-e2-heat', exportName: 'causal' });
      const live = liveRegion('try-live', { cls: 'try-live visually-hidden' });
      const run = latest();
      const update = () => run(async (isLatest) => {
        const n = nCtl.value;
        const a = await safely(ctx, live, () => ctx.engine.attention({
          q: zeros(n, 2), k: zeros(n, 2), v: zeros(n, 1), causal: causalCtl.checked, returnWeights: true,
        }));
        if (a && isLatest()) hm.update(a.weights);
      });
      const nCtl = slider(ctx, { label: 'practice.try.e2.n', min: 2, max: 8, step: 1, value: 4, onChange: update, testid: 'try-e2-n' });
      const causalCtl = checkbox(ctx, { label: 'practice.try.e2.causal', checked: true, onChange: update, testid: 'try-e2-causal' });
      area.append(controlRow(nCtl, causalCtl), live, hm.el);
      return update();
    },
  },
  {
    id: 'e3', choices: ['c1', 'c2', 'c3', 'c4'], correct: 'c1',
    async reveal(ctx, out) {
      const [a, b] = await Promise.all([
        ctx.engine.scoreMatrixBytes({ n: 8192, bytesPerElement: 2 }),
        ctx.engine.scoreMatrixBytes({ n: 16384, bytesPerElement: 2 }),
      ]);
      out.append(p(ctx, 'practice.try.e3.result', {
        a: ctx.fmtBytes(a, { unit: 'MB', maximumFractionDigits: 1 }),
        b: ctx.fmtBytes(b, { unit: 'MB', maximumFractionDigits: 1 }),
        ratio: b / a,
      }, 'try-result-line'));
    },
    play(ctx, area) {
      const live = liveRegion('try-live', { cls: 'try-live' });
      const run = latest();
      const update = () => run(async (isLatest) => {
        const n = nCtl.value;
        const bpe = Number(bpeCtl.input.value);
        const heads = headsCtl.value;
        const r = await safely(ctx, live, async () => {
          const [one, two] = await Promise.all([
            ctx.engine.scoreMatrixBytes({ n, bytesPerElement: bpe, heads }),
            ctx.engine.scoreMatrixBytes({ n: 2 * n, bytesPerElement: bpe, heads }),
          ]);
          return { one, two };
        });
        if (!r || !isLatest()) return;
        live.textContent = '';
        live.dataset.kind = 'info';
        const decUnit = r.one >= 1e9 ? 'GB' : r.one >= 1e6 ? 'MB' : 'KB';
        live.append(p(ctx, 'practice.try.e3.live', {
          n, bytes: ctx.fmt(r.one),
          dec: ctx.fmtBytes(r.one, { unit: decUnit, maximumFractionDigits: 2 }),
          bin: ctx.fmtBytes(r.one, { maximumFractionDigits: 2 }),
        }), p(ctx, 'practice.try.e3.vsDouble', { bytes2: ctx.fmt(r.two), ratio: r.two / r.one }));
      });
      const nCtl = slider(ctx, {
        label: 'practice.try.e3.n', values: [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144],
        value: 8192, onChange: update, testid: 'try-e3-n',
      });
      const bpeCtl = select(ctx, {
        label: 'practice.try.e3.bpe', value: 2, onChange: update, testid: 'try-e3-bpe',
        options: [{ value: 2, label: 'practice.try.e3.bpe2', params: { b: 2 } }, { value: 4, label: 'practice.try.e3.bpe4', params: { b: 4 } }],
      });
      const headsCtl = slider(ctx, { label: 'practice.try.e3.heads', values: [1, 2, 4, 8, 16, 32], value: 1, onChange: update, testid: 'try-e3-heads' });
      area.append(controlRow(nCtl, bpeCtl, headsCtl), live);
      return update();
    },
  },
  {
    id: 'e4', choices: ['c1', 'c2', 'c3', 'c4'], correct: 'c1',
    async reveal(ctx, out) {
      const logits = [1000, 1001, 1002];
      const [bad, good] = await Promise.all([
        ctx.engine.softmaxRow({ logits, subtractMax: false }),
        ctx.engine.softmaxRow({ logits, subtractMax: true }),
      ]);
      out.append(p(ctx, 'practice.try.e4.result', { bad: describeSoftmax(ctx, bad), good: describeSoftmax(ctx, good) }, 'try-result-line'));
    },
    play(ctx, area) {
      const live = liveRegion('try-live', { cls: 'try-live' });
      const run = latest();
      const update = () => run(async (isLatest) => {
        const c = shiftCtl.value;
        const logits = [c, c + 1, c + 2];
        const r = await safely(ctx, live, () => Promise.all([
          ctx.engine.softmaxRow({ logits, subtractMax: false }),
          ctx.engine.softmaxRow({ logits, subtractMax: true }),
        ]));
        if (!r || !isLatest()) return;
        live.textContent = '';
        live.dataset.kind = r[0].overflowed ? 'warn' : 'info';
        live.append(
          h('p', {}, h('strong', {}, tx(ctx, 'practice.try.e4.without')), ': ', describeSoftmax(ctx, r[0])),
          h('p', {}, h('strong', {}, tx(ctx, 'practice.try.e4.with')), ': ', describeSoftmax(ctx, r[1])),
        );
      });
      const shiftCtl = slider(ctx, {
        label: 'practice.try.e4.shift', values: [0, 10, 50, 80, 86, 87, 88, 100, 500, 1000], value: 0,
        onChange: update, testid: 'try-e4-shift',
      });
      area.append(controlRow(shiftCtl), live);
      return update();
    },
  },
  {
    id: 'e5', choices: ['c1', 'c2', 'c3'], correct: 'c1',
    async reveal(ctx, out) {
      const tr = await ctx.engine.onlineSoftmaxTrace({ ...(await projectQKV(ctx.engine)), row: 2, blockK: 2 });
      out.append(p(ctx, 'practice.try.e5.result', { diff: ctx.fmt(tr.maxAbsDiff, { maximumSignificantDigits: 2 }) }, 'try-result-line'));
    },
    play(ctx, area) {
      const live = liveRegion('try-live', { cls: 'try-live' });
      const tableBox = h('div', { class: 'trace-box' });
      const qkv = projectQKV(ctx.engine);   // once per experiment; the slider only changes blockK
      const run = latest();
      const update = () => run(async (isLatest) => {
        const tr = await safely(ctx, live, async () => ctx.engine.onlineSoftmaxTrace({ ...(await qkv), row: 2, blockK: blockCtl.value }));
        if (!tr || !isLatest()) return;
        say(live, ctx, 'practice.try.e5.live', { block: blockCtl.value, tiles: tr.steps.length, diff: ctx.fmt(tr.maxAbsDiff, { maximumSignificantDigits: 2 }) });
        const rows = tr.steps.map((s) => [
          num(ctx, s.tile + 1), tx(ctx, 'practice.try.e5.keys', { a: s.keyBegin + 1, b: s.keyEnd }),
          num(ctx, s.tileMax, 3), change(ctx, s.mOld, s.mNew),
          num(ctx, s.rescale, 3), change(ctx, s.lOld, s.lNew),
        ]);
        tableBox.textContent = '';
        tableBox.append(table(ctx, {
          captionKey: 'practice.try.e5.caption', testid: 'try-e5-table', rows,
          headKeys: ['practice.try.e5.col.tile', 'practice.try.e5.col.keys', 'practice.try.e5.col.tileMax',
            'practice.try.e5.col.m', 'practice.try.e5.col.rescale', 'practice.try.e5.col.l'],
        }));
      });
      const blockCtl = slider(ctx, { label: 'practice.try.e5.block', min: 1, max: 4, step: 1, value: 2, onChange: update, testid: 'try-e5-block' });
      area.append(controlRow(blockCtl), live, tableBox);
      return update();
    },
  },
  {
    id: 'e6', choices: ['c1', 'c2', 'c3', 'c4'], correct: 'c1',
    async reveal(ctx, out) {
      const a = await ctx.engine.attention({ ...(await projectQKV(ctx.engine)), returnWeights: true });
      out.append(p(ctx, 'practice.try.e6.result', {
        score: a.scores.data[2 * 4 + 2], pct: ctx.pct(a.weights.data[2 * 4 + 2], { maximumFractionDigits: 0 }),
      }, 'try-result-line'));
    },
    play(ctx, area) {
      const words = exampleWords(ctx.lang);   // the lesson's tokens, in the reader's script
      const hm = createHeatmap(ctx, {
        label: 'practice.try.e6.heat', rowLabels: words, colLabels: words, min: 0, max: 1, digits: 2,
        testid: 'try-e6-heat', exportName: 'worked-example',
      });
      const live = liveRegion('try-live', { cls: 'try-live' });
      const qkv = projectQKV(ctx.engine);   // once per experiment; the toggle only changes causal
      const run = latest();
      const update = () => run(async (isLatest) => {
        const a = await safely(ctx, live, async () => ctx.engine.attention({ ...(await qkv), causal: causalCtl.checked, returnWeights: true }));
        if (!a || !isLatest()) return;
        hm.update(a.weights);
        hm.select(2, 2);
        say(live, ctx, 'practice.try.e6.row', { pct: ctx.pct(a.weights.data[2 * 4 + 2], { maximumFractionDigits: 0 }) });
      });
      const causalCtl = checkbox(ctx, { label: 'practice.try.e6.causal', checked: false, onChange: update, testid: 'try-e6-causal' });
      area.append(controlRow(causalCtl), live, hm.el);
      return update();
    },
  },
];

function describeSoftmax(ctx, r) {
  if (r.overflowed || Array.from(r.weights).some((x) => !Number.isFinite(x))) return tx(ctx, 'practice.try.e4.overflow');
  const w = Array.from(r.weights);
  return tx(ctx, 'practice.try.e4.weights', { w1: num(ctx, w[0], 3), w2: num(ctx, w[1], 3), w3: num(ctx, w[2], 3) });
}

// ---------------------------------------------------------------- block

function mountExperiment(ctx, ex) {
  const key = (s) => `practice.try.${ex.id}.${s}`;
  const art = h('article', { class: 'experiment', testid: 'try-experiment', dataset: { id: ex.id }, 'aria-labelledby': `try-${ex.id}-h` });
  art.append(h('h3', { id: `try-${ex.id}-h` }, tx(ctx, key('title'))));
  art.append(p(ctx, key('q'), null, 'question'));

  const options = seededShuffle(ex.choices, ex.id).map((c) => ({ value: c, key: key(c) }));
  const group = choiceGroup(ctx, { legendKey: 'practice.try.guessLegend', options, testid: 'try-choice', name: `try-${ex.id}` });
  const feedback = liveRegion('try-feedback');
  const result = h('div', { class: 'try-result', testid: 'try-result', hidden: true });
  const commit = button(ctx, 'practice.try.commit', { primary: true, testid: 'try-commit', onClick: () => onCommit() });

  art.append(group.el, h('div', { class: 'actions' }, commit), feedback, result);

  let committed = false;
  const saved = () => {
    const g = ctx.store.get().guesses[`try.${ex.id}`];
    return g && ex.choices.includes(g.value) ? g.value : null;
  };

  async function onCommit() {
    const choice = group.value;
    if (!choice) {
      say(feedback, ctx, 'practice.try.pickFirst', null, 'warn');
      group.focusFirst();
      return;
    }
    // shown as committed either way; a refused save is said by the page ('not-saved' notice)
    recordGuess(ctx.store, `try.${ex.id}`, choice);
    await showCommitted(choice);
  }

  // The committed state: the choice shown and locked, the verdict, the engine's result.
  async function showCommitted(choice) {
    if (committed) return;
    committed = true;
    group.value = choice;
    group.disabled = true;
    commit.disabled = true;
    group.markResult(ex.correct);
    if (choice === ex.correct) say(feedback, ctx, 'practice.try.right', null, 'ok');
    else say(feedback, ctx, 'practice.try.wrongGuess', { choice: quoted(ctx, key(choice)), answer: quoted(ctx, key(ex.correct)) }, 'bad');

    result.hidden = false;
    const running = p(ctx, 'practice.try.running', null, 'note');
    result.append(running);
    const lines = h('div', { class: 'try-result-lines' });
    const ok = await safely(ctx, lines, async () => { await ex.reveal(ctx, lines); return true; });
    running.remove();
    result.append(lines);
    if (ok) {
      result.append(p(ctx, key('explain'), null, 'explain'));
      const area = h('div', { class: 'try-play' }, h('h4', {}, tx(ctx, 'practice.try.playTitle')));
      result.append(area);
      await ex.play(ctx, area);
    }
    art.dataset.revealed = 'true';
  }

  // A guess committed before this page was opened, or arriving from an import or another tab.
  const restore = () => { const v = saved(); if (v && !committed) showCommitted(v); };
  ctx.store.subscribe(restore);
  restore();
  return art;
}

export async function mount(root, ctx) {
  introAndList(root, ctx, { introKey: 'practice.try.intro', listClass: 'experiments', items: EXPERIMENTS, make: mountExperiment });
}
