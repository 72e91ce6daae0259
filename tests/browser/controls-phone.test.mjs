// Controls a reader taps on a touch phone (360 px), both editions:
// - radio groups (widgets/controls.mjs radioGroup): s4's scale and s6's alignment. Each option
//   tapped in turn, back to the first: exactly one option is checked, the URL names it, and the
//   section's readout follows (it equals the readout first seen for that option);
// - the KV-cache step-through: "next step" stays where it was after a tap, so a second tap in
//   the same place steps again.
// Every wait is on a state the page announces (the URL, data-* attributes, a readout's text),
// with limits that only catch hangs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, url, byTestId, LANGS, assertNoIssues } from './helpers.mjs';
import { waitPage } from './lesson-helpers.mjs';
import { launchPhone } from './phone.mjs';

const T = { timeout: 180000 };
const HANG = { timeout: 60000 };

// The options of each group, the URL key, and the readout that shows the group's effect.
const GROUPS = [
  { section: 's4', key: 's4.scale', def: 'off', options: ['off', 'sqrt', 'dk', 'off', 'sqrt'], testid: (v) => `s4-scale-${v}`,
    readout: 's4-max-weight' },
  { section: 's6', key: 's6.align', def: 'tl', options: ['tl', 'br', 'tl', 'br'], testid: (v) => `s6-align-${v}`,
    readout: 's6-rect-live' },
];

const urlValue = (page, key) => page.evaluate((k) => new URLSearchParams(location.search).get(k), key);
const checkedOf = (page, section) => page.evaluate((s) =>
  [...document.querySelectorAll(`#${s} input[type=radio]`)].filter((i) => i.checked).map((i) => i.dataset.testid), section);
const readoutText = (page, testid) => byTestId(page, testid).evaluate((e) => e.textContent.trim());

describe('controls on a touch phone', () => {
  let b;
  before(async () => { b = await launchPhone({ width: 360 }); });
  after(async () => { await b?.close(); });

  for (const lang of LANGS) {
    test(`${lang}: every radio group keeps exactly one option, and the section follows each tap`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html#s4`), { waitUntil: 'load', timeout: 120000 });
      await waitPage(page, 'lesson', 120000);
      for (const g of GROUPS) {
        const seen = new Map();   // option → the readout first shown for it
        await byTestId(page, g.testid(g.def)).scrollIntoViewIfNeeded();
        seen.set(g.def, await readoutText(page, g.readout));
        let previous = seen.get(g.def);
        for (const v of g.options.slice(1)) {
          await byTestId(page, g.testid(v)).tap();
          await page.waitForFunction(([k, want, def]) =>
            (new URLSearchParams(location.search).get(k) ?? def) === want, [g.key, v, g.def], HANG);
          assert.deepEqual(await checkedOf(page, g.section), [g.testid(v)], `${g.section}: only ${v} is checked`);
          // the readout settles on what this option showed before, or (first visit) changes
          await page.waitForFunction(([id, want, prev]) => {
            const t = document.querySelector(`[data-testid="${id}"]`).textContent.trim();
            return want !== null ? t === want : t !== prev && t !== '';
          }, [g.readout, seen.get(v) ?? null, previous], HANG);
          const now = await readoutText(page, g.readout);
          if (!seen.has(v)) seen.set(v, now);
          assert.equal(now, seen.get(v), `${g.section}: the readout follows ${v}`);
          assert.equal((await urlValue(page, g.key)) ?? g.def, v);
          previous = now;
        }
        // one group: one name, so the arrow keys move the choice as native radios do
        const names = await page.evaluate((s) => new Set([...document.querySelectorAll(`#${s} input[type=radio]`)].map((i) => i.name)).size, g.section);
        assert.equal(names, 1, `${g.section}: the options share one name`);
      }
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: the KV-cache "next step" stays under the finger`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html#kvcache`), { waitUntil: 'load', timeout: 120000 });
      await waitPage(page, 'lesson', 120000);
      const next = byTestId(page, 'kvcache-next');
      await next.scrollIntoViewIfNeeded();
      const stepIs = (n) => page.waitForFunction((want) =>
        document.querySelector('[data-testid="kvcache-step"]').dataset.step === want, String(n), HANG);
      await stepIs(0);
      const box = await next.boundingBox();
      const x = box.x + box.width / 2, y = box.y + box.height / 2;
      for (let step = 1; step <= 3; step++) {
        await page.touchscreen.tap(x, y);   // the same place each time, as a thumb does
        await stepIs(step);
        const now = await next.boundingBox();
        assert.ok(Math.abs(now.x - box.x) < 1 && Math.abs(now.y - box.y) < 1,
          `step ${step}: the button moved from (${box.x}, ${box.y}) to (${now.x}, ${now.y})`);
      }
      assertNoIssues(page);
      await page.close();
    });
  }
});
