#!/usr/bin/env node
// The long-context demo, end to end, through the real lesson UI (section 8,
// "at scale"): n = 131,072, one head, d = 64, causal, chunked, in headless
// Chromium. It starts build-scripts/serve.mjs on a free port (SITE_DIR selects
// the site copy; default build/site), opens the Persian lesson, picks n, clicks
// Run, checks that the materialized path was refused up front with the page's
// message (the n×n matrix's size, 64 GiB at 131,072), waits for the chunked run
// (timeout 20 min), and prints a JSON summary (also written to --json FILE):
//   {n, d, causal, workers, ms, gflops, scratchBytesPerWorker, refusedMessage,
//    materialized: {state, needBytes, budgetBytes}, checksum, maxAbsDiffVsReference,
//    peakHeap: {wasmBytesPerWorker, mainJsHeapBytes}, hardwareConcurrency, wallMs, site}
// Options: --n N (default 131072), --lang <a code of web/js/i18n/languages.mjs> (default: the first), --no-causal, --json FILE,
//   --timeout-min M (default 20), --keep-open (debug: do not close the browser on failure).
// Exit code 0 when the run finished, 1 otherwise.
import { writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { defaultLanguage, languageCodes } from '../../web/js/i18n/languages.mjs';
import { spawnServe } from '../../build-scripts/static-server.mjs';
import { localizeDigits } from '../../web/js/i18n/numerals.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITE = path.resolve(process.env.SITE_DIR || path.join(REPO, 'build', 'site'));
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function parseArgs(argv) {
  const o = { n: 131072, lang: defaultLanguage(), causal: true, json: null, timeoutMin: 20 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--n') o.n = Number(argv[++i]);
    else if (a === '--lang') o.lang = argv[++i];
    else if (a === '--no-causal') o.causal = false;
    else if (a === '--json') o.json = argv[++i];
    else if (a === '--timeout-min') o.timeoutMin = Number(argv[++i]);
    else if (a === '--help' || a === '-h') { console.log(`usage: node engine/bench/long-context.mjs [--n 131072] [--lang ${languageCodes().join('|')}] [--no-causal] [--json FILE] [--timeout-min 20]`); process.exit(0); }
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const log = (...a) => console.error('[long-context]', ...a);

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(SITE, opt.lang, 'index.html'))) throw new Error(`${SITE}/${opt.lang}/index.html is missing: build the site first`);
  const server = await spawnServe({ site: SITE });
  const base = server.url;
  let browser = null;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    const q = `?s8.bigN=${opt.n}&s8.bigCausal=${opt.causal ? 1 : 0}#s8`;
    await page.goto(`${base}/${opt.lang}/index.html${q}`, { waitUntil: 'load' });
    await page.waitForFunction(() => {
      const d = document.documentElement.dataset;
      return (d.firstScreen || d.lesson === 'error') && d.engine && d.engine !== 'loading';
    }, null, { timeout: 60000 });
    const s8 = await page.evaluate(() => document.getElementById('s8')?.dataset.state);
    if (s8 !== 'ready') throw new Error(`section 8 is ${s8}`);
    const by = (id) => page.locator(`[data-testid="${id}"]`);
    // the UI path: pick n and the mask as a learner would, then press Run
    await by('s8-big-n').selectOption(String(opt.n));
    if ((await by('s8-big-causal').isChecked()) !== opt.causal) await by('s8-big-causal').click();
    const hc = await page.evaluate(() => navigator.hardwareConcurrency);
    log(`site ${SITE}, ${opt.lang}, n = ${opt.n}, causal = ${opt.causal}, hardwareConcurrency = ${hc}`);
    const t0 = Date.now();
    await by('s8-run').click();

    // 1. the materialized path answers first
    await page.waitForFunction(() => {
      const s = document.querySelector('[data-testid="s8-mat-status"]')?.dataset.state;
      return s && s !== 'running';
    }, null, { timeout: 120000, polling: 200 });
    // its visible text: KaTeX's MathML copy of each formula left out
    const mat = await by('s8-mat-status').evaluate((el) => {
      const c = el.cloneNode(true);
      for (const m of c.querySelectorAll('.katex-mathml')) m.remove();
      return { ...el.dataset, text: c.textContent.replace(/\s+/g, ' ').trim() };
    });
    log(`materialized: ${mat.state} after ${Date.now() - t0} ms: ${mat.text}`);

    // 2. the chunked run, with progress
    let lastLog = 0;
    const deadline = Date.now() + opt.timeoutMin * 60000;
    let state = '';
    let peakJs = 0;
    for (;;) {
      const s = await page.evaluate(() => {
        const el = document.querySelector('[data-testid="s8-chunk-status"]');
        const p = document.querySelector('[data-testid="s8-progress"]');
        return { state: el.dataset.state, text: el.textContent.trim(), progress: p ? Number(p.value) : 0,
          eta: document.querySelector('[data-testid="s8-eta"]')?.textContent.trim() || '',
          js: performance.memory ? performance.memory.usedJSHeapSize : 0 };
      });
      state = s.state;
      peakJs = Math.max(peakJs, s.js || 0);
      if (!['waiting', 'running'].includes(state)) break;
      if (Date.now() - lastLog > 15000) { log(`${Math.round((Date.now() - t0) / 1000)} s: ${(s.progress * 100).toFixed(0)} %, ${s.eta}`); lastLog = Date.now(); }
      if (Date.now() > deadline) throw new Error(`the chunked run did not finish within ${opt.timeoutMin} min (state ${state}, ${(s.progress * 100).toFixed(0)} %)`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const wallMs = Date.now() - t0;
    const chunk = await by('s8-chunk-status').evaluate((el) => ({ ...el.dataset, text: el.textContent.trim() }));
    if (state !== 'done') throw new Error(`the chunked run ended in state ${state}: ${chunk.text}`);
    const num = (x) => (x === undefined ? null : Number(x));
    const result = {
      n: num(chunk.n), d: num(chunk.d), causal: chunk.causal === 'true',
      workers: num(chunk.workers), ms: num(chunk.ms), gflops: num(chunk.gflops),
      scratchBytesPerWorker: num(chunk.scratch),
      refusedMessage: mat.state === 'refused' ? mat.text : null,
      materialized: { state: mat.state, needBytes: num(mat.need), budgetBytes: num(mat.budget), ms: num(mat.ms) },
      checksum: num(chunk.checksum), maxAbsDiffVsReference: num(chunk.maxdiff),
      // wasm heap: the largest of the workers' (engine.info().heapBytes); each worker also holds its own
      // Q, K, V as JS arrays (inputsBytesPerWorker); main thread: performance.memory, sampled each second
      peakHeap: { wasmBytesPerWorker: num(chunk.heap), inputsBytesPerWorker: 3 * num(chunk.n) * num(chunk.d) * 4,
        mainJsHeapBytes: peakJs || null },
      note: 'ms and gflops: the chunked attention only (Q, K, V were drawn in the workers before, while the materialized path was asked)',
      hardwareConcurrency: hc, wallMs, lang: opt.lang, site: SITE,
      pageProblems: problems,
    };
    const expectRefusal = opt.n >= 32768;
    if (expectRefusal && mat.state !== 'refused') throw new Error(`the materialized path was not refused at n = ${opt.n} (state ${mat.state})`);
    if (mat.state === 'refused') {
      // the page's own message must give the n×n matrix's size: 64 GiB at 131,072
      const gib = await page.evaluate((need) => need / 2 ** 30, Number(mat.need));
      result.refusedNeedGiB = gib;
      const local = localizeDigits(String(gib), { lang: opt.lang });
      result.refusedMessageShowsNeed = mat.text.includes(local) || mat.text.includes(String(gib));
      if (!result.refusedMessageShowsNeed) throw new Error(`the refusal message does not show ${gib} GiB: ${mat.text}`);
    }
    const json = JSON.stringify(result, null, 2);
    console.log(json);
    if (opt.json) writeFileSync(opt.json, json + '\n');
    return 0;
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.stop();
  }
}

main().then((code) => process.exit(code), (e) => { console.error(`[long-context] failed: ${e.message}`); process.exit(1); });
