// Issue 21 item 7 on a 390 px phone: the tables whose numbers the prose discusses show them
// without a sideways swipe (the card form of widgets/table.mjs), citation links are thumb-sized,
// and a vertical swipe that starts on a slider scrolls the page without moving the slider.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { url, byTestId, LANGS } from './helpers.mjs';
import { waitLesson } from './lesson-helpers.mjs';
import { launchPhone } from './phone.mjs';

const T = { timeout: 240000 };
const WIDTH = 390;
// the tables a paragraph talks about (s3 memory, heads GQA, KV-cache cost, s4's two fold
// tables: the seed experiment and the d_k trend, built when their fold first opens)
const TABLES = ['s3-memory', 'heads-gqa-table', 'kvcache-cost-table', 's4-table-a', 's4-table-b'];
let phone;
before(async () => { phone = await launchPhone({ width: WIDTH, height: 844 }); });
after(async () => { await phone?.close(); });

async function openPhone(lang, query = '') {
  const page = await phone.context.newPage();
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load' });
  await waitLesson(page);
  return page;
}

// Cells (th and td of the body) that stick out of the screen, for one table scrolled into view.
async function offScreen(page, testid) {
  const table = byTestId(page, testid);
  await table.waitFor({ state: 'attached' });
  await table.evaluate((t) => { for (let d = t.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; });
  await table.scrollIntoViewIfNeeded();
  // the card form is chosen once the table has its place (ResizeObserver): wait for a frame after it
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return table.evaluate((t, w) => {
    const cells = [...t.querySelectorAll('tbody th, tbody td')];
    const out = cells.map((c) => c.getBoundingClientRect()).filter((r) => r.left < -0.5 || r.right > w + 0.5);
    return { cells: cells.length, off: out.length, px: Math.max(0, ...out.map((r) => Math.max(r.right - w, -r.left))) };
  }, WIDTH);
}

for (const lang of LANGS) {
  describe(`tables on a phone ${lang}`, () => {
    test(`${lang}: no key table cell is off-screen at ${WIDTH} px; citation links are ≥ 40 px`, T, async () => {
      const page = await openPhone(lang);
      await page.evaluate(() => { for (const d of document.querySelectorAll('#s4 details')) d.open = true; });
      for (const id of TABLES) {
        const r = await offScreen(page, id);
        assert.ok(r.cells > 0, `${id} has cells`);
        assert.equal(r.off, 0, `${id}: ${r.off} of ${r.cells} cells off-screen by up to ${r.px.toFixed(0)} px`);
        // a card line says which column a value is (the label comes from the column header)
        const labelled = await byTestId(page, id).evaluate((t) => [...t.querySelectorAll('td')].every((td) => td.dataset.label
          && getComputedStyle(td, '::before').content.includes(td.dataset.label)));
        assert.ok(labelled, `${id}: every value shows its column's name`);
      }
      const cites = await page.evaluate(() => [...document.querySelectorAll('sup.cite a')].map((a) => {
        const r = a.getBoundingClientRect();
        return { id: a.dataset.cite, w: r.width, h: r.height };
      }));
      assert.ok(cites.length > 5, `citations found (${cites.length})`);
      const small = cites.filter((c) => c.w < 40 || c.h < 40);
      assert.deepEqual(small, [], `citation targets under 40 px: ${JSON.stringify(small.slice(0, 5))}`);
      await page.close();
    });

    test(`${lang}: a vertical swipe that starts on a slider scrolls the page and leaves the slider's value`, T, async () => {
      const page = await openPhone(lang, '#s4');
      const input = byTestId(page, 's4-dk');
      await input.scrollIntoViewIfNeeded();
      await page.evaluate(() => window.scrollBy(0, 200));   // the slider in the lower half: room to swipe up
      const before = await input.inputValue();
      const box = await input.boundingBox();
      const scroll0 = await page.evaluate(() => scrollY);
      // a thumb on the slider, off its thumb (a touch there moves the value) and up the screen
      const x = box.x + box.width * 0.85, y = box.y + box.height / 2;
      const cdp = await page.context().newCDPSession(page);
      const touch = (type, py) => cdp.send('Input.dispatchTouchEvent', {
        type, touchPoints: type === 'touchEnd' ? [] : [{ x, y: py, id: 1 }],
      });
      await touch('touchStart', y);
      for (let k = 1; k <= 12; k++) await touch('touchMove', y - k * 25);
      await touch('touchEnd', y - 300);
      await page.waitForFunction((s0) => Math.abs(scrollY - s0) > 50, scroll0);
      assert.equal(await input.inputValue(), before, 'the slider keeps its value after the scroll');
      await cdp.detach();
      await page.close();
    });
  });
}
