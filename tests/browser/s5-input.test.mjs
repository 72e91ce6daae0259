// Section 5's row of logits (web/js/sections/s5-max-subtraction.mjs), issue 12 item 11, both
// editions: a word is "not a number" (not "write 2 to 16 numbers"), and a comma between two
// digits means what it means in every number field of the lesson (numerals.mjs parseNumber,
// also the matrix editor of section 2): "1,5" = 1.5, "1,234" is refused as ambiguous; the rule
// is written next to the field.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, newPage, url, byTestId, LANGS, REPO, normaliseText, toLatinDigits } from './helpers.mjs';
import { waitLesson } from './lesson-helpers.mjs';
import { numberLocale } from '../../web/js/languages.mjs';

const T = { timeout: 300000 };   // shared, loaded machine: generous, no timed assertion
const prose = (lang) => JSON.parse(readFileSync(path.join(REPO, 'build/site/text', `${lang}.json`), 'utf8'));
const head = (s) => normaliseText(s.split(/[[$`]/)[0]);
// a message as the page shows it: the key's text with the token the learner typed
const says = (s, token) => normaliseText(s.replace('[token]', token));

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

async function enter(page, text) {
  const input = byTestId(page, 's5-row');
  await input.fill(text);
  await input.press('Enter');
}
const message = async (page) => normaliseText(await byTestId(page, 's5-row-error').textContent());
const rowParam = (page) => page.evaluate(() => new URLSearchParams(location.search).get('s5.row'));

for (const lang of LANGS) {
  describe(`s5 input ${lang}`, () => {
    test(`${lang}: the float32 maximum in the prose is written in the page's digits, and switches with them`, T, async () => {
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html#s5`), { waitUntil: 'load', timeout: 120000 });
      await waitLesson(page, 120000);
      const fmax = byTestId(page, 's5-fmax');
      await fmax.waitFor();
      // the largest finite float32 is the bit pattern 0x7f7fffff
      const dv = new DataView(new ArrayBuffer(4));
      dv.setUint32(0, 0x7f7fffff);
      assert.equal(Number(await fmax.getAttribute('data-value')), dv.getFloat32(0));
      const fmt = (x) => new Intl.NumberFormat(numberLocale(lang)).format(x);
      assert.equal(normaliseText(await fmax.textContent()), normaliseText(`${fmt(3.4)} × ${fmt(10)}${fmt(38)}`));
      await byTestId(page, 'latin-digits').evaluate((el) => el.click());   // where it is (digits.test)
      await page.waitForFunction(() => /^3\.4 × 1038$/.test(document.querySelector('[data-testid="s5-fmax"]').textContent));
      // the setting is saved for the whole site: back to the page's digits for the next tests
      await byTestId(page, 'latin-digits').evaluate((el) => el.click());
      await page.waitForFunction(() => !document.documentElement.classList.contains('latin-digits'));
      await page.close();
    });

    test(`${lang}: words, commas and counts get the right message; 1,5 is 1.5 as in a matrix cell`, T, async () => {
      const text = prose(lang);
      const page = await newPage(b);
      await page.goto(url(`/${lang}/index.html#s5`), { waitUntil: 'load', timeout: 120000 });
      await waitLesson(page, 120000);

      await enter(page, 'abc');
      assert.equal(await message(page), says(text['s5.err.token'], 'abc'), '"abc": not a number (not "write 2 to 16 numbers")');

      await enter(page, '1,234 5');
      assert.equal(await message(page), says(text['s5.err.ambiguous'] || '(no s5.err.ambiguous)', '1,234'), '"1,234": ambiguous');

      await enter(page, '1,2,3');
      assert.equal(await message(page), says(text['s5.err.comma'] || '(no s5.err.comma)', '1,2,3'), '"1,2,3": the comma rule');

      await enter(page, '7');
      assert.ok((await message(page)).startsWith(head(text['s5.err.count'])), 'one number: too few');

      // a decimal comma, then a list with comma + space, Persian/Arabic digits and the Arabic comma
      await enter(page, '1,5 2');
      assert.equal(await message(page), '', 'accepted');
      assert.equal(await rowParam(page), '1.5_2', '"1,5 2" is the row [1.5, 2]');
      await enter(page, lang === 'fa' ? '۳, ۴،۵٫۵' : '٣, ٤،٥٫٥');
      assert.equal(await rowParam(page), '3_4_5.5', 'comma + space, «،» and «٫»');

      // the same "1,5" in a matrix cell of section 2 is 1.5 too
      const cell = byTestId(page, 's2-x-r0c0');
      await cell.fill('1,5');
      await cell.press('Enter');
      await page.waitForFunction(() => /^4x3_1\.5_/.test(new URLSearchParams(location.search).get('s2.x') || ''));

      // the rule is written next to the field, with its example
      const hint = normaliseText(await byTestId(page, 's5-row-hint').textContent());
      assert.ok(toLatinDigits(hint).includes('1,5'), `the hint states the comma rule (got "${hint}")`);
      const described = await byTestId(page, 's5-row').getAttribute('aria-describedby');
      assert.match(described, /s5-row-hint/);
      await page.close();
    });
  });
}
