// Issue 21 item 11: the worked example is a sentence in the reader's language. The default
// page names the rows and columns with the reader's tokens; the English sentence is a preset
// of section 2 kept in the URL (s2.words=en); the numbers are the engine's either way.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, byTestId, LANGS, normaliseText, assertNoIssues } from './helpers.mjs';
import { openLesson, heatmapValues, engineWorkedExample } from './lesson-helpers.mjs';
import { exampleWords } from '../../web/js/lesson/worked-example.mjs';

const T = { timeout: 180000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

// The row names a reader sees: the Q table, the weights map's table and its column heads.
async function labels(page) {
  await heatmapValues(page, 's2-weights');   // opens the map's table
  return page.evaluate(() => {
    const txt = (nodes) => [...nodes].map((n) => n.textContent.trim());
    const q = document.querySelector('[data-testid="s2-Q"]');
    const w = document.querySelector('[data-testid="s2-weights-table"]');
    return {
      q: txt(q.querySelectorAll('tbody th')),
      rows: txt(w.querySelectorAll('tbody th')),
      cols: txt(w.querySelectorAll('thead th')).slice(-4),
    };
  });
}

async function assertEngineNumbers(page) {
  const ref = await engineWorkedExample(page);
  const shown = await heatmapValues(page, 's2-weights');
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      assert.ok(Math.abs(shown[i][j] - ref.weights.data[i * 4 + j]) <= 0.005,
        `weight (${i}, ${j}): ${shown[i][j]} vs the engine's ${ref.weights.data[i * 4 + j]}`);
    }
  }
  return normaliseText(await byTestId(page, 's2-sat-score').textContent());
}

for (const lang of LANGS) {
  describe(`worked example words ${lang}`, () => {
    test(`${lang}: the default names the tokens in the reader's script; the English preset is in the URL; numbers are the engine's`, T, async () => {
      const native = [...exampleWords(lang)];
      const english = [...exampleWords(lang, 'en')];
      const page = await openLesson(b, lang, '#s2');
      const before = await labels(page);
      assert.deepEqual(before.q, native, 'Q rows named with the native tokens');
      assert.deepEqual(before.rows, native, 'weights rows');
      assert.deepEqual(before.cols, native, 'weights columns');
      const satP = normaliseText(await byTestId(page, 's2-sat').textContent());
      assert.ok(!/\b(the|cat|sat|down)\b/.test(satP), `the row-3 paragraph has no English token (${satP})`);
      const scoreNative = await assertEngineNumbers(page);

      // the English sentence: one choice away, kept in the URL, the same numbers
      await byTestId(page, 's2-words').selectOption('en');
      await page.waitForFunction(() => document.querySelector('[data-words]')?.dataset.words === 'en'
        && document.querySelector('[data-testid="s2-sat-score"]')?.textContent.trim() !== '');
      // the section is built again with the other names; the focus comes back to the choice
      await page.waitForFunction(() => document.activeElement?.dataset.testid === 's2-words');
      assert.match(await page.evaluate(() => location.search), /s2\.words=en/, 'the preset is in the URL');
      const en = await labels(page);
      assert.deepEqual(en.q, english, 'Q rows in English');
      assert.deepEqual(en.rows, english);
      assert.deepEqual(en.cols, english);
      const note = normaliseText(await byTestId(page, 's2-words-note').textContent());
      for (const [i, w] of english.entries()) assert.ok(note.includes(w) && note.includes(native[i]), `the note pairs ${w} with ${native[i]}`);
      assert.equal(await assertEngineNumbers(page), scoreNative, 'the same row-3 score in both sentences');

      // a shared link with the preset opens in English; choosing the reader's sentence drops it
      const shared = await openLesson(b, lang, '?s2.words=en#s2');
      assert.deepEqual((await labels(shared)).rows, english, 'the link opens with the English rows');
      await byTestId(shared, 's2-words').selectOption('native');
      await shared.waitForFunction(() => document.querySelector('[data-words]')?.dataset.words === 'native');
      assert.doesNotMatch(await shared.evaluate(() => location.search), /s2\.words/, 'the default leaves no key in the URL');
      assert.deepEqual((await labels(shared)).rows, native);
      assertNoIssues(page);
      assertNoIssues(shared);
      await page.close();
      await shared.close();
    });
  });
}
