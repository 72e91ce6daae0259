// Practice items of chapters 10–12 (heads, window, KV cache) on the practice page, both editions: the
// myths' live demos show the engine's numbers (m11: dot products of the last decode step and
// of a whole generation, engine visiblePairs; m13: reach and share of token 1 after stacked
// causal window layers, engine attention), m12 has a fact and no demo, each links to its
// chapter; the three new exercises grade the engine's answer right, a wrong one wrong and
// text unparseable with a message in the page's language; axe is clean on the opened myths
// and exercises; on a 360 px phone nothing sticks out sideways.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, assertNoIssues, byTestId, normaliseText, readTable, axeViolations, formatAxe, LANGS,
} from './helpers.mjs';
import { openPractice, waitPage } from './lesson-helpers.mjs';
import { launchPhone, overflowPx } from './phone.mjs';

const T = { timeout: 240000 };
const EXERCISE_IDS = ['kv-cache-preset', 'window-field', 'gqa-speedup'];
const MYTH_SECTION = { m11: 'kvcache', m12: 'heads', m13: 'window' };
// Text in the edition's script: Arabic-script letters, and none of the other edition's
// (Persian ی ک پ چ گ ژ; Arabic ي ك).
const SCRIPT = /[\u0621-\u064a\u067e\u0686\u0698\u06a9\u06af\u06cc]/;
const OTHER = { fa: /[\u064a\u0643]/, ar: /[\u06cc\u06a9\u067e\u0686\u06af\u0698]/ };

let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

async function freshPractice(browser, lang, opts) {
  const page = await openPractice(browser, lang, '', opts);
  await page.evaluate(() => localStorage.clear());
  await page.reload({ waitUntil: 'load' });
  await waitPage(page, 'practice');
  return page;
}

const inLanguage = (lang, s, what) => {
  assert.ok(SCRIPT.test(s) && !OTHER[lang].test(s), `${what}: written in ${lang}: ${s}`);
  assert.ok(!s.includes('⟦') && !/\[[A-Za-z]\w*\]/.test(s), `${what}: no missing key or unfilled placeholder: ${s}`);
};

async function openMyth(page, id) {
  const item = page.locator(`[data-testid="myth-item"][data-id="${id}"]`);
  await item.locator('[data-testid="myth-toggle"]').click();
  await item.locator('[data-testid="myth-fact"]').waitFor();
  if (await item.locator('[data-testid="myth-demo"]').count()) {
    await page.waitForFunction((el) => ['ready', 'error'].includes(el.querySelector('[data-testid="myth-demo"]').dataset.state),
      await item.elementHandle());
    assert.equal(await item.locator('[data-testid="myth-demo"]').getAttribute('data-state'), 'ready', `${id}: demo ran`);
  }
  return item;
}

async function showExercise(page, id) {
  await byTestId(page, 'practice-exercise-select').selectOption(id);
  const card = byTestId(page, 'practice-exercise');
  await page.waitForFunction(([el, id]) => el.dataset.id === id && el.dataset.state === 'ready' && el.dataset.seed,
    [await card.elementHandle(), id]);
  return card;
}

// The exercise on screen, generated again in the page by the engine module (same id and seed).
async function engineAnswer(page) {
  const card = byTestId(page, 'practice-exercise');
  const [id, seed] = [await card.getAttribute('data-id'), Number(await card.getAttribute('data-seed'))];
  return page.evaluate(async ([id, seed]) => {
    const { loadEngine } = await import('/js/engine.mjs');
    const { EXERCISES } = await import('/js/practice/generators.mjs');
    const q = await EXERCISES[id].generate(seed, await loadEngine());
    return { id, answer: q.answer, tolerance: q.tolerance, steps: q.steps.length };
  }, [id, seed]);
}

async function answer(page, value) {
  const fb = byTestId(page, 'practice-feedback');
  await page.evaluate((el) => { el.textContent = ''; delete el.dataset.status; }, await fb.elementHandle());
  await byTestId(page, 'practice-answer-input').fill(value);
  await byTestId(page, 'practice-check').click();
  await page.waitForFunction((el) => !!el.dataset.status, await fb.elementHandle());
  return { status: await fb.getAttribute('data-status'), text: normaliseText(await fb.textContent()) };
}

const typed = (lang, x) => new Intl.NumberFormat(lang === 'ar' ? 'ar-u-nu-arab' : 'fa',
  { maximumFractionDigits: 6, useGrouping: false }).format(x);

