// axe-core and full-page screenshots (360 / 1280 px) of the practice page, both editions
// (a11y-pages.mjs; practice views after interaction are checked with axe in practice.test.mjs).
import { test, describe, before, after } from 'node:test';
import { launch, LANGS } from './helpers.mjs';
import { wideShot, axeCheck, narrowShot, T, T_AXE } from './a11y-pages.mjs';

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  describe(`practice ${lang}: screenshots and axe`, () => {
    let wide = null;   // the 1280 px page, shared by the screenshot and axe tests
    test(`practice ${lang}: full-page screenshot at 1280 px`, T, async () => { wide = await wideShot(b, 'practice', lang); });
    test(`practice ${lang}: axe-core finds no violation`, T_AXE, () => axeCheck(b, 'practice', lang, wide));
    test(`practice ${lang}: full-page screenshot at 360 px`, T, async () => {
      await wide?.close();
      await narrowShot(b, 'practice', lang);
    });
  });
}
