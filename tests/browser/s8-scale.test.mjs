// Section 8 "at scale" through the lesson UI (web/js/sections/s8-long-run.mjs):
// n = 131,072 offered by default; asking it, the materialized path is refused up
// front with the page's own message (64 GiB, in the page's digits); the chunked
// run starts with progress and a clock, is cancelled, and a run at n = 8192 (fa; 4096 in ar) then
// goes to the end with time, GFLOP/s, scratch per worker and rows checked against
// the engine's reference; its checksum equals one engine call in the page.
// Both languages. No timed assertions (the clock is only checked to be shown).
import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, byTestId, assertNoIssues, toLatinDigits } from './helpers.mjs';
import { openLesson, DIGITS } from './lesson-helpers.mjs';

const T = { timeout: 180000 };
let b;
test.before(async () => { b = await launch(); });
test.after(async () => { await b?.close(); });

const GIB_WORD = { fa: 'گیبی‌بایت', ar: 'غيبيبايت' };
const digits = (lang, s) => String(s).replace(/\d/g, (c) => (lang === 'fa' ? '۰۱۲۳۴۵۶۷۸۹' : '٠١٢٣٤٥٦٧٨٩')[Number(c)]);
// visible text (KaTeX's MathML copy left out); withoutMath drops formulas too (their digits are LTR maths)
const visible = (loc, { withoutMath = false } = {}) => loc.evaluate((el, withoutMath) => {
  const c = el.cloneNode(true);
  for (const m of c.querySelectorAll(withoutMath ? '.katex' : '.katex-mathml')) m.remove();
  return c.textContent.replace(/\s+/g, ' ').trim();
}, withoutMath);
const stateOf = (page, id) => byTestId(page, id).getAttribute('data-state');
async function waitState(page, id, states, timeout) {
  await page.waitForFunction(({ id, states }) => states.includes(document.querySelector(`[data-testid="${id}"]`)?.dataset.state),
    { id, states }, { timeout, polling: 200 });
  return stateOf(page, id);
}

