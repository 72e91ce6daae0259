// Chapter 10 (`heads`) as a reader uses it, both editions:
// - URL state (heads.hkv, heads.seed, an edited matrix) restores on reload, and what the page
//   shows (the final rows, the GQA difference, the drawing of H_kv key/value heads) equals a
//   recomputation in the page with window.__lesson.engine;
// - refused input (seed empty / not a number / out of range, a letter in a matrix cell)
//   is answered in the page's language and the page keeps working;
// - axe clean on the section; no sideways scroll at 360 px.
// The numbers (each head, concat·W_O, GQA for every H_kv, the divisor table, the parameter
// counts) are checked against the engine in Node: tests/node/heads-compute.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, url, byTestId, assertNoIssues, axeViolations, formatAxe, parseVisibleNumber, readTable } from './helpers.mjs';
import { heatmapValues } from './lesson-helpers.mjs';

const T = { timeout: 120000 };
let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

// Open the lesson at the chapter (the hash mounts it first) and wait for it and the engine.
async function openHeads(lang, query = '', viewport) {
  const page = await newPage(b, { viewport });
  page.setDefaultTimeout(60000);
  await page.goto(url(`/${lang}/index.html${query}#heads`), { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#heads')?.dataset.state === 'ready' &&
    document.documentElement.dataset.engine === 'ready' && document.querySelector('[data-testid="heads-gqa-live"]')?.dataset.hkv);
  return page;
}
const text = (page, id) => byTestId(page, id).evaluate((el) => el.textContent.replace(/\s+/g, ' ').trim());
const tableOf = (page, id) => readTable(byTestId(page, id));
// The rendered text of a key in this page's language (markup and formulas as the page shows them).
const keyText = (page, key, params) => page.evaluate(([key, params]) => {
  const span = document.createElement('span');
  span.append(window.__lesson.ctx('heads').tNode(key, params));
  for (const m of span.querySelectorAll('.katex-mathml')) m.remove();
  return span.textContent.replace(/\s+/g, ' ').trim();
}, [key, params]);
const visible = (page, id) => byTestId(page, id).evaluate((el) => {
  const c = el.cloneNode(true);
  for (const m of c.querySelectorAll('.katex-mathml')) m.remove();
  return c.textContent.replace(/\s+/g, ' ').trim();
});

// Everything the worked example shows, recomputed in the page from the editors' values.
const recomputeExample = (page) => page.evaluate(async () => {
  const e = window.__lesson.engine;
  const read = (id) => {
    const cells = [...document.querySelectorAll(`[data-testid^="${id}-r"]`)].filter((c) => /-r\d+c\d+$/.test(c.dataset.testid));
    const rows = 1 + Math.max(...cells.map((c) => Number(c.dataset.testid.match(/-r(\d+)c/)[1])));
    const cols = cells.length / rows;
    const parse = (s) => Number(s.replace(/[۰-۹]/g, (d) => '۰۱۲۳۴۵۶۷۸۹'.indexOf(d)).replace(/[٠-٩]/g, (d) => '٠١٢٣٤٥٦٧٨٩'.indexOf(d)).replace(/[٫,]/g, '.').replace('−', '-'));
    const data = new Float64Array(rows * cols);
    for (const c of cells) { const [, i, j] = c.dataset.testid.match(/-r(\d+)c(\d+)$/).map(Number); data[i * cols + j] = parse(c.value); }
    return { rows, cols, data };
  };
  const mul = (a, b) => {
    const out = new Float32Array(a.rows * b.cols);
    for (let i = 0; i < a.rows; i++) for (let j = 0; j < b.cols; j++) {
      let s = 0; for (let c = 0; c < a.cols; c++) s += a.data[i * a.cols + c] * b.data[c * b.cols + j];
      out[i * b.cols + j] = s;
    }
    return { rows: a.rows, cols: b.cols, data: out };
  };
  const { x } = (await import('/js/lesson/worked-example.mjs')).DEFAULT;   // the/cat/sat/down, as chapter 2
  const heads = [];
  for (const hd of [1, 2]) {
    const r = await e.attention({ q: mul(x, read(`heads-wq${hd}`)), k: mul(x, read(`heads-wk${hd}`)), v: mul(x, read(`heads-wv${hd}`)), returnWeights: true });
    heads.push({ weights: Array.from(r.weights.data), out: r.out });
  }
  const dv = heads[0].out.cols;
  const concat = { rows: 4, cols: 2 * dv, data: new Float64Array(8 * dv) };
  for (let i = 0; i < 4; i++) for (let c = 0; c < 2 * dv; c++)
    concat.data[i * 2 * dv + c] = c < dv ? heads[0].out.data[i * dv + c] : heads[1].out.data[i * dv + c - dv];
  const final = mul(concat, read('heads-wo'));
  return { heads: heads.map((h) => ({ weights: h.weights, out: Array.from(h.out.data) })), concat: Array.from(concat.data), final: Array.from(final.data) };
});

// GQA for one H_kv, recomputed in the page: K/V heads of each group averaged here (JS), the
// attention by the engine; n = 12, H_q = 8, d_k = 8, causal, q/k/v from seeds seed, seed+1, seed+2.
const recomputeGqa = (page, hkv, seed) => page.evaluate(async ([hkv, seed]) => {
  const e = window.__lesson.engine, n = 12, hq = 8, dk = 8, G = hq / hkv;
  const [q, k, v] = await Promise.all([0, 1, 2].map((i) => e.randomNormal({ seed: seed + i, rows: hq * n, cols: dk })));
  const pool = (m) => {
    const data = new Float32Array(hkv * n * dk);
    for (let g = 0; g < hkv; g++) for (let t = 0; t < n; t++) for (let c = 0; c < dk; c++) {
      let s = 0; for (let h = g * G; h < (g + 1) * G; h++) s += m.data[(h * n + t) * dk + c];
      data[(g * n + t) * dk + c] = s / G;
    }
    return { rows: hkv * n, cols: dk, data };
  };
  const mha = (await e.multiheadAttention({ q, k, v, headsQ: hq, headsKv: hq, causal: true })).out.data;
  const gqa = (await e.multiheadAttention({ q, k: pool(k), v: pool(v), headsQ: hq, headsKv: hkv, causal: true })).out.data;
  let max = 0, num = 0, den = 0;
  for (let i = 0; i < mha.length; i++) { const d = mha[i] - gqa[i]; max = Math.max(max, Math.abs(d)); num += d * d; den += mha[i] * mha[i]; }
  const bytesSeq = await e.kvBytesRead({ headsQ: hq, headsKv: hkv, S: n, dk, dv: dk });
  const bytesToken = await e.kvBytesRead({ headsQ: hq, headsKv: hkv, S: 1, dk, dv: dk });
  return { max, rel: Math.sqrt(num / den), bytesSeq, bytesToken };
}, [hkv, seed]);

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a}, engine ${b}`);

for (const lang of ['fa', 'ar']) {
  const DIG = lang === 'fa' ? /[۰-۹]/ : /[٠-٩]/;

  // the URL-restore journey once (fa); every number it shows, per H_kv and seed: heads-compute.test.mjs
  if (lang === 'fa') test(`${lang}: URL state (H_kv, seed, an edited matrix) restores on reload`, T, async () => {
    const page = await openHeads(lang, '?heads.hkv=1&heads.seed=7');
    assert.equal(await byTestId(page, 'heads-hkv').inputValue(), '1');
    assert.equal(parseVisibleNumber(await byTestId(page, 'heads-seed').inputValue()), 7);
    const ref = await recomputeGqa(page, 1, 7);
    close(Number(await byTestId(page, 'heads-gqa-live').getAttribute('data-max-abs')), ref.max, 1e-4, 'restored seed and H_kv');
    // change both, and one cell of head 2's W_Q
    await byTestId(page, 'heads-hkv').selectOption('4');
    const seed = byTestId(page, 'heads-seed');
    await seed.fill(lang === 'fa' ? '۱۲' : '١٢');
    await seed.press('Enter');
    const cell = byTestId(page, 'heads-wq2-r2c0');
    await cell.fill('3');
    await cell.press('Tab');
    await page.waitForFunction(() => /heads\.seed=12/.test(location.search) && /heads\.hkv=4/.test(location.search) && /heads\.wq2=/.test(location.search));
    const before = await recomputeExample(page);
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('#heads')?.dataset.state === 'ready' && document.querySelector('[data-testid="heads-gqa-live"]')?.dataset.hkv);
    assert.equal(await byTestId(page, 'heads-hkv').inputValue(), '4');
    assert.equal(parseVisibleNumber(await byTestId(page, 'heads-seed').inputValue()), 12);
    assert.equal(parseVisibleNumber(await byTestId(page, 'heads-wq2-r2c0').inputValue()), 3);
    const after = await recomputeExample(page);
    assert.deepEqual(after, before);
    const f = (await tableOf(page, 'heads-final')).flat();
    after.final.forEach((x, i) => close(f[i], x, 0.006, `final ${i} after reload`));
    // every number of the output tables with two decimals («۱٫۰۰» beside «۰٫۷۸»; walkthrough fa #15)
    for (const id of ['heads-out1', 'heads-out2', 'heads-concat', 'heads-final']) {
      const cells = await byTestId(page, id).locator('td').allTextContents();
      assert.ok(cells.length >= 8, `${id}: ${cells.length} cells`);
      for (const c of cells) assert.match(c.trim(), /^\u200e?-?[0-9۰-۹٠-٩]+[٫.][0-9۰-۹٠-٩]{2}$/, `${id}: «${c}»`);
    }
    close(Number(await byTestId(page, 'heads-gqa-live').getAttribute('data-max-abs')), (await recomputeGqa(page, 4, 12)).max, 1e-4, 'after reload');
    // the drawing: H_kv key/value heads beside the 8 query heads; the sentence in the page's digits
    assert.equal(await byTestId(page, 'heads-groups').getAttribute('data-hkv'), '4');
    assert.equal(await byTestId(page, 'heads-groups').evaluate((s) => s.querySelectorAll('rect').length), 8 + 4);
    assert.match(await text(page, 'heads-gqa-live'), DIG);
    // a URL value that is not a divisor falls back to the default, the page still works
    await page.goto(url(`/${lang}/index.html?heads.hkv=3&heads.seed=abc#heads`), { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('[data-testid="heads-gqa-live"]')?.dataset.hkv === '2');
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: refused input gets a message in the page's language; the page keeps working`, T, async () => {
    const page = await openHeads(lang);
    const live = byTestId(page, 'heads-gqa-live');
    const before = await live.getAttribute('data-max-abs');
    const seed = byTestId(page, 'heads-seed');
    for (const [typed, key] of [['abc', 'err.number.invalid'], ['', 'err.number.empty'], ['2.5', 'err.number.integer'], ['5000000000', 'heads.err.seed']]) {
      await seed.fill(typed);
      await seed.press('Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="heads-seed-error"]')?.textContent.trim().length > 0);
      assert.equal(await visible(page, 'heads-seed-error'), await keyText(page, key, { min: 0, max: 1e9 }), `${JSON.stringify(typed)}: ${key}`);
      assert.match(await text(page, 'heads-seed-error'), /[\u0600-\u06FF]/);
      assert.equal(await seed.getAttribute('aria-invalid'), 'true');
      assert.equal(await live.getAttribute('data-max-abs'), before, 'the last result stays');
      await seed.fill('');
    }
    // a letter in a matrix cell: a message, the last result kept
    const finalBefore = await tableOf(page, 'heads-final');
    const cell = byTestId(page, 'heads-wo-r0c0');
    await cell.fill('x');
    await cell.press('Tab');
    await page.waitForFunction(() => document.querySelector('[data-testid="heads-wo-msg"]')?.textContent.trim().length > 0);
    assert.match(await text(page, 'heads-wo-msg'), /[\u0600-\u06FF]/);
    assert.deepEqual(await tableOf(page, 'heads-final'), finalBefore);
    // valid input again: the page answers
    await seed.fill('3');
    await seed.press('Enter');
    await page.waitForFunction(() => /heads\.seed=3/.test(location.search));
    await page.waitForFunction((b) => document.querySelector('[data-testid="heads-gqa-live"]').dataset.maxAbs !== b, before);
    close(Number(await live.getAttribute('data-max-abs')), (await recomputeGqa(page, 2, 3)).max, 1e-4, 'seed 3');
    assert.equal(await text(page, 'heads-seed-error'), '');
    assert.equal(await text(page, 'heads-status'), '');
    assertNoIssues(page);
    await page.close();
  });

  test(`${lang}: axe clean on the section; no sideways scroll at 360 px`, T, async () => {
    const page = await openHeads(lang, '', { width: 360, height: 780 });
    for (const d of await page.locator('#heads details').all()) await d.evaluate((el) => { el.open = true; });
    await page.waitForFunction(() => [...document.querySelectorAll('#heads details table')].length >= 2);
    const v = await axeViolations(page, { include: '#heads' });
    assert.equal(v.length, 0, `axe on #heads (${lang}):\n${formatAxe(v)}`);
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 0, `the page scrolls sideways by ${over} px`);
    // nothing inside the section sticks out of it (a wide table scrolls in its own box)
    const wide = await page.evaluate(() => {
      const sec = document.querySelector('#heads').getBoundingClientRect();
      return [...document.querySelectorAll('#heads *')].filter((el) => {
        // KaTeX's own struts overhang by design, and so does a citation link's thumb-sized padding
        if (el.closest('.table-scroll, .ltr-scroll, .heatmap, .katex, sup.cite')) return false;
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.right > sec.right + 1 || r.left < sec.left - 1);
      }).map((el) => `${el.tagName}.${el.className}`).slice(0, 5);
    });
    assert.deepEqual(wide, []);
    assertNoIssues(page);
    await page.close();
  });
}
