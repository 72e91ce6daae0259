// The keyboard and shared links against the fixed where-bar and the lazily built sections,
// both editions:
// - Shift+Tab from the footer back to the contents: no focused control ends under the bar
//   (a margin on jump targets only left 30 of 379 backward stops covered, small links wholly);
// - a held Tab (key repeat: presses sent back to back, no waiting) from the contents reaches a
//   control (or the heading) of every section in page order before the footer, where it
//   skipped every section not built yet (pages/lazy-mount.mjs);
// - a phone opening a shared link to a section (#s8, #kvcache) sees its heading below the bar.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, LANGS } from './helpers.mjs';
import { waitPage } from './lesson-helpers.mjs';
import { launchPhone } from './phone.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';

const T = { timeout: 600000 };   // hundreds of key presses on a shared machine: a hang detector

// Where the focus is: its section (or footer / header), whether the bar hides it, and whether a
// part announces it is still computing (aria-busy), read in one look: every round trip to the
// page is paid hundreds of times a test.
const focusState = (page) => page.evaluate(() => {
  const busy = !!document.querySelector('[aria-busy="true"]');
  const a = document.activeElement;
  if (!a || a === document.body) return { where: 'body', busy };
  const bar = document.querySelector('[data-testid="where-bar"]');
  const barBottom = bar && !bar.hidden ? bar.getBoundingClientRect().bottom : 0;
  const r = a.getBoundingClientRect();
  const sec = a.closest('main > section[id]');
  const where = sec ? sec.id : a.closest('footer') ? 'footer' : a.closest('[data-testid="where-bar"]') ? 'bar' : 'header';
  const room = innerHeight - barBottom;
  // covered: its top is under the bar, unless it is taller than the room below the bar and fills it
  const covered = r.top < barBottom - 0.5 && !(r.height > room && r.bottom > barBottom);
  const name = a.dataset.testid || a.id || `${a.tagName.toLowerCase()} "${(a.textContent || '').trim().slice(0, 24)}"`;
  return { where, covered, what: `${name} top=${r.top.toFixed(0)} bar=${barBottom.toFixed(0)}`,
    onScreen: r.bottom > 0 && r.top < innerHeight, busy };
});

describe('keyboard on the lesson (1280 px)', () => {
  let b;
  before(async () => { b = await launch({ viewport: { width: 1280, height: 800 } }); });
  after(async () => { await b?.close(); });

  for (const lang of LANGS) {
    test(`${lang}: Shift+Tab from the footer never leaves the focus under the where-bar`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html`), { waitUntil: 'load' });
      await waitPage(page, 'lesson', 120000);
      await page.locator('footer a').last().focus();
      const covered = [];
      let stops = 0;
      // Shift held down through the walk, as a person holds it (a Shift+Tab press was four key
      // events a stop, where Tab alone is two)
      await page.keyboard.down('Shift');
      for (let k = 0; k < 1000; k++) {
        await page.keyboard.press('Tab');
        const f = await focusState(page);
        if (f.where === 'header' || f.where === 'body') break;
        if (f.where === 'bar') continue;   // the bar's own links are in it
        stops++;
        if (f.covered) covered.push(f.what);
      }
      await page.keyboard.up('Shift');
      assert.ok(stops > 200, `walked back through the lesson (${stops} stops)`);
      assert.deepEqual(covered, [], `${covered.length} of ${stops} focused controls under the bar`);
      await page.close();
    });

    test(`${lang}: a held Tab reaches every section in order, as the sections mount`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html`), { waitUntil: 'load' });
      await page.waitForFunction(() => document.documentElement.dataset.firstScreen === 'ready', null, { timeout: 120000 });
      await page.locator('.toc a').last().focus();
      const order = [];
      const offScreen = [];
      // A part that announces it is still computing (aria-busy: chapter 13's held-out head scores,
      // seconds of engine work after its mount) may grow and move what the keyboard just reached;
      // a control is required on screen only when nothing was busy around its key press: before
      // it (the look after the previous press, the last thing before this one) and after it.
      let busyBefore = await page.evaluate(() => !!document.querySelector('[aria-busy="true"]'));
      for (let k = 0; k < 2000; k++) {
        await page.keyboard.press('Tab');   // back to back: key repeat outruns the mounts
        const f = await focusState(page);
        const quiet = !busyBefore && !f.busy;
        busyBefore = f.busy;
        if (f.where === 'body' || f.where === 'bar') continue;
        if (!f.onScreen && quiet) offScreen.push(f.what);
        if (order[order.length - 1] !== f.where) order.push(f.where);
        if (f.where === 'footer') break;
      }
      // the sections that have a tab stop once built (a section of prose alone has none)
      await waitPage(page, 'lesson', 120000);
      const ids = await page.evaluate((all) => all.filter((id) => [...document.getElementById(id)
        .querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
        .some((el) => el.tabIndex >= 0 && !el.disabled && el.checkVisibility({ visibilityProperty: true }))), SECTIONS.map((s) => s.id));
      assert.ok(ids.length >= SECTIONS.length - 2, `sections with controls: ${ids}`);
      assert.deepEqual(order.filter((w) => ids.includes(w)), ids, `sections the focus passed through, in order (then ${order.slice(-1)})`);
      assert.equal(order[order.length - 1], 'footer', 'and on to the footer');
      assert.deepEqual(offScreen.slice(0, 5), [], 'every focused control was on screen');
      await page.close();
    });
  }
});

describe('a shared link to a section, on a 390 px phone', () => {
  let phone;
  before(async () => { phone = await launchPhone({ width: 390, height: 844 }); });
  after(async () => { await phone?.close(); });
  for (const lang of LANGS) {
    test(`${lang}: #s8 and #kvcache open with their heading below the where-bar`, T, async () => {
      for (const id of ['s8', 'kvcache']) {
        const page = await newPage(phone);
        await page.goto(url(`/${lang}/index.html#${id}`), { waitUntil: 'load' });
        await page.waitForFunction(() => document.documentElement.dataset.firstScreen === 'ready'
          && !document.querySelector('[data-testid="where-bar"]').hidden, null, { timeout: 120000 });
        // the sections above it mount meanwhile; its place is kept
        await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'ready', id, { timeout: 120000 });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const g = await page.evaluate((i) => ({
          h2: document.getElementById(`${i}-h`).getBoundingClientRect().top,
          bar: document.querySelector('[data-testid="where-bar"]').getBoundingClientRect().bottom,
        }), id);
        assert.ok(g.h2 >= g.bar && g.h2 < 200, `#${id}: heading at y=${g.h2.toFixed(0)}, below the bar (${g.bar.toFixed(0)}) and near the top`);
        await page.close();
      }
    });
  }
});
