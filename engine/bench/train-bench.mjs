// Driver of `build-scripts/bench train` (issue 23's performance rows; a measurement,
// not a test). In headless Chromium (train-bench.html / train-bench-page.mjs, served with
// COOP/COEP by server.mjs):
//   1. one core's WASM SIMD128 ceiling (module Worker);
//   2. the identical-model check and the training-speed comparison: our character model
//      (one module Worker, 1 thread) against tfjs-wasm 4.22.0 (one Worker, 1 thread) training
//      the same model from our initial weights on identical batches, one step of each per
//      round, alternating order; medians;
//   3. a fresh default model trained from random weights with the schedule of
//      web/models/<lang>.json until the held-out loss is at most the bigram's, the curve;
//   4. the forward with every attention map of 64 held-out characters (median of --forward-runs).
// With --native FILE (attn_train_bench --json), --fma FILE (attn_bench --ceiling-only --json)
// and --backward FILE (attn_backward_bench --json) it adds the native rows to the report.
// Writes build/bench/train.json (--json) and prints the table.
// Usage: node engine/bench/train-bench.mjs [--lang fa] [--rounds 15] [--site build/bench-site]
//          [--ceiling FILE] [--native FILE] [--fma FILE] [--backward FILE] [--json FILE]
//          [--every 10] [--max-seconds 180] [--forward-runs 50] [--no-curve]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startBenchServer } from './server.mjs';
import { trainFlops } from './train-data.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const { values: args } = parseArgs({
  options: {
    lang: { type: 'string', default: 'fa' },
    rounds: { type: 'string', default: '15' },
    'check-steps': { type: 'string', default: '3' },
    site: { type: 'string', default: path.join(ROOT, 'build', 'bench-site') },
    ceiling: { type: 'string', default: path.join(ROOT, 'build', 'bench-wasm', 'attn_wasm_ceiling.wasm') },
    native: { type: 'string' },
    fma: { type: 'string' },
    backward: { type: 'string' },
    json: { type: 'string', default: path.join(ROOT, 'build', 'bench', 'train.json') },
    every: { type: 'string', default: '10' },
    'max-seconds': { type: 'string', default: '180' },
    'forward-runs': { type: 'string', default: '50' },
    'no-curve': { type: 'boolean', default: false },
  },
});
const progress = (s) => process.stderr.write(`bench train: ${s}\n`);
const readJson = (f) => (f && fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

const recorded = readJson(path.join(ROOT, 'web', 'models', `${args.lang}.json`));
const rc = recorded.config, rt = recorded.training;
const config = { vocab: rc.vocab, context: rc.context, width: rc.width, layers: rc.layers, heads: rc.heads, kvHeads: rc.kv_heads, seed: rt.seed };
const training = { lrMax: rt.lr_max, lrMin: rt.lr_min, warmup: rt.warmup, totalSteps: rt.steps, clipNorm: rt.clip_norm, weightDecay: rt.weight_decay };
const batch = rt.batch;
const corpusUrl = `/models/${args.lang}.corpus.txt`;
const bigram = recorded.validation_nats_per_char.bigram_add_one;

const loadStart = load();
const { url, close } = await startBenchServer({ site: args.site, ceiling: args.ceiling });
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-train-bench-'));
const context = await chromium.launchPersistentContext(userDir, {
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const errors = [];
let out;
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`HTTP ${r.status()} ${r.url()}`); });
  page.setDefaultTimeout(0);
  await page.goto(`${url}/bench/train-bench.html`);
  await page.waitForFunction(() => window.trainBenchReady === true, null, { timeout: 30000 });
  const call = (fn, arg) => page.evaluate(([f, a]) => window.trainBench[f](a), [fn, arg]);

  progress('WASM SIMD128 ceiling (Chromium, one worker)');
  const ceiling = fs.existsSync(args.ceiling) ? await call('ceiling', { minTime: 0.3 }) : null;
  if (!ceiling) progress(`no ${args.ceiling}: no ceiling (build-scripts/bench train builds it)`);
  progress(`identical-model check and ${args.rounds} alternating rounds against tfjs-wasm (load ${load()})`);
  const cmp = await call('compare', {
    corpusUrl, config, training, batch, seed: 12345, checkSteps: Number(args['check-steps']), warmup: 2, rounds: Number(args.rounds),
  });
  const loadAfterCompare = load();
  let curve = null;
  if (!args['no-curve']) {
    progress(`training from random weights to the bigram's ${bigram.toFixed(4)} nats/char (load ${load()})`);
    curve = await call('curve', {
      corpusUrl, config, training, batch, seed: 1, every: Number(args.every), maxSteps: training.totalSteps,
      maxSeconds: Number(args['max-seconds']), target: bigram, forwardRuns: Number(args['forward-runs']),
    });
  }
  out = { lang: args.lang, config, training, batch, bigram, ceiling, compare: cmp, curve, load: { start: loadStart, afterCompare: loadAfterCompare, end: load() } };
} finally {
  await context.close();
  await close();
  fs.rmSync(userDir, { recursive: true, force: true });
}

