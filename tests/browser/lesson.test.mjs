// The lesson pages (fa/index.html, ar/index.html) driven in Chromium: what a
// person sees, checked against the engine itself.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launch, newPage, url, assertNoIssues, byTestId, parseVisibleNumber, normaliseText, digitScript, LANGS,
  toLatinDigits as toLatin, waitForUrl,
} from './helpers.mjs';
import {
  openLesson, waitLesson, waitPage, sectionStates, heatmapValues, heatmapTexts, waitChange,
  engineWorkedExample, SECTION_IDS, DIGITS,
} from './lesson-helpers.mjs';

// a hang detector, not a speed check: openLesson alone may wait 60 s on a loaded machine
const T = { timeout: 180000 };
let b;
before(async () => { b = await launch(); });
after(async () => { await b?.close(); });

const EXPECT_SAT = {
  fa: { score: '۲٫۱۲', pct: '۵۱' },
  ar: { score: '٢٫١٢', pct: '٥١' },
};

const text = async (page, id) => normaliseText(await byTestId(page, id).first().textContent());

for (const lang of LANGS) {
  describe(`lesson ${lang}`, () => {
    test(`${lang}: loads with lang/dir, every section mounted, the worked example in ${DIGITS[lang].name} digits, no console error`, T, async () => {
      const page = await openLesson(b, lang);
      const attrs = await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));
      assert.deepEqual(attrs, { lang, dir: 'rtl' });
      const states = await sectionStates(page);
      assert.deepEqual(Object.keys(states).sort(), SECTION_IDS, 'sections s1..s9 present');
      const notReady = Object.entries(states).filter(([, s]) => s !== 'ready');
      assert.deepEqual(notReady, [], 'every section reports data-state=ready');
      // No untranslated key markers (i18n.mjs renders a missing key as ⟦key⟧).
      const body = await page.evaluate(() => document.body.innerText);
      const missing = [...new Set(body.match(/⟦[^⟧]+⟧/g) || [])];
      assert.deepEqual(missing, [], 'no missing text keys on the page');
      // The worked example as a reader sees it: the numbers the prose quotes, in the page's
      // digits, and the weights table in the page's script. (That they are the engine's:
      // tests/node/worked-example-words.test.mjs and engine-api.test.mjs; that the table
      // follows the engine after an edit: the s2 tests below.)
      const score = await text(page, 's2-sat-score');
      const pct = await text(page, 's2-sat-pct');
      assert.equal(score, EXPECT_SAT[lang].score, `s2-sat-score shows ${score}`);
      assert.match(pct, new RegExp(`^${EXPECT_SAT[lang].pct}\\s*٪$|^٪\\s*${EXPECT_SAT[lang].pct}$`), `s2-sat-pct shows ${pct}`);
      const cells = (await heatmapTexts(page, 's2-weights')).flat().join(' ');
      assert.match(cells, DIGITS[lang].re, 'table digits are in the page script');
      assert.doesNotMatch(cells, DIGITS[lang].other, 'no digits of another script in the table');
      assertNoIssues(page);
      await page.close();
    });
  });
}

