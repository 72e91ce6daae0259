// Chapter 12 (kvcache), both editions, as a reader uses it: the step-through restores its step
// from the URL and next / reset move it (what each step shows is checked against the engine in
// tests/node/kvcache-compute.test.mjs, traceStep), the calculator restores a published shape
// from the URL and shows its exact bytes, refused input is answered in the page's language,
// axe finds nothing in the section, and a 360 px phone does not scroll sideways. The
// calculator's engine counts, the cost table (visiblePairs) and the intensity run in Node
// (kvcache-compute.test.mjs). Screenshots: build/screenshots/kvcache-*.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, byTestId, assertNoIssues, axeViolations, formatAxe, toLatinDigits, REPO, SCREENSHOT_DIR, elementShot, newPage, url, typeInto } from './helpers.mjs';
import { openLesson, waitLesson, waitSection, heatmapValues, DIGITS } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 300000 };   // a hang detector on a loaded 2-core machine (one test ran past 120 s at load 18)
const TEXT = Object.fromEntries(['fa', 'ar'].map((l) => [l, JSON.parse(readFileSync(path.join(REPO, `web/text/${l}/kvcache.json`), 'utf8'))]));
const ERR = Object.fromEntries(['fa', 'ar'].map((l) => [l, JSON.parse(readFileSync(path.join(REPO, `web/text/${l}/err.json`), 'utf8'))]));
// the words of a text before its first placeholder or markup (what the page must show)
const head = (s) => s.split(/[[$`*(]/)[0].trim();
const plain = (s) => toLatinDigits(s).replace(/[\u066c,\u200e\u200f\u061c\u2066-\u2069]/g, '');

let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

const section = (page) => page.locator('section#kvcache');
async function waitReady(page) {
  await page.waitForFunction(() => {
    const e = document.querySelector('[data-testid="kvcache-explain"]');
    const r = document.querySelector('[data-testid="kvcache-result"]');
    return e?.dataset.length && r?.dataset.bytes && document.querySelector('[data-testid="kvcache-cost-table"]');
  }, null, { timeout: 60000 });
}
const param = (page, key) => new URL(page.url()).searchParams.get(`kvcache.${key}`);

// One journey per interactive: the step-through in fa, the calculator in ar (the numbers
// both show, in both editions' digits: kvcache-compute.test.mjs, digits.test.mjs); refused
// input, axe and the phone in both.
for (const lang of ['fa', 'ar']) {
  if (lang === 'fa') test(`${lang}: the step-through shows the engine's trace, and the step is in the URL`, T, async () => {
    const page = await openLesson(b, lang, '?kvcache.step=3#kvcache');
    await waitReady(page);
    const step = byTestId(page, 'kvcache-step');
    assert.equal(await step.getAttribute('data-step'), '3', 'step restored from the URL');
    // the step's record (the numbers themselves: kvcache-compute.test.mjs traceStep)
    const explain = byTestId(page, 'kvcache-explain');
    assert.equal(await explain.getAttribute('data-kind'), 'decode');
    assert.equal(Number(await explain.getAttribute('data-length')), 7, 'prompt 4 + 3 steps');
    const diff = Number(await explain.getAttribute('data-diff'));
    assert.ok(diff < 1e-6, `max |Δ| ${diff}`);
    // the bytes in the prose, in the page's digits
    const text = await explain.textContent();
    assert.ok(DIGITS[lang].re.test(text) && !DIGITS[lang].other.test(text.replace(/`[^`]*`|float32/g, '')), `${lang} digits: ${text}`);
    assert.ok(plain(text).includes(await explain.getAttribute('data-bytes')), `bytes in «${text}»`);
    // the cached keys of head 1 (7 rows) and the newest row's weights (4 query heads over 7 keys)
    assert.equal((await heatmapValues(page, 'kvcache-k1')).length, 7);
    const w = await heatmapValues(page, 'kvcache-w');
    assert.deepEqual([w.length, w[1].length], [4, 7]);
    // next / reset move the step and the URL
    await byTestId(page, 'kvcache-next').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-step"]').dataset.step === '4');
    assert.equal(param(page, 'step'), '4');
    assert.equal(Number(await explain.getAttribute('data-length')), 8);
    await byTestId(page, 'kvcache-reset').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-step"]').dataset.step === '0');
    assert.equal(param(page, 'step'), null);
    assert.equal(await explain.getAttribute('data-kind'), 'prefill');
    assert.equal(await byTestId(page, 'kvcache-reset').getAttribute('aria-disabled'), 'true');
    assertNoIssues(page);
    await page.close();
  });

  if (lang === 'ar') test(`${lang}: the calculator shows the published shape's exact bytes; URL state restores`, T, async () => {
    const page = await openLesson(b, lang, '?kvcache.model=gemma2-9b&kvcache.n=8192&kvcache.dtype=fp32&kvcache.batch=2#kvcache');
    await waitReady(page);
    assert.equal(await byTestId(page, 'kvcache-model').inputValue(), 'gemma2-9b');
    // Gemma 2 9B: 42 layers, 8 KV heads, head dim 256; 21 layers with a 4,096 window
    const exact = 2n * 8n * 256n * 4n * 2n * (21n * 4096n + 21n * 8192n);
    const result = byTestId(page, 'kvcache-result');
    assert.equal(await result.getAttribute('data-bytes'), String(exact));
    assert.ok(plain(await result.textContent()).includes(String(exact)), 'the exact count is on the page');
    // the engine's counts beside it (each checked against the exact count: kvcache-compute.test.mjs)
    for (const id of ['kvcache-mha', 'kvcache-score']) assert.ok(Number(await byTestId(page, id).getAttribute('data-bytes')) > 0, id);
    assert.ok(Number(await byTestId(page, 'kvcache-int').getAttribute('data-decode')) > 0);
    // a change goes to the URL and survives a reload
    await byTestId(page, 'kvcache-model').selectOption('llama3-70b');
    await typeInto(page, 'kvcache-n', '131072');
    const l70 = 2n * 80n * 8n * 128n * 131072n * 4n * 2n;
    await page.waitForFunction((want) => document.querySelector('[data-testid="kvcache-result"]').dataset.bytes === want, String(l70));
    assert.equal(param(page, 'model'), 'llama3-70b');
    assert.equal(param(page, 'n'), '131072');
    await page.reload({ waitUntil: 'load' });
    await waitSection(page, 'kvcache');   // its #hash: the chapter alone is built again
    await waitReady(page);
    assert.equal(await byTestId(page, 'kvcache-result').getAttribute('data-bytes'), String(l70));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: refused input is answered in the page's language and marks the result stale; axe finds nothing`, T, async () => {
    const page = await openLesson(b, lang, '#kvcache');
    await waitReady(page);
    const before = await byTestId(page, 'kvcache-result').getAttribute('data-bytes');
    // the default (Llama 3 8B, 8,192 tokens, bf16) is exactly 1 GiB: it shows two decimals like the GB value beside it (review-ar-16 #7)
    assert.equal(before, String(2n * 32n * 8n * 128n * 8192n * 2n));
    assert.match(plain(await byTestId(page, 'kvcache-result').textContent()), /1[.\u066b]00/);
    await typeInto(page, 'kvcache-n', 'abc');
    assert.equal((await byTestId(page, 'kvcache-n-error').textContent()).trim(), ERR[lang]['err.number.invalid']);
    assert.equal(await byTestId(page, 'kvcache-calc').getAttribute('data-stale'), 'true');
    await typeInto(page, 'kvcache-n', '0');
    assert.ok((await byTestId(page, 'kvcache-n-error').textContent()).includes(head(TEXT[lang]['kvcache.err.range'])));
    await typeInto(page, 'kvcache-n', '4096');
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-calc"]').dataset.stale === 'false');
    // the stale mark clears as soon as the value is valid; the engine's new result lands a moment later
    const at4096 = String(2n * 32n * 8n * 128n * 4096n * 2n);
    await page.waitForFunction((w) => document.querySelector('[data-testid="kvcache-result"]').dataset.bytes === w, at4096);
    assert.notEqual(at4096, before);
    // custom: 6 query heads cannot share 4 key/value heads evenly
    await byTestId(page, 'kvcache-model').selectOption('custom');
    await byTestId(page, 'kvcache-custom').waitFor({ state: 'visible' });
    await typeInto(page, 'kvcache-hq', '6');
    await typeInto(page, 'kvcache-hkv', '4');
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-status"]').dataset.code === 'groups');
    assert.ok((await byTestId(page, 'kvcache-status').textContent()).includes(head(TEXT[lang]['kvcache.err.groups'])));
    assert.equal(await byTestId(page, 'kvcache-calc').getAttribute('data-stale'), 'true');
    await typeInto(page, 'kvcache-hkv', '2');
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-calc"]').dataset.stale === 'false');
    const want = 2n * 2n * 128n * 2n * 4096n * 32n;   // 32 layers (from Llama 3 8B), d 128, bfloat16, n 4096
    await page.waitForFunction((w) => document.querySelector('[data-testid="kvcache-result"]').dataset.bytes === w, String(want));
    assert.equal(param(page, 'hq'), '6');
    assert.equal(param(page, 'hkv'), '2');
    assert.equal(await byTestId(page, 'kvcache-status').textContent(), '');
    // axe over the whole section (the custom fields open too)
    const v = await axeViolations(page, { include: 'section#kvcache' });
    assert.equal(v.length, 0, `axe violations in ${lang} kvcache:\n${formatAxe(v)}`);
    await elementShot(section(page), path.join(SCREENSHOT_DIR, `kvcache-${lang}-1280.png`));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: a 360 px phone does not scroll sideways with the chapter open`, T, async () => {
    const phone = await launchPhone({ width: 360 });
    try {
      const page = await newPage(phone);
      await page.goto(url(`/${lang}/index.html?kvcache.step=8&kvcache.model=custom&kvcache.win=4096&kvcache.wl=4#kvcache`), { waitUntil: 'load' });
      await waitLesson(page);
      await waitReady(page);
      await byTestId(page, 'kvcache-custom').waitFor({ state: 'visible' });
      await section(page).scrollIntoViewIfNeeded();
      assert.equal(await overflowPx(page, 360), 0);
      await elementShot(section(page), path.join(SCREENSHOT_DIR, `kvcache-${lang}-360.png`));
      assertNoIssues(page);
      await page.close();
    } finally {
      await phone.close();
    }
  });
}
