// The practice pages (fa/practice.html, ar/practice.html) as a learner uses them: exercises
// graded against the engine, a quiz round, flashcards with FSRS due dates, progress that
// survives a reload and a language switch, the notice when storage is full, export and import.
// Grading, scheduling and the store's recovery from damaged copies run in Node (grading,
// scheduler and progress-store tests).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  launch, assertNoIssues, byTestId, parseVisibleNumber, normaliseText, axeViolations, formatAxe, LANGS,
} from './helpers.mjs';
import { openPractice, waitPage, DIGITS } from './lesson-helpers.mjs';
import { answerQuiz, currentExercise, typed, reload, text, storeData, clearProgress, KEY } from './practice-helpers.mjs';
import { newPage, url } from './helpers.mjs';

const T = { timeout: 60000 };
// web/js/store/progress.mjs
const FORMAT = 'attn-lesson-progress';

let b;
let tmp;
before(async () => {
  b = await launch();
  tmp = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-practice-'));
});
after(async () => {
  await b?.close();
  await rm(tmp, { recursive: true, force: true });
});

// A practice page with no saved progress (storage cleared before it loads).
async function freshPractice(lang, query = '') {
  await clearProgress(b.context);
  return openPractice(b, lang, query);
}

const tr = (page, key, params) => page.evaluate(([k, p]) => window.__practice.ctx.t(k, p), [key, params]);
const saved = (page) => page.evaluate((k) => localStorage.getItem(k), KEY);

async function answer(page, value) {
  const input = byTestId(page, 'practice-answer-input');
  const fb = byTestId(page, 'practice-feedback');
  await page.evaluate((el) => { el.textContent = ''; delete el.dataset.status; }, await fb.elementHandle());
  await input.fill(value);
  await byTestId(page, 'practice-check').click();
  await page.waitForFunction((el) => !!el.dataset.status, await fb.elementHandle());
  return { status: await fb.getAttribute('data-status'), kind: await fb.getAttribute('data-kind'), text: await text(fb) };
}

async function solveExercise(page, lang, { right = true } = {}) {
  const ex = await currentExercise(page);
  const tol = Math.max(ex.tolerance.abs || 0, (ex.tolerance.rel || 0) * Math.abs(ex.answer));
  const v = right ? ex.answer : ex.answer + Math.max(1, 100 * tol + Math.abs(ex.answer));
  return { ex, res: await answer(page, typed(lang, v)) };
}

