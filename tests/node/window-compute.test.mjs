// Chapter 11's numbers (web/js/sections/window-compute.mjs) against the real engine:
// the band's weights follow the window rule the chapter states (causal: the token itself
// and the w − 1 before it; without causal: |i − j| < w), its pair counts equal the rule's
// count made here by brute force, and the reach that k stacked windowed layers give
// (read from the engine's outputs) equals min(n − 1, k·(w − 1)) on many (n, w, k).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';
import { computeBand, computeReach, predictRatio, reachFormula, rowsSentence, runSizes } from '../../web/js/sections/window-compute.mjs';
import { setText, t, tPlural } from '../../web/js/i18n/i18n.mjs';
import { loadTextDir } from '../../build-scripts/text-checks.mjs';
import { fileURLToPath } from 'node:url';

const engine = await loadEngine();

const sees = (i, j, w, causal) => (causal ? j <= i && i - j < w : Math.abs(i - j) < w);

test('band: weights are zero exactly outside the window, rows sum to 1, counts match the rule', async () => {
  for (const causal of [true, false]) {
    for (const [n, w] of [[4, 1], [8, 3], [16, 4], [13, 13], [10, 40], [64, 7]]) {
      const b = await computeBand(engine, { n, w, causal });
      let count = 0;
      for (let i = 0; i < n; i++) {
        let sum = 0, row = 0;
        for (let j = 0; j < n; j++) {
          const x = b.weights.data[i * n + j];
          if (sees(i, j, w, causal)) { assert.ok(x > 0, `n=${n} w=${w} causal=${causal}: (${i},${j}) inside the window`); row++; } else assert.equal(x, 0, `(${i},${j}) outside`);
          sum += x;
        }
        assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
        assert.equal(b.perRow[i], row, `keys of row ${i}`);
        count += row;
      }
      assert.equal(b.pairs, count, `visiblePairs n=${n} w=${w} causal=${causal}`);
      assert.equal(b.full, n * n);
      assert.equal(b.causalPairs, (n * (n + 1)) / 2);
    }
  }
});

test('w = 1 with the causal mask: each row sees only itself', async () => {
  const b = await computeBand(engine, { n: 6, w: 1, causal: true });
  assert.deepEqual(b.perRow, [1, 1, 1, 1, 1, 1]);
  assert.equal(b.pairs, 6);
});

test('reach after k layers, read from the engine, equals min(n − 1, k·(w − 1))', async () => {
  const cases = [[4, 1, 1], [16, 4, 1], [16, 4, 2], [16, 4, 5], [16, 4, 6], [32, 3, 8], [64, 8, 8], [64, 64, 1], [64, 2, 8], [9, 5, 2], [40, 7, 3]];
  for (const [n, w, k] of cases) {
    const r = await computeReach(engine, { n, w, k });
    // the page shows r.reach (engine) next to r.formula (the chapter's formula): they must agree
    assert.equal(r.reach, r.formula, `engine reach vs formula, n=${n} w=${w} k=${k}`);
    assert.equal(r.formula, reachFormula({ n, w, k }));
    assert.equal(r.reach, Math.min(n - 1, k * (w - 1)), `n=${n} w=${w} k=${k}`);
    // every row: as far back as the formula allows, never past the start of the text
    r.reachRows.forEach((x, i) => assert.equal(x, Math.min(i, k * (w - 1)), `n=${n} w=${w} k=${k} row ${i}`));
    // nothing from the future (the causal rule holds through the layers)
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) assert.equal(r.influence.data[i * n + j], 0);
  }
});

test('reach: the formula would be false without the layers (k = 1 reach is w − 1, not k·w)', async () => {
  const r = await computeReach(engine, { n: 20, w: 4, k: 1 });
  assert.equal(r.reach, 3);
  assert.notEqual(r.reach, 4);
});

test('long run: predicted ratio is visiblePairs(window) / visiblePairs(causal) and sizes double from 2,048', async () => {
  const p = await predictRatio(engine, { n: 131072, w: 4096 });
  assert.equal(p.windowed, (4096 * 4097) / 2 + (131072 - 4096) * 4096);   // engine/README.md's example
  assert.equal(p.causal, (131072 * 131073) / 2);
  assert.ok(Math.abs(p.ratio - p.windowed / p.causal) < 1e-15);
  const q = await predictRatio(engine, { n: 2048, w: 512 });
  assert.equal(q.windowed, (512 * 513) / 2 + (2048 - 512) * 512);
  assert.deepEqual(runSizes(16384), [2048, 4096, 8192, 16384]);
  assert.deepEqual(runSizes(2048), [2048]);
  assert.equal(runSizes(131072).at(-1), 131072);
});

