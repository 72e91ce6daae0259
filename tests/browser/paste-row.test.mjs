// Pasting one spreadsheet row into s2's x (walkthrough ar #12): the row fills from the cell the
// caret is in, the rest of the matrix stays, and no refusal shows; a paste that fits nowhere is
// refused with the count of the numbers it held (5 for "x = [0, 1, 1, 2, 5]", not 7).
// The placement rules themselves: tests/node/paste-cells.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, byTestId, LANGS, toLatinDigits } from './helpers.mjs';
import { waitSection } from './lesson-helpers.mjs';

const T = { timeout: 300000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const paste = (page, id, text) => byTestId(page, id).evaluate((el, t) => {
  el.focus();
  const dt = new DataTransfer();
  dt.setData('text/plain', t);
  el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
}, text);
const cell = async (page, id) => Number(toLatinDigits(await byTestId(page, id).inputValue()).replace('٫', '.'));

for (const lang of LANGS) {
  test(`${lang}: one pasted row fills s2's x from the caret's cell`, T, async () => {
    const page = await newPage(b);
    await page.goto(url(`/${lang}/index.html#s2`), { waitUntil: 'load', timeout: 120000 });
    await waitSection(page, 's2', 120000);
    await byTestId(page, 's2-x-r1c0').waitFor();
    const before0 = await cell(page, 's2-x-r0c0');
    await paste(page, 's2-x-r1c0', '1.5\t2.5\t3.5\n');
    await page.waitForFunction(() => /s2\.x=/.test(location.search));
    assert.deepEqual([await cell(page, 's2-x-r1c0'), await cell(page, 's2-x-r1c1'), await cell(page, 's2-x-r1c2')], [1.5, 2.5, 3.5]);
    assert.equal(await cell(page, 's2-x-r0c0'), before0, 'the other rows stay');
    assert.equal((await byTestId(page, 's2-x-msg').textContent()).trim(), '');
    // five numbers fit nowhere in a 4 × 3 matrix: refused, counted as 5 (words and brackets
    // made it 7 before)
    await paste(page, 's2-x-r2c1', 'x = [0, 1, 1, 2, 5]');
    await page.waitForFunction(() => document.querySelector('[data-testid="s2-x-msg"]')?.textContent.trim());
    const msg = toLatinDigits(await byTestId(page, 's2-x-msg').textContent());
    assert.match(msg, /(^|\D)5(\D|$)/, msg);
    assert.doesNotMatch(msg, /(^|\D)7(\D|$)/, msg);
    await page.close();
  });
}
