// The practice page on a phone (issue 12): a mobile, touch viewport (isMobile, hasTouch,
// deviceScaleFactor 3), measured 360 and 390 px wide after every step, in both editions. Every block is used the way
// a learner would (guesses committed, myths opened, exercises answered with hints and the
// solution, every flashcard revealed and graded, quiz rounds answered right and wrong,
// progress exported and a bad file imported), and after each step the page must still
// fit the phone: on a mobile viewport an overflowing page widens the layout viewport
// itself (innerWidth grows with it), so document.documentElement.scrollWidth is compared
// with the device width. A failure names the elements that stick out (measured with the
// root held at the device width) and the step that made them.
//
// Also: the flashcards' keyboard-shortcut help (and the key numbers on the grade buttons) is
// hidden on a touch screen, since a phone has no keys to press (practice-links.test.mjs
// checks that a mouse-and-keyboard browser still shows it).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, LANGS, byTestId, url, screenshot, closeProfile } from './helpers.mjs';
import { openPractice, waitPage } from './lesson-helpers.mjs';
import { overflowChecker, PHONE_WIDTHS } from './phone.mjs';
import { clearProgress } from './practice-helpers.mjs';

// Generous: a run uses every block (about 2 minutes on a busy 2-core machine).
const T = { timeout: 600000 };
const SHOTS = process.env.PHONE_SCREENSHOTS === '1';

// A persistent context like helpers.launch(), but a phone: mobile viewport and touch.
async function launchPhone(width) {
  const dir = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-phone-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width, height: 780 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 3,
    acceptDownloads: true,
    timezoneId: 'UTC',
  });
  const origin = new URL(url('/')).origin;
  await context.route('**/*', (route) => (new URL(route.request().url()).origin === origin || route.request().url().startsWith('data:')
    ? route.continue() : route.abort('blockedbyclient')));
  for (const p of context.pages()) await p.close().catch(() => {});
  // newPage() records console errors; it needs these two fields of a launch() result.
  return { context, foreignRequests: [], cspViolations: [], dir,
    close: () => closeProfile(context, dir) };
}

async function openFresh(b, lang) {
  await clearProgress(b.context);
  return openPractice(b, lang);
}

// ------------------------------------------------------------ block by block
// Taps go to the element itself (el.click()): once a page has grown wider than the phone,
// the browser zooms it out and pointer hit-testing would fail before the measurement
// could say why. This is a layout test, not an input test.
const click = (loc) => loc.evaluate((el) => el.click());
async function tryBlock(page, c) {
  const exps = byTestId(page, 'try-experiment');
  const n = await exps.count();
  for (let i = 0; i < n; i++) {
    const exp = exps.nth(i);
    const id = await exp.getAttribute('data-id');
    // All but the last guess wrong: the wrong-guess feedback quotes both answers.
    const value = i === n - 1 ? 'c1' : 'c2';
    await click(exp.locator(`[data-testid="try-choice"][data-value="${value}"]`));
    await click(exp.locator('[data-testid="try-commit"]'));
    await page.waitForFunction((el) => el.dataset.revealed === 'true', await exp.elementHandle());
    await c.check(`committing ${value === 'c1' ? 'the right' : 'a wrong'} guess in ${id}`);
  }
}

async function mythBlock(page, c) {
  const items = byTestId(page, 'myth-item');
  const n = await items.count();
  for (let i = 0; i < n; i++) {
    const it = items.nth(i);
    await click(it.locator('[data-testid="myth-toggle"]'));
    // A myth with no live demo (m12) shows its fact only: nothing to wait for.
    await page.waitForFunction((el) => {
      const d = el.querySelector('[data-testid="myth-demo"]');
      return el.querySelector('[data-testid="myth-fact"]') && (!d || d.dataset.state === 'ready' || d.dataset.state === 'error');
    }, await it.elementHandle());
    await c.check(`opening myth ${await it.getAttribute('data-id')}`);
  }
}

async function exerciseBlock(page, c) {
  const ids = await byTestId(page, 'practice-exercise-select').locator('option').evaluateAll((os) => os.map((o) => o.value));
  for (const id of ids) {
    await byTestId(page, 'practice-exercise-select').selectOption(id);
    const card = byTestId(page, 'practice-exercise');
    await page.waitForFunction(([el, id]) => el.dataset.id === id && el.dataset.state === 'ready', [await card.elementHandle(), id]);
    await byTestId(page, 'practice-answer-input').fill('۱۲۳۴۵۶۷۸۹');
    await click(byTestId(page, 'practice-check'));
    await page.waitForFunction((el) => !!el.dataset.status, await byTestId(page, 'practice-feedback').elementHandle());
    for (let k = 0; k < 4; k++) await click(byTestId(page, 'practice-hint'));
    await click(byTestId(page, 'practice-solution'));
    await c.check(`a wrong answer, every hint and the solution of exercise ${id}`);
  }
}