// The sentence under the band names the keys the first, the last and (without the mask) the
// widest row see, each with the noun that agrees with its count, in every edition; and never
// more keys than there are (2w − 1 > n, ar review 17). Rendered as window.mjs renders it, with
// Latin digits to compare.
test('the band\'s sentence: the engine\'s counts, each with the noun that agrees with it', async () => {
  const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));
  const AR = { 1: 'مفتاحًا واحدًا', 2: 'مفتاحين', 3: '3 مفاتيح', 4: '4 مفاتيح', 5: '5 مفاتيح', 10: '10 مفاتيح', 12: '12 مفتاحًا', 16: '16 مفتاحًا', 19: '19 مفتاحًا' };
  const form = (lang, k) => (lang === 'ar' ? AR[k] : `${k} کلید`);
  const cases = [
    [{ n: 12, w: 4, causal: true }, { first: 1, last: 4 }],
    [{ n: 12, w: 12, causal: true }, { first: 1, last: 12 }],
    [{ n: 12, w: 2, causal: true }, { first: 1, last: 2 }],
    [{ n: 12, w: 3, causal: false }, { both: 5, first: 3, last: 3 }],
    [{ n: 16, w: 10, causal: false }, { both: 16, first: 10, last: 10 }],   // 2w − 1 = 19 > n = 16
  ];
  for (const [p, want] of cases) {
    const b = await computeBand(engine, p);
    const { key, counts } = rowsSentence(b);
    assert.deepEqual(Object.fromEntries(Object.keys(want).map((k) => [k, counts[k]])), want, JSON.stringify(p));
    for (const lang of ['fa', 'ar']) {
      setText(lang, texts[lang], { latinDigits: true });
      const keys = (k) => tPlural('window.band.keys', k);
      const text = t(key, { w: p.w, prev: p.w - 1, n: p.n, both: keys(counts.both), first: keys(counts.first), last: keys(counts.last) });
      for (const k of Object.values(want)) assert.ok(text.includes(form(lang, k)), `${lang}: «${form(lang, k)}» in «${text}» (${JSON.stringify(p)})`);
      assert.doesNotMatch(text, lang === 'ar' ? /\d+ مفتاح[،.]/ : /کلید کلید/, `${lang}: «${text}»`);
      assert.ok(!text.includes(form(lang, 19)), `${lang}: no row sees more keys than there are: «${text}»`);
    }
  }
});

// w = 1: each row sees itself only, with or without the mask; the sentence says so in words, and the
// keys before a row (w − 1) agree with their count, never a bare number before «من المفاتيح» or a zero count.
test('rowsSentence: w = 1 is said in words, and the keys before a row agree with their count', async () => {
  const { texts } = loadTextDir(fileURLToPath(new URL('../../web/text', import.meta.url)));
  const AR = { 1: 'مفتاحًا واحدًا', 2: 'مفتاحين', 3: '3 مفاتيح', 11: '11 مفتاحًا' };
  for (const [p, prev] of [
    [{ n: 12, w: 2, causal: true }, 1], [{ n: 12, w: 3, causal: true }, 2], [{ n: 12, w: 4, causal: false }, 3],
    [{ n: 16, w: 12, causal: false }, 11], [{ n: 12, w: 1, causal: true }, 0], [{ n: 12, w: 1, causal: false }, 0],
  ]) {
    const b = await computeBand(engine, p);
    const { key, counts } = rowsSentence(b);
    if (!prev) {
      assert.equal(key, 'window.band.rowsSelf');
      assert.deepEqual(b.perRow, new Array(p.n).fill(1));
    }
    for (const lang of ['fa', 'ar']) {
      setText(lang, texts[lang], { latinDigits: true });
      const keys = (k) => tPlural('window.band.keys', k);
      const text = t(key, { w: p.w, prev: p.w - 1, prevKeys: prev ? keys(prev) : '', n: p.n,
        both: keys(counts.both), first: keys(counts.first), last: keys(counts.last) });
      assert.doesNotMatch(text, /(^|[^\d])0 (مفتاح|کلید)/, `${lang} ${JSON.stringify(p)}: «${text}»`);
      if (lang === 'ar') {
        assert.doesNotMatch(text, /\d+ من (المفاتيح|كل جهة)/, `${JSON.stringify(p)}: «${text}»`);
        if (prev) assert.ok(text.includes(AR[prev]), `«${AR[prev]}» in «${text}» (${JSON.stringify(p)})`);
      }
    }
  }
});
