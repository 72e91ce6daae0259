// Section 8 as a learner meets it (issues 11 and 12), both editions:
// - the online-softmax step-through has a causal option: the final vector shown is the engine's
//   causal row; the keys the mask hides are marked; the option and the row are in the URL;
// - the query-tile grid shows tileGrid's kinds and counts, and steps through the query tiles
//   (URL s8.qt). (That the causal trace is the plain trace over keys 0…i, and that tileGrid
//   classifies every tile as the engine's causal weights do, for many sizes: tests/node/s8-compute.test.mjs.)
// - engineering detail sits in native <details> folds, reachable with the keyboard, their open
//   state in the URL (s8.more.<id>=1), each opening with one sentence that says why it is there;
// - the long run moves its bar from the first finished query tile, and after a cancel no
//   "time left" is left on screen.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, byTestId, assertNoIssues, parseVisibleNumber, newPage, url, typeInto } from './helpers.mjs';
import { waitForQuery } from './lesson-helpers.mjs';
import { tileGrid } from '../../web/js/sections/s8-compute.mjs';

// openLesson with a longer wait: the lesson takes 25 s to mount on this 2-core machine under load
async function openLesson(b, lang, query = '') {
  const page = await newPage(b);
  await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load' });
  await waitForQuery(page, query, { timeout: 60000 });
  return page;
}
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 120000 };
let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

const stepsOf = async (page) => Number(await byTestId(page, 's8-step').getAttribute('data-steps'));

// the engine in the page: the traced example's inputs (s8-chunked.mjs: seeds seed, seed+1, seed+2)
async function engineCase(page, { keys, block, row, seed = 7 }) {
  return page.evaluate(async ({ keys, block, row, seed }) => {
    const { loadEngine } = await import('/js/engine.mjs');
    const e = await loadEngine();
    const q = e.randomNormal({ seed, rows: keys, cols: 4 });
    const k = e.randomNormal({ seed: seed + 1, rows: keys, cols: 4 });
    const v = e.randomNormal({ seed: seed + 2, rows: keys, cols: 3 });
    const causal = e.onlineSoftmaxTrace({ q, k, v, row, blockK: block, causal: true });
    const mat = e.attention({ q, k, v, causal: true, variant: 'materialized' });
    return { steps: causal.steps.length, out: Array.from(causal.out), ref: Array.from(mat.out.data.slice(row * 3, row * 3 + 3)) };
  }, { keys, block, row, seed });
}