for (const lang of LANGS) {
  describe(`practice ${lang}`, () => {
    test(`${lang}: exercise answered right, wrong and unparseable (answer from the engine)`, T, async () => {
      const page = await freshPractice(lang);
      const ex = await currentExercise(page);
      const correctMsg = normaliseText(await tr(page, 'practice.grade.correct'));
      const wrongMsg = normaliseText(await tr(page, 'practice.grade.wrong'));
      assert.ok(correctMsg && wrongMsg && correctMsg !== wrongMsg);

      // unparseable first: a message, not a wrong mark, nothing recorded
      const bad = await answer(page, lang === 'fa' ? 'سه و نیم' : 'abc');
      assert.equal(bad.status, 'unparseable', JSON.stringify(bad));
      assert.equal(bad.kind, 'warn');
      assert.ok(bad.text.length > 5 && !bad.text.includes('⟦'), `a translated message: ${bad.text}`);
      assert.ok(!bad.text.includes(wrongMsg), 'not marked wrong');
      assert.equal((await storeData(page)).exercises[ex.id], undefined, 'an unparseable answer is not an attempt');

      const wrong = await solveExercise(page, lang, { right: false });
      assert.equal(wrong.ex.id, ex.id);
      assert.equal(wrong.res.status, 'wrong', JSON.stringify(wrong));
      assert.equal(wrong.res.kind, 'bad');
      assert.ok(wrong.res.text.startsWith(wrongMsg), `shows «${wrongMsg}»: ${wrong.res.text}`);

      const right = await solveExercise(page, lang, { right: true });
      assert.equal(right.res.status, 'correct', `typed ${typed(lang, ex.answer)} for ${ex.id}: ${JSON.stringify(right)}`);
      assert.equal(right.res.kind, 'ok');
      assert.ok(right.res.text.startsWith(correctMsg), `shows «${correctMsg}»: ${right.res.text}`);

      const rec = (await storeData(page)).exercises[ex.id];
      assert.equal(rec.attempts, 2);
      assert.equal(rec.correct, 1);
      // The learner sees the tally in the page's digits.
      const stats = await text(byTestId(page, 'practice-stats'));
      assert.match(stats, DIGITS[lang].re, `stats in page digits: ${stats}`);
      const nums = stats.match(/[0-9۰-۹٠-٩]+/g).map(parseVisibleNumber);
      assert.ok(nums.includes(1) && nums.includes(2), `stats show 1 correct of 2: ${stats}`);
      assertNoIssues(page);
      await page.close();
    });

    // 12 questions with axe on each: 25-45 s on this machine, 54-60 s at load 15-20 (it hit the 60 s limit twice)
    test(`${lang}: a whole quiz round: right and wrong answers scored, axe on every question`, { timeout: 180000 }, async () => {
      const page = await freshPractice(lang, '#quiz');
      await byTestId(page, 'quiz-start').click();
      const axeProblems = [];
      let expected = 0;
      let total = 0;
      const seen = [];
      for (let guard = 0; guard < 40; guard++) {
        const q = byTestId(page, 'quiz-question');
        if (!(await q.count())) break;
        const kind = await q.getAttribute('data-kind');
        const id = await q.getAttribute('data-id');
        if (kind === 'numeric') {
          await page.waitForFunction((el) => el.dataset.state && el.dataset.state !== 'loading', await q.elementHandle());
          assert.equal(await q.getAttribute('data-state'), 'ready', `numeric question ${id} computed`);
        }
        // (The quiz draws its questions at random: name the question in any failure.)
        const v = await axeViolations(page, { include: '[data-testid="practice-quiz"]' });
        if (v.length) axeProblems.push(`question ${id} (${kind}):\n${formatAxe(v)}`);
        const right = total % 2 === 0;
        await answerQuiz(page, lang, right);
        if (right) expected += 1;
        total += 1;
        seen.push(id);
        await byTestId(page, 'quiz-next').click();
      }
      assert.ok(total >= 4, `a round has questions (${total})`);
      const score = await text(byTestId(page, 'quiz-score'));
      assert.match(score, DIGITS[lang].re, `score in page digits: ${score}`);
      const nums = score.match(/[0-9۰-۹٠-٩]+/g).map(parseVisibleNumber);
      assert.deepEqual(nums.slice(0, 2), [expected, total], `score shows ${expected} of ${total}: ${score}`);
      const hist = (await storeData(page)).quizzes;
      const rounds = Object.values(hist).flat();
      assert.equal(rounds.length, 1, 'the round is saved');
      assert.equal(rounds[0].score, expected);
      assert.equal(rounds[0].total, total);
      assert.deepEqual(axeProblems, [], `axe violations in the quiz (questions seen: ${seen.join(' ')})`);
      assertNoIssues(page);
      await page.close();
    });
  });
}

// The flashcard journey, in one edition: the due dates themselves (grade order, growth after a
// review, overdue first) are the scheduler's (tests/node/scheduler.test.mjs).
test('fa: flashcards: reveal, grade, and the next due dates change', T, async () => {
  // A browser of its own: this test moves the clock forward.
  const b2 = await launch();
  try {
    await b2.context.clock.install({ time: new Date() });
    await flashcards(b2, 'fa');
  } finally {
    await b2.close();
  }
});

