// axe-core on both editions (lesson and practice) and full-page screenshots
// at 360 px and 1280 px wide, written to build/screenshots/.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, assertNoIssues, axeViolations, formatAxe, screenshot, LANGS } from './helpers.mjs';
import { openLesson, openPractice, waitLesson } from './lesson-helpers.mjs';

const T = { timeout: 60000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const PAGES = {
  lesson: openLesson,
  practice: openPractice,
};

for (const lang of LANGS) {
  for (const [kind, open] of Object.entries(PAGES)) {
    describe(`${kind} ${lang}`, () => {
      test(`${kind} ${lang}: axe-core finds no violation`, T, async () => {
        const page = await open(b, lang, '', { viewport: { width: 1280, height: 900 } });
        // Open every disclosure (heatmap data tables, reveals) so axe sees them too.
        await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
        await page.waitForTimeout(200);
        const v = await axeViolations(page);
        assert.equal(v.length, 0, `axe violations on ${kind} ${lang}:\n${formatAxe(v)}`);
        assertNoIssues(page);
        await page.close();
      });

      for (const width of [360, 1280]) {
        test(`${kind} ${lang}: full-page screenshot at ${width} px`, T, async () => {
          const page = await open(b, lang, '', { viewport: { width, height: width < 600 ? 780 : 900 } });
          await page.evaluate(() => document.fonts.ready);
          const file = await screenshot(page, `${kind}-${lang}-${width}`);
          // Nothing may stick out sideways at this width (a horizontal scrollbar).
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 1, `page is ${overflow} px wider than the ${width} px viewport (${file})`);
          assertNoIssues(page);
          await page.close();
        });
      }
    });
  }
}
