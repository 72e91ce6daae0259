// Block 2, "myth vs fact": common misconceptions about attention. Each
// myth opens (button with aria-expanded) to the fact and a live demonstration
// computed by the engine the first time it is opened: a table of numbers or
// small heatmaps. Demos that use random inputs can be re-run with a new seed.
//
//   m01 √d_k "part of the definition"   experiment scale on/off
//   m02 FlashAttention "linear"          materialized vs chunked scratch bytes, n² dot products
//   m03 causal mask "only at generation" weights with/without the mask (heatmaps)
//   m04 "linear cost in context"         scoreMatrixBytes table
//   m05 max subtraction "mathematical"   softmaxRow with/without subtractMax
//   m06 chunked "approximation"          onlineSoftmaxTrace maxAbsDiff
//   m07 output "is one of the values"    worked example: V rows vs «sat» output
//   m08 bigger d_k "sharper = better"    entropy share vs d_k, scaled/unscaled
//   m09 "divide by d_k is safer"         three scales on the same Q, K
//   m10 "zero the future after softmax"  row sums of both ways
//   m11 "the KV cache makes it linear"   visiblePairs: last decode step vs all steps
//   m12 "more heads, more parameters"    (no demo: claim and fact)
//   m13 "a window never sees older"      k causal window layers stacked: reach and share
//   m14 "a model must be huge"           (no demo: the shipped model's own losses, checked
//   m15 "backward stores every matrix"    against web/models/<lang>.json and the engine by
//   m16 "heads are programmed by hand"    tests/node/practice-model-train.test.mjs)
//
// data-testid hooks: myth-item (data-id="m01".., data-open), myth-toggle, myth-fact,
// myth-demo (data-state="loading|ready|error"), myth-demo-table, myth-rerun,
// myth-<id>-heat-causal / myth-<id>-heat-full (m03).

import { createHeatmap } from '../../widgets/heatmap.mjs';
import { WORKED } from '../generators.mjs';
import { projectQKV } from '../../lesson/worked-example.mjs';
import { h } from '../../dom.mjs';
import { textKeys } from '../../i18n/i18n.mjs';
import { itemIds } from '../items.mjs';
import { change, vecNode, tx, p, table, num, safely, zeros, mat, nextId, button, introAndList, lessonLink } from './ui.mjs';

const SEEDS = [1, 2, 3, 4, 5];
const sum = (a) => a.reduce((s, x) => s + x, 0);
const mean = (a) => sum(a) / a.length;

async function randQKV(ctx, seed, n, d, dv = 1) {
  const [q, k, v] = await Promise.all([
    ctx.engine.randomNormal({ seed: seed * 3 + 1, rows: n, cols: d }),
    ctx.engine.randomNormal({ seed: seed * 3 + 2, rows: n, cols: d }),
    ctx.engine.randomNormal({ seed: seed * 3 + 3, rows: n, cols: dv }),
  ]);
  return { q, k, v };
}

