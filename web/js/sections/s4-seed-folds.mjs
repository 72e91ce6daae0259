// Section 4, the folds on seeds (for the curious): the article's two tables recomputed from the
// learner's seed (s4-compute.mjs computeSeedTables), and one seed against many on a chart.
// testids: s4-scaling.mjs's header.
//
//   seedFolds(ctx, fTables, fSeeds, {seedOf, status}) → {refresh()}
//     fTables, fSeeds: the two folds (widgets/fold.mjs) whose bodies this fills;
//     seedOf(): the learner's seed now; status: where an engine error is shown

import { createChart } from '../widgets/chart.mjs';
import { simpleTable } from '../widgets/table.mjs';
import { h, setT, serial } from '../dom.mjs';
import { cite } from '../lesson/references.mjs';
import { MANY_SEEDS, ARTICLE, computeSeedTables } from './s4-compute.mjs';
import { formats } from './s4-formats.mjs';

// The folds on seeds: the article's two tables recomputed from the learner's seed, and one
// seed against many. → {refresh()}: recomputes (one run at a time) and redraws.
export function seedFolds(ctx, fTables, fSeeds, { seedOf, status }) {
  const { engine, fmt } = ctx;
  const { f, f6, pct } = formats(ctx);
  // ---- table A (article's first table, recomputed with the learner's seed)
  const tA = h('div', { class: 'table-slot' });
  const verdictA = h('p', { testid: 's4-verdict-a' });
  const seedNoteA = h('p', { class: 'note' });
  fTables.body.append(
    h('h3', {}, ctx.tNode('s4.tA.title', { n: fmt(ARTICLE.n), dk: fmt(ARTICLE.dk) })),
    h('p', {}, ctx.tNode('s4.tA.p', {
      aMaxOff: f6(ARTICLE.maxOff), aHOff: f(ARTICLE.hOff), aMaxOn: f6(ARTICLE.maxOn), aHOn: f(ARTICLE.hOn), aU: f(ARTICLE.uniform),
    }), ' ', cite(ctx, 'article')),
    tA, verdictA, seedNoteA,
  );

  // ---- table B (three widths × five seeds)
  const tB = h('div', { class: 'table-slot' });
  const tBp = h('p');
  fTables.body.append(h('h3', {}, ctx.tNode('s4.tB.title')), tBp, tB);

  // ---- one seed vs many
  const seedsP1 = h('p');
  const seedsChart = createChart(ctx, {
    title: 's4.seeds.chartTitle', xLabel: 's4.seeds.x', yLabel: 's4.seeds.y',
    series: [{ label: 's4.seeds.series', kind: 'points' }, { label: 's4.seeds.mean', kind: 'line' }],
    formatX: (v) => fmt(v, { maximumFractionDigits: 0, useGrouping: false }), formatY: (v) => f(v, 2),
    tableLabel: 's4.chartTable', testid: 's4-seeds-chart',
  });
  const seedsLive = h('p', { testid: 's4-seeds-live' });
  fSeeds.body.append(h('h3', {}, ctx.tNode('s4.seeds.title')), seedsP1, seedsChart.el, seedsLive, h('p', { class: 'note' }, ctx.tNode('s4.seeds.lesson')));

  const refreshSeedTables = serial(async () => {
    let r;
    try {
      r = await computeSeedTables(engine, { seed: seedOf() });
    } catch (err) {
      setT(ctx, status, 's4.err.engine');
      return;
    }
    drawSeedTables(r);
  });

  function drawSeedTables({ seed, off, on, trend, many }) {
    const a = ARTICLE;
    const o = off.mean, n1 = on.mean;
    tA.textContent = '';
    tA.append(simpleTable(ctx, {
      testid: 's4-table-a',
      stack: true,   // five columns: cards on a phone (issue 21 item 7)
      headers: ['s4.tA.colQuantity', 's4.tA.colArticleOff', 's4.tA.colOursOff', 's4.tA.colArticleOn', 's4.tA.colOursOn'],
      rows: [
        [ctx.tNode('s4.tA.rowMax'), f6(a.maxOff), f6(o.maxWeight), f6(a.maxOn), f6(n1.maxWeight)],
        [ctx.tNode('s4.tA.rowH'), f(a.hOff), f(o.meanEntropy), f(a.hOn), f(n1.meanEntropy)],
        [ctx.tNode('s4.tA.rowShare'), pct(a.hOff / a.uniform), pct(o.entropyShare), pct(a.hOn / a.uniform), pct(n1.entropyShare)],
        [ctx.tNode('s4.tA.rowU'), f(a.uniform), f(off.uniformEntropy), f(a.uniform), f(on.uniformEntropy)],
      ],
    }));
    setT(ctx, verdictA, 's4.tA.verdict', {
      offMax: f(o.maxWeight, 4), onMax: f(n1.maxWeight, 4), offShare: pct(o.entropyShare), onShare: pct(n1.entropyShare),
      aOffShare: pct(a.hOff / a.uniform), aOnShare: pct(a.hOn / a.uniform),
    });
    setT(ctx, seedNoteA, 's4.tA.seedNote', { seed: fmt(seed, { useGrouping: false }) });

    const f5 = (x) => fmt(x, { minimumFractionDigits: 5, maximumFractionDigits: 5 });
    const f2 = (x) => fmt(x, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const rows = trend.map((r) => {
      const t = a.trend[r.dk];
      return [fmt(r.dk), f5(t.max), f5(r.maxWeight), f2(t.h), f2(r.meanEntropy), pct(t.share), pct(r.entropyShare)];
    });
    setT(ctx, tBp, 's4.tB.p', {
      n: fmt(a.n), a16: f(a.trend[16].h, 2), a64: f(a.trend[64].h, 2), a256: f(a.trend[256].h, 2),
      s16: pct(a.trend[16].share), s64: pct(a.trend[64].share), s256: pct(a.trend[256].share),
      from: fmt(seed, { useGrouping: false }), to: fmt(seed + 4, { useGrouping: false }),
    });
    tB.textContent = '';
    tB.append(simpleTable(ctx, {
      testid: 's4-table-b',
      stack: true,
      headers: ['s4.tB.colDk', 's4.tB.colMaxA', 's4.tB.colMaxO', 's4.tB.colHA', 's4.tB.colHO', 's4.tB.colShareA', 's4.tB.colShareO'],
      rows,
    }));

    // many seeds, one by one (the article's 0.27 → 0.30 correction)
    setT(ctx, seedsP1, 's4.seeds.p1', {
      dk: fmt(a.dk), a1: f(a.single64, 2), a5: f(a.five64, 2), n: fmt(a.n), cells: fmt(a.n * a.n), many: fmt(MANY_SEEDS),
    });
    const first = many.seeds[0], last = many.seeds[many.seeds.length - 1];
    seedsChart.update([many.points, [{ x: first, y: many.mean }, { x: last, y: many.mean }]]);
    setT(ctx, seedsLive, 's4.seeds.live', {
      seed: fmt(seed, { useGrouping: false }), single: f(many.single, 3),
      from: fmt(seed, { useGrouping: false }), to5: fmt(seed + 4, { useGrouping: false }), mean5: f(many.mean5, 3),
      many: fmt(MANY_SEEDS), meanMany: f(many.mean, 3), min: f(many.min, 3), max: f(many.max, 3), sd: f(many.sd, 3),
    });
    Object.assign(seedsLive.dataset, { single: many.single, mean5: many.mean5, meanMany: many.mean, sd: many.sd });
  }

  return { refresh: refreshSeedTables };
}
