// axe-core and full-page screenshots (360 / 1280 px) of the lesson page, both editions
// (a11y-pages.mjs; the practice page: a11y-practice.test.mjs, a file of its own so the two
// can run side by side).
import { test, describe, before, after } from 'node:test';
import { launch, LANGS } from './helpers.mjs';
import { wideShot, axeCheck, narrowShot, T, T_AXE } from './a11y-pages.mjs';

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

for (const lang of LANGS) {
  describe(`lesson ${lang}: screenshots and axe`, () => {
    let wide = null;   // the 1280 px page, shared by the screenshot and axe tests
    test(`lesson ${lang}: full-page screenshot at 1280 px`, T, async () => { wide = await wideShot(b, 'lesson', lang); });
    test(`lesson ${lang}: axe-core finds no violation`, T_AXE, () => axeCheck(b, 'lesson', lang, wide));
    test(`lesson ${lang}: full-page screenshot at 360 px`, T, async () => {
      await wide?.close();
      await narrowShot(b, 'lesson', lang);
    });
  });
}
