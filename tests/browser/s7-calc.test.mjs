// Section 7's memory calculator in the page, both editions (issue 12, items 6 and 7):
// - refused input says why (not a number / not whole / out of range), and the result left on
//   screen is marked stale, visibly and for screen readers, until the input is valid again;
//   valid input then reaches the engine and the result (the journey);
// - the largest case restored from the URL (n = 4,194,304, 256 heads, 256 layers, batch 1024,
//   fp32) shows the exact byte count 2^72 with every digit, and sizes in EB / EiB.
// The numbers themselves run in Node: group separators in every script, exact counts and
// units, n = 1 never "0 MB", the dtype names (tests/node/byte-sizes.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, byTestId, toLatinDigits, assertNoIssues, typeInto } from './helpers.mjs';
import { openLesson } from './lesson-helpers.mjs';   // (its #s7: s7 alone is built)

const T = { timeout: 60000 };
let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

const digits = (lang, s) => String(s).replace(/\d/g, (c) => (lang === 'fa' ? '۰۱۲۳۴۵۶۷۸۹' : '٠١٢٣٤٥٦٧٨٩')[Number(c)]);
const plain = (s) => toLatinDigits(s).replace(/[\u066c,\u200e\u200f\u061c\u2066-\u2069]/g, '');
const visible = (loc) => loc.evaluate((el) => {
  const c = el.cloneNode(true);
  for (const m of c.querySelectorAll('.katex-mathml')) m.remove();
  return c.textContent.replace(/\s+/g, ' ').trim();
});
const exact = (n, b, heads = 1, layers = 1, batch = 1) =>
  String(BigInt(n) * BigInt(n) * BigInt(b) * BigInt(heads) * BigInt(layers) * BigInt(batch));

const bytesOf = (page) => byTestId(page, 's7-result').getAttribute('data-bytes');
async function waitBytes(page, want) {
  await page.waitForFunction((want) => document.querySelector('[data-testid="s7-result"]')?.dataset.bytes === want, want);
}
const staleOf = (page) => byTestId(page, 's7-calc').getAttribute('data-stale');

for (const lang of ['fa', 'ar']) {
  test(`${lang}: the largest case restored from the URL (2^72 B, EB / EiB); refused input says why and marks it stale`, T, async () => {
    const page = await openLesson(b, lang, '?s7.n=4194304&s7.heads=256&s7.layers=256&s7.batch=1024&s7.dtype=fp32#s7');
    const want = exact(4194304, 4, 256, 256, 1024);
    assert.equal(want, String(2n ** 72n));
    await waitBytes(page, want);
    const text = await visible(byTestId(page, 's7-result'));
    assert.ok(plain(text).includes(want), `every digit of 2^72 on screen: ${text}`);
    assert.ok(!/[0-9]/.test(text), `page digits only: ${text}`);
    const unitWords = await page.evaluate(() => {
      const c = window.__lesson.ctx('s7');
      return { EB: c.t('site.unit.EB', { n: 0 }).replace(/[0-9۰-۹٠-٩]/g, '').trim(), EiB: c.t('site.unit.EiB', { n: 0 }).replace(/[0-9۰-۹٠-٩]/g, '').trim() };
    });
    // 2^72 B = 4,722.37 EB (10^18) = 4,096 EiB (2^60)
    assert.ok(text.includes(`${digits(lang, '4')}٬${digits(lang, '722')} ${unitWords.EB}`), `EB: ${text}`);
    assert.ok(text.includes(`${digits(lang, '4')}٬${digits(lang, '096')} ${unitWords.EiB}`), `EiB: ${text}`);
    assert.ok(!/٬[۰-۹٠-٩]{3}٫[۰-۹٠-٩]{3}/.test(text), `no long fractions of a huge unit: ${text}`);

    // refused input, each reason its own message; the result on screen stays, marked stale
    const before = want;
    const cases = [
      ['1.5', 'err.number.integer'],     // not whole
      ['abc', 'err.number.invalid'],     // not a number
      ['', 'err.number.empty'],
      ['5000000', 's7.err.n'],           // out of range
      ['1,5', 'err.number.invalid'],     // a comma in an integer field is a group separator: malformed group
    ];
    const texts = await page.evaluate((keys) => {
      const c = window.__lesson.ctx('s7');
      return Object.fromEntries(keys.map((k) => [k, c.t(k, { min: 1, max: 4194304 })]));
    }, cases.map((c) => c[1]));
    const distinct = new Set(Object.values(texts));
    assert.equal(distinct.size, new Set(cases.map((c) => c[1])).size, 'each reason has its own message');
    for (const [text, key] of cases) {
      await typeInto(page, 's7-n', text);
      const err = byTestId(page, 's7-n-error');
      await page.waitForFunction(() => document.querySelector('[data-testid="s7-n-error"]')?.textContent.trim().length > 0);
      const msg = (await visible(err));
      // the message is the one for this reason (compare without markup: the rendered text of the key)
      const want = await page.evaluate((k) => {
        const c = window.__lesson.ctx('s7');
        const span = document.createElement('span');
        span.append(c.tNode(k, { min: 1, max: 4194304 }));
        for (const m of span.querySelectorAll('.katex-mathml')) m.remove();
        return span.textContent.replace(/\s+/g, ' ').trim();
      }, key);
      assert.equal(msg, want, `${JSON.stringify(text)}: the reason ${key}`);
      assert.equal(await byTestId(page, 's7-n').getAttribute('aria-invalid'), 'true');
      // the old result stays, marked stale, and says so in words that a screen reader reads
      assert.equal(await bytesOf(page), before);
      assert.equal(await staleOf(page), 'true', `stale after ${JSON.stringify(text)}`);
      const note = byTestId(page, 's7-stale');
      assert.equal(await note.isVisible(), true, 'the stale note is visible');
      assert.ok((await visible(note)).length > 10);
      const described = await byTestId(page, 's7-result').getAttribute('aria-describedby');
      assert.ok(described && described.split(' ').includes(await note.getAttribute('id')), 'the result is described by the stale note');
    }
    // the old value typed again: valid, nothing changed, and no longer stale
    await typeInto(page, 's7-n', digits(lang, '4194304'));
    await page.waitForFunction(() => document.querySelector('[data-testid="s7-calc"]')?.dataset.stale !== 'true');
    assert.equal(await byTestId(page, 's7-stale').isVisible(), false);
    assert.equal(await bytesOf(page), before);
    // a stale mark from one field stays while another is still wrong
    await typeInto(page, 's7-heads', '0');
    await typeInto(page, 's7-n', '16384');
    assert.equal(await staleOf(page), 'true', 'heads is still wrong');
    await typeInto(page, 's7-heads', '2');
    await waitBytes(page, exact(16384, 4, 2, 256, 1024));
    assert.notEqual(await staleOf(page), 'true');
    assertNoIssues(page);
    await page.close();
  });

}