for (const lang of LANGS) {
  describe(`practice, chapters 10–12, ${lang}`, () => {
    test(`${lang}: myths m11–m13: the demos' numbers are the engine's; facts in the language; links to their chapter`, T, async () => {
      const page = await freshPractice(b, lang);
      for (const [id, section] of Object.entries(MYTH_SECTION)) {
        const item = await openMyth(page, id);
        inLanguage(lang, normaliseText(await item.locator('[data-testid="myth-fact"]').textContent()), `myth ${id} fact`);
        assert.equal(await item.locator('[data-testid="lesson-link"]').getAttribute('data-section'), section, `${id} links to ${section}`);
      }
      assert.equal(await page.locator('[data-testid="myth-item"][data-id="m12"] [data-testid="myth-demo"]').count(), 0, 'm12: no demo');

      // m11: per length T, the last step's pairs (T) and the whole generation's (T(T+1)/2).
      const m11 = await readTable(page.locator('[data-testid="myth-item"][data-id="m11"] [data-testid="myth-demo-table"]'));
      const ref11 = await page.evaluate(async () => {
        const e = window.__practice.engine;
        const out = [];
        for (const T of [1024, 2048, 4096, 8192]) {
          out.push([T, await e.visiblePairs({ L: 1, S: T, causal: true, rowOffset: T - 1 }), await e.visiblePairs({ L: T, S: T, causal: true })]);
        }
        return out;
      });
      assert.equal(m11.length, ref11.length);
      ref11.forEach(([T, step, total], i) => {
        assert.equal(step, T, 'engine: the last decode step sees every key');
        assert.equal(total, (T * (T + 1)) / 2, 'engine: 1 + 2 + … + T pairs');
        assert.equal(m11[i][0], step, `m11 row ${T}: last step on the page`);
        assert.equal(m11[i][1], total, `m11 row ${T}: whole generation on the page`);
        if (i) assert.equal(m11[i][2], Math.round((total / ref11[i - 1][2]) * 100) / 100, `m11 row ${T}: ratio to the row above`);
      });

      // m13: after k layers of width 4, token 1 reaches position 3k + 1 with share (1/4)^k.
      const m13 = await readTable(page.locator('[data-testid="myth-item"][data-id="m13"] [data-testid="myth-demo-table"]'));
      const ref13 = await page.evaluate(async () => {
        const e = window.__practice.engine;
        const w = 4, n = 14;
        const zero = { rows: n, cols: 1, data: new Float32Array(n) };
        let v = { rows: n, cols: 1, data: Float32Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0)) };
        const rows = [];
        for (let k = 1; k <= 4; k++) {
          v = (await e.attention({ q: zero, k: zero, v, causal: true, window: w })).out;
          const far = v.data.findLastIndex((x) => x > 0);
          rows.push([far + 1, v.data[far]]);
        }
        return rows;
      });
      assert.deepEqual(ref13.map((r) => r[0]), [4, 7, 10, 13], 'engine: k·(w − 1) positions further, 1-based');
      assert.equal(m13.length, 4);
      ref13.forEach(([pos, share], i) => {
        assert.equal(m13[i][0], pos, `m13 layer ${i + 1}: farthest position on the page`);
        assert.ok(Math.abs(m13[i][1] - share) <= 5e-5, `m13 layer ${i + 1}: share ${m13[i][1]} vs engine ${share}`);
        assert.ok(Math.abs(share - 0.25 ** (i + 1)) < 1e-6, 'engine: one path of weight 1/4 per layer');
      });

      const v = await axeViolations(page, { include: '#myth' });
      assert.equal(v.length, 0, `axe on the opened myths:\n${formatAxe(v)}`);
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: the three new exercises grade the engine's answer; wrong and unparseable answers are told apart`, T, async () => {
      const page = await freshPractice(b, lang);
      for (const id of EXERCISE_IDS) {
        const card = await showExercise(page, id);
        inLanguage(lang, normaliseText(await byTestId(page, 'practice-prompt').textContent()), `${id} prompt`);
        const bad = await answer(page, lang === 'fa' ? 'نمی‌دانم' : 'لا أعرف');
        assert.equal(bad.status, 'unparseable', `${id}: ${JSON.stringify(bad)}`);
        inLanguage(lang, bad.text, `${id} unparseable message`);
        const ex = await engineAnswer(page);
        assert.equal(ex.id, id);
        const tol = Math.max(ex.tolerance.abs, ex.tolerance.rel * Math.abs(ex.answer));
        assert.equal((await answer(page, typed(lang, ex.answer + 10 * tol + 1))).status, 'wrong', `${id}: off answer`);
        assert.equal((await answer(page, typed(lang, ex.answer))).status, 'correct', `${id}: the engine's ${ex.answer}`);
        await byTestId(page, 'practice-solution').click();
        const steps = card.locator('[data-testid="practice-solution-steps"] li');
        await steps.first().waitFor();
        assert.equal(await steps.count(), ex.steps, `${id}: every step shown`);
        for (const s of await steps.allTextContents()) inLanguage(lang, normaliseText(s), `${id} step`);
        const v = await axeViolations(page, { include: '#exercises' });
        assert.equal(v.length, 0, `axe on exercise ${id}:\n${formatAxe(v)}`);
      }
      assertNoIssues(page);
      await page.close();
    });

    test(`${lang}: 360 px phone: the opened myths and the new exercises' solutions do not stick out`, T, async () => {
      const phone = await launchPhone({ width: 360 });
      try {
        const page = await freshPractice(phone, lang);
        for (const id of Object.keys(MYTH_SECTION)) await openMyth(page, id);
        assert.ok(await overflowPx(page, 360) <= 0, `myths: page ${await overflowPx(page, 360)} px wider than the phone`);
        for (const id of EXERCISE_IDS) {
          await showExercise(page, id);
          await byTestId(page, 'practice-solution').evaluate((el) => el.click());
          await byTestId(page, 'practice-solution-steps').first().waitFor();
          assert.ok(await overflowPx(page, 360) <= 0, `${id}: page ${await overflowPx(page, 360)} px wider than the phone`);
        }
      } finally {
        await phone.close();
      }
    });
  });
}
