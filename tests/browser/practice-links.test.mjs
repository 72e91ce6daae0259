// Practice sends the learner back to the lesson (issue 12): a wrong quiz answer (multiple
// choice and numeric), an exercise's solution, a flashcard's back and a myth's fact each
// carry a link to the lesson section that teaches it (table: web/js/practice/lesson-links.mjs).
// The link is followed: the lesson page opens at that section, whose heading is the title
// the link names; a link with section state (?s4.scale=dk) opens the section in that state.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, assertNoIssues, byTestId, normaliseText, LANGS } from './helpers.mjs';
import { openPractice, waitPage, waitSection } from './lesson-helpers.mjs';
import { newPage } from './helpers.mjs';

// Generous: five lesson loads on a busy 2-core machine take over a minute.
const T = { timeout: 360000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

async function freshPractice(lang) {
  const page = await openPractice(b, lang);
  await page.evaluate(() => localStorage.clear());
  await page.reload({ waitUntil: 'load' });
  await waitPage(page, 'practice');
  return page;
}

// A link's target, as the browser resolves it, and the text it shows.
async function linkOf(loc, what) {
  const link = loc.locator('[data-testid="lesson-link"]');
  assert.equal(await link.count(), 1, `${what}: one link to the lesson`);
  assert.ok(await link.isVisible(), `${what}: the link is visible`);
  return link.evaluate((a) => ({ href: a.href, section: a.dataset.section, text: a.textContent }));
}

// Open the link's target; the section must exist and be the one whose title the link shows.
async function follow(link, lang, what) {
  const page = await newPage(b);
  await page.goto(link.href, { waitUntil: 'load' });
  // the section the link names is built, as for any reader following it (not the whole lesson)
  await waitSection(page, link.section, 90000);
  const u = new URL(page.url());
  assert.equal(u.pathname, `/${lang}/index.html`, `${what}: opens this edition's lesson (${link.href})`);
  assert.equal(u.hash, `#${link.section}`, `${what}: lands on ${link.section}`);
  const sec = page.locator(`main section#${link.section}`);
  assert.equal(await sec.count(), 1, `${what}: section ${link.section} is on the lesson page`);
  assert.equal(await sec.getAttribute('data-state'), 'ready', `${what}: ${link.section} mounted`);
  const title = normaliseText(await sec.locator('h2').first().textContent());
  assert.ok(normaliseText(link.text).includes(title), `${what}: link text "${normaliseText(link.text)}" names «${title}»`);
  assertNoIssues(page);
  return page;
}

// Whether the lesson page has the section the item links to (lesson-links.mjs, lesson-sections.mjs).
const onLessonPage = (page, kind, id) => page.evaluate(async ([kind, id]) => {
  const { lessonTarget } = await import('/js/practice/lesson-links.mjs');
  const { SECTIONS } = await import('/js/lesson/lesson-sections.mjs');
  return SECTIONS.some((s) => s.id === lessonTarget(kind, id)?.section);
}, [kind, id]);

describe('practice links back to the lesson', () => {
  for (const lang of LANGS) {
    test(`${lang}: wrong quiz answers, a solution, a flashcard and a myth link to their lesson section`, T, async () => {
      const page = await freshPractice(lang);
      const links = [];
      // (A mouse and a keyboard here: the flashcards' keyboard help is shown; a touch phone
      // hides it, practice-phone.test.mjs.)
      assert.equal(await page.evaluate(() => window.matchMedia('(hover: hover)').matches), true, 'desktop context has hover');
      assert.equal(await byTestId(page, 'flashcard-keys').isVisible(), true, `${lang}: keyboard shortcuts shown with a mouse`);

      // Quiz: a right answer has no link; a wrong one (of each kind) has.
      await byTestId(page, 'quiz-start').click();
      const wrongKinds = new Set();
      let rightSeen = false;
      for (let guard = 0; guard < 12 && (wrongKinds.size < 2 || !rightSeen); guard++) {
        const q = byTestId(page, 'quiz-question');
        const kind = await q.getAttribute('data-kind');
        const id = await q.getAttribute('data-id');
        if (kind === 'numeric') await page.waitForFunction((el) => el.dataset.state && el.dataset.state !== 'loading', await q.elementHandle());
        assert.equal(await q.locator('[data-testid="lesson-link"]').count(), 0, `quiz ${id}: no link before answering`);
        const wrong = !wrongKinds.has(kind);
        if (kind === 'mcq') {
          await q.locator(`[data-testid="quiz-option"][data-value="${wrong ? 'o2' : 'o1'}"]`).check();
        } else {
          const seed = Number(await q.getAttribute('data-seed'));
          const ans = await page.evaluate(async ([id, seed]) => {
            const { QUIZ } = await import('/js/practice/generators.mjs');
            return (await QUIZ[id].generate(seed, window.__practice.engine)).answer;
          }, [id, seed]);
          await byTestId(page, 'quiz-answer-input').fill(String(wrong ? ans * 3 + 7 : ans));
        }
        await byTestId(page, 'quiz-submit').click();
        const fb = byTestId(page, 'quiz-feedback');
        await page.waitForFunction((el) => el.dataset.kind === 'ok' || el.dataset.kind === 'bad', await fb.elementHandle());
        assert.equal(await fb.getAttribute('data-kind'), wrong ? 'bad' : 'ok', `quiz ${id} graded`);
        if (wrong && !(await onLessonPage(page, 'quiz', id))) {
          // its chapter is not on the lesson page yet (issue 24: practice can land first): no dead link
          assert.equal(await q.locator('[data-testid="lesson-link"]').count(), 0, `quiz ${id}: no link to a missing section`);
        } else if (wrong) {
          wrongKinds.add(kind);
          links.push([await linkOf(q, `wrong answer to quiz ${id}`), `quiz ${id}`]);
        } else {
          rightSeen = true;
          assert.equal(await q.locator('[data-testid="lesson-link"]').count(), 0, `quiz ${id}: no link after a right answer`);
        }
        await byTestId(page, 'quiz-next').click();
      }
      assert.equal(wrongKinds.size, 2, 'a wrong multiple-choice and a wrong numeric answer were seen');

      // Exercise: the link is in the worked solution.
      const ex = byTestId(page, 'practice-exercise');
      await page.waitForFunction((el) => el.dataset.state === 'ready', await ex.elementHandle());
      await byTestId(page, 'practice-solution').click();
      links.push([await linkOf(byTestId(page, 'practice-solution-box'), 'exercise solution'), `exercise ${await ex.getAttribute('data-id')}`]);

      // Flashcard: the link is on the back, once revealed.
      const card = byTestId(page, 'flashcard');
      assert.equal(await card.locator('[data-testid="lesson-link"]').count(), 0, 'no link on the front of a card');
      await byTestId(page, 'flashcard-reveal').click();
      await byTestId(page, 'flashcard-grade-1').waitFor();
      assert.equal(await byTestId(page, 'flashcard-grade-1').locator('.grade-key').isVisible(), true, `${lang}: key numbers shown with a mouse`);
      links.push([await linkOf(byTestId(page, 'flashcard-back'), 'flashcard back'), `card ${await card.getAttribute('data-id')}`]);

      // Myth: the link is beside the fact.
      const myth = byTestId(page, 'myth-item').nth(8);   // m09: a link with section state
      await myth.locator('[data-testid="myth-toggle"]').click();
      links.push([await linkOf(myth, 'myth m09'), 'myth m09']);
      assertNoIssues(page);
      await page.close();

      for (const [link, what] of links) {
        const lesson = await follow(link, lang, what);
        if (what === 'myth m09') {
          // "Dividing by d_k is safer": the lesson opens with s4 set to divide by d_k.
          assert.match(link.href, /[?&]s4\.scale=dk(&|#)/, 'myth m09 link carries s4.scale=dk');
          assert.equal(await byTestId(lesson, 's4-scale-dk').isChecked(), true, 'lesson s4 opens dividing by d_k');
        }
        await lesson.close();
      }
    });
  }
});