async function flashcards(b2, lang) {
  const p2 = await openPractice(b2, lang, '#cards');
  const card = byTestId(p2, 'flashcard');
  await p2.waitForFunction((el) => el.dataset.side === 'front', await card.elementHandle());
  const first = await card.getAttribute('data-id');
  const summary0 = await text(byTestId(p2, 'flashcard-summary'));
  await byTestId(p2, 'flashcard-reveal').click();
  await p2.waitForFunction((el) => el.dataset.side === 'back', await card.elementHandle());
  assert.equal(await byTestId(p2, 'flashcard-back').isVisible(), true, 'answer shown');
  const back = await text(byTestId(p2, 'flashcard-back'));
  assert.ok(back.length > 5 && !back.includes('⟦'), `answer text: ${back}`);
  const dues0 = [];
  for (let g = 1; g <= 4; g++) dues0.push(Date.parse(await byTestId(p2, `flashcard-grade-${g}`).getAttribute('data-due')));
  assert.ok(dues0.every(Number.isFinite), 'every grade button announces its due date');
  for (let g = 1; g < 4; g++) assert.ok(dues0[g] >= dues0[g - 1], `grade ${g + 1} is not due sooner than grade ${g}`);
  assert.ok(dues0[3] > dues0[0], 'Easy is due later than Again');

  // axe with the answer revealed
  const v = await axeViolations(p2, { include: '#cards' });
  assert.equal(v.length, 0, `axe on the revealed card:\n${formatAxe(v)}`);

  const t0 = Date.now();
  await byTestId(p2, 'flashcard-grade-3').click();   // Good
  await p2.waitForFunction(([el, id]) => el.dataset.id !== id, [await card.elementHandle(), first]);
  const due = byTestId(p2, 'flashcard-due');
  assert.ok((await text(due)).length > 3, 'the grading result is announced');
  const stored = (await storeData(p2)).cards[first];
  assert.ok(stored, 'the card is saved');
  assert.ok(Math.abs(Date.parse(stored.due) - dues0[2]) < 120000 + (Date.now() - t0), 'saved due = the Good preview');
  const summary1 = await text(byTestId(p2, 'flashcard-summary'));
  assert.notEqual(summary1, summary0, 'the due/new counts change');

  // Come back when the card is due: it is shown first, with new (later) due dates.
  await p2.clock.setSystemTime(new Date(Date.parse(stored.due) + 3 * 86400000));
  await reload(p2);
  await p2.waitForFunction((el) => el.dataset.side === 'front', await card.elementHandle());
  assert.equal(await card.getAttribute('data-id'), first, 'the overdue card comes first');
  await byTestId(p2, 'flashcard-reveal').click();
  const dues1 = [];
  for (let g = 1; g <= 4; g++) dues1.push(Date.parse(await byTestId(p2, `flashcard-grade-${g}`).getAttribute('data-due')));
  const now1 = await p2.evaluate(() => Date.now());
  const ivl = (d, now) => d.map((x) => x - now);
  assert.ok(ivl(dues1, now1)[3] > ivl(dues0, t0)[3], `Easy interval grows after a review: ${ivl(dues0, t0)[3]} → ${ivl(dues1, now1)[3]} ms`);
  assert.notDeepEqual(ivl(dues1, now1).map((x) => Math.round(x / 60000)), ivl(dues0, t0).map((x) => Math.round(x / 60000)),
    'the next due dates changed');
  assertNoIssues(p2);
  await p2.close();
}

