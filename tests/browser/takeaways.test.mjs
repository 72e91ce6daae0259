// Issue 12: every lesson section except the summary and the sources ends with a short
// boxed "in short" note (lesson.mjs renders `<id>.takeaway`), in both editions, titled
// in the page's language; axe runs on the notes only (the full page is a11y.test.mjs's job).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, assertNoIssues, axeViolations, formatAxe, LANGS } from './helpers.mjs';
import { openLesson, SECTION_IDS } from './lesson-helpers.mjs';

const T = { timeout: 120000 };
const TITLE = { fa: 'خلاصه', ar: 'الخلاصة' };
const WITHOUT = new Set(['summary', 'refs']);
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  test(`${lang}: each lesson section ends with a non-empty takeaway; axe clean on them`, T, async () => {
    const page = await openLesson(b, lang);
    const found = await page.evaluate((ids) => ids.map((id) => {
      const sec = document.getElementById(id);
      const last = sec?.lastElementChild;
      const box = sec?.querySelector(`[data-testid="${id}-takeaway"]`);
      return {
        id, state: sec?.dataset.state, isLast: !!box && box === last,
        title: box?.querySelector('.takeaway-title')?.textContent.trim() ?? null,
        text: box?.querySelector('.takeaway-text')?.textContent.trim() ?? '',
        label: box ? document.getElementById(box.getAttribute('aria-labelledby'))?.textContent.trim() : null,
      };
    }), SECTION_IDS);
    for (const f of found) {
      assert.equal(f.state, 'ready', `${f.id} mounted`);
      if (WITHOUT.has(f.id)) { assert.equal(f.title, null, `${f.id} has no takeaway`); continue; }
      assert.ok(f.isLast, `${f.id} ends with its takeaway`);
      assert.equal(f.title, TITLE[lang], `${f.id}: the takeaway is titled in ${lang}`);
      assert.equal(f.label, TITLE[lang], `${f.id}: the note is named by its title`);
      assert.ok(f.text.length > 40, `${f.id}: the takeaway says something (${JSON.stringify(f.text)})`);
      assert.ok(!/\[[a-zA-Z]+\]|\b[a-z]\d?\.takeaway\b/.test(f.text), `${f.id}: no raw key or placeholder (${f.text})`);
    }
    const v = await axeViolations(page, { include: '.takeaway' });
    assert.equal(v.length, 0, `axe violations on the ${lang} takeaways:\n${formatAxe(v)}`);
    assertNoIssues(page);
    await page.close();
  });
}
