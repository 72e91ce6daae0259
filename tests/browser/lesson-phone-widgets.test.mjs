// Phones (mobile, touch viewport, 360 and 390 CSS px), issue 12 item 9 (the parts of
// sections 5 and the site-wide scrollers), both editions:
// - section 5: the key and both weight columns are on screen without scrolling, the table's
//   caption is not cut, the page itself does not scroll sideways;
// - every table or code block that is wider than the screen (lesson and practice) shows a scroll
//   cue at the edge where more waits, and is a focusable region with a name.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, url, byTestId, LANGS } from './helpers.mjs';
import { waitPage } from './lesson-helpers.mjs';
import { launchPhone, PHONE_WIDTHS } from './phone.mjs';

const T = { timeout: 300000 };   // shared, loaded machine: generous, no timed assertion

async function open(b, file, lang, hash = '') {
  const page = await newPage(b);
  await page.goto(url(`/${lang}/${file}${hash}`), { waitUntil: 'load', timeout: 120000 });
  await waitPage(page, file === 'index.html' ? 'lesson' : 'practice', 120000);
  return page;
}

// Overflowing scrollers: focusable, named, with a cue (a fade on a side: --cue-left/right > 0).
async function scrollerProblems(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('.table-scroll, pre.code')) {
      if (!el.clientWidth || el.scrollWidth <= el.clientWidth + 1) continue;
      const name = (el.getAttribute('aria-label') || '').trim() || el.getAttribute('aria-labelledby');
      const cs = getComputedStyle(el);
      const cue = Math.max(parseFloat(cs.getPropertyValue('--cue-left')) || 0, parseFloat(cs.getPropertyValue('--cue-right')) || 0);
      const what = el.dataset.testid || el.querySelector('[data-testid]')?.dataset.testid || el.className;
      // A scroller whose content has its own tab stops (a heatmap's table of cell buttons) is
      // scrolled by the keyboard through them (a focused cell scrolls into view), as axe's
      // scrollable-region-focusable allows; lesson.mjs gives a stop and a name to the others.
      const inner = el.querySelector('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])');
      if (!inner && el.tabIndex < 0) bad.push(`${what}: not focusable`);
      if (!inner && !name) bad.push(`${what}: no name`);
      if (!(cue > 0)) bad.push(`${what}: no scroll cue`);
      const cap = el.querySelector('caption');
      if (cap) {
        const r = cap.getBoundingClientRect();
        if (r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5) bad.push(`${what}: caption cut (${r.left.toFixed(0)}–${r.right.toFixed(0)})`);
      }
    }
    return bad;
  });
}

for (const width of PHONE_WIDTHS) {
  describe(`phone ${width} px`, () => {
    let b;
    before(async () => { b = await launchPhone({ width }); });
    after(async () => { await b?.close(); });

    for (const lang of LANGS) {
      test(`${lang} ${width}px: section 5 shows both weight columns and its caption unscrolled`, T, async () => {
        const page = await open(b, 'index.html', lang, '#s5');
        const table = byTestId(page, 's5-table');
        await table.scrollIntoViewIfNeeded();
        const g = await table.evaluate((t) => {
          const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
          const cols = (k) => [...t.querySelectorAll(`tr > :nth-child(${k})`)].map((c) => c.getBoundingClientRect());
          const cap = t.querySelector('caption').getBoundingClientRect();
          return { heads, c: [1, 2, 3, 4, 5].map(cols), cap: { l: cap.left, r: cap.right } };
        });
        // which columns hold the weights: found by their header text (s5.col.naive / s5.col.stable)
        const text = await page.evaluate(async (lang) => (await fetch(`/text/${lang}.json`)).json(), lang);
        const naive = g.heads.indexOf(text['s5.col.naive']), stable = g.heads.indexOf(text['s5.col.stable']);
        assert.ok(naive >= 0 && stable >= 0, `weight columns found among ${JSON.stringify(g.heads)}`);
        for (const k of [0, naive, stable]) {
          for (const r of g.c[k]) {
            assert.ok(r.left >= 0 && r.right <= width, `${lang} ${width}px: column "${g.heads[k]}" at ${r.left.toFixed(0)}–${r.right.toFixed(0)} is on screen`);
          }
        }
        assert.ok(g.cap.l >= 0 && g.cap.r <= width, `caption on screen (${g.cap.l.toFixed(0)}–${g.cap.r.toFixed(0)})`);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, 'the page does not scroll sideways');
        await page.close();
      });

      test(`${lang} ${width}px: wide tables and code blocks show a scroll cue and are named, focusable regions`, T, async () => {
        for (const file of ['index.html', 'practice.html']) {
          const page = await open(b, file, lang);
          // open every <details> so the tables in them are laid out, as a learner would
          await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
          // section 4's replication tables are built only once their fold opens: wait for them
          if (file === 'index.html') {
            await page.waitForFunction(() => ['s4-table-a', 's4-table-b']
              .every((id) => document.querySelector(`[data-testid="${id}"]`)), null, { timeout: 60000 });
          }
          // lesson.mjs re-checks the scrollers after DOM changes: give it the chance (the
          // assertion below reports what is still wrong either way)
          await page.waitForFunction(() => [...document.querySelectorAll('.table-scroll, pre.code')]
            .every((el) => !el.clientWidth || el.scrollWidth <= el.clientWidth + 1 || el.tabIndex >= 0 ||
              el.querySelector('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])')), null, { timeout: 45000 }).catch(() => {});
          const n = await page.evaluate(() => [...document.querySelectorAll('.table-scroll, pre.code')]
            .filter((el) => el.clientWidth && el.scrollWidth > el.clientWidth + 1).length);
          if (file === 'index.html') assert.ok(n > 0, 'the lesson has wide scrollers at this width (the check is not empty)');
          assert.deepEqual(await scrollerProblems(page), [], `${lang} ${width}px ${file}`);
          assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, `${file}: the page does not scroll sideways`);
          await page.close();
        }
      });
    }
  });
}