// fa runs n = 8192 and recomputes its checksum in the page; ar, to keep the suite fast, n = 4096
for (const [lang, N] of [['fa', 8192], ['ar', 4096]]) {
  test(`${lang}: 131,072 is offered; materialized refused up front (64 GiB); cancel; then n = ${N} runs to the end`, T, async () => {
    const page = await openLesson(b, lang, '#s8');
    page.setDefaultTimeout(30000);
    const sel = byTestId(page, 's8-big-n');
    assert.equal(await sel.inputValue(), '131072', 'the long-context case is the default');
    const runText = await byTestId(page, 's8-run').textContent();
    assert.ok(runText.includes(digits(lang, '131')) && DIGITS[lang].re.test(runText) && !DIGITS[lang].other.test(runText),
      `the run button names n in ${DIGITS[lang].name} digits: ${runText}`);
    assert.equal(await byTestId(page, 's8-cancel').isDisabled(), true);

    // ---- 131,072: the materialized path answers first, with a refusal
    await byTestId(page, 's8-run').click();
    assert.equal(await waitState(page, 's8-mat-status', ['refused', 'done', 'failed'], 60000), 'refused');
    const mat = byTestId(page, 's8-mat-status');
    const need = Number(await mat.getAttribute('data-need'));
    const reference = await page.evaluate(async () => {
      const { loadEngine } = await import('/js/engine.mjs');
      return (await loadEngine()).scoreMatrixBytes({ n: 131072, bytesPerElement: 4 });
    });
    assert.equal(need, reference, 'the page asks the engine for the n×n size');
    assert.equal(need / 2 ** 30, 64);
    const msg = await visible(mat);
    assert.ok(msg.includes(`${digits(lang, '64')} ${GIB_WORD[lang]}`), `the refusal says 64 GiB in the page language: ${msg}`);
    const msgProse = await visible(mat, { withoutMath: true });
    assert.ok(!/[0-9]/.test(msgProse), `no Latin digits in ${msgProse}`);
    assert.ok(Number(await mat.getAttribute('data-budget')) < need, 'the real budget is smaller');
    // one budget on the page (walkthrough ar #6): the fold states the budget of the refusal
    const foldBudget = byTestId(page, 's8-fold-budget').locator('p[data-budget]');
    assert.equal(await foldBudget.getAttribute('data-budget'), await mat.getAttribute('data-budget'));

    // ---- the chunked run starts: progress and clock shown, then cancel
    assert.equal(await waitState(page, 's8-chunk-status', ['running'], 60000), 'running');
    assert.equal(await byTestId(page, 's8-cancel').isDisabled(), false);
    assert.equal(await byTestId(page, 's8-run').isDisabled(), true);
    await page.waitForFunction(() => document.querySelector('[data-testid="s8-elapsed"]')?.textContent.trim().length > 0);
    const elapsed = await byTestId(page, 's8-elapsed').textContent();
    assert.ok(DIGITS[lang].re.test(elapsed), `elapsed in page digits: ${elapsed}`);
    const eta = await byTestId(page, 's8-eta').textContent();
    assert.ok(eta.trim().length > 0, 'the time-left line is shown');
    await byTestId(page, 's8-cancel').click();
    assert.equal(await waitState(page, 's8-chunk-status', ['cancelled', 'done', 'failed'], 30000), 'cancelled');
    assert.equal(await byTestId(page, 's8-run').isDisabled(), false);
    assert.equal(await byTestId(page, 's8-cancel').isDisabled(), true);
    assert.equal(await stateOf(page, 's8-mat-status'), 'refused', 'the refusal stays on screen');

    // ---- n = N through the same UI path, to the end
    await sel.selectOption(String(N));
    assert.ok(page.url().includes(`s8.bigN=${N}`), 'n is kept in the URL');
    assert.ok((await byTestId(page, 's8-run').textContent()).includes(digits(lang, String(N).slice(0, 1))));
    await byTestId(page, 's8-run').click();
    assert.equal(await waitState(page, 's8-mat-status', ['refused', 'done', 'failed'], 60000), 'done',
      'N² floats (256 MiB at most) fit the budget: the materialized path runs');
    assert.equal(await waitState(page, 's8-chunk-status', ['done', 'failed', 'cancelled'], 150000), 'done');
    const chunk = byTestId(page, 's8-chunk-status');
    const data = await chunk.evaluate((el) => ({ ...el.dataset }));
    assert.equal(data.n, String(N));
    assert.equal(data.causal, 'true');
    assert.ok(Number(data.workers) >= 1);
    assert.ok(Number(data.ms) > 0 && Number(data.gflops) > 0);
    assert.ok(Number(data.scratch) > 0 && Number(data.scratch) < N * N * 4 / 100, 'scratch per worker is tiles, not n×n');  // 167 KiB at d = 64 against 64 MiB
    assert.ok(Number(data.maxdiff) <= 1e-5, `rows checked against the reference: ${data.maxdiff}`);
    // the checksum: one engine call in the page on the same seeded inputs
    const sum = await page.evaluate(async (n) => {
      const { loadEngine } = await import('/js/engine.mjs');
      const e = await loadEngine();
      const d = 64;
      const q = e.randomNormal({ seed: 1, rows: n, cols: d });
      const k = e.randomNormal({ seed: 2, rows: n, cols: d });
      const v = e.randomNormal({ seed: 3, rows: n, cols: d });
      const o = e.attention({ q, k, v, causal: true, variant: 'chunked', blockQ: 64, blockK: 64 }).out.data;
      let s = 0;
      for (let i = 0; i < o.length; i++) s += o[i];
      return s;
    }, N);
    assert.ok(Math.abs(Number(data.checksum) - sum) <= 1e-6 * Math.max(1, Math.abs(sum)), `checksum ${data.checksum} vs ${sum}`);
    const doneText = await visible(chunk);
    assert.ok(doneText.includes('GFLOP/s') && DIGITS[lang].re.test(doneText), doneText);
    const doneProse = await visible(chunk, { withoutMath: true });
    assert.ok(!/[0-9]/.test(doneProse), `no Latin digits: ${doneProse}`);
    const checks = await visible(byTestId(page, 's8-checks'));
    // shown counted from 1: the engine's rows N/2 and N-1 read as N/2+1 and N
    for (const r of [String(N / 2 + 1), String(N)]) assert.ok(toLatinDigits(checks).replace(/[٬,]/g, '').includes(r), `row ${r} is checked: ${checks}`);
    assert.equal(Number(await byTestId(page, 's8-progress').evaluate((p) => p.value)), 1);
    // the run is in the table
    const rows = await byTestId(page, 's8-big-table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset })));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].n, String(N));
    assert.equal(rows[0].refused, 'false');
    // the rest of section 8 still works
    await byTestId(page, 's8-last').click();
    assert.equal(await byTestId(page, 's8-final').isVisible(), true);
    assertNoIssues(page);
    await page.close();
  });
}
