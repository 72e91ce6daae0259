// axe-core on both editions (lesson and practice) and full-page screenshots
// at 360 px and 1280 px wide, written to build/screenshots/<kind>-<lang>-<width>.png.
// (Practice views after interaction are checked with axe in practice.test.mjs.)
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, assertNoIssues, axeViolations, formatAxe, screenshot, LANGS } from './helpers.mjs';
import { openLesson, openPractice } from './lesson-helpers.mjs';

// axe over the whole lesson (about 12,000 elements with every disclosure open, nine chapters) took
// 27-33 s on a quiet machine and 125-138 s at load average 14 (first run of a page). With twelve
// chapters it took 146 s (fa) and ran past 240 s (ar) while a second browser run shared the two
// cores. The limit is a hang detector: it must cover a loaded machine, not time the page.
const T = { timeout: 240000 };
const T_AXE = { timeout: 600000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const OPEN = { lesson: openLesson, practice: openPractice };

async function shoot(page, name, width) {
  await page.evaluate(() => document.fonts.ready);
  const file = await screenshot(page, name);
  // Nothing may stick out sideways at this width (a horizontal scrollbar).
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page is ${overflow} px wider than the ${width} px viewport (${file})`);
  return file;
}

for (const kind of Object.keys(OPEN)) {
  for (const lang of LANGS) {
    describe(`${kind} ${lang}: screenshots and axe`, () => {
      let wide = null;   // the 1280 px page, shared by the screenshot and axe tests

      test(`${kind} ${lang}: full-page screenshot at 1280 px`, T, async () => {
        wide = await OPEN[kind](b, lang, '', { viewport: { width: 1280, height: 900 } });
        await shoot(wide, `${kind}-${lang}-1280`, 1280);
        assertNoIssues(wide);
      });

      test(`${kind} ${lang}: axe-core finds no violation`, T_AXE, async () => {
        const page = wide ?? await OPEN[kind](b, lang, '', { viewport: { width: 1280, height: 900 } });
        // Open every disclosure (heatmap data tables, reveals) so axe checks them too; a fold
        // builds its content on its 'toggle' event (a task after the change): wait for each.
        await page.evaluate(() => Promise.all([...document.querySelectorAll('details:not([open])')].map((d) =>
          new Promise((resolve) => { d.addEventListener('toggle', resolve, { once: true }); d.open = true; }))));
        // Chapter 13's map of a whole head is a 64 × 64 table of cell buttons (5,800 of the lesson's
        // 27,000 elements): the same heatmap.mjs table as its neighbour model-from's, which axe
        // checks whole, so this one is left out.
        const v = await axeViolations(page, { exclude: kind === 'lesson' ? ['[data-testid="model-map"] .heatmap-table'] : [] });
        assert.equal(v.length, 0, `axe violations on ${kind} ${lang}:\n${formatAxe(v)}`);
        assertNoIssues(page);
      });

      test(`${kind} ${lang}: full-page screenshot at 360 px`, T, async () => {
        await wide?.close();
        const page = await OPEN[kind](b, lang, '', { viewport: { width: 360, height: 780 } });
        await shoot(page, `${kind}-${lang}-360`, 360);
        assertNoIssues(page);
        await page.close();
      });
    });
  }
}
