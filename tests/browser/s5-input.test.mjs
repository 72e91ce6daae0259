// Section 5's row of logits (web/js/sections/s5-max-subtraction.mjs) in the page, both editions,
// in one page load each: the float32 maximum in the prose is written in the page's digits and
// switches with them; a refused row says why next to the field (the refusal rules and every
// message: tests/node/s5-row.test.mjs); a row typed with a decimal comma reaches the URL and the
// engine's weights; the rule is written next to the field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, newPage, url, byTestId, LANGS, REPO, normaliseText, toLatinDigits } from './helpers.mjs';
import { waitSection } from './lesson-helpers.mjs';
import { numberLocale } from '../../web/js/i18n/languages.mjs';

const T = { timeout: 300000 };   // shared, loaded machine: generous, no timed assertion
const prose = (lang) => JSON.parse(readFileSync(path.join(REPO, 'build/site/text', `${lang}.json`), 'utf8'));
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
  test(`${lang}: the float32 maximum in the page's digits; a refused row says why; 1,5 reaches the engine`, T, async () => {
    const page = await newPage(b);
    await page.goto(url(`/${lang}/index.html#s5`), { waitUntil: 'load', timeout: 120000 });
    await waitSection(page, 's5', 120000);
    const fmax = byTestId(page, 's5-fmax');
    await fmax.waitFor();
    // the largest finite float32 is the bit pattern 0x7f7fffff
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, 0x7f7fffff);
    assert.equal(Number(await fmax.getAttribute('data-value')), dv.getFloat32(0));
    const fmt = (x) => new Intl.NumberFormat(numberLocale(lang)).format(x);
    assert.equal(normaliseText(await fmax.textContent()), normaliseText(`${fmt(3.4)} × ${fmt(10)}${fmt(38)}`));
    // refused: the message next to the field, in the page's language, with what was typed
    await enter(page, 'abc');
    assert.equal(await message(page), says(prose(lang)['s5.err.token'], 'abc'), '"abc": not a number (not "write 2 to 16 numbers")');
    assert.equal(await byTestId(page, 's5-row').getAttribute('aria-invalid'), 'true');

    // accepted: a decimal comma, the row in the URL, the engine's stable weights sum to 1
    await enter(page, '1,5 2');
    assert.equal(await message(page), '', 'accepted');
    assert.equal(await rowParam(page), '1.5_2', '"1,5 2" is the row [1.5, 2]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="s5-table"] tbody tr').length === 2);
    const sum = Number(await byTestId(page, 's5-stable').getAttribute('data-sum'));
    assert.ok(Math.abs(sum - 1) < 1e-6, `the stable weights sum to 1 (${sum})`);

    // the rule is written next to the field, with its example
    const hint = normaliseText(await byTestId(page, 's5-row-hint').textContent());
    assert.ok(toLatinDigits(hint).includes('1,5'), `the hint states the comma rule (got "${hint}")`);
    const described = await byTestId(page, 's5-row').getAttribute('aria-describedby');
    assert.match(described, /s5-row-hint/);
    // last: the digit setting (it converts the page in place, the hint's example too: the
    // prose checks above read the page as loaded)
    await byTestId(page, 'latin-digits').evaluate((el) => el.click());   // where it is (digits.test)
    await page.waitForFunction(() => /^3\.4 × 1038$/.test(document.querySelector('[data-testid="s5-fmax"]').textContent));
    // the setting is saved for the whole site: back to the page's digits for the next tests
    await byTestId(page, 'latin-digits').evaluate((el) => el.click());
    await page.waitForFunction(() => !document.documentElement.classList.contains('latin-digits'));
    await page.close();
  });
}
