// The course path (issue 11): the big idea and the refresher (intro), the folds of
// section 4, the summary and the sources, in both editions. What a person sees is
// checked against the engine itself (engine.mjs loaded in the page, not the lesson's
// worker); folds are driven by the keyboard and restored from the URL.
// Screenshots of the new sections and of s4 at 360 and 1280 px go to
// build/screenshots/course-<part>-<lang>-<width>.png.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, assertNoIssues, byTestId, parseVisibleNumber, normaliseText, LANGS, SCREENSHOT_DIR, elementShot } from './helpers.mjs';
import { waitLesson, waitSection, DIGITS } from './lesson-helpers.mjs';
import { SECTIONS } from '../../web/js/lesson/lesson-sections.mjs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

const T = { timeout: 180000 };
const TAKEAWAY = { fa: 'خلاصه', ar: 'الخلاصة' };   // the note's title, as a reader reads it

// openLesson with more patience (a loaded 2-core machine): a query ending in a section's
// #hash waits for that section alone, as a reader following a link gets it; without one,
// every section is built (lesson-helpers' openLesson does the same).
async function openLesson(br, lang, query = '', { viewport } = {}) {
  const page = await newPage(br, { viewport });
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load', timeout: 60000 });
  const section = SECTIONS.find((s) => query.endsWith(`#${s.id}`))?.id;
  if (section) await waitSection(page, section, 90000);
  else await waitLesson(page, 90000);
  return page;
}
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const isOpen = (page, testid) => byTestId(page, testid).evaluate((d) => d.open);

// Tab from the element before the summary until the summary has focus, the way a keyboard
// user reaches it (the focus must land on it within a bounded number of presses).
async function tabTo(page, testid) {
  const target = byTestId(page, testid);
  // start just before the fold: focus the last focusable element above it
  await target.evaluate((el) => {
    const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
      .filter((e) => !e.disabled && e.getClientRects().length);
    const i = all.indexOf(el);
    (all[i - 1] || document.body).focus();
  });
  for (let k = 0; k < 5; k++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => document.activeElement === el)) return;
  }
  throw new Error(`Tab never reached ${testid}`);
}

// Wait until html[data-...] hooks say the page settled, then until fn() is truthy.
async function until(page, fn, arg, timeout = 15000) {
  await page.waitForFunction(fn, arg, { timeout });
}

async function shoot(page, part, lang, width, selector) {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.evaluate(() => document.fonts.ready);
  const file = path.join(SCREENSHOT_DIR, `course-${part}-${lang}-${width}.png`);
  await elementShot(page.locator(selector), file);
  return file;
}

// Everything the refresher and the summary show, computed in the page with engine.mjs.
async function engineReference(page) {
  return page.evaluate(async () => {
    const { loadEngine } = await import('/js/engine.mjs');
    const { DEFAULT, computeExample, project } = await import('/js/lesson/worked-example.mjs');
    const { SUMMARY_INPUTS: I } = await import('/js/sections/summary.mjs');
    const { PRESETS } = await import('/js/sections/kvcache-presets.mjs');
    const e = await loadEngine();
    const m = (rows, cols, a) => ({ rows, cols, data: Float32Array.from(a) });
    const dot = e.attention({ q: m(1, 3, [1, 2, 3]), k: m(1, 3, [4, -1, 2]), v: m(1, 1, [0]), scale: null, returnWeights: true }).scores.data[0];
    const C = await project(e, m(2, 2, [1, 2, 0, 1]), m(2, 2, [3, 1, 1, 2]));
    const sx = e.softmaxRow({ logits: [1, 0] }).weights;
    const ln8 = e.rowStats(m(1, 8, new Array(8).fill(1 / 8))).entropy[0];
    const dist = Array.from(e.softmaxRow({ logits: [2, 1, 0] }).weights);
    const H = e.rowStats(m(1, 3, [0.5, 0.25, 0.25])).entropy[0];
    const ex = await computeExample(e, { ...DEFAULT, causal: false });
    const off = e.experiment({ n: I.n, dk: I.dk, seeds: I.seeds, scale: false }).mean.entropyShare;
    const on = e.experiment({ n: I.n, dk: I.dk, seeds: I.seeds, scale: true }).mean.entropyShare;
    const bytes = e.scoreMatrixBytes({ n: I.longN, bytesPerElement: I.bytesPerElement });
    const bytes2 = e.scoreMatrixBytes({ n: 2 * I.longN, bytesPerElement: I.bytesPerElement });
    // the KV cache: the engine's bytes of K and V for one layer (4 per entry), in a 2-byte type, times the layers
    const km = PRESETS[I.kvModel];
    const kvLayer = (hkv, S) => e.kvBytesRead({ headsQ: km.headsQ, headsKv: hkv, S, dk: km.dHead, dv: km.dHead }) / 4 * I.bytesPerElement;
    const kvToken = kvLayer(km.headsKv, 1) * km.layers;
    const kvGqa = (kvLayer(km.headsQ, 1) * km.layers) / kvToken;
    const kvContext = kvLayer(km.headsKv, I.kvContext) * km.layers;
    return { kvContext,
      dot, C: Array.from(C.data), exp1: sx[0] / sx[1], ln8, dist, H,
      sat: ex.scores.data[10], satW: ex.weights.data[10], off, on, bytes, ratio: bytes2 / bytes, kvToken, kvGqa,
    };
  });
}

