// Issue 14 item 7: what a page fetches before its first paint. The first screen needs only the
// HTML, the stylesheets and the page font; js/pages/boot.mjs loads the page script (and adds
// the preloads of its prose, KaTeX and import graph) once that screen has painted with the
// font. Read from the page's own Resource Timing and Paint Timing entries: an order of events,
// not a duration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, assertNoIssues, LANGS } from './helpers.mjs';
import { language } from '../../web/js/i18n/languages.mjs';

const T = { timeout: 120000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const PAGES = [
  { file: 'index.html', entry: '/js/pages/lesson.mjs' },
  { file: 'practice.html', entry: '/js/pages/practice.mjs' },
];

for (const lang of LANGS) {
  for (const { file, entry } of PAGES) {
    test(`${lang} ${file}: only the HTML, stylesheets, page font and boot.mjs come before the first paint; the page script, prose and KaTeX after it`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/${file}`), { waitUntil: 'load' });
      await page.waitForFunction(() => document.documentElement.dataset.firstScreen === 'ready', null, { timeout: 60000 });
      const { fcp, res } = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
        res: performance.getEntriesByType('resource').map((r) => ({ path: new URL(r.name).pathname, start: r.startTime, end: r.responseEnd })),
      }));
      assert.ok(fcp !== null, 'the page painted');
      const at = (suffix) => {
        const r = res.find((x) => x.path.endsWith(suffix));
        assert.ok(r, `${suffix} was fetched (${res.map((x) => x.path).join(' ')})`);
        return r;
      };
      // what the first paint needs
      for (const css of res.filter((x) => x.path.endsWith('.css'))) assert.ok(css.start < fcp, `${css.path} before the first paint`);
      const font = language(lang).font;
      // (a weight or subset the first screen does not use may come later, with a section)
      const fonts = res.filter((x) => x.path.includes(`/vendor/fonts/files/${font}-`) && x.start < fcp);
      assert.ok(fonts.length >= 1, `the page font was fetched before the first paint (${res.map((x) => x.path).join(' ')})`);
      // no script but boot.mjs before the first paint
      const early = res.filter((x) => x.path.endsWith('.mjs') && x.start < fcp).map((x) => x.path);
      assert.deepEqual(early, ['/js/pages/boot.mjs'], 'scripts requested before the first paint');
      // the page script, its prose and KaTeX after it, and after the page font arrived
      const lastFont = Math.max(...fonts.map((x) => x.end));
      for (const later of [entry, `/text/${lang}.json`, '/vendor/katex/katex.mjs', '/js/i18n/i18n.mjs']) {
        const r = at(later);
        assert.ok(r.start >= fcp, `${later} requested at ${r.start.toFixed(0)} ms, after the first paint at ${fcp.toFixed(0)} ms`);
        assert.ok(r.start >= lastFont, `${later} requested after the page font arrived (${lastFont.toFixed(0)} ms)`);
      }
      assertNoIssues(page);
      await page.close();
    });
  }
}

// The page is hidden until its font is here (html.font-pending, removed by boot.mjs): with
// scripts off nothing removes the class, and css/noscript.css (linked inside <noscript>) must
// show the page with its "needs JavaScript" message.
test('fa index.html with scripts off: the page is visible and says it needs JavaScript', T, async () => {
  const page = await newPage(b);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  await page.goto(url('/fa/index.html'), { waitUntil: 'load' });
  const seen = await page.evaluate(() => ({
    pending: document.documentElement.classList.contains('font-pending'),
    body: getComputedStyle(document.body).visibility,
    message: [...document.querySelectorAll('.error-message')].some((p) => p.getBoundingClientRect().height > 0),
  }));
  assert.deepEqual(seen, { pending: true, body: 'visible', message: true });
  await page.close();
});

test('fa index.html: the page is hidden only until its font is here', T, async () => {
  const page = await newPage(b);
  // what the font looked like the moment the class went
  await page.addInitScript(() => {
    new MutationObserver((recs, mo) => {
      const html = document.documentElement;
      if (html && !html.classList.contains('font-pending') && recs.some((r) => r.attributeName === 'class')) {
        mo.disconnect();
        window.__shownWith = { arabic: document.fonts.check('1rem Vazirmatn', 'ب'), latin: document.fonts.check('1rem Vazirmatn', 'a') };
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'] });
  });
  await page.goto(url('/fa/index.html'), { waitUntil: 'load' });
  await page.waitForFunction(() => window.__shownWith, null, { timeout: 60000 });
  const seen = await page.evaluate(() => ({ body: getComputedStyle(document.body).visibility, ...window.__shownWith }));
  assert.deepEqual(seen, { body: 'visible', arabic: true, latin: true });
  await page.close();
});
