// The checks of a11y-lesson.test.mjs and a11y-practice.test.mjs (one file per page, so the
// runner's two slots can run them side by side): per edition, a full-page screenshot at 1280 px,
// axe-core on that page with every <details> open, and a full-page screenshot at 360 px, written
// to build/screenshots/<kind>-<lang>-<width>.png, with no sideways overflow at either width.
// (Until 2026-12-07 one file, a11y.test.mjs, did both pages.)
import assert from 'node:assert/strict';
import { assertNoIssues, axeViolations, formatAxe, screenshot } from './helpers.mjs';
import { openLesson, openPractice } from './lesson-helpers.mjs';
import { markRepeats, SAME } from './a11y-repeats.mjs';

// Measured with engine/bench/axe-profile.mjs (2026-12-07, lesson fa, 27,400 elements with every
// fold open): axe took 66-90 s in the page, 60-70 % of it color-contrast, which costs 12-27 ms a
// node here. The limit is a hang detector for a loaded machine, not a timing of the page.
export const T = { timeout: 240000 };
export const T_AXE = { timeout: 600000 };
const OPEN = { lesson: openLesson, practice: openPractice };

async function shoot(page, name, width) {
  await page.evaluate(() => document.fonts.ready);
  const file = await screenshot(page, name);
  // Nothing may stick out sideways at this width (a horizontal scrollbar).
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page is ${overflow} px wider than the ${width} px viewport (${file})`);
  return file;
}

// Open every disclosure (heatmap data tables, reveals) so axe checks them too; a fold builds its
// content on its 'toggle' event (a task after the change): wait for each.
async function openFolds(page) {
  await page.evaluate(() => Promise.all([...document.querySelectorAll('details:not([open])')].map((d) =>
    new Promise((resolve) => { d.addEventListener('toggle', resolve, { once: true }); d.open = true; }))));
}

// The three steps each test file runs per edition (the test() calls stay in the test files, so
// the runner's durations name them). A full-page screenshot at 1280 px: the page, for axe next.
export async function wideShot(b, kind, lang) {
  const page = await OPEN[kind](b, lang, '', { viewport: { width: 1280, height: 900 } });
  await shoot(page, `${kind}-${lang}-1280`, 1280);
  assertNoIssues(page);
  return page;
}

// axe on that page (or a new one when the screenshot test did not run) with every fold open,
// exact repeats left out (a11y-repeats.mjs).
export async function axeCheck(b, kind, lang, wide) {
  const page = wide ?? await OPEN[kind](b, lang, '', { viewport: { width: 1280, height: 900 } });
  await openFolds(page);
  const same = await markRepeats(page);
  console.log(`# ${kind} ${lang}: axe skips ${same.rows} repeated table rows and ${same.formulas} repeated formulas (${same.distinctFormulas} checked)`);
  const v = await axeViolations(page, { exclude: [SAME] });
  assert.equal(v.length, 0, `axe violations on ${kind} ${lang}:\n${formatAxe(v)}`);
  assertNoIssues(page);
}

// A full-page screenshot at 360 px in a page of its own, not the wide one resized: a page sets
// some things up for the viewport it loads in (train.test.mjs: a 360 px phone gets chapter 14's
// small model).
export async function narrowShot(b, kind, lang) {
  const page = await OPEN[kind](b, lang, '', { viewport: { width: 360, height: 780 } });
  await shoot(page, `${kind}-${lang}-360`, 360);
  assertNoIssues(page);
  await page.close();
}