// ------------------------------------------------------------------ report
const c = out.compare;
const flops = trainFlops(config, batch, config.context);
const tokens = c.tokensPerStep;
const tps = (ms) => tokens / (ms / 1000);
const native = readJson(args.native), fma = readJson(args.fma), backward = readJson(args.backward);
const lines = [];
const p = (s = '') => lines.push(s);
p(`Training benchmark (issue 23), ${new Date().toISOString()}, load average ${out.load.start} at the start, ${out.load.end} at the end`);
p(`model: ${JSON.stringify(config)}, batch ${batch}×${config.context}; ${flops / 1e9} GFLOP per step (README, "Training FLOPs")`);
p(`identical model: parameters ours ${c.parameterCount.ours}, tfjs ${c.parameterCount.tfjs}; held-out batch (${c.initialLoss.heldChars} chars) from identical weights: ours ${c.initialLoss.ours.toFixed(7)}, tfjs ${c.initialLoss.tfjs.toFixed(7)}, |diff| ${Math.abs(c.initialLoss.ours - c.initialLoss.tfjs).toExponential(2)}`);
p(`  ${c.check.length} identical training steps (losses ours / tfjs): ${c.check.map((x) => `${x.ours.toFixed(6)}/${x.tfjs.toFixed(6)}`).join(', ')}; held-out batch after them: ours ${c.afterCheckLoss.ours.toFixed(7)}, tfjs ${c.afterCheckLoss.tfjs.toFixed(7)}`);
p(`tfjs: ${c.tfjs.version} ${c.tfjs.backend}, ${c.tfjs.threads} thread, simd ${c.tfjs.simd}, threaded build ${c.tfjs.multithreadBuild}; ours: ${c.simd}`);
p(`WASM SIMD128 ceiling (Chromium worker, one core): ${out.ceiling ? out.ceiling.gflops.toFixed(2) + ' GFLOP/s' : 'not measured'}`);
p();
p('| engine | ms per step (median) | tokens/s | GFLOP/s | % of ceiling |');
p('|---|---|---|---|---|');
const row = (name, ms, ceil) => p(`| ${name} | ${ms.toFixed(1)} | ${tps(ms).toFixed(0)} | ${(flops / ms / 1e6).toFixed(2)} | ${ceil ? ((flops / ms / 1e6) / ceil * 100).toFixed(1) + ' %' : '–'} |`);
row('ours, wasm, 1 worker', c.medianMs.ours, out.ceiling?.gflops);
row('tfjs-wasm 4.22.0, 1 thread', c.medianMs.tfjs, out.ceiling?.gflops);
if (native) row('ours, native, 1 thread (thread CPU time)', native.stepMs, fma?.ceiling?.gflops);
p();
p(`ratio tokens/s ours / tfjs: ${(c.medianMs.tfjs / c.medianMs.ours).toFixed(2)}× (goal ≥ 3×) over ${c.ms.ours.length} rounds`);
p(`  per-round ms ours: ${c.ms.ours.map((x) => x.toFixed(0)).join(' ')}`);
p(`  per-round ms tfjs: ${c.ms.tfjs.map((x) => x.toFixed(0)).join(' ')}`);
if (fma) p(`native FMA ceiling: ${fma.ceiling.gflops.toFixed(1)} GFLOP/s (${fma.ceiling.arch ?? ''})`);
if (native) p(`native forward with all attention maps (${config.context} chars): ${native.forwardAttentionMs.toFixed(3)} ms`);
if (out.curve) {
  const k = out.curve;
  p();
  p(`from random weights (seed ${config.seed}) to the bigram's ${bigram.toFixed(4)} nats/char held out (${k.valChars} chars): ` +
    (k.reached ? `reached at step ${k.reached.step} after ${k.reached.seconds.toFixed(1)} s of training (goal ≤ 60 s)` : `NOT reached in ${k.steps} steps, ${k.points.at(-1).seconds.toFixed(1)} s`) +
    `; evaluation took another ${k.evalSeconds.toFixed(1)} s (clock paused), wall ${k.wallSeconds.toFixed(1)} s`);
  p('| step | training s | held-out loss | mean train loss since the last point |');
  p('|---|---|---|---|');
  for (const x of k.points) p(`| ${x.step} | ${x.seconds.toFixed(1)} | ${x.val.toFixed(4)} | ${x.trainLoss === null ? '–' : x.trainLoss.toFixed(4)} |`);
  p();
  p(`forward with all attention maps (${k.forward.chars} chars, ${k.forward.layers} layers × ${k.forward.heads} heads): median ${k.forward.medianMs.toFixed(2)} ms in the worker (min ${k.forward.minMs.toFixed(2)}, ${k.forward.runs} runs); ` +
    `round trip from the page with the maps: median ${k.forward.roundTripMedianMs.toFixed(2)} ms (min ${k.forward.roundTripMinMs.toFixed(2)})`);
}
if (backward) {
  p();
  p('Attention backward, native, causal, d = 64, 1 thread (thread CPU time, median):');
  p('| n | chunked ms | materialized ms | materialized / chunked | chunked scratch | materialized scratch | max diff |');
  p('|---|---|---|---|---|---|---|');
  for (const r of backward.rows) p(`| ${r.n} | ${r.chunkedMs.toFixed(3)} | ${r.materializedMs.toFixed(3)} | ${(r.materializedMs / r.chunkedMs).toFixed(2)} | ${(r.chunkedScratchBytes / 1024).toFixed(1)} KiB | ${(r.materializedScratchBytes / 1024 / 1024).toFixed(2)} MiB | ${r.maxDiff.toExponential(1)} |`);
}
if (errors.length) { p(); p(`page errors: ${errors.join(' | ')}`); }
console.log(lines.join('\n'));
fs.mkdirSync(path.dirname(args.json), { recursive: true });
fs.writeFileSync(args.json, JSON.stringify({ ...out, flopsPerStep: flops, native, fma, backward, errors, table: lines }, null, 1));
