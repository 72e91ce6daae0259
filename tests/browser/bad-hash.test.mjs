// A URL whose #hash holds a malformed %-escape (a mangled or mistyped shared link) still boots
// the page, both editions: the lesson at `#%` and the practice page at `#%E0%A4%A` reach their
// first screen and "ready" with no page error, and a later `location.hash = '%'` (the
// hashchange listener) throws nothing either. The decoding itself is tested in Node
// (tests/node/url-hash.test.mjs); this is the one load that shows the page boots.
import { test, before, after } from 'node:test';
import { launch, newPage, url, assertNoIssues, LANGS } from './helpers.mjs';
import { waitPage } from './lesson-helpers.mjs';

const T = { timeout: 180000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const CASES = [['index.html#%', 'lesson'], ['practice.html#%E0%A4%A', 'practice']];

for (const lang of LANGS) {
  for (const [path, kind] of CASES) {
    test(`${lang}: ${path} boots to ready`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/${path}`), { waitUntil: 'load', timeout: 120000 });
      // the first screen is announced before the test asks for anything beyond it
      await page.waitForFunction(() => document.documentElement.dataset.firstScreen === 'ready', null, { timeout: 120000 });
      await waitPage(page, kind, 120000);
      // a malformed hash set after boot goes through the hashchange listener
      await page.evaluate(() => new Promise((resolve) => {
        window.addEventListener('hashchange', () => setTimeout(resolve), { once: true });
        location.hash = location.hash === '#%' ? '%ZZ' : '%';   // a change, or no event fires
      }));
      assertNoIssues(page);
      await page.close();
    });
  }
}
