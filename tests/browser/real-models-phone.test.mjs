// Chapters 10–12 (heads, window, kvcache) on a phone after a learner has used them, not only
// on load (issue 12's rule for every block; their own tests check 360 px on load and after
// refused input). A mobile, touch viewport, 360 and 390 px, both editions. Each chapter is
// pushed to the widest numbers it can show: the widest matrix entry, one key/value head, the
// largest window and sequence, a finished long run, the last decode step, and the largest
// model shape the calculator takes with the largest batch and context. After every step
// the page must still fit the phone; a failure names the elements that stick out.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, url, byTestId, LANGS, assertNoIssues, SCREENSHOT_DIR, typeInto } from './helpers.mjs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { waitPage } from './lesson-helpers.mjs';
import { launchPhone, overflowChecker, PHONE_WIDTHS } from './phone.mjs';

const T = { timeout: 600000 };   // a long run and three chapters, on a busy 2-core machine

// PHONE_SCREENSHOTS=1: the section on screen after each chapter's last step, at 360 px
const SHOTS = process.env.PHONE_SCREENSHOTS === '1';
async function shot(page, lang, id) {
  if (!SHOTS) return;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.setViewportSize({ width: PHONE_WIDTHS[0], height: 780 });
  await byTestId(page, id).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `real-models-phone-${lang}-${id}.png`) });
}
const state = (page, testid) => byTestId(page, testid).getAttribute('data-state');

describe('chapters 10–12 on a phone, after use', () => {
  let b;
  before(async () => { b = await launchPhone({ width: PHONE_WIDTHS[0] }); });
  after(async () => { await b?.close(); });

  for (const lang of LANGS) {
    test(`${lang}: heads, window and kvcache fit 360 and 390 px after every step`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html#heads`), { waitUntil: 'load', timeout: 120000 });
      await waitPage(page, 'lesson', 120000);
      const c = overflowChecker(page, lang);

      // ---- chapter 10: the widest entry in head 1's W_Q, then one shared key/value head
      await page.waitForFunction(() => document.querySelector('#heads')?.dataset.state === 'ready'
        && document.querySelector('[data-testid="heads-gqa-live"]')?.dataset.hkv, null, { timeout: 120000 });
      const final = () => byTestId(page, 'heads-final').textContent();
      const before = await final();
      const cell = byTestId(page, 'heads-wq1-r0c0');
      await cell.scrollIntoViewIfNeeded();
      await cell.fill('-99.8765');   // the editor's bound is ±100: the widest value it takes
      await cell.press('Tab');
      await page.waitForFunction((was) => document.querySelector('[data-testid="heads-final"]').textContent !== was, before);
      await c.check('W_Q[0,0] = −99.8765');
      await byTestId(page, 'heads-hkv').selectOption('1');
      await page.waitForFunction(() => document.querySelector('[data-testid="heads-gqa-live"]').dataset.hkv === '1');
      await c.check('H_kv = 1');
      await shot(page, lang, 'heads-final');

      // ---- chapter 11: the largest band, the reach over 8 layers, a finished long run
      await typeInto(page, 'window-n', '64');
      await typeInto(page, 'window-w', '64');
      await typeInto(page, 'window-k', '8');
      await byTestId(page, 'window-causal').uncheck();
      await page.waitForFunction(() => /window\.n=64/.test(location.search) && /window\.k=8/.test(location.search));
      await c.check('n = 64, w = 64, k = 8, not causal');
      await typeInto(page, 'window-run-w', '131072');
      await byTestId(page, 'window-run-max').selectOption('4096');
      await byTestId(page, 'window-run').click();
      await page.waitForFunction(() => ['done', 'failed', 'cancelled'].includes(document.querySelector('[data-testid="window-run-status"]').dataset.state), null, { timeout: 400000 });
      assert.equal(await state(page, 'window-run-status'), 'done', await byTestId(page, 'window-run-status').textContent());
      await c.check('a finished long run (w = 131,072, up to n = 4,096)');
      await shot(page, lang, 'window-run-table');

      // ---- chapter 12: the last decode step, then the largest shape the calculator takes
      const next = byTestId(page, 'kvcache-next');
      await next.scrollIntoViewIfNeeded();
      for (let i = 0; i < 8; i++) await next.click();
      await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-next"]').getAttribute('aria-disabled') === 'true');
      await c.check('the last decode step');
      await shot(page, lang, 'kvcache-explain');
      await byTestId(page, 'kvcache-model').selectOption('custom');
      await byTestId(page, 'kvcache-custom').waitFor({ state: 'visible' });
      for (const [id, v] of [['layers', '256'], ['hq', '256'], ['hkv', '256'], ['dh', '1024'], ['n', '4194304'], ['batch', '1024']]) {
        await typeInto(page, `kvcache-${id}`, v);
      }
      await page.waitForFunction(() => /kvcache\.batch=1024/.test(location.search) && document.querySelector('[data-testid="kvcache-calc"]').dataset.stale === 'false');
      await c.check('the largest custom shape, n = 4,194,304, batch 1,024');
      await shot(page, lang, 'kvcache-result');
      await typeInto(page, 'kvcache-hkv', '3');   // 256 query heads cannot share 3: refused, stale
      await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-calc"]').dataset.stale === 'true');
      await c.check('a refused shape');

      assert.deepEqual(c.problems, [], c.problems.join('\n'));
      assertNoIssues(page);
      await page.close();
    });
  }
});
