// Chapter 11 (sliding window), both editions: the numbers on the page equal the engine's
// (computed in the page with window.__lesson.engine and web/js/sections/window-compute.mjs),
// the URL state restores, bad input is answered in the page's language and the section keeps
// working, the long run completes with results matching the engine's check rows and can be
// cancelled, axe finds nothing in the section, and a 360 px phone does not scroll sideways.
// The noun agreeing with each count of keys, for every plural form, runs in Node
// (window-compute.test.mjs rowsSentence). No timed assertions: the run's times are shown, never checked.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, url, byTestId, toLatinDigits, normaliseText, assertNoIssues, axeViolations, formatAxe, readTable, typeInto } from './helpers.mjs';
import { openLesson, heatmapValues, DIGITS } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 240000 };
let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

// visible text without KaTeX's MathML copy, digits made Latin, group separators and isolates dropped
const plain = (loc) => loc.evaluate((el) => {
  const c = el.cloneNode(true);
  for (const m of c.querySelectorAll('.katex-mathml')) m.remove();
  return c.textContent.replace(/\s+/g, ' ').trim();
}).then((s) => toLatinDigits(s).replace(/[\u066c,\u200e\u200f\u061c\u2066-\u2069]/g, ''));

// The chapter's numbers as the engine gives them, computed in the page.
function engineNumbers(page, p) {
  return page.evaluate(async (p) => {
    const { computeBand, computeReach } = await import('/js/sections/window-compute.mjs');
    const e = window.__lesson.engine;
    const band = await computeBand(e, p);
    const reach = await computeReach(e, p);
    return { pairs: band.pairs, full: band.full, causalPairs: band.causalPairs, perRow: band.perRow,
      weights: Array.from(band.weights.data), reach: reach.reach, formula: reach.formula };
  }, p);
}

async function waitFor(page, id, attr, want) {
  await page.waitForFunction(({ id, attr, want }) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute(attr) === want,
    { id, attr, want: String(want) }, { timeout: 60000 });
}


