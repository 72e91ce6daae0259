// Progress that is never lost and never stale (issues 12 and 13), in both editions:
// two tabs of the practice page merge their progress instead of the last save
// winning, and each hears the other's changes; a quiz round survives a reload; an
// import updates every block at once; a committed "try without code" guess stays
// committed after a reload; a refused import says why, changes nothing and lets
// the same file be chosen again.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, assertNoIssues, byTestId, parseVisibleNumber, LANGS } from './helpers.mjs';
import { openPractice } from './lesson-helpers.mjs';
import {
  KEY, text, storeData, reload, solveExercise, currentExercise, gradeCard, quizPosition, answerQuiz, importFile,
} from './practice-helpers.mjs';

const T = { timeout: 90000 };
let b;
let tmp;
before(async () => {
  b = await launch();
  tmp = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-sync-'));
});
after(async () => {
  await b?.close();
  await rm(tmp, { recursive: true, force: true });
});

// Pages a failed test left open would merge their progress back into the cleared store
// (the two-tab sync): close them first, so each test starts from empty progress.
async function fresh(lang, hash = '') {
  for (const p of b.context.pages()) await p.close();
  const page = await openPractice(b, lang, hash);
  await page.evaluate(() => localStorage.clear());
  await reload(page);
  return page;
}

const tr = (page, key, params) => page.evaluate(([k, p]) => window.__practice.ctx.t(k, p), [key, params]);
const numbers = (s) => (s.match(/[0-9۰-۹٠-٩]+/g) || []).map(parseVisibleNumber);
// Wait until the page's store satisfies pred(data) (the other tab's write reached it).
const waitStore = (page, pred, arg) => page.waitForFunction(pred, arg);