const DEMOS = {
  async m01(ctx, box) {
    const n = 8, dk = 64;
    const [off, on] = await Promise.all([
      ctx.engine.experiment({ n, dk, seeds: SEEDS, scale: false }),
      ctx.engine.experiment({ n, dk, seeds: SEEDS, scale: true }),
    ]);
    box.append(p(ctx, 'myth.m01.demo', { n, dk, seeds: SEEDS.length, hu: num(ctx, off.uniformEntropy, 3) }));
    const row = (key, r) => [tx(ctx, key), num(ctx, r.mean.maxWeight, 4), num(ctx, r.mean.meanEntropy, 3), ctx.pct(r.mean.entropyShare)];
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.setting', 'myth.ui.col.maxWeight', 'myth.ui.col.entropy', 'myth.ui.col.share'],
      rows: [row('myth.ui.row.unscaled', off), row('myth.ui.row.scaled', on)],
    }));
  },

  async m02(ctx, box) {
    const d = 64, block = 64;
    const rows = [];
    let diff = 0;
    for (const n of [256, 512, 1024]) {
      const { q, k, v } = await randQKV(ctx, 7, n, d, d);
      const full = await ctx.engine.attention({ q, k, v, variant: 'materialized' });
      const chunked = await ctx.engine.attention({ q, k, v, variant: 'chunked', blockQ: block, blockK: block });
      for (let i = 0; i < full.out.data.length; i++) diff = Math.max(diff, Math.abs(full.out.data[i] - chunked.out.data[i]));
      rows.push([num(ctx, n), ctx.fmt(n * n), ctx.fmtBytes(full.scratchBytes, { maximumFractionDigits: 1 }),
        ctx.fmtBytes(chunked.scratchBytes, { maximumFractionDigits: 1 })]);
    }
    box.append(p(ctx, 'myth.m02.demo', { dk: d, block, diff: ctx.fmt(diff, { maximumSignificantDigits: 2 }) }));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.tokens', 'myth.ui.col.pairs', 'myth.ui.col.scratchFull', 'myth.ui.col.scratchChunked'],
      rows,
    }));
  },

  async m03(ctx, box, seed, id) {
    const n = 6;
    const { q, k, v } = await randQKV(ctx, seed, n, 4);
    const [full, causal] = await Promise.all([
      ctx.engine.attention({ q, k, v, returnWeights: true }),
      ctx.engine.attention({ q, k, v, causal: true, returnWeights: true }),
    ]);
    const w = full.weights.data;
    const future = sum(Array.from(w.slice(1, n)));
    let futureAll = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) futureAll += w[i * n + j];
    box.append(p(ctx, 'myth.m03.demo', { n, future: ctx.pct(future), futureAll: ctx.pct(futureAll / n) }));
    const grid = h('div', { class: 'myth-heats' });
    const a = createHeatmap(ctx, { label: 'myth.ui.heatFull', min: 0, max: 1, digits: 2, testid: `myth-${id}-heat-full`, exportName: 'no-mask' });
    const b = createHeatmap(ctx, { label: 'myth.ui.heatCausal', min: 0, max: 1, digits: 2, testid: `myth-${id}-heat-causal`, exportName: 'causal' });
    grid.append(a.el, b.el);
    box.append(grid);
    a.update(full.weights);
    b.update(causal.weights);
  },

  async m04(ctx, box) {
    const ns = [4096, 8192, 16384, 32768, 65536];
    const bytes = await Promise.all(ns.map((n) => ctx.engine.scoreMatrixBytes({ n, bytesPerElement: 2 })));
    box.append(p(ctx, 'myth.m04.demo'));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.tokens', 'myth.ui.col.bytes', 'myth.ui.col.ratio'],
      rows: ns.map((n, i) => [num(ctx, n), ctx.fmtBytes(bytes[i], { unit: 'MB', maximumFractionDigits: 0 }),
        i === 0 ? '—' : ctx.t('myth.ui.times', { x: bytes[i] / bytes[i - 1] })]),
    }));
  },

  async m05(ctx, box) {
    const logits = [1, 2, 3];
    const shift = 1000;
    const [a, b, c, d] = await Promise.all([
      ctx.engine.softmaxRow({ logits, subtractMax: false }),
      ctx.engine.softmaxRow({ logits, subtractMax: true }),
      ctx.engine.softmaxRow({ logits: logits.map((x) => x + shift), subtractMax: false }),
      ctx.engine.softmaxRow({ logits: logits.map((x) => x + shift), subtractMax: true }),
    ]);
    const same = Array.from(a.weights).every((x, i) => Math.abs(x - b.weights[i]) < 1e-6);
    const bad = c.overflowed || Array.from(c.weights).some((x) => !Number.isFinite(x));
    box.append(p(ctx, 'myth.m05.demo', {
      same: ctx.t(same ? 'myth.m05.same' : 'myth.m05.differ'), shift,
      bad: ctx.t(bad ? 'myth.m05.overflow' : 'myth.m05.fine'), good: ctx.t('myth.m05.fine'),
    }));
    const w = (r) => (r.overflowed ? ctx.t('myth.m05.overflow') : vecNode(ctx, Array.from(r.weights), 4));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.setting', 'practice.try.e4.without', 'practice.try.e4.with'],
      rows: [
        [vecNode(ctx, logits), w(a), w(b)],
        [vecNode(ctx, logits.map((x) => x + shift)), w(c), w(d)],
      ],
    }));
  },

  async m06(ctx, box, seed) {
    const n = 64, block = 16, row = 40;
    const { q, k, v } = await randQKV(ctx, seed, n, 8, 8);
    const tr = await ctx.engine.onlineSoftmaxTrace({ q, k, v, row, blockK: block });
    box.append(p(ctx, 'myth.m06.demo', {
      row: row + 1, n, tiles: tr.steps.length, block, diff: ctx.fmt(tr.maxAbsDiff, { maximumSignificantDigits: 2 }),
    }));
    const rows = tr.steps.map((s) => [num(ctx, s.tile + 1), num(ctx, s.tileMax, 3), change(ctx, s.mOld, s.mNew),
      num(ctx, s.rescale, 3), change(ctx, s.lOld, s.lNew)]);
    box.append(table(ctx, {
      testid: 'myth-demo-table', rows,
      headKeys: ['practice.try.e5.col.tile', 'practice.try.e5.col.tileMax', 'practice.try.e5.col.m',
        'practice.try.e5.col.rescale', 'practice.try.e5.col.l'],
    }));
  },

  async m07(ctx, box) {
    const { words } = WORKED;
    const { q, k, v } = await projectQKV(ctx.engine);
    const V = words.map((_, i) => [v.data[i * v.cols], v.data[i * v.cols + 1]]);
    const a = await ctx.engine.attention({ q, k, v });
    const o = [a.out.data[2 * 2], a.out.data[2 * 2 + 1]];
    box.append(p(ctx, 'myth.m07.demo'));
    const rows = V.map((r, i) => [tx(ctx, 'myth.ui.row.value', { w: words[i] }), num(ctx, r[0], 3), num(ctx, r[1], 3)]);
    rows.push([h('strong', {}, tx(ctx, 'myth.ui.row.output')), h('strong', {}, num(ctx, o[0], 3)), h('strong', {}, num(ctx, o[1], 3))]);
    box.append(table(ctx, {
      testid: 'myth-demo-table', rows,
      headKeys: ['myth.ui.col.vector', 'myth.ui.col.c1', 'myth.ui.col.c2'],
    }));
  },

  async m08(ctx, box) {
    const n = 8;
    const dks = [16, 64, 256];
    const res = await Promise.all(dks.flatMap((dk) => [
      ctx.engine.experiment({ n, dk, seeds: SEEDS, scale: false }),
      ctx.engine.experiment({ n, dk, seeds: SEEDS, scale: true }),
    ]));
    box.append(p(ctx, 'myth.m08.demo', { n, seeds: SEEDS.length }));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.dk', 'myth.ui.col.unscaled', 'myth.ui.col.scaled'],
      rows: dks.map((dk, i) => [num(ctx, dk), ctx.pct(res[2 * i].mean.entropyShare), ctx.pct(res[2 * i + 1].mean.entropyShare)]),
    }));
  },

  async m09(ctx, box, seed) {
    const n = 8, dk = 256;
    const { q, k } = await randQKV(ctx, seed, n, dk);
    const v = zeros(n, 1);
    const settings = [
      ['myth.ui.row.unscaled', { scale: null }],
      ['myth.ui.row.scaled', {}],
      ['myth.ui.row.byDk', { scale: 1 / dk }],
    ];
    const rows = [];
    for (const [key, s] of settings) {
      const a = await ctx.engine.attention({ q, k, v, returnWeights: true, ...s });
      const st = await ctx.engine.rowStats(a.weights);
      const hMean = mean(Array.from(st.entropy));
      rows.push([tx(ctx, key), num(ctx, Math.max(...st.maxWeight), 3), num(ctx, hMean, 3), ctx.pct(hMean / Math.log(n))]);
    }
    box.append(p(ctx, 'myth.m09.demo', { n, dk, hu: num(ctx, Math.log(n), 3) }));
    box.append(table(ctx, {
      testid: 'myth-demo-table', rows,
      headKeys: ['myth.ui.col.setting', 'myth.ui.col.maxWeight', 'myth.ui.col.entropy', 'myth.ui.col.share'],
    }));
  },

  async m10(ctx, box, seed) {
    const n = 5;
    const { q, k, v } = await randQKV(ctx, seed, n, 4);
    const [full, causal] = await Promise.all([
      ctx.engine.attention({ q, k, v, returnWeights: true }),
      ctx.engine.attention({ q, k, v, causal: true, returnWeights: true }),
    ]);
    const after = full.weights.data[n] + full.weights.data[n + 1];
    const before = sum(Array.from(causal.weights.data.slice(n, 2 * n)));
    box.append(p(ctx, 'myth.m10.demo', { n, after: num(ctx, after, 3), before: num(ctx, before, 3) }));
  },

  // Generating T tokens with the cache: the last step sees T keys, all steps together
  // 1 + 2 + … + T pairs (the causal pairs of T tokens), per head and layer.
  async m11(ctx, box) {
    const ts = [1024, 2048, 4096, 8192];
    const counts = await Promise.all(ts.map(async (T) => [
      await ctx.engine.visiblePairs({ L: 1, S: T, causal: true, rowOffset: T - 1 }),
      await ctx.engine.visiblePairs({ L: T, S: T, causal: true }),
    ]));
    box.append(p(ctx, 'myth.m11.demo'));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.tokens', 'myth.ui.col.stepPairs', 'myth.ui.col.totalPairs', 'myth.ui.col.ratio'],
      rows: ts.map((T, i) => [num(ctx, T), ctx.fmt(counts[i][0]), ctx.fmt(counts[i][1]),
        i === 0 ? '—' : ctx.t('myth.ui.times', { x: num(ctx, counts[i][1] / counts[i - 1][1], 2) })]),
    }));
  },

  // Equal scores (zero queries and keys) and V marking token 1 only: after each causal window
  // layer, the farthest position whose output still holds some of token 1, and how much.
  async m13(ctx, box) {
    const w = 4, layers = 4;
    const n = layers * (w - 1) + 2;
    const zero = zeros(n, 1);
    let v = mat(n, 1, Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0)));
    const rows = [];
    for (let k = 1; k <= layers; k++) {
      v = (await ctx.engine.attention({ q: zero, k: zero, v, causal: true, window: w })).out;
      const far = v.data.findLastIndex((x) => x > 0);
      rows.push([num(ctx, k), num(ctx, far + 1), num(ctx, v.data[far], 4)]);
    }
    box.append(p(ctx, 'myth.m13.demo', { w, n, back: w - 1 }));
    box.append(table(ctx, {
      testid: 'myth-demo-table',
      headKeys: ['myth.ui.col.layers', 'myth.ui.col.reach', 'myth.ui.col.firstShare'],
      rows,
    }));
  },
};