// One journey per interactive: the causal step-through in fa, the query-tile grid in ar (their
// numbers, for many sizes: tests/node/s8-compute.test.mjs).
for (const lang of ['fa', 'ar']) {
  if (lang === 'fa') test(`${lang}: the causal step-through of row i is the engine's causal trace`, T, async () => {
    const page = await openLesson(b, lang, '?s8.causal=1&s8.row=5&s8.keys=10&s8.block=3#s8');
    const causal = byTestId(page, 's8-causal');
    assert.equal(await causal.isChecked(), true, 'the option comes from the URL');
    const ref = await engineCase(page, { keys: 10, block: 3, row: 5 });
    assert.equal(await stepsOf(page), ref.steps + 2, 'start, one step per tile the row reads, result');
    assert.equal(await byTestId(page, 's8-scores').locator('li.masked').count(), 4, 'keys 6…9 are marked hidden');
    // the skipped tiles are named at the start
    const start = await byTestId(page, 's8-explain').textContent();
    assert.ok(start.length > 20);
    await byTestId(page, 's8-last').click();
    const vecs = await byTestId(page, 's8-final').locator('.vec').allTextContents();
    const parseVec = (s) => s.replace(/[()\u200e\u200f\u2066-\u2069]/g, '').split(/[,،]\s*/).map(parseVisibleNumber);
    const [online, mat] = vecs.map(parseVec);
    for (let i = 0; i < 3; i++) {
      assert.ok(Math.abs(online[i] - ref.out[i]) <= 0.0005 + 1e-9, `online ${online[i]} vs engine ${ref.out[i]}`);
      assert.ok(Math.abs(mat[i] - ref.ref[i]) <= 0.0005 + 1e-9, `materialized ${mat[i]} vs engine causal row ${ref.ref[i]}`);
    }
    assert.ok(Number(await byTestId(page, 's8-maxdiff').getAttribute('data-diff')) <= 1e-6);
    // off: the whole row of keys, 4 tiles; the URL follows
    await causal.uncheck();
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-step"]')?.dataset.steps === '6');
    assert.ok(!page.url().includes('s8.causal=1'), page.url());
    assert.equal(await byTestId(page, 's8-scores').locator('li.masked').count(), 0);
    await causal.check();
    await page.waitForFunction((n) => document.querySelector('[data-testid="s8-step"]')?.dataset.steps === String(n), ref.steps + 2);
    assert.ok(page.url().includes('s8.causal=1') && page.url().includes('s8.row=5'), page.url());
    // another row, typed
    // the field counts rows from 1, like the prose: «۳» is the engine's row 2
    await typeInto(page, 's8-row', lang === 'fa' ? '۳' : '٣');
    const ref2 = await engineCase(page, { keys: 10, block: 3, row: 2 });
    await page.waitForFunction((n) => document.querySelector('[data-testid="s8-step"]')?.dataset.steps === String(n), ref2.steps + 2);
    assert.equal(await byTestId(page, 's8-scores').locator('li.masked').count(), 7);
    assertNoIssues(page);
    await page.close();
  });

  if (lang === 'ar') test(`${lang}: the query-tile grid shows tileGrid's kinds and counts; stepping through query tiles`, T, async () => {
    const page = await openLesson(b, lang, '?s8.causal=1#s8');
    // one size typed: the grid and its counts are what tileGrid says (tileGrid against the
    // engine's causal weights, for many sizes: tests/node/s8-compute.test.mjs)
    await typeInto(page, 's8-keys', '10');
    await typeInto(page, 's8-block', '3');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="s8-tiles"] tbody td').length === 16);
    const shown = await byTestId(page, 's8-tiles').evaluate((t) => [...t.querySelectorAll('tbody td')].map((td) => ({
      q: Number(td.dataset.q), k: Number(td.dataset.k), kind: td.dataset.kind, word: td.textContent.trim(),
    })));
    const grid = tileGrid(10, 3, true);
    for (const c of shown) {
      assert.equal(c.kind, grid.kinds[c.q][c.k], `query tile ${c.q}, key tile ${c.k}`);
      assert.ok(c.word.length > 0, 'each cell says its kind in words');
    }
    const counts = await byTestId(page, 's8-tile-counts').evaluate((el) => ({ ...el.dataset }));
    assert.deepEqual([counts.full, counts.partial, counts.skip, counts.computed, counts.visible].map(Number),
      [grid.count.full, grid.count.partial, grid.count.skip, grid.computed, grid.visible]);
    // step through the query tiles of 10 keys in tiles of 3
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-qt"]')?.dataset.qts === '4');
    for (let t = 0; t < 4; t++) {
      assert.equal(await byTestId(page, 's8-qt').getAttribute('data-qt'), String(t));
      const cur = await byTestId(page, 's8-tiles').evaluate((tb) => [...tb.querySelectorAll('tbody tr')].findIndex((tr) => tr.classList.contains('is-current')));
      assert.equal(cur, t, 'the current query tile is marked in the grid');
      const skipped = await byTestId(page, 's8-qt-explain').locator('li[data-kind="skip"]').getAttribute('data-tiles');
      assert.equal(skipped, Array.from({ length: 3 - t }, (_, i) => t + 1 + i).join(','), `query tile ${t} skips the key tiles after it`);
      if (t < 3) {
        await byTestId(page, 's8-qt-next').click();
        await page.waitForFunction((t) => document.querySelector('[data-testid="s8-qt"]')?.dataset.qt === String(t), t + 1);
        assert.ok(page.url().includes(`s8.qt=${t + 1}`), page.url());
      }
    }
    assert.equal(await byTestId(page, 's8-qt-next').getAttribute('aria-disabled'), 'true');
    // without the mask every tile is full
    await byTestId(page, 's8-causal').uncheck();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="s8-tiles"] tbody td')].every((td) => td.dataset.kind === 'full'));
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: engineering detail in keyboard-reachable folds, open state in the URL`, T, async () => {
    const page = await openLesson(b, lang, '#s8');
    const ids = ['budget', 'workers'];
    for (const id of ids) {
      const d = byTestId(page, `s8-fold-${id}`);
      assert.equal(await d.evaluate((el) => el.tagName), 'DETAILS');
      assert.equal(await d.evaluate((el) => el.open), false, `${id} closed by default`);
      const why = await d.locator('.fold-why').textContent();
      assert.ok(why.trim().length > 20, `${id} says why it is there`);
    }
    // keyboard: the first summary, Tab to the second, Enter opens it
    await byTestId(page, 's8-fold-budget').locator('summary').focus();
    await page.keyboard.press('Tab');
    const active = await page.evaluate(() => document.activeElement?.closest('details')?.dataset.testid);
    assert.equal(active, 's8-fold-workers', 'Tab goes from one fold to the next');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-fold-workers"]').open);
    await page.waitForFunction(() => location.search.includes('s8.more.workers=1'));
    // the budget paragraph (engine numbers) is inside its fold, filled
    const budget = await byTestId(page, 's8-fold-budget').evaluate((el) => el.textContent);
    assert.ok(/wasm32/.test(budget), 'the budget paragraph lives in the fold');
    assert.ok(!/TooLarge/.test(budget), 'the engine error code is not shown in the reader\'s text');
    // a link with the state opens the fold; closing removes it from the URL
    const link = page.url();
    await page.close();
    const again = await openLesson(b, lang, link.slice(link.indexOf('?')));
    assert.equal(await byTestId(again, 's8-fold-workers').evaluate((el) => el.open), true, 'opened from the URL');
    assert.equal(await byTestId(again, 's8-fold-budget').evaluate((el) => el.open), false);
    await byTestId(again, 's8-fold-workers').locator('summary').click();
    await again.waitForFunction(() => !location.search.includes('s8.more.workers'));
    assertNoIssues(again);
    await again.close();
  });

  test(`${lang}: the long run moves from the first query tile; a cancel leaves no time-left line`, T, async () => {
    const page = await openLesson(b, lang, '#s8');
    page.setDefaultTimeout(60000);
    await byTestId(page, 's8-run').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-chunk-status"]')?.dataset.state === 'running', null, { timeout: 90000 });
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="s8-progress"]')?.value) > 0, null, { timeout: 90000, polling: 50 });
    const first = await byTestId(page, 's8-chunk-status').evaluate((el) => ({ done: Number(el.dataset.firstDone), ms: Number(el.dataset.firstMs) }));
    console.log(`# ${lang}: first progress update at n = 131,072 after ${first.ms} ms (${first.done} rows)`);
    assert.equal(first.done, 64, 'the first update comes with one finished query tile (64 rows)');
    await byTestId(page, 's8-cancel').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-chunk-status"]')?.dataset.state === 'cancelled');
    const eta = byTestId(page, 's8-eta');
    assert.equal((await eta.textContent()).trim(), '', 'no time-left line after the cancel');
    assert.equal(await eta.getAttribute('data-ms'), null);
    assertNoIssues(page);
    await page.close();
  });
}

test('fa and ar on a 360 px phone: the largest tile grid scrolls inside its box, the page does not', T, async () => {
  const phone = await launchPhone({ width: 360 });
  try {
    for (const lang of ['fa', 'ar']) {
      const page = await newPage(phone);
      const query = '?s8.causal=1&s8.keys=16&s8.block=1#s8';
      await page.goto(url(`/${lang}/index.html${query}`), { waitUntil: 'load' });
      await waitForQuery(page, query, { timeout: 60000 });
      assert.equal(await byTestId(page, 's8-tiles').locator('tbody td').count(), 256);
      assert.ok(await overflowPx(page, 360) <= 0, `${lang}: the page is ${await overflowPx(page, 360)} px wider than the phone`);
      await page.close();
    }
  } finally {
    await phone.close();
  }
});