async function cardBlock(page, c) {
  for (let guard = 0; guard < 40; guard++) {
    const card = byTestId(page, 'flashcard');
    const side = await card.getAttribute('data-side');
    if (side !== 'front' && side !== 'back') break;
    const id = await card.getAttribute('data-id');
    if (side === 'front') await click(byTestId(page, 'flashcard-reveal'));
    await page.waitForFunction((el) => el.dataset.side === 'back' && !el.querySelector('.card-back').textContent.includes('…'), await card.elementHandle()).catch(() => {});
    await c.check(`revealing card ${id}`);
    await click(byTestId(page, `flashcard-grade-${2 + (guard % 3)}`));
    await c.check(`grading card ${id}`);
  }
}

async function quizBlock(page, c, rounds = 3) {
  let k = 0;
  for (let r = 0; r < rounds; r++) {
    await click(byTestId(page, r === 0 ? 'quiz-start' : 'quiz-restart'));
    for (let guard = 0; guard < 20; guard++) {
      const q = byTestId(page, 'quiz-question');
      if (!(await q.count())) break;
      const kind = await q.getAttribute('data-kind');
      const id = await q.getAttribute('data-id');
      const right = (k++) % 2 === 0;
      if (kind === 'mcq') {
        await click(q.locator(`[data-testid="quiz-option"][data-value="${right ? 'o1' : 'o3'}"]`));
      } else {
        await page.waitForFunction((el) => el.dataset.state && el.dataset.state !== 'loading', await q.elementHandle());
        const seed = Number(await q.getAttribute('data-seed'));
        const ans = await page.evaluate(async ([id, seed]) => {
          const { QUIZ } = await import('/js/practice/generators.mjs');
          return (await QUIZ[id].generate(seed, window.__practice.engine)).answer;
        }, [id, seed]);
        await click(byTestId(page, 'quiz-hint'));
        await byTestId(page, 'quiz-answer-input').fill(String(right ? ans : ans * 3 + 7));
      }
      await click(byTestId(page, 'quiz-submit'));
      await page.waitForFunction(() => {
        const f = document.querySelector('[data-testid="quiz-feedback"]');
        return f && (f.dataset.kind === 'ok' || f.dataset.kind === 'bad');
      });
      await c.check(`answering quiz question ${id} (${kind}) ${right ? 'right' : 'wrong'}`);
      await click(byTestId(page, 'quiz-next'));
    }
    await byTestId(page, 'quiz-score').waitFor();
    await c.check(`finishing quiz round ${r + 1}`);
  }
}

async function progressBlock(page, c, tmp) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click(byTestId(page, 'progress-export'))]);
  await dl.cancel().catch(() => {});
  await c.check('exporting progress');
  const bad = path.join(tmp, 'not-progress.json');
  await writeFile(bad, '{"format": "something else", "version": 1}');
  await byTestId(page, 'progress-import').setInputFiles(bad);
  await page.waitForFunction(() => document.querySelector('[data-testid="progress-message"]')?.dataset.kind === 'bad');
  await c.check('importing a refused file');
}

// ------------------------------------------------------------ tests
let tmp;
before(async () => { tmp = await mkdtemp(path.join(process.env.BROWSER_PROFILE_ROOT || tmpdir(), 'attn-phone-files-')); });
after(async () => { await rm(tmp, { recursive: true, force: true }); });

describe('practice on a 360 and a 390 px phone', () => {
  let b;
  before(async () => { b = await launchPhone(PHONE_WIDTHS[0]); });
  after(async () => { await b?.close(); });

  for (const lang of LANGS) {
    test(`${lang}: every block still fits the phone after it is used; no keyboard help on touch`, T, async () => {
      const page = await openFresh(b, lang);
      assert.equal(await page.evaluate(() => window.matchMedia('(hover: none) and (pointer: coarse)').matches), true,
        'the phone context reports a coarse pointer without hover');
      // The flashcards' keyboard help: in the page (for keyboards), not shown on a touch screen.
      const keys = byTestId(page, 'flashcard-keys');
      assert.equal(await keys.count(), 1, `${lang}: the help is in the page`);
      assert.equal(await keys.isVisible(), false, `${lang}: keyboard shortcuts are not shown on a touch screen`);

      const c = overflowChecker(page, lang);
      await c.check('loading');
      await tryBlock(page, c);
      await page.reload({ waitUntil: 'load' });
      await waitPage(page, 'practice');
      await c.check('reloading with saved guesses');
      await mythBlock(page, c);
      await exerciseBlock(page, c);
      await click(byTestId(page, 'flashcard-reveal'));
      await byTestId(page, 'flashcard-grade-1').waitFor();
      assert.equal(await byTestId(page, 'flashcard-grade-1').locator('.grade-key').isVisible(), false,
        `${lang}: no key number on the grade buttons of a touch screen`);
      await cardBlock(page, c);
      await quizBlock(page, c, 2);
      await progressBlock(page, c, tmp);
      if (SHOTS) await screenshot(page, `practice-phone-${lang}`);
      assert.deepEqual(c.problems, [], `the page grew wider than the phone:\n${c.problems.join('\n')}`);
      await page.close();
    });
  }
});