const RANDOM = new Set(['m03', 'm06', 'm09', 'm10']);
// the myths of the text (myth.<id>.myth, practice/items.mjs); a myth with no entry in DEMOS has
// no live demo, only its claim and fact
const mythIds = () => itemIds(textKeys(), 'myth');

function mountMyth(ctx, id) {
  const art = h('article', { class: 'myth', testid: 'myth-item', dataset: { id } });
  const panelId = nextId('myth-panel');
  const head = h('div', { class: 'myth-head' },
    h('span', { class: 'tag tag-myth' }, tx(ctx, 'myth.ui.myth')),
    h('h3', { class: 'myth-text' }, tx(ctx, `myth.${id}.myth`)));
  const toggle = h('button', { type: 'button', class: 'btn', 'aria-expanded': 'false', 'aria-controls': panelId, testid: 'myth-toggle' },
    tx(ctx, 'myth.ui.show'));
  const panel = h('div', { class: 'myth-panel', id: panelId, hidden: true });
  const fact = h('div', { class: 'myth-fact', testid: 'myth-fact' },
    h('span', { class: 'tag tag-fact' }, tx(ctx, 'myth.ui.fact')),
    h('p', {}, tx(ctx, `myth.${id}.fact`)));
  const demoBox = h('div', { class: 'myth-demo', testid: 'myth-demo' });
  panel.append(fact, lessonLink(ctx, 'myth', id) || '');
  if (Object.hasOwn(DEMOS, id)) panel.append(h('h4', {}, tx(ctx, 'myth.ui.demo')), demoBox);
  let seed = 1;
  let ran = false;

  async function run() {
    demoBox.textContent = '';
    demoBox.dataset.state = 'loading';
    demoBox.setAttribute('aria-busy', 'true');
    const out = h('div', { class: 'myth-demo-out' });
    demoBox.append(p(ctx, 'myth.ui.running', null, 'note'));
    const ok = await safely(ctx, out, async () => { await DEMOS[id](ctx, out, seed, id); return true; });
    demoBox.textContent = '';
    demoBox.append(out);
    if (ok && RANDOM.has(id)) {
      demoBox.append(button(ctx, 'myth.ui.rerun', {
        testid: 'myth-rerun', cls: 'btn-small',
        onClick: () => { seed += 1; run(); },
      }));
    }
    demoBox.removeAttribute('aria-busy');
    demoBox.dataset.state = ok ? 'ready' : 'error';
  }

  toggle.addEventListener('click', () => {
    const open = panel.hidden;
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = '';
    toggle.append(tx(ctx, open ? 'myth.ui.hide' : 'myth.ui.show'));
    art.dataset.open = String(open);
    if (open && !ran && Object.hasOwn(DEMOS, id)) { ran = true; run(); }
  });
  art.append(head, toggle, panel);
  return art;
}

export async function mount(root, ctx) {
  introAndList(root, ctx, { introKey: 'myth.ui.intro', listClass: 'myths', items: mythIds(), make: mountMyth });
}