describe('lesson interactions (fa)', () => {
  test('causal toggle (s2) zeroes the upper triangle of the weights', T, async () => {
    const page = await openLesson(b, 'fa', '#s2');
    const before = await heatmapValues(page, 's2-weights');
    const upper = (m) => m.flatMap((r, i) => r.filter((_, j) => j > i));
    assert.ok(upper(before).some((x) => x > 0), 'without the mask the upper triangle has weight');
    await byTestId(page, 's2-causal').check();
    const afterM = await waitChange(() => heatmapValues(page, 's2-weights'), before);
    assert.ok(upper(afterM).every((x) => x === 0), `upper triangle after causal: ${JSON.stringify(afterM)}`);
    for (const [i, r] of afterM.entries()) {
      const sum = r.reduce((a, x) => a + x, 0);
      assert.ok(Math.abs(sum - 1) < 0.03, `row ${i} still sums to 1 (${sum})`);
    }
    assert.equal(afterM[0][0], 1, 'the first token attends only to itself');
    const ref = await engineWorkedExample(page, { causal: true });
    for (let i = 0; i < 4; i++) for (let j = 0; j <= i; j++) {
      assert.ok(Math.abs(afterM[i][j] - ref.weights.data[i * 4 + j]) <= 0.005 + 1e-9, `causal weights[${i}][${j}]`);
    }
    // The state is in the URL.
    assert.match(page.url(), /[?&]s2\.causal=(1|true)\b/);
    assertNoIssues(page);
    await page.close();
  });

  test('bad input in a matrix cell shows a message and keeps the last result', T, async () => {
    const page = await openLesson(b, 'fa', '#s2');
    const initial = await heatmapValues(page, 's2-weights');
    const cell = byTestId(page, 's2-x-r2c0');   // x of "sat", first component: 0 → 2
    await cell.fill('۲');
    await cell.press('Tab');
    const edited = await waitChange(() => heatmapValues(page, 's2-weights'), initial);
    assert.notDeepEqual(edited, initial, 'a valid edit recomputes the weights');
    assert.equal(await text(page, 's2-x-msg'), '', 'no message for a valid edit');

    await cell.fill('abc');
    await cell.press('Tab');
    const msg = byTestId(page, 's2-x-msg');
    await page.waitForFunction((el) => el.textContent.trim().length > 0, await msg.elementHandle());
    const m = await text(page, 's2-x-msg');
    assert.ok(m.length > 3, `message shown: ${m}`);
    assert.doesNotMatch(m, /⟦/, 'the message is translated');
    assert.match(m, /[\u0600-\u06FF]/, 'the message is in the page language');
    assert.equal(await cell.getAttribute('aria-invalid'), 'true');
    // A recompute the refused edit might have asked for would be sent before this call: the
    // worker answers in order, so once this is answered such a reply has reached the page.
    await page.evaluate(() => window.__lesson.engine.visiblePairs({ L: 1, S: 1 }));
    const kept = await heatmapValues(page, 's2-weights');
    assert.deepEqual(kept, edited, 'the last valid result stays on screen');
    assert.equal(await byTestId(page, 's2-status').textContent(), '', 'no engine error');
    // Fixing the cell clears the message.
    await cell.fill('0');
    await cell.press('Tab');
    const back = await waitChange(() => heatmapValues(page, 's2-weights'), edited);
    assert.deepEqual(back, initial);
    assert.equal(await text(page, 's2-x-msg'), '');
    assertNoIssues(page);
    await page.close();
  });

  test('a URL with state restores it (s2 matrix + causal)', T, async () => {
    // x of "sat" = [2, 1, 1] instead of [0, 1, 1], causal on.
    const q = '?s2.causal=1&s2.x=4x3_1_0_0_0_1_0_2_1_1_0_0_1#s2';
    const page = await openLesson(b, 'fa', q);
    assert.equal(await byTestId(page, 's2-causal').isChecked(), true, 'causal checkbox restored');
    const v = await byTestId(page, 's2-x-r2c0').inputValue();
    assert.equal(parseVisibleNumber(v), 2, `edited cell restored (shows ${v})`);
    const shown = await heatmapValues(page, 's2-weights');
    const ref = await page.evaluate(async () => {
      const { loadEngine } = await import('/js/engine.mjs');
      const { DEFAULT, computeExample } = await import('/js/lesson/worked-example.mjs');
      const x = { rows: 4, cols: 3, data: Float32Array.from([1, 0, 0, 0, 1, 0, 2, 1, 1, 0, 0, 1]) };
      const r = await computeExample(await loadEngine(), { ...DEFAULT, x, causal: true });
      return Array.from(r.weights.data);
    });
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
      assert.ok(Math.abs(shown[i][j] - ref[i * 4 + j]) <= 0.005 + 1e-9, `weights[${i}][${j}] ${shown[i][j]} vs ${ref[i * 4 + j]}`);
    }
    assertNoIssues(page);
    await page.close();
  });

  test('the Latin-digits setting switches digits (and back)', T, async () => {
    const page = await openLesson(b, 'fa');
    try {
      await latinDigits(page);
    } finally {
      // Never leave the setting on for the other tests of this file.
      await page.evaluate(() => localStorage.clear()).catch(() => {});
      await page.close();
    }
  });

  async function latinDigits(page) {
    assert.equal(await text(page, 's2-sat-score'), '۲٫۱۲');
    // The digits switch in place, without a reload (digits.test.mjs checks every text and
    // that no navigation happens); <html> carries the class once they have.
    await byTestId(page, 'latin-digits').click();
    await page.waitForFunction(() => document.documentElement.classList.contains('latin-digits'));
    await waitLesson(page);
    const latin = await text(page, 's2-sat-score');
    assert.match(latin, /^2[.٫]12$/, `Latin digits: ${latin}`);
    assert.equal(await byTestId(page, 'latin-digits').isChecked(), true);
    const cells = (await heatmapTexts(page, 's2-weights')).flat().join(' ');
    assert.ok(digitScript(cells).latin && !digitScript(cells).persian, `table in Latin digits: ${cells}`);
    // Survives a reload and applies to the other edition too.
    const ar = await openLesson(b, 'ar');
    assert.match(await text(ar, 's2-sat-score'), /^2[.٫]12$/);
    await ar.close();
    await byTestId(page, 'latin-digits').click();
    await page.waitForFunction(() => !document.documentElement.classList.contains('latin-digits'));
    await waitLesson(page);
    assert.equal(await text(page, 's2-sat-score'), '۲٫۱۲');
    assertNoIssues(page);
  }

  test('the language switch keeps the place (query and section)', T, async () => {
    const page = await openLesson(b, 'fa', '?s2.causal=1#s6');
    const sw = byTestId(page, 'lang-switch');
    await Promise.all([page.waitForURL(/\/ar\//), sw.click()]);
    await waitLesson(page);
    const u = new URL(page.url());
    assert.match(u.pathname, /^\/ar\/(index\.html)?$/);
    assert.equal(u.searchParams.get('s2.causal'), '1', `query kept: ${u.search}`);
    assert.equal(u.hash, '#s6', 'section kept');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ar');
    assert.equal(await byTestId(page, 's2-causal').isChecked(), true, 'state applied in the other edition');
    const top = await page.locator('#s6').evaluate((el) => el.getBoundingClientRect().top);
    const vh = await page.evaluate(() => innerHeight);
    assert.ok(top > -vh && top < vh * 0.5, `section 6 is on screen after the switch (top ${top})`);
    assertNoIssues(page);
    await page.close();
  });
});

describe('lesson experiments (fa)', () => {
  // Section 4's numbers recomputed with engine.mjs in the page, exactly as the
  // section documents it: Q, K = randomNormal(seed, 2n × d_k) split in halves.
  async function s4Reference(page, { n, dk, seed, scale }) {
    return page.evaluate(async ({ n, dk, seed, scale }) => {
      const { loadEngine } = await import('/js/engine.mjs');
      const e = await loadEngine();
      const m = e.randomNormal({ seed, rows: 2 * n, cols: dk });
      const q = { rows: n, cols: dk, data: m.data.slice(0, n * dk) };
      const k = { rows: n, cols: dk, data: m.data.slice(n * dk) };
      const s = scale === 'off' ? null : scale === 'dk' ? 1 / dk : undefined;
      const args = { q, k, v: { rows: n, cols: 1, data: new Float32Array(n) }, returnWeights: true };
      if (s !== undefined) args.scale = s;
      const r = e.attention(args);
      const st = e.rowStats(r.weights);
      const ent = Array.from(st.entropy);
      return {
        weights: Array.from(r.weights.data),
        maxW: Math.max(...st.maxWeight),
        meanH: ent.reduce((a, x) => a + x, 0) / ent.length,
      };
    }, { n, dk, seed, scale });
  }

  const s4Read = async (page) => ({
    heat: await heatmapValues(page, 's4-heatmap'),
    max: await text(page, 's4-max-weight'),
    entropy: await text(page, 's4-entropy'),
  });

  function checkS4(shown, ref, n, label) {
    assert.equal(shown.heat.length, n, `${label}: heatmap has n rows`);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      assert.ok(Math.abs(shown.heat[i][j] - ref.weights[i * n + j]) <= 0.005 + 1e-9,
        `${label}: heatmap[${i}][${j}] ${shown.heat[i][j]} vs engine ${ref.weights[i * n + j]}`);
    }
    const maxShown = parseVisibleNumber(shown.max);
    assert.ok(Math.abs(maxShown - ref.maxW) <= 5e-6, `${label}: max weight shows ${shown.max}, engine ${ref.maxW}`);
    const hShown = parseVisibleNumber(shown.entropy);
    assert.ok(Math.abs(hShown - ref.meanH) <= 5e-4, `${label}: entropy shows ${shown.entropy}, engine ${ref.meanH}`);
  }

  // s4 announces the maximum weight it shows (s4-max-weight data-value): wait for the engine's
  // value for these settings, not for the page to look still
  const waitS4 = (page, ref) => page.waitForFunction((want) =>
    Math.abs(Number(document.querySelector('[data-testid="s4-max-weight"]')?.dataset.value) - want) <= 5e-6, ref.maxW);

  // One s4 journey: the state restored from a URL, then the slider moved by keyboard; both
  // times the page shows the engine's numbers. (How they move with d_k and the scale, for every
  // setting: tests/node/s4-compute.test.mjs.)
  test('s4: a URL with d_k, seed and scale restores them; the d_k slider recomputes (engine values)', T, async () => {
    const page = await openLesson(b, 'fa', '?s4.dk=16&s4.seed=7&s4.scale=sqrt&s4.n=6#s4');
    const slider = byTestId(page, 's4-dk');
    const out = await slider.evaluate((i) => document.querySelector(`output[for="${i.id}"]`)?.textContent);
    assert.equal(normaliseText(out), '۱۶', `slider shows d_k ${out}`);
    assert.equal(parseVisibleNumber(await byTestId(page, 's4-seed').inputValue()), 7);
    assert.equal(parseVisibleNumber(await byTestId(page, 's4-n').inputValue()), 6);
    assert.equal(await byTestId(page, 's4-scale-sqrt').isChecked(), true);
    const ref16 = await s4Reference(page, { n: 6, dk: 16, seed: 7, scale: 'sqrt' });
    await waitS4(page, ref16);
    const before = await s4Read(page);
    checkS4(before, ref16, 6, 'restored');
    assert.match(before.max, DIGITS.fa.re, 'stats in Persian digits');
    await slider.focus();
    await page.keyboard.press('Home');          // d_k = 1, the smallest value
    const ref1 = await s4Reference(page, { n: 6, dk: 1, seed: 7, scale: 'sqrt' });
    await waitS4(page, ref1);
    const after = await s4Read(page);
    assert.notDeepEqual(after.heat, before.heat, 'heatmap changed');
    assert.equal(await slider.inputValue(), '0');
    await waitForUrl(page, /[?&]s4\.dk=1(&|#|$)/, 'd_k is in the URL');
    assert.match(page.url(), /[?&]s4\.seed=7\b/, 'the seed stays in the URL');
    checkS4(after, ref1, 6, 'd_k 1');
    assertNoIssues(page);
    await page.close();
  });

  test('s6: the causal toggle zeroes the upper triangle (data table); equal-scores rows are numbered from 1', T, async () => {
    const page = await openLesson(b, 'fa', '#s6');
    const cb = byTestId(page, 's6-causal');
    // the section announces which rule its numbers are for (s6-upper data-causal)
    const drawn = (on) => page.waitForFunction((on) => document.querySelector('[data-testid="s6-upper"]')?.dataset.causal === String(on), on);
    if (!(await cb.isChecked())) await cb.check();
    await drawn(true);
    const on = await heatmapValues(page, 's6-random');
    // s6.eq.p promises rows counted from 1 («row i shares its weight among i keys, 1/i each»):
    // the live list under it numbers its rows the same way
    const texts = (await byTestId(page, 's6-equal-rows').locator('li').allTextContents()).map((t) => toLatin(t));
    assert.ok(texts.length >= 2);
    texts.forEach((t, i) => assert.deepEqual(t.match(/\d+/g).map(Number).slice(0, 2), [i + 1, i + 1], `row ${i + 1}: «${t}»`));
    const upper = (m) => m.flatMap((r, i) => r.filter((_, j) => j > i));
    assert.ok(on.length >= 2);
    assert.ok(upper(on).every((x) => x === 0), `upper triangle with the mask: ${JSON.stringify(on)}`);
    await cb.uncheck();
    await drawn(false);
    const off = await heatmapValues(page, 's6-random');
    assert.ok(upper(off).some((x) => x > 0), 'without the mask the upper triangle has weight');
    await cb.check();
    await drawn(true);
    const again = await heatmapValues(page, 's6-random');
    assert.deepEqual(again, on);
    assertNoIssues(page);
    await page.close();
  });

  // the tile walk-through counts tiles and keys from 1, like the prose and practice.try.e5
  test('s8: the step-through reads tile 1 (keys 1 to 3) first and ends equal to the materialized result', T, async () => {
    const page = await openLesson(b, 'fa', '?s8.block=3&s8.keys=8#s8');
    const step = byTestId(page, 's8-step');
    await step.waitFor();
    const steps = Number(await step.getAttribute('data-steps'));
    assert.ok(steps >= 3, `a trace with tiles (${steps} steps)`);
    assert.equal(await step.getAttribute('data-step'), '0');
    assert.equal(await byTestId(page, 's8-final').isVisible(), false, 'no result before the end');
    for (let s = 1; s < steps; s++) {
      await byTestId(page, 's8-next').click();
      await page.waitForFunction(([el, s]) => el.dataset.step === String(s), [await step.elementHandle(), s]);
      if (s === 1) {
        const first = toLatin(await byTestId(page, 's8-explain').locator('p').first().textContent());
        assert.deepEqual(first.match(/\d+/g).slice(0, 3).map(Number), [1, 1, 3], first);
        const labels = toLatin((await byTestId(page, 's8-scores').locator('.k').allTextContents()).join(' '));
        assert.equal(labels, '1 2 3 4 5 6 7 8');
      }
      if (s < steps - 1) {
        const rows = await byTestId(page, 's8-trace-table').locator('tbody tr').count();
        assert.equal(rows, s, `the trace table grows one tile per step (step ${s})`);
      }
    }
    assert.equal(await byTestId(page, 's8-next').isDisabled(), true, 'the last step is the end');
    const final = byTestId(page, 's8-final');
    assert.equal(await final.isVisible(), true);
    const diffText = await text(page, 's8-maxdiff');
    const shownDiff = parseVisibleNumber(diffText);
    assert.ok(Number.isFinite(shownDiff), `a number in «${diffText}»`);
    assert.match(diffText, DIGITS.fa.re, 'in Persian digits');
    assert.ok(Math.abs(shownDiff) <= 1e-6, `max diff shown: ${diffText}`);
    const dataDiff = Number(await byTestId(page, 's8-maxdiff').getAttribute('data-diff'));
    assert.ok(dataDiff <= 1e-6, `data-diff ${dataDiff}`);
    // The two vectors shown (online result, materialized row) agree with each
    // other and with the engine's materialized attention on the same inputs
    // (s8-chunked.mjs: q = randomNormal(seed, 1×4), k = (seed+1, keys×4), v = (seed+2, keys×3)).
    const vecs = await final.locator('.vec').allTextContents();
    assert.equal(vecs.length, 2, 'online and materialized vectors shown');
    const parseVec = (s) => s.replace(/[()\u200e\u200f\u2066-\u2069]/g, '').split(/[,،]\s*/).map(parseVisibleNumber);
    const [online, mat] = vecs.map(parseVec);
    const ref = await page.evaluate(async () => {
      const { loadEngine } = await import('/js/engine.mjs');
      const e = await loadEngine();
      const seed = 7, keys = 8;
      const q = e.randomNormal({ seed, rows: 1, cols: 4 });
      const k = e.randomNormal({ seed: seed + 1, rows: keys, cols: 4 });
      const v = e.randomNormal({ seed: seed + 2, rows: keys, cols: 3 });
      return Array.from(e.attention({ q, k, v, variant: 'materialized' }).out.data);
    });
    assert.equal(online.length, ref.length);
    for (let i = 0; i < ref.length; i++) {
      assert.ok(Math.abs(online[i] - mat[i]) <= 1e-9, `component ${i}: online ${online[i]} vs materialized ${mat[i]}`);
      assert.ok(Math.abs(mat[i] - ref[i]) <= 0.0005 + 1e-9, `component ${i}: shown ${mat[i]} vs engine ${ref[i]}`);
    }
    assertNoIssues(page);
    await page.close();
  });
});

describe('no CSP violation, no request to another origin', () => {
  for (const p of ['/index.html', '/fa/index.html', '/ar/index.html', '/fa/practice.html', '/ar/practice.html']) {
    test(`page ${p}`, T, async () => {
      const page = await newPage(b);
      const resp = await page.goto(url(p), { waitUntil: 'load' });
      assert.equal(resp.status(), 200, `${p} is served`);
      await page.waitForLoadState('networkidle');
      await page.waitForFunction(() => {
        const d = document.documentElement.dataset;
        if (d.lesson !== undefined || d.practice !== undefined) return d.firstScreen === 'ready' || d.lesson === 'error' || d.practice === 'error';
        return !['loading'].includes(d.ready ?? 'done');
      }, null, { timeout: 20000 }).catch(() => {});
      // Every lazily started part built (what printing does: mountAll) and settled, then
      // nothing left on the network: the work a reader scrolling through would start has run.
      const kind = await page.evaluate(() => ('lesson' in document.documentElement.dataset ? 'lesson'
        : 'practice' in document.documentElement.dataset ? 'practice' : null));
      if (kind) await waitPage(page, kind, 60000);
      await page.waitForLoadState('networkidle');
      const i = page.issues();
      assert.deepEqual(i.cspViolations, [], 'securitypolicyviolation events');
      assert.deepEqual(i.cspMessages, [], 'console messages about the Content Security Policy');
      assert.deepEqual(i.foreignRequests, [], 'requests to another origin');
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.match(meta || '', /script-src 'self' 'wasm-unsafe-eval'/, 'the page carries the CSP meta tag');
      await page.close();
    });
  }
});