for (const lang of LANGS) {
  describe(`course path ${lang}`, () => {
    test(`${lang}: the sections render in order, each with its takeaway, with the engine's numbers and no console error`, T, async () => {
      const page = await openLesson(b, lang);
      const ids = await page.evaluate(() => [...document.querySelectorAll('main > section[id]')].map((s) => [s.id, s.dataset.state]));
      assert.deepEqual(ids.map(([id]) => id), SECTIONS.map((s) => s.id), 'the page follows lesson-sections.mjs');
      assert.deepEqual(ids.filter(([, st]) => st !== 'ready'), [], 'every section ready');
      // the map lists every other section, linked, in page order
      const map = await byTestId(page, 'intro-map').evaluate((ol) => [...ol.querySelectorAll('a')].map((a) => a.getAttribute('href')));
      assert.deepEqual(map, ids.map(([id]) => `#${id}`).filter((h) => h !== '#intro'));
      // the refresher is folded away by default
      assert.equal(await isOpen(page, 'intro-fold-refresher'), false);

      const ref = await engineReference(page);
      const val = (id) => byTestId(page, id).first().evaluate((e) => Number(e.dataset.value));
      const shown = (id) => byTestId(page, id).first().textContent().then(normaliseText);
      // summary: the data-value is the engine's, and the visible text is that number in page digits
      assert.ok(Math.abs(await val('summary-sat-score') - ref.sat) < 1e-6);
      assert.equal(parseVisibleNumber(await shown('summary-sat-score')), Math.round(ref.sat * 100) / 100);
      assert.equal(parseVisibleNumber(await shown('summary-sat-pct')), Math.round(ref.satW * 100));
      assert.ok(Math.abs(await val('summary-share-off') - ref.off) < 1e-6, 'collapse share (off)');
      assert.ok(Math.abs(await val('summary-share-on') - ref.on) < 1e-6, 'collapse share (on)');
      assert.ok(Math.abs(parseVisibleNumber(await shown('summary-share-off')) - ref.off * 100) <= 0.05 + 1e-9);
      assert.ok(Math.abs(parseVisibleNumber(await shown('summary-share-on')) - ref.on * 100) <= 0.05 + 1e-9);
      assert.ok(ref.off < ref.on, 'unscaled share is the smaller one');
      assert.equal(await val('summary-bytes'), ref.bytes);
      assert.equal(parseVisibleNumber(await shown('summary-bytes')), ref.bytes / 2 ** 30, 'bytes shown in GiB');
      assert.equal(await val('summary-ratio'), ref.ratio);
      assert.equal(parseVisibleNumber(await shown('summary-ratio')), 4);
      // chapters 10–12 are in the summary: the KV cache of Llama 3 8B per token (and over a context), from the engine.
      // Each edition's sentence uses some of these numbers; every one shown must equal the engine's.
      assert.equal(ref.kvToken, 131072, 'Llama 3 8B, 2-byte type: 2 · 32 · 8 · 128 · 2 bytes per token');
      const summary = byTestId(page, 'summary');
      const present = async (id) => (await summary.locator(`[data-testid="${id}"]`).count()) > 0;
      let kvShown = 0;
      if (await present('summary-kv-token')) {
        kvShown++;
        assert.equal(await val('summary-kv-token'), ref.kvToken);
        assert.equal(parseVisibleNumber(await shown('summary-kv-token')), ref.kvToken);
      }
      if (await present('summary-kv-token-size')) {
        kvShown++;
        assert.equal(await val('summary-kv-token-size'), ref.kvToken);
        assert.equal(parseVisibleNumber(await shown('summary-kv-token-size')), ref.kvToken / 2 ** 10, 'per token in KiB');
      }
      if (await present('summary-kv-gqa')) {
        assert.equal(await val('summary-kv-gqa'), ref.kvGqa);
        assert.equal(parseVisibleNumber(await shown('summary-kv-gqa')), 4);
      }
      if (await present('summary-kv-context')) assert.equal(await val('summary-kv-context'), ref.kvContext);
      assert.ok(kvShown > 0, 'the summary gives the KV cache per token');
      const canItems = await summary.locator('ul.summary-can > li').count();
      assert.equal(canItems, 12, 'the "you can now explain" list covers chapters 1–14 (13 and 14 added model and train)');
      const sumText = await byTestId(page, 'summary').textContent();
      assert.match(sumText, DIGITS[lang].re, 'summary numbers in the page digits');
      // no practice yet in this fresh profile
      assert.equal(await byTestId(page, 'summary-progress').evaluate((p) => p.dataset.solved), '0');
      assert.equal(await byTestId(page, 'summary-practice-link').getAttribute('href'), 'practice.html');

      // sources: every cited work has an entry, every citation link resolves to one
      const cites = await page.evaluate(() => [...document.querySelectorAll('sup.cite a')].map((a) => a.getAttribute('href')));
      assert.ok(cites.length >= 10, `citations in the text: ${cites.length}`);
      for (const h of new Set(cites)) assert.equal(await page.locator(h).count(), 1, `${h} exists`);
      for (const id of ['vaswani2017', 'milakov2018', 'rabe2021', 'dao2022', 'dao2023', 'su2021', 'chen2023', 'peng2023', 'pytorch-sdpa', 'article']) {
        assert.equal(await byTestId(page, `ref-${id}`).count(), 1, `reference ${id}`);
        assert.ok(cites.includes(`#ref-${id}`), `${id} is cited somewhere in the lesson`);
      }
      // each section's "in short" note (which sections have one: text-checks.mjs checkTakeaways)
      // ends it, titled in the page's language and named by its title
      const notes = await page.evaluate(() => [...document.querySelectorAll('main > section[id]')].map((sec) => {
        const box = sec.querySelector(`[data-testid="${sec.id}-takeaway"]`);
        return box && { id: sec.id, isLast: box === sec.lastElementChild, title: box.querySelector('.takeaway-title')?.textContent.trim(),
          label: document.getElementById(box.getAttribute('aria-labelledby'))?.textContent.trim(),
          text: box.querySelector('.takeaway-text')?.textContent.trim() ?? '' };
      }).filter(Boolean));
      assert.deepEqual(notes.map((n) => n.id), SECTIONS.slice(0, -2).map((s) => s.id), 'a note in every section but the summary and the sources');
      for (const n of notes) {
        assert.ok(n.isLast, `${n.id} ends with its takeaway`);
        assert.equal(n.title, TAKEAWAY[lang], `${n.id}: the takeaway is titled in ${lang}`);
        assert.equal(n.label, TAKEAWAY[lang], `${n.id}: the note is named by its title`);
        assert.ok(n.text.length > 40 && !/\b[a-z]\d?\.takeaway\b/.test(n.text), `${n.id}: the note says something (${n.text})`);
      }
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: the refresher opens by keyboard, its checks equal the engine, its state is in the URL`, T, async () => {
      const page = await openLesson(b, lang, '#intro');
      await tabTo(page, 'intro-fold-refresher-summary');
      await page.keyboard.press('Enter');
      assert.equal(await isOpen(page, 'intro-fold-refresher'), true, 'Enter opens the fold');
      await until(page, () => /[?&]intro\.fold\.refresher=1/.test(location.search));
      const ref = await engineReference(page);
      const val = (id) => byTestId(page, id).evaluate((e) => Number(e.dataset.value));
      assert.ok(Math.abs(await val('intro-dot-out') - ref.dot) < 1e-6, 'a·b');
      assert.ok(Math.abs(await val('intro-exp-out') - ref.exp1) < 1e-6, 'e^1');
      assert.ok(Math.abs(await val('intro-exp-out') - Math.E) < 1e-5, 'e^1 is e');
      assert.ok(Math.abs(await val('intro-ln-out') - ref.ln8) < 1e-6 && Math.abs(ref.ln8 - Math.log(8)) < 1e-5, 'ln 8');
      assert.ok(Math.abs(await val('intro-ent-out') - ref.H) < 1e-6, 'H(p)');
      const dist = await byTestId(page, 'intro-dist-out').evaluate((e) => JSON.parse(e.dataset.weights));
      assert.deepEqual(dist, ref.dist);
      const C = await byTestId(page, 'intro-mm-out').evaluate((f) => [...f.querySelectorAll('td')].map((td) => td.textContent));
      assert.deepEqual(C.map(parseVisibleNumber), ref.C);
      assert.match(normaliseText(await byTestId(page, 'intro-dot-out').textContent()), DIGITS[lang].re);

      // a new vector: the dot product follows (and goes into the URL); bad input gets a message
      const bIn = byTestId(page, 'intro-dot-b');
      await bIn.fill(lang === 'fa' ? '۱، ۱، ۱' : '١، ١، ١');
      await bIn.press('Enter');
      await until(page, () => document.querySelector('[data-testid="intro-dot-out"]').dataset.value === '6');
      assert.match(page.url(), /[?&]intro\.b=1_1_1(&|#|$)/);
      await bIn.fill('1, x');
      await bIn.press('Enter');
      assert.equal(await bIn.getAttribute('aria-invalid'), 'true');
      assert.notEqual(normaliseText(await byTestId(page, 'intro-dot-b-error').textContent()), '');
      assert.equal(await val('intro-dot-out'), 6, 'the last good result stays');
      await bIn.fill('1, 2');
      await bIn.press('Enter');
      await until(page, () => !document.querySelector('[data-testid="intro-dot-out"]').dataset.value);

      // Enter on the summary again closes the fold and drops it from the URL
      await byTestId(page, 'intro-fold-refresher-summary').focus();
      await page.keyboard.press('Enter');
      assert.equal(await isOpen(page, 'intro-fold-refresher'), false);
      await until(page, () => !/intro\.fold\.refresher/.test(location.search));
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: a URL with the refresher open and a vector restores both`, T, async () => {
      const page = await openLesson(b, lang, '?intro.fold.refresher=1&intro.a=2_0_1&intro.b=3_5_4#intro');
      assert.equal(await isOpen(page, 'intro-fold-refresher'), true);
      assert.equal(await byTestId(page, 'intro-dot-out').evaluate((e) => Number(e.dataset.value)), 10);
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: section 4 keeps its core open and its four folds closed; each opens by keyboard`, T, async () => {
      const page = await openLesson(b, lang, '#s4');
      for (const id of ['tables', 'seeds', 'sweep', 'grad']) assert.equal(await isOpen(page, `s4-fold-${id}`), false, `${id} closed`);
      assert.equal(await byTestId(page, 's4-var').isVisible(), true, 'variance argument is in the core');
      assert.equal(await byTestId(page, 's4-dk-live').isVisible(), true, '√d_k vs d_k is in the core');
      assert.equal(await byTestId(page, 's4-table-a').count(), 0, 'replication work waits for its fold');
      // each fold says why it is there, first thing inside
      const whys = await page.evaluate(() => [...document.querySelectorAll('#s4 details.fold > .fold-body > .fold-why')].map((p) => p.textContent.trim()));
      assert.equal(whys.length, 4);
      assert.ok(whys.every((w) => w.length > 20));
      // keyboard: the tables fold
      await tabTo(page, 's4-fold-tables-summary');
      await page.keyboard.press('Enter');
      assert.equal(await isOpen(page, 's4-fold-tables'), true);
      await byTestId(page, 's4-table-a').waitFor({ state: 'visible' });
      await until(page, () => /[?&]s4\.fold\.tables=1/.test(location.search));
      // Space toggles too (sweep)
      await byTestId(page, 's4-fold-sweep-summary').focus();
      await page.keyboard.press('Space');
      assert.equal(await isOpen(page, 's4-fold-sweep'), true);
      await until(page, () => document.querySelector('[data-testid="s4-sweep-status"]').textContent.trim() !== '');
      await until(page, () => /[?&]s4\.fold\.sweep=1/.test(location.search));
      await page.keyboard.press('Space');
      assert.equal(await isOpen(page, 's4-fold-sweep'), false);
      await until(page, () => !/s4\.fold\.sweep/.test(location.search));
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: a URL with s4 folds open restores them and computes their content`, T, async () => {
      const page = await openLesson(b, lang, '?s4.fold.seeds=1&s4.fold.grad=1#s4');
      assert.equal(await isOpen(page, 's4-fold-seeds'), true);
      assert.equal(await isOpen(page, 's4-fold-grad'), true);
      assert.equal(await isOpen(page, 's4-fold-tables'), false);
      await until(page, () => document.querySelector('[data-testid="s4-seeds-live"]').dataset.single !== undefined, null, 30000);
      await until(page, () => document.querySelector('[data-testid="s4-grad-live"]').dataset.on64 !== undefined, null, 60000);
      const g = await byTestId(page, 's4-grad-live').evaluate((e) => ({ off: Number(e.dataset.off64), on: Number(e.dataset.on64) }));
      assert.ok(g.on > g.off, `scaled softmax keeps a larger Jacobian norm at d_k 64: ${JSON.stringify(g)}`);
      assertNoIssues(page);
      await page.close();
    });

    // The four parts pictured, each built as the reader reaches it (the URL's state builds intro
    // and s4 at once), not all seventeen sections: the whole page's overflow at 360 and 1280 px
    // is a11y-lesson.test's; this one is the page with the refresher and s4's tables open.
    test(`${lang}: screenshots of the new sections and s4 at 360 and 1280 px`, T, async () => {
      for (const width of [1280, 360]) {
        const page = await openLesson(b, lang, '?intro.fold.refresher=1&s4.fold.tables=1#s4', { viewport: { width, height: 900 } });
        await byTestId(page, 's4-table-a').waitFor({ state: 'visible' });
        for (const part of ['intro', 'summary', 'refs']) {
          await page.evaluate((id) => document.getElementById(id).scrollIntoView(), part);
          await waitSection(page, part, 90000);
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 1, `page is ${overflow} px wider than ${width} px`);
        for (const part of ['intro', 's4', 'summary', 'refs']) await shoot(page, part, lang, width, `#${part}`);
        assertNoIssues(page);
        await page.close();
      }
    });
  });
}

test('the s2 note on left-to-right matrices and the heads paragraph come before section 3', T, async () => {
  const page = await openLesson(b, 'ar', '#s2');
  const order = await page.evaluate(() => {
    const pos = (sel) => {
      const all = [...document.querySelectorAll('main *')];
      return all.indexOf(document.querySelector(sel));
    };
    return { ltr: pos('[data-testid="s2-ltr-note"]'), heat: pos('[data-testid="s2-scores"]'), heads: pos('[data-testid="s2-heads"]'), s3: pos('#s3') };
  });
  assert.ok(order.ltr >= 0 && order.ltr < order.heat, 'the LTR note precedes the first heatmap');
  assert.ok(order.heads >= 0 && order.heads < order.s3, 'heads and layers are named before section 3');
  assertNoIssues(page);
  await page.close();
});
