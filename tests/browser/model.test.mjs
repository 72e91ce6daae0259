// Chapter 13 (model), both editions, at a 360 px phone and a 1280 px desktop, as a reader uses it:
// the top-5 predictions on the page are the engine's (the page's own engine loads the same
// checkpoint and runs forward in the test), choosing another character changes the heads' map and
// the URL, an unknown character is reported in the page's language, a step of generation fills the
// cache by one character, axe finds nothing in the section, the phone does not scroll sideways,
// and a corrupted model file is answered in the page's language while the rest of the page works.
// What the numbers are (forward, head scores, generation) is checked in Node:
// tests/node/model-compute.test.mjs. Screenshots: build/screenshots/model-<lang>-1280.png.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, byTestId, assertNoIssues, axeViolations, formatAxe, toLatinDigits, REPO, SCREENSHOT_DIR, elementShot, newPage, url } from './helpers.mjs';
import { waitLesson, waitForQuery, heatmapValues } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 300000 };   // a hang detector on a loaded 2-core machine
const TEXT = Object.fromEntries(['fa', 'ar'].map((l) => [l, JSON.parse(readFileSync(path.join(REPO, `web/text/${l}/model.json`), 'utf8'))]));
// the words of a text before its first placeholder or markup (what the page must show)
const head = (s) => s.split(/[[$`*(]/)[0].trim();
const plain = (s) => toLatinDigits(s).replace(/[\u066c,\u200e\u200f\u061c\u2066-\u2069]/g, '').replace(/\u066b/g, '.');
const param = (page, key) => new URL(page.url()).searchParams.get(`model.${key}`);

let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

async function open(browser, lang, query, width) {
  const page = await newPage(browser, width ? { viewport: { width, height: 900 } } : undefined);
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load' });
  await waitForQuery(page, query);
  await page.waitForFunction(() => document.querySelector('[data-testid="model-status"]')?.dataset.model !== 'loading', null, { timeout: 60000 });
  return page;
}
const waitTop = (page, pos) => page.waitForFunction((p) => document.querySelector('[data-testid="model-top"]')?.dataset.pos === p, String(pos), { timeout: 60000 });

// The page's engine, asked directly: load the same checkpoint, run the text, the top 5 after pos.
// The checkpoint's bytes come from the test (the file the site serves), not from a fetch in the
// page, and each engine call has a limit that names it: a CI run once waited the whole test
// limit (300 s) inside this evaluate with nothing to say where.
const CKPT = Object.fromEntries(['fa', 'ar'].map((l) => [l, [...readFileSync(path.join(REPO, `web/models/${l}.ckpt`))]]));
async function engineTop(page, lang, text, pos) {
  return page.evaluate(async ({ ckpt, text, pos }) => {
    const engine = window.__lesson.engine;
    // the limit is cleared once the call answers: a timer left behind would reject later, with
    // nothing awaiting it, and show up as a page error in a test still running 90 s on
    const within = async (what, p) => {
      let timer;
      const limit = new Promise((_, reject) => { timer = setTimeout(
        () => reject(new Error(`engineTop: ${what} did not answer within 90 s (engine ${document.documentElement.dataset.engine})`)), 90000); });
      try { return await Promise.race([p, limit]); } finally { clearTimeout(timer); }
    };
    const m = await within('charModelLoad', engine.call('charModelLoad', { bytes: Uint8Array.from(ckpt) }));
    try {
      // characters the model never saw are left out (and reported: the phone test checks the message)
      const ids = Array.from(text, (ch) => m.vocabulary.indexOf(ch.codePointAt(0))).filter((i) => i >= 0);
      const { probs } = await within('charModelForward', engine.call('charModelForward', { id: m.id, tokens: Uint32Array.from(ids) }));
      const row = Array.from(probs.data.subarray((pos - 1) * probs.cols, pos * probs.cols), (p, id) => ({ id, p }));
      return row.sort((a, b) => b.p - a.p || a.id - b.id).slice(0, 5);
    } finally { await within('charModelDelete', engine.call('charModelDelete', { id: m.id })); }
  }, { ckpt: CKPT[lang], text, pos });
}

async function checkPredictions(page, lang, pos) {
  await waitTop(page, pos);
  const text = await byTestId(page, 'model-text').inputValue();
  const want = await engineTop(page, lang, text, pos);
  const table = byTestId(page, 'model-top');
  assert.equal(await table.getAttribute('data-ids'), want.map((x) => x.id).join(','));
  assert.deepEqual(JSON.parse(await table.getAttribute('data-probs')), want.map((x) => x.p));
  // what a person reads: each probability as a percent with one decimal, in the page's digits
  const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.lastElementChild.textContent));
  const digit = lang === 'fa' ? /[۰-۹]/ : /[٠-٩]/;
  cells.forEach((c, i) => {
    assert.ok(digit.test(c) && !/[0-9]/.test(c), `${lang} digits in «${c}»`);
    assert.equal(Number(plain(c).replace(/[٪%؜]/g, '').trim()), Math.round(want[i].p * 1000) / 10, `row ${i + 1}: ${c}`);
  });
}

for (const lang of ['fa', 'ar']) {
  test(`${lang} desktop: predictions are the engine's, a new position changes the heads' map and the URL, generation steps, axe`, T, async () => {
    const page = await open(b, lang, '?model.pos=6#model', 1280);
    assert.equal(await byTestId(page, 'model-status').getAttribute('data-model'), 'ready');
    await checkPredictions(page, lang, 6);
    const before = await heatmapValues(page, 'model-from');
    assert.equal(before.length, 8, 'every layer and head');
    assert.equal(before[0].length, 6, 'positions 1…6');
    // choose character 3: the map now holds positions 1…3, the URL says so, predictions follow
    await byTestId(page, 'model-char-3').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="model-from"]').dataset.pos === '3');
    const after = await heatmapValues(page, 'model-from');
    assert.equal(after[0].length, 3);
    assert.notDeepEqual(after, before.map((r) => r.slice(0, 3)));
    for (const r of after) assert.ok(Math.abs(r.reduce((a, x) => a + x, 0) - 1) < 0.02, `row sums to 1: ${r}`);
    assert.equal(param(page, 'pos'), '3');
    assert.equal(await byTestId(page, 'model-char-3').getAttribute('aria-pressed'), 'true');
    await checkPredictions(page, lang, 3);
    // another head: its whole map, in the URL
    await byTestId(page, 'model-layer').selectOption('2');
    await page.waitForFunction(() => document.querySelector('[data-testid="model-map"]').dataset.layer === '2');
    assert.equal(param(page, 'layer'), '2');
    // one character generated: the cache holds one more row
    const cache = byTestId(page, 'model-cache');
    const len0 = Number(await cache.getAttribute('data-length'));
    await byTestId(page, 'model-step').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="model-gen"]').dataset.gen === '1');
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="model-cache"]').dataset.length) === n, len0 + 1);
    assert.equal(param(page, 'gen'), '1');
    // the held-out head scores finish, and axe finds nothing in the section
    await page.waitForFunction(() => document.querySelector('[data-testid="model-scores"]').dataset.state === 'done', null, { timeout: 120000 });
    const v = await axeViolations(page, { include: 'section#model' });
    assert.equal(v.length, 0, `axe violations in ${lang} model:\n${formatAxe(v)}`);
    await elementShot(page.locator('section#model'), path.join(SCREENSHOT_DIR, `model-${lang}-1280.png`));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang} phone 360 px: predictions are the engine's, an unknown character is reported, no sideways scroll`, T, async () => {
    const phone = await launchPhone({ width: 360 });
    try {
      const page = await open(phone, lang, '?model.pos=4#model');
      await checkPredictions(page, lang, 4);
      await page.locator('section#model').scrollIntoViewIfNeeded();
      assert.equal(await overflowPx(page, 360), 0);
      // a Latin letter the model never saw: named in the page's language, the rest still runs
      const box = byTestId(page, 'model-text');
      await box.fill(TEXT[lang]['model.defaultPrompt'] + ' x');
      await page.waitForFunction(() => (document.querySelector('[data-testid="model-text-msg"]').dataset.code || '').includes('unknown'));
      const msg = await byTestId(page, 'model-text-msg').textContent();
      assert.ok(msg.includes(head(TEXT[lang]['model.err.unknown'])) && msg.includes('x'), msg);
      const n = Array.from(TEXT[lang]['model.defaultPrompt'] + ' ').length;
      await waitTop(page, n);
      await checkPredictions(page, lang, n);
      // an empty text: a message, the last result stays
      await box.fill('');
      await page.waitForFunction(() => (document.querySelector('[data-testid="model-text-msg"]').dataset.code || '').includes('empty'));
      assert.ok((await byTestId(page, 'model-text-msg').textContent()).includes(head(TEXT[lang]['model.err.empty'])));
      assert.equal(await overflowPx(page, 360), 0);
      assertNoIssues(page);
      await page.close();
    } finally {
      await phone.close();
    }
  });

  test(`${lang}: a corrupted model file is answered in the page's language; the rest of the page works`, T, async () => {
    // a fresh profile (no service worker holding the real file yet), the file routed for the
    // whole context (a request the service worker makes is the context's, not the page's)
    const fresh = await launch();
    try {
      await fresh.context.route('**/models/*.ckpt', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from('not a checkpoint at all, just some bytes') }));
      const page = await newPage(fresh);
      await page.goto(url(`/${lang}/index.html#model`), { waitUntil: 'load' });
      await waitLesson(page);
      const status = byTestId(page, 'model-status');
      await page.waitForFunction(() => document.querySelector('[data-testid="model-status"]').dataset.model === 'error', null, { timeout: 60000 });
      assert.equal(await status.getAttribute('data-code'), 'BadModel');
      assert.equal((await status.textContent()).trim(), TEXT[lang]['model.err.bad']);
      // every section mounted (this one too: it shows its message, not a failure), and another
      // chapter still computes on the same engine
      const states = await page.evaluate(() => [...document.querySelectorAll('main section[id]')].map((s) => s.dataset.state));
      assert.ok(states.every((s) => s === 'ready'), JSON.stringify(states));
      await page.waitForFunction(() => document.querySelector('[data-testid="kvcache-result"]')?.dataset.bytes);
      assertNoIssues(page);
      await page.close();
    } finally {
      await fresh.close();
    }
  });

  test(`${lang} phone 390 px: a generation restored from the URL, the held-out scores, no sideways scroll`, T, async () => {
    const phone = await launchPhone({ width: 390 });
    try {
      const page = await open(phone, lang, '?model.gen=12#model');
      await page.waitForFunction(() => document.querySelector('[data-testid="model-gen"]')?.dataset.gen === '12', null, { timeout: 60000 });
      await page.waitForFunction(() => document.querySelector('[data-testid="model-scores"]').dataset.state === 'done', null, { timeout: 120000 });
      assert.equal(param(page, 'gen'), '12');
      assert.equal(Number(await byTestId(page, 'model-cache').getAttribute('data-length')), Array.from(TEXT[lang]['model.defaultPrompt']).length + 12);
      await page.locator('section#model').scrollIntoViewIfNeeded();
      assert.equal(await overflowPx(page, 390), 0);
      assertNoIssues(page);
      await page.close();
    } finally {
      await phone.close();
    }
  });
}