describe('practice progress (fa)', () => {
  test('progress survives a reload', T, async () => {
    const page = await freshPractice('fa');
    const { ex, res } = await solveExercise(page, 'fa');
    assert.equal(res.status, 'correct');
    const summary = await text(byTestId(page, 'progress-summary'));
    const before = await storeData(page);
    await reload(page);
    assert.deepEqual(await storeData(page), before, 'the store reads back what was saved');
    assert.equal(await text(byTestId(page, 'progress-summary')), summary, 'the progress summary is the same');
    const again = await currentExercise(page);
    assert.equal(again.id, ex.id, 'resumes at the exercise worked on last');
    assert.equal(await byTestId(page, 'progress-notice').count(), 0, 'no notice on a clean reload');
    assertNoIssues(page);
    await page.close();
  });

  test('the language switch keeps the block and the progress', T, async () => {
    const page = await freshPractice('fa', '#exercises');
    const { res } = await solveExercise(page, 'fa');
    assert.equal(res.status, 'correct');
    const data = await storeData(page);
    await Promise.all([page.waitForURL(/\/ar\/practice\.html/), byTestId(page, 'lang-switch').click()]);
    await waitPage(page, 'practice');
    assert.equal(new URL(page.url()).hash, '#exercises', 'the block is kept');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ar');
    const after = await storeData(page);
    assert.deepEqual(after.exercises, data.exercises, 'the same progress in the other edition');
    const stats = await text(byTestId(page, 'practice-stats'));
    assert.match(stats, DIGITS.ar.re, `stats in Arabic-Indic digits: ${stats}`);
    assertNoIssues(page);
    await page.close();
  });

  test('storage full: a notice, and the practice still works for the visit', T, async () => {
    const page = await newPage(b);
    // Every write fails the way a full (or private-mode) localStorage does.
    await page.addInitScript(() => {
      Storage.prototype.setItem = function setItem() {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      };
    });
    await page.goto(url('/ar/practice.html'), { waitUntil: 'load' });
    await waitPage(page, 'practice');
    const { res } = await solveExercise(page, 'ar');
    assert.equal(res.status, 'correct');
    const notice = byTestId(page, 'progress-notice');
    await notice.first().waitFor({ state: 'visible' });
    const code = await notice.first().getAttribute('data-code');
    assert.ok(['quota-exceeded', 'storage-unavailable'].includes(code), `notice code ${code}`);
    const msg = await text(notice);
    assert.ok(/[\u0600-\u06ff]/.test(msg) && !msg.includes('⟦'), `an Arabic notice: ${msg}`);
    // The answer still counts for this visit.
    const data = await storeData(page);
    assert.ok(Object.values(data.exercises).some((e) => e.correct === 1), 'result kept in memory');
    assertNoIssues(page, { allowConsole: [/progress|storage|quota/i] });
    await page.close();
  });

  test('export (download) and re-import (file chooser) restore progress; invalid files are refused', T, async () => {
    const page = await freshPractice('fa', '#progress');
    await solveExercise(page, 'fa');
    const exported = await storeData(page);
    const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'progress-export').click()]);
    assert.match(download.suggestedFilename(), /\.json$/);
    const file = path.join(tmp, download.suggestedFilename());
    await download.saveAs(file);
    const env = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(env.format, FORMAT);
    assert.deepEqual(env.data, exported, 'the file holds the progress');
    const summaryWith = await text(byTestId(page, 'progress-summary'));

    // Lose everything, then import the file through the page's own button.
    await page.evaluate(() => localStorage.clear());
    await reload(page);
    const summaryEmpty = await text(byTestId(page, 'progress-summary'));
    assert.notEqual(summaryEmpty, summaryWith, 'progress was lost');
    const importFile = async (f) => {
      const msg = byTestId(page, 'progress-message');
      await page.evaluate((el) => { el.textContent = ''; delete el.dataset.kind; }, await msg.elementHandle());
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('label[for="progress-import-input"]').click()]);
      await chooser.setFiles(f);
      await page.waitForFunction((el) => !!el.dataset.kind, await msg.elementHandle());
      return { kind: await msg.getAttribute('data-kind'), code: await msg.getAttribute('data-code'), text: await text(msg) };
    };
    const ok = await importFile(file);
    assert.equal(ok.kind, 'ok', JSON.stringify(ok));
    assert.deepEqual(await storeData(page), exported, 'restored');
    assert.equal(await text(byTestId(page, 'progress-summary')), summaryWith);
    await reload(page);
    assert.deepEqual(await storeData(page), exported, 'restored and saved');

    // Invalid files: refused with a message, nothing changes.
    const before = await saved(page);
    const cases = [
      ['not-json.json', 'this is not json', 'not-json'],
      ['other.json', JSON.stringify({ hello: 'world' }), 'wrong-format'],
      ['edited.json', JSON.stringify({ ...env, data: { ...env.data, exercises: {} } }), 'bad-checksum'],
    ];
    for (const [name, content, code] of cases) {
      const f = path.join(tmp, name);
      await writeFile(f, content);
      const r = await importFile(f);
      assert.equal(r.kind, 'bad', `${name}: ${JSON.stringify(r)}`);
      assert.equal(r.code, code, `${name}: refused as ${code}`);
      assert.ok(r.text.length > 5 && !r.text.includes('⟦'), `${name}: a translated message: ${r.text}`);
      assert.equal(await saved(page), before, `${name}: saved progress unchanged`);
      assert.deepEqual(await storeData(page), exported, `${name}: progress on the page unchanged`);
    }
    assertNoIssues(page);
    await page.close();
  });
});

describe('practice accessibility', () => {
  for (const lang of LANGS) {
    test(`${lang}: no axe violation after answering, revealing, opening a myth and starting the quiz`, T, async () => {
      const page = await freshPractice(lang);
      await solveExercise(page, lang, { right: false });
      await byTestId(page, 'practice-hint').click();
      await byTestId(page, 'practice-solution').click();
      await byTestId(page, 'flashcard-reveal').click();
      const myth = byTestId(page, 'myth-toggle').first();
      await myth.click();
      await page.waitForFunction(() => {
        const d = document.querySelector('[data-testid="myth-demo"]');
        return d && d.dataset.state !== 'loading';
      }, null);
      await byTestId(page, 'quiz-start').click();
      await byTestId(page, 'quiz-question').first().waitFor();
      const exp = byTestId(page, 'try-experiment').first();
      await exp.locator('[data-testid="try-choice"]').first().check();
      await exp.locator('[data-testid="try-commit"]').click();
      await page.waitForFunction((el) => el.dataset.revealed === 'true', await exp.elementHandle());
      // axe reads colours: every transition or animation that ends is brought to its end state
      // at once (waiting for them did not end under load; an endless one, a spinner, runs on)
      await page.evaluate(() => { for (const a of document.getAnimations()) if (a.effect?.getComputedTiming().endTime !== Infinity) a.finish(); });
      const v = await axeViolations(page);
      assert.equal(v.length, 0, `axe violations on practice ${lang} (interacted):\n${formatAxe(v)}`);
      assertNoIssues(page);
      await page.close();
    });
  }
});