// The URL-restore journey once (fa): its numbers and every plural form of its sentence, in both
// languages, run in Node (window-compute.test.mjs); the controls and refused input, axe, the
// long run and the phone in both editions.
for (const lang of ['fa', 'ar']) {
  if (lang === 'fa') test(`${lang}: URL state restores and every number equals the engine's`, T, async () => {
    const page = await openLesson(b, lang, '?window.n=12&window.w=3&window.causal=false&window.k=3#window');
    const p = { n: 12, w: 3, causal: false, k: 3 };
    const want = await engineNumbers(page, p);
    await waitFor(page, 'window-reach', 'data-k', 3);
    assert.equal(toLatinDigits(await byTestId(page, 'window-n').inputValue()), '12');
    assert.equal(toLatinDigits(await byTestId(page, 'window-w').inputValue()), '3');
    assert.equal(await byTestId(page, 'window-causal').isChecked(), false);
    assert.equal(toLatinDigits(await byTestId(page, 'window-k').inputValue()), '3');
    // the band: pair counts (attributes and visible text), keys per row, the heatmap's weights
    const pairs = byTestId(page, 'window-pairs');
    assert.equal(Number(await pairs.getAttribute('data-pairs')), want.pairs);
    assert.equal(Number(await pairs.getAttribute('data-full')), 144);
    assert.equal(Number(await pairs.getAttribute('data-causal-pairs')), 78);
    const pt = await plain(pairs);
    for (const x of [want.pairs, want.full, want.causalPairs]) assert.ok(pt.includes(String(x)), `${x} in «${pt}»`);
    assert.ok(DIGITS[lang].re.test(await pairs.textContent()), 'page digits');
    assert.equal(await byTestId(page, 'window-rows').getAttribute('data-per-row'), want.perRow.join(','));
    // the sentence under the band names the widest row's count and the edges' with the noun that
    // agrees (every case of the plural rules: window-compute.test.mjs)
    const rowsText = await plain(byTestId(page, 'window-rows'));
    for (const k of [5, 3]) assert.ok(rowsText.includes(lang === 'ar' ? `${k} مفاتيح` : `${k} کلید`), `${k} keys in «${rowsText}»`);
    const cells = await heatmapValues(page, 'window-band');
    const shown = cells.flat();
    assert.equal(shown.length, 144);
    shown.forEach((v, i) => assert.ok(Math.abs(v - want.weights[i]) <= 0.006, `weight ${i}: ${v} vs ${want.weights[i]}`));
    // the reach: engine-derived on the page, equal to the formula, in the text
    const reach = byTestId(page, 'window-reach');
    assert.equal(Number(await reach.getAttribute('data-reach')), want.reach);
    assert.equal(Number(await reach.getAttribute('data-formula')), want.formula);
    assert.equal(want.reach, 6);   // 3 layers × (3 − 1)
    assert.ok((await plain(reach)).includes(String(want.reach)));
    // grey means different things on the two maps: masked (−∞) on the band, exactly zero
    // influence on the reach map, whose grey cells are not masked (review 15, fa #6)
    const keys = await page.evaluate(async () => {
      const { t } = await import('/js/i18n/i18n.mjs');
      return { masked: t('site.maskedCell'), zero: t('window.reach.zeroCell') };
    });
    const legendOf = async (id) => normaliseText(await page.locator(`[data-testid="${id}"] .heatmap-legend-mask`).textContent());
    assert.equal(await legendOf('window-reach-map'), normaliseText(keys.zero), 'reach map legend');
    assert.notEqual(normaliseText(keys.zero), normaliseText(keys.masked));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: controls update the URL; bad input is answered in ${lang} and the section keeps working`, T, async () => {
    const page = await openLesson(b, lang, '#window');
    await waitFor(page, 'window-reach', 'data-w', 4);
    for (const [text, why] of [['abc', 'invalid'], ['', 'empty'], ['0', 'range'], ['65', 'range'], ['2.5', 'integer']]) {
      await typeInto(page, 'window-w', text);
      const msg = (await byTestId(page, 'window-w-error').textContent()).trim();
      assert.ok(msg.length > 5, `a message for «${text}» (${why})`);
      assert.ok(!/[A-Za-z]/.test(msg.replace(/\$[^$]*\$/g, '')), `no Latin words in «${msg}»`);
      if (why === 'range') assert.ok(toLatinDigits(msg).includes('64') && DIGITS[lang].re.test(msg), `range in page digits: ${msg}`);
      assert.equal(await byTestId(page, 'window-w').getAttribute('aria-invalid'), 'true');
    }
    assert.equal(await byTestId(page, 'window-reach').getAttribute('data-w'), '4', 'the last valid w is kept');
    // still working: a valid w and n recompute, the URL follows
    await typeInto(page, 'window-w', lang === 'fa' ? '۵' : '٥');
    await waitFor(page, 'window-reach', 'data-w', 5);
    assert.equal(await byTestId(page, 'window-w-error').textContent(), '');
    await typeInto(page, 'window-n', '20');
    await typeInto(page, 'window-k', '2');
    await waitFor(page, 'window-reach', 'data-n', 20);
    const want = await engineNumbers(page, { n: 20, w: 5, causal: true, k: 2 });
    assert.equal(Number(await byTestId(page, 'window-pairs').getAttribute('data-pairs')), want.pairs);
    assert.equal(Number(await byTestId(page, 'window-reach').getAttribute('data-reach')), want.reach);
    await byTestId(page, 'window-causal').uncheck();
    await page.waitForFunction(() => /window\.causal=0/.test(location.search));
    const u = new URL(page.url());
    assert.equal(u.searchParams.get('window.w'), '5');
    assert.equal(u.searchParams.get('window.n'), '20');
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: the long run completes, matches the engine's check rows, restores its settings, and cancels`, T, async () => {
    const page = await openLesson(b, lang, '?window.runW=256&window.runMax=4096#window');
    assert.equal(toLatinDigits(await byTestId(page, 'window-run-w').inputValue()), '256');
    assert.equal(await byTestId(page, 'window-run-max').inputValue(), '4096');
    await byTestId(page, 'window-run').click();
    await page.waitForFunction(() => ['done', 'failed', 'cancelled'].includes(document.querySelector('[data-testid="window-run-status"]').dataset.state), null, { timeout: 200000 });
    assert.equal(await byTestId(page, 'window-run-status').getAttribute('data-state'), 'done', await byTestId(page, 'window-run-status').textContent());
    const rows = await byTestId(page, 'window-run-table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset })));
    assert.deepEqual(rows.map((r) => Number(r.n)), [2048, 4096]);
    const predicted = await page.evaluate(async () => {
      const e = window.__lesson.engine;
      const out = [];
      for (const n of [2048, 4096]) out.push(await e.visiblePairs({ L: n, S: n, causal: true, window: 256 }) / await e.visiblePairs({ L: n, S: n, causal: true }));
      return out;
    });
    rows.forEach((r, i) => {
      assert.ok(Math.abs(Number(r.predicted) - predicted[i]) < 1e-12, `predicted ratio at n=${r.n}`);
      assert.ok(Number(r.maxdiff) < 1e-4, `chunked vs reference on the check rows: ${r.maxdiff}`);
      assert.ok(Number(r.fullMs) > 0 && Number(r.winMs) > 0);
    });
    assert.equal(await byTestId(page, 'window-run-chart').getAttribute('data-points'), '4');
    const table = await readTable(byTestId(page, 'window-run-table'));
    assert.equal(table.length, 2);
    // cancel: the largest series, cancelled while it runs; the button works again afterwards
    await byTestId(page, 'window-run-max').selectOption('131072');
    await page.waitForFunction(() => /window\.runMax=131072/.test(location.search));
    await byTestId(page, 'window-run').click();
    await waitFor(page, 'window-run-status', 'data-state', 'running');
    await byTestId(page, 'window-cancel').click();
    await waitFor(page, 'window-run-status', 'data-state', 'cancelled');
    const said = (await byTestId(page, 'window-run-status').textContent()).trim();
    assert.ok(said.length > 5 && !/[A-Za-z]/.test(said), `cancel said in ${lang}: ${said}`);
    assert.equal(await byTestId(page, 'window-run').isDisabled(), false);
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: axe finds nothing in the section`, T, async () => {
    const page = await openLesson(b, lang, '#window');
    await waitFor(page, 'window-reach', 'data-w', 4);
    // the heatmaps' data tables too, as a11y-pages.mjs does for the whole page
    await page.evaluate(() => { for (const d of document.querySelectorAll('section#window details')) d.open = true; });
    await byTestId(page, 'window-reach-map-table').waitFor({ state: 'visible' });
    const v = await axeViolations(page, { include: 'section#window' });
    assert.equal(v.length, 0, `axe on #window (${lang}):\n${formatAxe(v)}`);
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: a 360 px phone does not scroll sideways`, T, async () => {
    const phone = await launchPhone({ width: 360 });
    try {
      const page = await phone.context.newPage();
      await page.goto(url(`/${lang}/index.html?window.n=64&window.w=9&window.k=8#window`), { waitUntil: 'load' });
      await page.waitForFunction(() => document.querySelector('[data-testid="window-reach"]')?.dataset.n === '64', null, { timeout: 90000 });
      await page.locator('section#window').scrollIntoViewIfNeeded();
      assert.equal(await overflowPx(page, 360), 0, 'the page does not scroll sideways');
      // a wide table scrolls inside its box, which the page makes focusable once it has measured it;
      // a table in a closed fold is measured when the fold opens (Chromium lays out a closed fold's
      // content when asked, so its width alone does not say it is shown): open them all first
      await page.evaluate(() => document.querySelectorAll('section#window details:not([open])').forEach((d) => { d.open = true; }));
      const unreachable = () => page.evaluate(() => [...document.querySelectorAll('section#window .table-scroll')]
        .filter((el) => el.clientWidth && el.scrollWidth > el.clientWidth + 1 && el.tabIndex < 0).length);
      await page.waitForFunction(() => [...document.querySelectorAll('section#window .table-scroll')]
        .every((el) => !el.clientWidth || el.scrollWidth <= el.clientWidth + 1 || el.tabIndex >= 0), null, { timeout: 45000 }).catch(() => {});
      const wide = await unreachable();
      assert.equal(wide, 0, 'no table scrolls sideways without keyboard access');
    } finally {
      await phone.close();
    }
  });
}
