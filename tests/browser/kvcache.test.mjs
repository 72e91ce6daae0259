// Chapter 12 (kvcache), both editions: the step-through shows the engine's generation
// trace (computed again in the page by window.__lesson.engine), the step lives in the URL,
// the calculator's exact bytes equal the published shapes' product (BigInt, here) and the
// engine's counts, the cost table equals engine.visiblePairs, the intensity equals the
// engine's counts, refused input is answered in the page's language, axe finds nothing in
// the section, and a 360 px phone does not scroll sideways. Screenshots: build/screenshots/kvcache-*.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, byTestId, assertNoIssues, axeViolations, formatAxe, toLatinDigits, REPO, SCREENSHOT_DIR, newPage, url, typeInto } from './helpers.mjs';
import { openLesson, waitLesson, heatmapValues, DIGITS } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 120000 };
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

for (const lang of ['fa', 'ar']) {
  test(`${lang}: the step-through shows the engine's trace, and the step is in the URL`, T, async () => {
    const page = await openLesson(b, lang, '?kvcache.step=3#kvcache');
    await waitReady(page);
    const step = byTestId(page, 'kvcache-step');
    assert.equal(await step.getAttribute('data-step'), '3', 'step restored from the URL');
    // the engine's trace, computed in the page
    const want = await page.evaluate(async () => {
      const r = await window.__lesson.engine.generationTrace({ prompt: 4, steps: 8, headsQ: 4, headsKv: 2, dk: 4, dv: 4, seed: 1 });
      return { steps: r.trace.map((s) => ({ length: s.length, bytes: s.bytes, diff: s.maxAbsDiff })), k: Array.from(r.k.data), w: Array.from(r.weights[1].data) };
    });
    const explain = byTestId(page, 'kvcache-explain');
    assert.equal(Number(await explain.getAttribute('data-length')), want.steps[3].length);
    assert.equal(Number(await explain.getAttribute('data-bytes')), want.steps[3].bytes);
    const diff = Number(await explain.getAttribute('data-diff'));
    assert.ok(diff < 1e-6 && diff === want.steps[3].diff, `max |Δ| ${diff}`);
    // the bytes in the prose, in the page's digits
    const text = await explain.textContent();
    assert.ok(DIGITS[lang].re.test(text) && !DIGITS[lang].other.test(text.replace(/`[^`]*`|float32/g, '')), `${lang} digits: ${text}`);
    assert.ok(plain(text).includes(String(want.steps[3].bytes)), `bytes ${want.steps[3].bytes} in «${text}»`);
    // the cached keys of head 1: 7 rows (prompt 4 + 3 steps), each the engine's k rounded to 2 decimals
    const k1 = await heatmapValues(page, 'kvcache-k1');
    assert.equal(k1.length, want.steps[3].length);
    for (let i = 0; i < k1.length; i++) for (let j = 0; j < 4; j++) assert.ok(Math.abs(k1[i][j] - want.k[i * 4 + j]) < 0.006, `k[${i}][${j}]`);
    // the new row's weights: row 2 (query head 2) = row 6 of head 2's full causal weights
    const w = await heatmapValues(page, 'kvcache-w');
    assert.equal(w[1].length, 7);
    for (let j = 0; j < 7; j++) assert.ok(Math.abs(w[1][j] - want.w[6 * 12 + j]) < 0.006, `w[${j}]`);
    // next / reset move the step and the URL
    await byTestId(page, 'kvcache-next').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-step"]').dataset.step === '4');
    assert.equal(param(page, 'step'), '4');
    assert.equal(Number(await explain.getAttribute('data-length')), want.steps[4].length);
    await byTestId(page, 'kvcache-reset').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-step"]').dataset.step === '0');
    assert.equal(param(page, 'step'), null);
    assert.equal(await explain.getAttribute('data-kind'), 'prefill');
    assert.equal(await byTestId(page, 'kvcache-reset').getAttribute('aria-disabled'), 'true');
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: the calculator equals the published shape's product and the engine's counts; URL state restores`, T, async () => {
    const page = await openLesson(b, lang, '?kvcache.model=gemma2-9b&kvcache.n=8192&kvcache.dtype=fp32&kvcache.batch=2#kvcache');
    await waitReady(page);
    assert.equal(await byTestId(page, 'kvcache-model').inputValue(), 'gemma2-9b');
    // Gemma 2 9B: 42 layers, 8 KV heads, head dim 256; 21 layers with a 4,096 window
    const exact = 2n * 8n * 256n * 4n * 2n * (21n * 4096n + 21n * 8192n);
    const result = byTestId(page, 'kvcache-result');
    assert.equal(await result.getAttribute('data-bytes'), String(exact));
    assert.ok(plain(await result.textContent()).includes(String(exact)), 'the exact count is on the page');
    const eng = await page.evaluate(async () => {
      const e = window.__lesson.engine;
      const per = async (hkv, S) => (await e.kvBytesRead({ headsQ: 16, headsKv: hkv, S, dk: 256, dv: 256 })) * 2;
      return { cache: 21 * (await per(8, 4096)) + 21 * (await per(8, 8192)), mha: 21 * (await per(16, 4096)) + 21 * (await per(16, 8192)),
        score: await e.scoreMatrixBytes({ n: 8192, bytesPerElement: 4, heads: 16, layers: 42, batch: 2 }) };
    });
    assert.equal(Number(await result.getAttribute('data-engine-bytes')), eng.cache);
    assert.equal(Number(await byTestId(page, 'kvcache-mha').getAttribute('data-bytes')), eng.mha);
    assert.equal(Number(await byTestId(page, 'kvcache-score').getAttribute('data-bytes')), eng.score);
    // the intensity for this shape: a decode step at S = 8192 from the engine's counts
    const di = await page.evaluate(async () => {
      const e = window.__lesson.engine;
      const flops = 2 * 512 * 16 * (await e.visiblePairs({ L: 1, S: 8192, causal: true, rowOffset: 8191 }));
      return flops / ((await e.kvBytesRead({ headsQ: 16, headsKv: 8, S: 8192, dk: 256, dv: 256 })) + 16 * 512 * 4);
    });
    assert.equal(Number(await byTestId(page, 'kvcache-int').getAttribute('data-decode')), di);
    // a change goes to the URL and survives a reload
    await byTestId(page, 'kvcache-model').selectOption('llama3-70b');
    await typeInto(page, 'kvcache-n', '131072');
    const l70 = 2n * 80n * 8n * 128n * 131072n * 4n * 2n;
    await page.waitForFunction((want) => document.querySelector('[data-testid="kvcache-result"]').dataset.bytes === want, String(l70));
    assert.equal(param(page, 'model'), 'llama3-70b');
    assert.equal(param(page, 'n'), '131072');
    await page.reload({ waitUntil: 'load' });
    await waitLesson(page);
    await waitReady(page);
    assert.equal(await byTestId(page, 'kvcache-result').getAttribute('data-bytes'), String(l70));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: refused input is answered in the page's language and marks the result stale`, T, async () => {
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
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: the cost table equals engine.visiblePairs; axe finds nothing in the section`, T, async () => {
    const page = await openLesson(b, lang, '#kvcache');
    await waitReady(page);
    const rows = await byTestId(page, 'kvcache-cost-table').evaluate((t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)));
    const want = await page.evaluate(async () => {
      const e = window.__lesson.engine;
      const out = [];
      for (const n of [1024, 8192, 131072]) {
        out.push([n, await e.visiblePairs({ L: 1, S: n, causal: true, rowOffset: n - 1 }), await e.visiblePairs({ L: n, S: n, causal: true })]);
      }
      return out;
    });
    assert.equal(rows.length, 3);
    rows.forEach((r, i) => {
      const nums = r.map((c) => Number(plain(c)));
      assert.deepEqual(nums.slice(0, 4), [want[i][0], want[i][1], want[i][2], want[i][2]]);
      const T = want[i][0];
      assert.equal(nums[4], (T * (T + 1) * (T + 2)) / 6);
    });
    const v = await axeViolations(page, { include: 'section#kvcache' });
    assert.equal(v.length, 0, `axe violations in ${lang} kvcache:\n${formatAxe(v)}`);
    await section(page).screenshot({ path: path.join(SCREENSHOT_DIR, `kvcache-${lang}-1280.png`), timeout: 45000 });
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
      await section(page).screenshot({ path: path.join(SCREENSHOT_DIR, `kvcache-${lang}-360.png`), timeout: 45000 });
      assertNoIssues(page);
      await page.close();
    } finally {
      await phone.close();
    }
  });
}
