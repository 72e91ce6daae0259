// Left-to-right pieces inside right-to-left prose keep together (Persian review, round 15,
// item 17): a short LTR isolate (a term such as `multi-query attention`) is never broken
// across lines (it read «(-multi» … «query attention)»), and an opening bracket never ends
// a line while the short formula or term it opens starts the next. Checked on the laid-out
// page, every section mounted, in both editions at a phone's and a desktop's width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, LANGS, assertNoIssues } from './helpers.mjs';
import { openLesson } from './lesson-helpers.mjs';

const T = { timeout: 180000 };
const SHORT = 24;   // web/js/i18n/i18n.mjs SHORT_ISOLATE

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  for (const width of [360, 1280]) {
    test(`${lang} ${width}px: short LTR terms stay on one line, and "(" stays with what it opens`, T, async () => {
      const page = await openLesson(b, lang, '', { viewport: { width, height: 900 } });
      // the sections below the first screen mount in idle time (lazy-mount.mjs): wait for all
      await page.waitForFunction(() => [...document.querySelectorAll('main > section[data-state]')]
        .every((s) => s.dataset.state === 'ready' || s.dataset.state === 'error'), null, { timeout: 150000 });
      const found = await page.evaluate((SHORT) => {
        const broken = [], orphans = [];
        let terms = 0, brackets = 0;
        for (const el of document.querySelectorAll('main bdi.ltr')) {
          if (!el.getClientRects().length || el.textContent.length > SHORT) continue;
          terms++;
          const tops = new Set([...el.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(el.textContent);
        }
        // every "(" that ends a text run and is followed by a short formula or isolate
        const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
          if (!/[([«]$/.test(t.data)) continue;
          let next = t.nextSibling;
          if (!next || next.nodeType !== 1 || !(next.matches('.katex, bdi.ltr') || next.querySelector(':scope > .katex'))) continue;
          // a formula's length as read (aria-label; its textContent holds the MathML too)
          const label = next.getAttribute('aria-label') ?? next.textContent;
          if (label.length > (next.matches('bdi') ? SHORT : 10) || !next.getClientRects().length) continue;
          brackets++;
          const r = document.createRange();
          r.setStart(t, t.data.length - 1);
          r.setEnd(t, t.data.length);
          const open = r.getBoundingClientRect();
          const first = next.getClientRects()[0];
          // same line: the bracket's box and the formula's first box overlap vertically
          if (open.bottom <= first.top || first.bottom <= open.top) orphans.push(`${t.data.slice(-20)}|${next.textContent}`);
        }
        return { terms, brackets, broken, orphans };
      }, SHORT);
      assert.deepEqual(found.broken, [], 'short LTR isolates broken across lines');
      assert.deepEqual(found.orphans, [], '"(" left at a line end');
      assert.ok(found.terms > 50, `short isolates found: ${found.terms}`);
      assert.ok(found.brackets >= 5, `bracketed formulas found: ${found.brackets}`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, 'the page does not scroll sideways');
      assertNoIssues(page);
      await page.close();
    });
  }
}
