// Practice-page steps shared by the progress tests: solve the exercise on
// screen (answer from the engine module itself, same generator and seed), grade
// the flashcard on screen, answer quiz questions, commit a guess, import a file.
import assert from 'node:assert/strict';
import { byTestId, normaliseText, toLatinDigits, url } from './helpers.mjs';
import { numberLocale } from '../../web/js/i18n/languages.mjs';
import { waitPage } from './lesson-helpers.mjs';

export const KEY = 'attn-lesson.progress';   // web/js/store/progress.mjs
export const text = async (loc) => normaliseText(await loc.first().textContent());
export const storeData = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.__practice.store.get())));

// Empty the site's localStorage (where progress lives) from a small file of the site (a
// stylesheet: no script, no engine), so a practice page opened next starts with no progress;
// emptying it from a practice page cost a second load and build of every block. A page of its
// own, closed after: Chromium asks a stylesheet's tab for /favicon.ico (a 404 the test's page
// would record as a console error).
export async function clearProgress(context) {
  const page = await context.newPage();
  try {
    await page.goto(url('/css/noscript.css'), { waitUntil: 'load' });
    await page.evaluate(() => localStorage.clear());
  } finally {
    await page.close();
  }
}

export async function reload(page) {
  await page.reload({ waitUntil: 'load' });
  await waitPage(page, 'practice');
}

// Type a number the way a learner of this edition would (page digits, ٫).
export function typed(lang, x) {
  return new Intl.NumberFormat(numberLocale(lang), { maximumFractionDigits: 6, useGrouping: false }).format(x);
}

// The exercise on screen, and its answer computed in the page by the engine module itself
// through the exercise's generator (same id, same seed).
export async function currentExercise(page) {
  const card = byTestId(page, 'practice-exercise');
  await page.waitForFunction((el) => el.dataset.state === 'ready' && el.dataset.seed, await card.elementHandle());
  const id = await card.getAttribute('data-id');
  const seed = Number(await card.getAttribute('data-seed'));
  const q = await page.evaluate(async ([id, seed]) => {
    const { loadEngine } = await import('/js/engine.mjs');
    const { EXERCISES } = await import('/js/practice/generators.mjs');
    const q = await EXERCISES[id].generate(seed, await loadEngine());
    return { answer: q.answer, tolerance: q.tolerance, percentOk: q.percentOk };
  }, [id, seed]);
  return { id, seed, ...q };
}

/** Answer the exercise on screen correctly; → its id. */
export async function solveExercise(page, lang) {
  const ex = await currentExercise(page);
  const fb = byTestId(page, 'practice-feedback');
  await page.evaluate((el) => { el.textContent = ''; delete el.dataset.status; }, await fb.elementHandle());
  await byTestId(page, 'practice-answer-input').fill(typed(lang, ex.answer));
  await byTestId(page, 'practice-check').click();
  await page.waitForFunction((el) => !!el.dataset.status, await fb.elementHandle());
  assert.equal(await fb.getAttribute('data-status'), 'correct', `exercise ${ex.id} answered right`);
  return ex.id;
}

/** Reveal and grade (3 = Good) the flashcard on screen; → its id. */
export async function gradeCard(page, grade = 3) {
  const card = byTestId(page, 'flashcard');
  await page.waitForFunction((el) => el.dataset.side === 'front', await card.elementHandle());
  const id = await card.getAttribute('data-id');
  await byTestId(page, 'flashcard-reveal').click();
  await page.waitForFunction((el) => el.dataset.side === 'back', await card.elementHandle());
  await byTestId(page, `flashcard-grade-${grade}`).click();
  await page.waitForFunction(([el, id]) => el.dataset.id !== id, [await card.elementHandle(), id]);
  return id;
}

/** The number of the question on screen ("question 3 of 12" → 3), read as a person does. */
export async function quizPosition(page) {
  const t = await text(byTestId(page, 'quiz-counter'));
  return Number(toLatinDigits(t).match(/\d+/)[0]);
}

/** Answer the quiz question on screen, right or wrong; → {id, kind}. */
export async function answerQuiz(page, lang, right) {
  const q = byTestId(page, 'quiz-question');
  await q.waitFor();
  const kind = await q.getAttribute('data-kind');
  const id = await q.getAttribute('data-id');
  if (kind === 'mcq') {
    await q.locator(`[data-testid="quiz-option"][data-value="${right ? 'o1' : 'o2'}"]`).check();
  } else {
    await page.waitForFunction((el) => el.dataset.state && el.dataset.state !== 'loading', await q.elementHandle());
    const seed = Number(await q.getAttribute('data-seed'));
    const ref = await page.evaluate(async ([id, seed]) => {
      const { loadEngine } = await import('/js/engine.mjs');
      const { QUIZ } = await import('/js/practice/generators.mjs');
      const r = await QUIZ[id].generate(seed, await loadEngine());
      return { answer: r.answer, tol: Math.max(r.tolerance.abs || 0, (r.tolerance.rel || 0) * Math.abs(r.answer)) };
    }, [id, seed]);
    const value = right ? ref.answer : ref.answer + Math.max(1, 100 * ref.tol + Math.abs(ref.answer));
    await byTestId(page, 'quiz-answer-input').fill(typed(lang, value));
  }
  await byTestId(page, 'quiz-submit').click();
  const fb = byTestId(page, 'quiz-feedback');
  await page.waitForFunction((el) => el.dataset.kind === 'ok' || el.dataset.kind === 'bad', await fb.elementHandle());
  assert.equal(await fb.getAttribute('data-kind'), right ? 'ok' : 'bad', `question ${id} (${kind}) graded ${right ? 'right' : 'wrong'}`);
  return { id, kind };
}

/** Choose a file through the progress panel's own label; → the message shown. */
export async function importFile(page, file) {
  const msg = byTestId(page, 'progress-message');
  await page.evaluate((el) => { el.textContent = ''; delete el.dataset.kind; delete el.dataset.code; }, await msg.elementHandle());
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('label[for="progress-import-input"]').click()]);
  await chooser.setFiles(file);
  await page.waitForFunction((el) => !!el.dataset.kind, await msg.elementHandle());
  return { kind: await msg.getAttribute('data-kind'), code: await msg.getAttribute('data-code'), text: await text(msg) };
}
