// Section 3 (web/js/sections/s3-two-roads.mjs), issue 12 items 2 and 3, both editions:
// - the loop's one-row heatmap stays a visible band for n ≥ 128 (no hairline in a blank box);
// - the memory table shows the engine's numbers and says what they count (the scores each road
//   holds at once, the kernel's whole scratch), the note beside it names the larger one, and
//   with the mask on the agreement paragraph says so. The numbers for every n and the note's
//   choice run in Node (tests/node/s3-compute.test.mjs).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, newPage, url, byTestId, LANGS, REPO, normaliseText, waitForUrl } from './helpers.mjs';
import { waitForQuery } from './lesson-helpers.mjs';

const T = { timeout: 300000 };   // shared, loaded machine: generous, no timed assertion
// s3 alone (its #hash), unless { all: true }: a test that clicks builds every section first, so
// that no neighbour mounting above moves what it clicks (engine-crash.test.mjs)
const open = async (b, lang, query, { all = false } = {}) => {
  const page = await newPage(b);
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load', timeout: 120000 });
  await waitForQuery(page, query, { timeout: 120000, all });
  return page;
};
const prose = (lang) => JSON.parse(readFileSync(path.join(REPO, 'build/site/text', `${lang}.json`), 'utf8'));
// the words of a text key before its first placeholder / formula (enough to recognise it)
const head = (s) => normaliseText(s.split(/[[$`]/)[0]);

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  describe(`s3 ${lang}`, () => {
    test(`${lang}: the loop's row is a visible band at n = 128, 512, 2048`, T, async () => {
      // one page: n = 128 from the URL, then the reader's keys on the n slider (two steps up
      // is 512, End is 2048); each size waits for the row the section announces (data-cols)
      const page = await open(b, lang, '?s3.n=128#s3');
      const hm = byTestId(page, 's3-loop-row');
      const steps = { 128: [], 512: ['ArrowUp', 'ArrowUp'], 2048: ['End'] };
      for (const n of [128, 512, 2048]) {
        if (steps[n].length) await byTestId(page, 's3-n').focus();
        for (const key of steps[n]) await page.keyboard.press(key);
        await page.waitForFunction((n) => document.querySelector('[data-testid="s3-loop-row"]')?.dataset.cols === String(n), n);
        const g = await hm.evaluate((el) => {
          const c = el.querySelector('canvas.heatmap-canvas');
          const stage = el.querySelector('.heatmap-stage');
          return { canvasH: c.getBoundingClientRect().height, stageH: stage.getBoundingClientRect().height,
            cellH: Number(el.dataset.cellH) };
        });
        assert.ok(g.cellH >= 24, `${lang} n=${n}: the row is ${g.cellH} px tall`);
        assert.ok(g.stageH - g.canvasH <= 4, `${lang} n=${n}: ${g.stageH - g.canvasH} px of blank box under the row`);
      }
      await waitForUrl(page, /[?&]s3\.n=2048\b/, 'the slider writes n to the URL');
      await page.close();
    });

    // the memory table's journey once (ar); its numbers for every n and the note's choice:
    // tests/node/s3-compute.test.mjs
    if (lang === 'ar') test(`${lang}: the memory table shows the engine's numbers, labelled; the mask's note follows the agreement`, T, async () => {
      const text = prose(lang);
      const n = 4;
      // the table sits in a fold, closed by default (path.fold.s3memory); s3.fold.memory=1 opens it
      const page = await open(b, lang, '?s3.fold.memory=1#s3', { all: true });   // (it clicks the mask)
      const table = byTestId(page, 's3-memory');
      await table.waitFor();
      await page.waitForFunction((n) => document.querySelector('[data-testid="s3-matrix"]')?.dataset.cols === String(n), n);
      const shown = await page.evaluate(() => Object.fromEntries(['scores-loop', 'scores-matrix', 'scratch-loop', 'scratch-matrix']
        .map((k) => [k, Number(document.querySelector(`[data-testid="s3-mem-${k}"]`).dataset.bytes)])));
      // the same two runs with the engine module itself (every n, and the note's choice: s3-compute.test.mjs)
      const ref = await page.evaluate(async (n) => {
        const { loadEngine } = await import('/js/engine.mjs');
        const { DEFAULT, computeExample } = await import('/js/lesson/worked-example.mjs');
        const e = await loadEngine();
        const x = await computeExample(e, { ...DEFAULT });
        const d = { q: x.Q, k: x.K, v: x.V };
        const loop = await e.attention({ ...d, variant: 'chunked', blockQ: 1, blockK: n });
        const mat = await e.attention({ ...d, variant: 'materialized' });
        return { loop: loop.scratchBytes, mat: mat.scratchBytes, matrix: await e.scoreMatrixBytes({ n, bytesPerElement: 4 }) };
      }, n);
      assert.deepEqual(shown, { 'scores-loop': ref.matrix / n, 'scores-matrix': ref.matrix,
        'scratch-loop': ref.loop, 'scratch-matrix': ref.mat }, `${lang} n=${n}: the table holds the engine's numbers`);
      // the two rows are labelled apart
      const rows = await table.locator('tbody th').allTextContents();
      assert.equal(rows.length, 2);
      assert.ok(normaliseText(rows[0]).startsWith(head(text['s3.mem.scores'])), `row 1 is the scores held (${rows[0]})`);
      assert.ok(normaliseText(rows[1]).startsWith(head(text['s3.mem.scratch'])), `row 2 is the kernel's scratch (${rows[1]})`);
      // the note names the larger total correctly
      const noteText = normaliseText(await byTestId(page, 's3-scratch').textContent());
      const key = ref.loop > ref.mat ? 's3.mem.loopMore' : 's3.mem.matrixMore';
      assert.ok(noteText.startsWith(head(text[key])), `${lang} n=${n}: loop ${ref.loop} B, matrix ${ref.mat} B: the note is ${key}`);
      // the prose line about one row says the same number as the table
      const bytesLine = normaliseText(await byTestId(page, 's3-bytes').textContent());
      const rowCell = normaliseText(await byTestId(page, 's3-mem-scores-loop').textContent());
      assert.ok(bytesLine.includes(rowCell), `s3-bytes quotes the loop's row (${rowCell})`);

      // with the mask on, "they agree with the mask too" follows the agreement, not the memory note
      const maxdiff = byTestId(page, 's3-maxdiff');
      const causal = head(text['s3.causalNote']);
      // (the paragraph's text as normaliseText reads it, in the page; [note, whether it should be there])
      const noteIs = ([c, there]) => document.querySelector('[data-testid="s3-maxdiff"]').textContent
        .replace(/[\u200e\u200f\u061c\u2066-\u2069\u00a0\u202f]/g, '').replace(/\s+/g, ' ').replace(/%/g, '٪').includes(c) === there;
      await byTestId(page, 's3-causal').check();
      await page.waitForFunction(noteIs, [causal, true]);
      assert.ok(!normaliseText(await byTestId(page, 's3-scratch').textContent()).includes(causal), 'and not in the memory note');
      await byTestId(page, 's3-causal').uncheck();
      await page.waitForFunction(noteIs, [causal, false]);
      assert.ok(normaliseText(await maxdiff.textContent()).length > 0);
      await page.close();
    });
  });
}