for (const lang of LANGS) {
  describe(`progress ${lang}`, () => {
    // each order of the two saves once, one per edition: the merge itself, both orders and
    // seeded races, runs in Node (progress-store.test.mjs, progress-two-tabs-race.test.mjs);
    // here, that two real tabs hear each other and their blocks re-render
    for (const cardFirst of [lang === 'fa']) {
      test(`${lang}: two tabs, ${cardFirst ? 'a card graded, then an exercise solved' : 'an exercise solved, then a card graded'}: both kept after reloading both`, T, async () => {
        const a = await fresh(lang, '#cards');
        const c = await openPractice(b, lang, '#exercises');   // the second tab, opened before either saves
        let cardId, exId;
        if (cardFirst) { cardId = await gradeCard(a); exId = await solveExercise(c, lang); } else { exId = await solveExercise(c, lang); cardId = await gradeCard(a); }
        // Reload both, in the order that loses data when the last save wins.
        const [first, second] = cardFirst ? [c, a] : [a, c];
        await reload(first);
        await reload(second);
        for (const [name, p] of [['card tab', a], ['exercise tab', c]]) {
          const d = await storeData(p);
          assert.ok(d.cards[cardId], `${name}: the card graded in the other tab is kept (${cardId})`);
          assert.equal(d.exercises[exId]?.correct, 1, `${name}: the exercise solved in the other tab is kept (${exId})`);
        }
        const saved = JSON.parse(await a.evaluate((k) => localStorage.getItem(k), KEY));
        assert.ok(saved.data.cards[cardId] && saved.data.exercises[exId], 'both in the saved copy');

        // In step without a reload: a card graded in one tab shows in the other's counts.
        const summary = await text(byTestId(c, 'flashcard-summary'));
        const second2 = await gradeCard(a);
        await waitStore(c, (id) => !!window.__practice.store.get().cards[id], second2);
        assert.notEqual(await text(byTestId(c, 'flashcard-summary')), summary, 'the other tab\'s flashcard counts follow');
        assertNoIssues(a);
        assertNoIssues(c);
        await a.close();
        await c.close();
      });
    }

    test(`${lang}: a quiz round survives a reload`, T, async () => {
      const page = await fresh(lang, '#quiz');
      await byTestId(page, 'quiz-start').click();
      const q1 = await answerQuiz(page, lang, true);
      await byTestId(page, 'quiz-next').click();
      const q2 = await answerQuiz(page, lang, true);
      assert.equal(await quizPosition(page), 2);
      await reload(page);
      assert.equal(await byTestId(page, 'quiz-question').count(), 1, 'the round goes on after the reload (no start button)');
      assert.equal(await quizPosition(page), 3, 'at the first question not answered yet');
      const shown = await byTestId(page, 'quiz-question').getAttribute('data-id');
      assert.ok(shown !== q1.id && shown !== q2.id, `a new question (${shown}), not ${q1.id} or ${q2.id}`);
      let total = 2;
      for (let guard = 0; guard < 40 && (await byTestId(page, 'quiz-question').count()); guard++) {
        await answerQuiz(page, lang, false);
        total += 1;
        await byTestId(page, 'quiz-next').click();
      }
      const score = numbers(await text(byTestId(page, 'quiz-score')));
      assert.deepEqual(score.slice(0, 2), [2, total], 'the two answers before the reload still count');
      const rounds = (await storeData(page)).quizzes.main;
      assert.equal(rounds.length, 1);
      assert.equal(rounds[0].score, 2);
      await reload(page);
      assert.equal(await byTestId(page, 'quiz-start').count(), 1, 'a finished round is not resumed');
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: an import updates every block at once`, T, async () => {
      const page = await fresh(lang);
      const ex = await currentExercise(page);
      const cardShown = await byTestId(page, 'flashcard').getAttribute('data-id');
      const summary0 = await text(byTestId(page, 'flashcard-summary'));
      assert.equal(await byTestId(page, 'quiz-history').count(), 0);
      // The file: this page's progress plus a reviewed card, a finished round,
      // a committed guess and an exercise tally, in the site's own format.
      const envelope = await page.evaluate(async ([exId, cardId]) => {
        const { makeEnvelope } = await import('/js/store/progress.mjs');
        const d = JSON.parse(JSON.stringify(window.__practice.store.get()));
        const now = new Date().toISOString();
        d.cards[cardId] = { due: new Date(Date.now() + 3 * 86400000).toISOString(), stability: 3, difficulty: 5,
          elapsed_days: 0, scheduled_days: 3, learning_steps: 0, reps: 1, lapses: 0, state: 2, last_review: now };
        d.quizzes.main = [{ at: now, score: 9, total: 12 }];
        d.guesses['try.e3'] = { value: 'c1', at: now };
        d.exercises[exId] = { attempts: 4, correct: 3, lastStatus: 'correct', updatedAt: now };
        return makeEnvelope(d);
      }, [ex.id, cardShown]);
      const file = path.join(tmp, `import-${lang}.json`);
      await writeFile(file, envelope);
      const r = await importFile(page, file);
      assert.equal(r.kind, 'ok', JSON.stringify(r));
      // No reload: every block shows the imported state.
      assert.notEqual(await text(byTestId(page, 'flashcard-summary')), summary0, 'flashcard counts updated');
      assert.notEqual(await byTestId(page, 'flashcard').getAttribute('data-id'), cardShown, 'the card just imported as reviewed (not due) is no longer shown');
      assert.equal(await byTestId(page, 'quiz-history').locator('li').count(), 1, 'quiz history updated');
      const stats = numbers(await text(byTestId(page, 'practice-stats')));
      assert.ok(stats.includes(3) && stats.includes(4), `exercise tally 3 of 4: ${stats}`);
      const e3 = byTestId(page, 'try-experiment').and(page.locator('[data-id="e3"]'));
      await page.waitForFunction((el) => el.dataset.revealed === 'true', await e3.elementHandle());
      assert.equal(await e3.locator('[data-testid="try-choice"][data-value="c1"]').isChecked(), true, 'the imported guess is shown committed');
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: a committed guess stays committed after a reload`, T, async () => {
      const page = await fresh(lang, '#try');
      const e3 = byTestId(page, 'try-experiment').and(page.locator('[data-id="e3"]'));
      await e3.locator('[data-testid="try-choice"][data-value="c2"]').check();
      await e3.locator('[data-testid="try-commit"]').click();
      await page.waitForFunction((el) => el.dataset.revealed === 'true', await e3.elementHandle());
      const feedback = await text(e3.locator('[data-testid="try-feedback"]'));
      await reload(page);
      await page.waitForFunction((el) => el.dataset.revealed === 'true', await e3.elementHandle());
      const c2 = e3.locator('[data-testid="try-choice"][data-value="c2"]');
      assert.equal(await c2.isChecked(), true, 'the committed choice is shown');
      assert.equal(await c2.isDisabled(), true, 'and stays committed');
      assert.equal(await e3.locator('[data-testid="try-commit"]').isDisabled(), true);
      assert.equal(await text(e3.locator('[data-testid="try-feedback"]')), feedback, 'with the same verdict');
      assert.equal(await byTestId(page, 'try-experiment').and(page.locator('[data-revealed="true"]')).count(), 1, 'only that one');
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: a refused import says why, changes nothing, and the same file can be chosen again`, T, async () => {
      const page = await fresh(lang, '#progress');
      await solveExercise(page, lang);
      const before = await page.evaluate((k) => localStorage.getItem(k), KEY);
      const data = await storeData(page);
      // Issue 13, defect 5: a checksum but no data.
      const file = path.join(tmp, `no-data-${lang}.json`);
      await writeFile(file, JSON.stringify({ format: 'attn-lesson-progress', version: 1, savedAt: new Date().toISOString(), checksum: '811c9dc5' }));
      const expected = (await tr(page, 'practice.import.wrong-format')).replace(/`/g, '');
      for (let i = 0; i < 2; i++) {
        const r = await importFile(page, file);
        assert.equal(r.kind, 'bad', `try ${i + 1}: ${JSON.stringify(r)}`);
        assert.equal(r.code, 'wrong-format');
        assert.equal(r.text.replace(/\s+/g, ' '), expected.replace(/\s+/g, ' '), `try ${i + 1}: the reason, in the page language`);
        assert.equal(await byTestId(page, 'progress-import').inputValue(), '', 'the file input is reset');
        assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), before, 'saved progress unchanged');
        assert.deepEqual(await storeData(page), data, 'progress on the page unchanged');
      }
      assertNoIssues(page);
      await page.close();
    });
  });
}
