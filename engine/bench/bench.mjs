// Driver of build-scripts/bench (which builds everything and runs the native
// part, attn_bench, first). This script:
//   1. runs the WASM SIMD128 ceiling kernel in Node (for reference);
//   2. serves build/bench-site + engine/bench + the peers' dist files with
//      COOP/COEP (server.mjs) and drives headless Chromium (playwright-core)
//      through bench.html / bench-page.mjs: the WASM ceiling (module Worker),
//      then for every n and mask: our engine's scalar reference, then side by
//      side (interleaved rounds, see bench-page.mjs) our materialized and
//      chunked kernels (1 thread in a module Worker; a pool of 2 plain Workers),
//      tfjs-wasm 1 thread (two compositions) and onnxruntime-web with 1 and 2
//      threads (each in its own module Worker, since numThreads is per realm),
//      every output checked against the reference before it is timed;
//   3. prints ONE table with the native rows (--native FILE from attn_bench),
//      the page metrics (--page FILE) and the long-context run (--long FILE)
//      when given, the issue's targets as pass/fail lines, and writes it all
//      as JSON (--json, default build/bench/bench.json).
// FLOPs: 4·L·S·d for every engine, half of that for causal (a peer that
// computes the full matrix on causal gets half the effective rate).
// Usage: see USAGE below (printed for --help, and for an unknown flag, which is refused).
// --real-models adds the rows of chapters 10–12 (issue 15) (real-model-rows.mjs: sliding window against full causal on the
// pool, decode steps next to a memory.copy ceiling, GQA against MHA); --real-models-only runs
// only those (no peers, no per-n table, no targets 1-7). build-scripts/bench passes these two
// flags through with the same spelling (tests/node/bench-flags.test.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startBenchServer } from './server.mjs';
import { wasmCeiling } from './ceiling.mjs';
import { runRealModelRows, reportRealModelRows } from './real-model-rows.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

const USAGE = `usage: node engine/bench/bench.mjs [--sizes 512,2048,4096] [--d 64] [--min-time 0.3] [--min-runs 5]
         [--native FILE] [--page FILE] [--long FILE] [--json FILE] [--site DIR] [--ceiling FILE] [--pool-size 2]
         [--site-note TEXT] [--real-models | --real-models-only] [--window-sizes 32768,65536,131072] [--window 4096]
         [--decode-rows 32768] [--help]`;
let args;
try {
  ({ values: args } = parseArgs({ options: {
    sizes: { type: 'string', default: '512,2048,4096' },
    d: { type: 'string', default: '64' },
    'min-time': { type: 'string', default: '0.3' },
    'min-runs': { type: 'string', default: '5' },
    native: { type: 'string' },
    page: { type: 'string' },
    long: { type: 'string' },
    json: { type: 'string', default: path.join(ROOT, 'build', 'bench', 'bench.json') },
    site: { type: 'string', default: path.join(ROOT, 'build', 'bench-site') },
    ceiling: { type: 'string', default: path.join(ROOT, 'build', 'bench-wasm', 'attn_wasm_ceiling.wasm') },
    'pool-size': { type: 'string', default: '2' },
    'site-note': { type: 'string' },
    'real-models': { type: 'boolean', default: false },
    'real-models-only': { type: 'boolean', default: false },
    'window-sizes': { type: 'string', default: '32768,65536,131072' },
    window: { type: 'string', default: '4096' },
    'decode-rows': { type: 'string', default: '32768' },
    help: { type: 'boolean', default: false },
  } }));
} catch (err) {   // an unknown flag, a missing value, a stray argument: refused, never ignored
  process.stderr.write(`bench.mjs: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const sizes = args.sizes.split(',').map(Number).sort((a, b) => a - b);
const d = Number(args.d);
const minTime = Number(args['min-time']);
const minRuns = Number(args['min-runs']);
const poolSize = Number(args['pool-size']);
const main = !args['real-models-only'];   // the peers, the per-n table and targets 1-7
const realModels = args['real-models'] || args['real-models-only'];
const realModelsOpts = {
  windowSizes: args['window-sizes'].split(',').map(Number).sort((a, b) => a - b), window: Number(args.window),
  d, poolSize, decodeRows: Number(args['decode-rows']), minTime, minRuns,
};
let realModelsResult = null;
const readJson = (f) => (f && fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);
const progress = (s) => process.stderr.write(`bench: ${s}\n`);

const loadAtStart = os.loadavg().map((x) => x.toFixed(2)).join(' ');
const flops = (n, causal) => 4 * n * n * d * (causal ? 0.5 : 1);

// ------------------------------------------------------------------ measurements
const rows = [];   // {n, kernel, causal, engine, where, threads, ms, gflops, ok, maxAbsDiff, memBytes, memHow, scratchBytes, ...}
function addRow(r) {
  if (r.ok && r.ms) r.gflops = flops(r.n, r.causal) / (r.ms * 1e6);
  rows.push(r);
  const speed = r.ok ? `${r.ms.toFixed(2)} ms ${r.gflops.toFixed(1)} GFLOP/s` : r.error ? `ERROR ${r.error}` : `WRONG (max|diff| ${r.maxAbsDiff})`;
  progress(`n=${r.n} ${r.kernel} ${r.engine}: ${speed}`);
}

// Native rows from attn_bench --json.
const native = readJson(args.native);
if (native) {
  for (const r of native.rows) {
    if (!sizes.includes(r.n)) continue;
    rows.push({
      n: r.n, kernel: r.kernel, causal: r.kernel.includes('causal'), engine: r.threads === 1 ? 'native 1t' : `native ${r.threads}t`,
      where: 'native', threads: r.threads, ok: r.ok, maxAbsDiff: r.maxAbsDiff, ms: r.ok ? r.seconds * 1e3 : null,
      gflops: r.ok ? r.gflops : null, runs: r.runs, timing: r.timing, scratchBytes: r.scratchBytes ?? null,
      memBytes: r.peakRssBytes ?? null, memHow: 'peak RSS (VmHWM reset per measurement; whole process)',
    });
  }
}

progress('WASM ceiling in Node');
const nodeCeiling = fs.existsSync(args.ceiling) ? await wasmCeiling(fs.readFileSync(args.ceiling), { minTime: minTime / 2 }) : null;

const { url, close } = await startBenchServer({ site: args.site, ceiling: args.ceiling });
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-'));
const context = await chromium.launchPersistentContext(userDir, {
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pageErrors = [];
async function openPage(query) {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) pageErrors.push(`HTTP ${r.status()} ${r.url()}`); });
  page.setDefaultTimeout(0);
  await page.goto(`${url}/bench/bench.html${query}`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30000 });
  return page;
}
const call = (page, fn, arg) => page.evaluate(([f, a]) => window.bench[f](a), [fn, arg]);

let browser = {}, ceiling = null, tfjsInfo = null, ort1Info = null, ort2Info = null;
const MEM = {
  ours: 'wasm heap of a fresh worker (engine.info().heapBytes)',
  pool: 'pool r.heapBytes',
  peer: 'WebAssembly.Memory size (grow-only, whole instance)',
};
try {
  const page = await openPage('');
  browser = { ...(await call(page, 'info')), version: context.browser()?.version() ?? null };
  if (!browser.crossOriginIsolated) throw new Error('the bench page is not crossOriginIsolated (COOP/COEP headers missing?)');
  progress('WASM ceiling in Chromium');
  ceiling = await call(page, 'ceiling', { minTime });
  progress(`WASM ceiling: ${ceiling.gflops.toFixed(1)} GFLOP/s (${ceiling.shape}, K=${ceiling.chains})`);
  // A peer that cannot start is reported, and its rows are skipped; the rest still runs.
  const tryInfo = async (what, fn, arg) => {
    try { return await call(page, fn, arg); } catch (e) { pageErrors.push(`${what} failed to start: ${String(e.message).split('\n')[0]}`); return null; }
  };
  if (main) {
    tfjsInfo = await tryInfo('tfjs', 'tfjsInfo');
    ort1Info = await tryInfo('ort 1 thread', 'ortInfo', 1);
    ort2Info = await tryInfo('ort 2 threads', 'ortInfo', 2);
  }
  const available = (s) => (s.kind === 'tfjs' ? !!tfjsInfo : s.kind === 'ort' ? !!(s.threads === 1 ? ort1Info : ort2Info) : true);
  for (const n of main ? sizes : []) {
    for (const causal of [false, true]) {
      const ref = await call(page, 'reference', { n, d, causal });
      addRow({ n, kernel: causal ? 'reference causal' : 'reference', causal, engine: 'wasm 1t', where: 'wasm', threads: 1, ...ref,
        memBytes: ref.heapBytes ?? null, memHow: MEM.ours });
      const mat = causal ? 'causal' : 'materialized', chk = causal ? 'causal chunked' : 'chunked';
      const specs = [
        { id: `wasm 1t|${mat}`, kind: 'ours', variant: 'materialized', engine: 'wasm 1t', kernel: mat, threads: 1 },
        { id: `wasm 1t|${chk}`, kind: 'ours', variant: 'chunked', engine: 'wasm 1t', kernel: chk, threads: 1 },
        { id: `wasm ${poolSize}w|${mat}`, kind: 'pool', variant: 'materialized', size: poolSize, engine: `wasm ${poolSize}w`, kernel: mat, threads: poolSize },
        { id: `wasm ${poolSize}w|${chk}`, kind: 'pool', variant: 'chunked', size: poolSize, engine: `wasm ${poolSize}w`, kernel: chk, threads: poolSize },
        { id: `tfjs 1t|${mat}`, kind: 'tfjs', composition: 'transpose', engine: 'tfjs 1t', kernel: mat, threads: 1, peer: true },
        { id: `tfjs 1t tB|${mat}`, kind: 'tfjs', composition: 'transposeB', engine: 'tfjs 1t tB', kernel: mat, threads: 1, peer: true },
        { id: `ort 1t|${mat}`, kind: 'ort', threads: 1, engine: 'ort 1t', kernel: mat, peer: true },
        { id: `ort 2t|${mat}`, kind: 'ort', threads: 2, engine: 'ort 2t', kernel: mat, peer: true },
      ].map((s) => ({ ...s, n, d, causal })).filter(available);
      const ready = [];
      for (const s of specs) {
        let c;
        try {
          c = await call(page, 'prepare', s);
        } catch (e) {
          const error = String(e.message).split('\n').find((l) => /Error/.test(l)) || String(e.message).split('\n')[0];
          pageErrors.push(`${s.id} n=${n}: ${error}`);
          addRow({ n, kernel: s.kernel, causal, engine: s.engine, where: 'wasm', threads: s.threads, peer: !!s.peer, ok: false, error });
          continue;
        }
        s.maxAbsDiff = c.maxAbsDiff;
        if (c.ok) ready.push(s);
        else addRow({ n, kernel: s.kernel, causal, engine: s.engine, where: 'wasm', threads: s.threads, peer: !!s.peer, ...c });
      }
      progress(`n=${n} ${causal ? 'causal' : 'non-causal'}: timing ${ready.length} engines side by side`);
      const res = await call(page, 'rounds', { ids: ready.map((s) => s.id), minTime, minRuns });
      await call(page, 'dispose', ready.map((s) => s.id));
      for (const s of ready) {
        const r = res[s.id];
        addRow({ n, kernel: s.kernel, causal, engine: s.engine, where: 'wasm', threads: s.threads, peer: !!s.peer, ok: true,
          maxAbsDiff: s.maxAbsDiff, ...r, memBytes: r.heapBytes ?? null, memHow: s.peer ? MEM.peer : s.kind === 'pool' ? MEM.pool : MEM.ours });
      }
    }
  }
  if (realModels) realModelsResult = await runRealModelRows({ call, page, progress, opts: realModelsOpts });
  await page.close();
} finally {
  await context.close().catch(() => {});
  await close();
  fs.rmSync(userDir, { recursive: true, force: true });
}

// ------------------------------------------------------------------ table
const wasmCeil = ceiling.gflops;
const nativeCeil = native ? native.ceiling.gflops : null;
const MiB = 1024 * 1024;
const find = (n, kernel, engine) => rows.find((r) => r.n === n && r.kernel === kernel && r.engine === engine && r.ok);
// The peer row a row is compared with: same n and mask (peers always compute the full matrix).
// 'tfjs 1t' in the ratios is the faster of the two tfjs compositions (transpose / transposeB).
const peerFor = (r, engine) => {
  const kernel = r.causal ? 'causal' : 'materialized';
  if (engine !== 'tfjs 1t') return find(r.n, kernel, engine);
  const c = [find(r.n, kernel, 'tfjs 1t'), find(r.n, kernel, 'tfjs 1t tB')].filter(Boolean);
  return c.length ? c.reduce((a, b) => (a.ms <= b.ms ? a : b)) : undefined;
};
const PEERS = ['tfjs 1t', 'ort 1t', 'ort 2t'];
for (const r of rows) {
  if (!r.ok) continue;
  const c = r.where === 'native' ? nativeCeil : wasmCeil;
  r.ceilingPct = c ? (100 * r.gflops) / (c * r.threads) : null;
  r.ratio = {};
  for (const p of PEERS) { const pr = peerFor(r, p); r.ratio[p] = pr ? r.gflops / pr.gflops : null; }
}

const pad = (s, w) => String(s).padStart(w);
const num = (x, p = 1) => (x == null || !Number.isFinite(x) ? '-' : x.toFixed(p));
const out = [];
const say = (s = '') => out.push(s);
say(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}; load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (at the start ${loadAtStart}); ${browser.userAgent ?? ''}`);
if (native) say(`native FMA ceiling: ${num(nativeCeil)} GFLOP/s per core (xsimd ${native.ceiling.arch}, ${native.ceiling.lanes} float lanes, ${native.ceiling.chains} independent fma chains); engine simd: ${native.simd}`);
say(`WASM SIMD128 ceiling, one core: Chromium ${num(wasmCeil)} GFLOP/s (${ceiling.shape}, ${ceiling.chains} chains)` +
  (nodeCeiling ? `; Node ${process.versions.node}: ${num(nodeCeiling.gflops)} GFLOP/s (${nodeCeiling.shape}, ${nodeCeiling.chains} chains)` : ''));
if (main) say(`peers: tfjs-core/tfjs-backend-wasm ${tfjsInfo?.version} (threads ${tfjsInfo?.threads}, simd ${tfjsInfo?.simd}, threaded build ${tfjsInfo?.multithreadBuild}); ` +
  `onnxruntime-web ${ort1Info?.version} (numThreads ${ort1Info?.numThreads} and ${ort2Info?.numThreads}, each in its own module Worker; graph Gemm(transB, alpha) → [Add mask] → Softmax → MatMul); crossOriginIsolated ${browser.crossOriginIsolated}`);
say(`our WebAssembly build in Chromium: ${browser.engineWasm === 'relaxed' ? 'attn-relaxed.wasm (relaxed SIMD: f32x4.relaxed_madd in the matrix kernels)' : 'attn.wasm (SIMD128: f32x4.mul + f32x4.add)'}; % of ceiling below is of the mul+add ceiling`);
say(`d=${d}, fp32, single head; FLOPs 4·n²·d, half for causal, for every engine; time includes copies in and out; best of >= ${minRuns} runs and >= ${minTime} s;`);
say('browser engines of one (n, mask) timed in interleaved rounds (one call each per round, rotating order), every output checked against the scalar reference first');
say('time: native 1t = thread CPU time; native 2t and all browser rows = wall time (performance.now / steady_clock)');
say('%ceil: native rows vs the native FMA ceiling, wasm rows vs the Chromium WASM ceiling; rows with 2 threads/workers: % of 2 × one core\'s ceiling');
say('×peer: GFLOP/s ratio to tfjs 1t / ort 1t / ort 2t at the same n and mask (chunked rows compared with the peers\' full matrix);');
say('       ×tfjs1t uses the faster tfjs composition: "tfjs 1t" = matMul(q, transpose(k)), "tfjs 1t tB" = matMul(q, k, transposeB)');
say('mem: N = native peak RSS of the whole bench process (VmHWM reset before each measurement); H = wasm heap of a fresh engine worker (engine.info().heapBytes);');
say('     P = largest wasm heap in the pool (pool r.heapBytes); M = size of the peer\'s WebAssembly.Memory (grow-only, so the peak of that instance so far; n ascending)');
say();
const head = [pad('n', 5), 'kernel'.padEnd(16), 'engine'.padEnd(10), pad('ms', 10), pad('GFLOP/s', 8), pad('%ceil', 6),
  pad('×tfjs1t', 8), pad('×ort1t', 7), pad('×ort2t', 7), pad('scratch', 9), pad('mem MiB', 10), pad('max|diff|', 9)].join(' ');
say(head);
say('-'.repeat(head.length));
const ORDER = ['native 1t', 'native 2t', 'wasm 1t', `wasm ${poolSize}w`, 'tfjs 1t', 'tfjs 1t tB', 'ort 1t', 'ort 2t'];
const KERNELS = ['reference', 'materialized', 'chunked', 'reference causal', 'causal', 'causal chunked'];
const memTag = (r) => (r.where === 'native' ? 'N' : r.peer ? 'M' : r.engine === 'wasm 1t' ? 'H' : 'P');
for (const n of main ? sizes : []) {
  for (const kernel of KERNELS) {
    const group = rows.filter((r) => r.n === n && r.kernel === kernel).sort((a, b) => ORDER.indexOf(a.engine) - ORDER.indexOf(b.engine));
    for (const r of group) {
      if (!r.ok && r.error) {
        say([pad(n, 5), kernel.padEnd(16), r.engine.padEnd(10), `  ERROR: ${r.error.slice(0, 120)}`].join(' '));
        continue;
      }
      if (!r.ok) {
        say([pad(n, 5), kernel.padEnd(16), r.engine.padEnd(10), `  WRONG RESULT: max|diff| ${r.maxAbsDiff ?? 'NaN/inf'} against the reference; speed not reported`].join(' '));
        continue;
      }
      say([pad(n, 5), kernel.padEnd(16), r.engine.padEnd(10), pad(num(r.ms, 3), 10), pad(num(r.gflops, 2), 8), pad(num(r.ceilingPct), 6),
        pad(num(r.ratio['tfjs 1t'], 2), 8), pad(num(r.ratio['ort 1t'], 2), 7), pad(num(r.ratio['ort 2t'], 2), 7),
        pad(r.scratchBytes == null ? '-' : `${num(r.scratchBytes / 1024, 0)}K`, 9),
        pad(r.memBytes == null ? '-' : `${num(r.memBytes / MiB)} ${memTag(r)}`, 10),
        pad(r.maxAbsDiff == null ? '-' : r.maxAbsDiff.toExponential(1), 9)].join(' '));
    }
  }
  say();
}

// ------------------------------------------------------------------ page metrics and long context
const pageMetrics = readJson(args.page);
const longRun = readJson(args.long);
const siteNote = args['site-note'] ? ` on ${args['site-note']}` : '';
const kB = (b) => (b == null ? '-' : `${(b / 1000).toFixed(0)} kB`);
const msOf = (x) => (x == null ? '-' : `${x.toFixed(1)} ms`);
if (!main) { /* --real-models-only: no page metrics, no long context */ } else if (pageMetrics?.summary) {
  say(`page metrics (engine/bench/page-metrics.mjs${siteNote}; median of ${pageMetrics.runs} fresh-profile visit(s); full JSON in bench.json):`);
  for (const [id, p] of Object.entries(pageMetrics.summary)) {
    say(`  ${id.padEnd(12)} first contentful paint ${msOf(p.fcpMs)}, ready ${msOf(p.readyMs)}, transfer ${kB(p.wireBytes)} (wasm ${kB(p.byType?.wasm)}, js ${kB(p.byType?.js)}, fonts ${kB(p.byType?.font)}), ${p.requests} requests`);
    for (const [sid, v] of Object.entries(p.sliders || {})) {
      say(`  ${''.padEnd(12)} slider ${sid}: ${v.error ? `ERROR ${String(v.error).split('\n')[0]}` : `median ${msOf(v.medianMs)}, p95 ${msOf(v.p95Ms)} (${v.moves} moves)`}`);
    }
  }
} else say('page metrics: not run (engine/bench/page-metrics.mjs missing, failed or --no-page-metrics)');
if (!main) { /* see above */ } else if (longRun) {
  const L = longRun;
  say(`long context (engine/bench/long-context.mjs${siteNote}): n=${L.n} d=${L.d} causal=${L.causal} workers=${L.workers}: ` +
    `${L.ms != null ? (L.ms / 1000).toFixed(1) + ' s' : '-'}, ${L.gflops != null ? L.gflops.toFixed(1) : '-'} GFLOP/s, ` +
    `scratch/worker ${L.scratchBytesPerWorker ?? '-'} B, wasm heap/worker ${L.peakHeap?.wasmBytesPerWorker != null ? (L.peakHeap.wasmBytesPerWorker / MiB).toFixed(1) + ' MiB' : '-'}, ` +
    `max|diff| vs reference ${L.maxAbsDiffVsReference ?? '-'} (rows checked), wall ${L.wallMs != null ? (L.wallMs / 1000).toFixed(1) + ' s' : '-'}; ` +
    `materialized: ${L.materialized?.state ?? '-'} (needs ${L.refusedNeedGiB ?? '-'} GiB); message: "${L.refusedMessage ?? '-'}"`);
} else say('long context: not run (--no-long given, engine/bench/long-context.mjs missing, or it failed)');
say();

// ------------------------------------------------------------------ targets
const targets = [];
function target(id, text, checks) {
  // checks: [{label, value, pass}] ; pass null = not measured
  const measured = checks.filter((c) => c.pass !== null);
  const pass = measured.length === checks.length && checks.length > 0 ? checks.every((c) => c.pass) : null;
  targets.push({ id, text, pass, checks });
  say(`target ${id} ${pass === null ? 'NOT MEASURED' : pass ? 'PASS' : 'FAIL'}: ${text}`);
  for (const c of checks) say(`    ${c.pass === null ? '?   ' : c.pass ? 'ok  ' : 'FAIL'} ${c.label}: ${c.value}`);
}
const ratioCheck = (n, ours, peer, min, label) => {
  const a = find(n, ours.kernel, ours.engine), b = a && peerFor(a, peer.engine);
  if (!a || !b) return { label: `n=${n} ${label}`, value: 'missing', pass: null };
  const x = a.gflops / b.gflops;
  return { label: `n=${n} ${label}`, value: `${x.toFixed(2)}× (${a.gflops.toFixed(1)} vs ${b.gflops.toFixed(1)} GFLOP/s)`, pass: x >= min, ratio: x };
};
// Targets 1, 2, 4 and 5 judge the engine's fast path for long sequences,
// the chunked kernel; the materialized kernel (which also writes the n×n
// weights the lesson shows) is listed beside it for information.
const info = (check) => ({ ...check, label: `info: ${check.label}`, pass: check.pass === null ? null : true });
if (main) {
target(1, 'our wasm, 1 thread, non-causal (chunked) >= 1.3× tfjs-wasm 1 thread, every n',
  sizes.flatMap((n) => [ratioCheck(n, { kernel: 'chunked', engine: 'wasm 1t' }, { kernel: 'materialized', engine: 'tfjs 1t' }, 1.3, 'chunked / tfjs'),
    info(ratioCheck(n, { kernel: 'materialized', engine: 'wasm 1t' }, { kernel: 'materialized', engine: 'tfjs 1t' }, 1.3, 'materialized / tfjs'))]));
target(2, 'our wasm, 1 thread, causal (chunked) >= 2.5× tfjs-wasm causal (full matrix + mask), every n',
  sizes.flatMap((n) => [ratioCheck(n, { kernel: 'causal chunked', engine: 'wasm 1t' }, { kernel: 'causal', engine: 'tfjs 1t' }, 2.5, 'causal chunked / tfjs causal'),
    info(ratioCheck(n, { kernel: 'causal', engine: 'wasm 1t' }, { kernel: 'causal', engine: 'tfjs 1t' }, 2.5, 'causal materialized / tfjs causal'))]));
{
  const checks = sizes.map((n) => {
    const m = find(n, 'materialized', 'wasm 1t'), c = find(n, 'chunked', 'wasm 1t');
    if (!m || !c) return { label: `n=${n} wasm 1t chunked ms / materialized ms`, value: 'missing', pass: null };
    const x = c.ms / m.ms;
    return { label: `n=${n} wasm 1t chunked ms / materialized ms`, value: `${x.toFixed(3)} (${c.ms.toFixed(2)} vs ${m.ms.toFixed(2)} ms)`, pass: x <= 1.1 };
  });
  const ch = sizes.map((n) => find(n, 'chunked', 'wasm 1t')).filter(Boolean);
  if (ch.length === sizes.length) {
    const sc = ch.map((r) => r.scratchBytes), hp = ch.map((r) => r.heapBytes);
    const inputs = sizes.map((n) => 4 * n * d * 4);  // q, k, v and out in the heap
    checks.push({ label: 'chunked scratch flat across n (scratchBytes)', value: sc.map((b) => `${(b / 1024).toFixed(1)} KiB`).join(', '),
      pass: Math.max(...sc) <= Math.min(...sc) * 1.05 });
    checks.push({ label: 'info: chunked wasm heap, and heap minus q/k/v/out (fresh worker)',
      value: hp.map((b, i) => `${(b / MiB).toFixed(1)} MiB (${((b - inputs[i]) / MiB).toFixed(1)})`).join(', '), pass: true });
  }
  target(3, 'chunked within 10% of materialized at every n (wasm, 1 thread), scratch flat as n grows', checks);
}
target(4, `${poolSize} plain Web Workers >= 1.5× onnxruntime-web with 2 threads, same shapes`,
  sizes.flatMap((n) => [
    ratioCheck(n, { kernel: 'chunked', engine: `wasm ${poolSize}w` }, { kernel: 'materialized', engine: 'ort 2t' }, 1.5, 'pool chunked / ort 2t'),
    ratioCheck(n, { kernel: 'causal chunked', engine: `wasm ${poolSize}w` }, { kernel: 'causal', engine: 'ort 2t' }, 1.5, 'pool causal chunked / ort 2t causal'),
  ]));
target(5, 'native (1 thread, chunked, non-causal) >= 70% of the native FMA ceiling',
  sizes.flatMap((n) => ['chunked', 'materialized'].map((kernel) => {
    const r = find(n, kernel, 'native 1t');
    if (!r || !nativeCeil) return { label: `n=${n} ${kernel}`, value: 'missing', pass: null };
    const check = { label: `n=${n} native 1t ${kernel}`, value: `${r.ceilingPct.toFixed(1)}% (${r.gflops.toFixed(1)} of ${nativeCeil.toFixed(1)} GFLOP/s)`, pass: r.ceilingPct >= 70 };
    return kernel === 'chunked' ? check : info(check);
  })));
if (longRun) {
  target(6, '131,072 tokens in a tab: causal chunked completes; materialized refused up front (64 GiB)', [
    { label: `n=${longRun.n} chunked run`, value: longRun.ms != null ? `${(longRun.ms / 1000).toFixed(1)} s` : 'did not finish', pass: longRun.ms != null && longRun.n >= 131072 },
    { label: 'materialized refused up front, message shows the need',
      value: `${longRun.materialized?.state ?? '-'}, need ${longRun.materialized?.needBytes != null ? (longRun.materialized.needBytes / 2 ** 30).toFixed(0) + ' GiB' : '-'}, message shows it: ${longRun.refusedMessageShowsNeed ?? '-'}`,
      pass: longRun.materialized?.state === 'refused' && (longRun.refusedMessageShowsNeed === true || /64\s*GiB/.test(String(longRun.refusedMessage ?? ''))) },
  ]);
} else target(6, '131,072 tokens in a tab (engine/bench/long-context.mjs)', [{ label: 'long-context run', value: 'not run', pass: null }]);
if (pageMetrics?.summary) {
  const t = pageMetrics.targets || { fcpMs: 1000, transferBytes: 1.5e6, sliderMs: 16 };
  const checks = [];
  for (const [id, p] of Object.entries(pageMetrics.summary)) {
    checks.push({ label: `${id} first render < ${t.fcpMs} ms`, value: msOf(p.fcpMs), pass: p.fcpMs == null ? null : p.fcpMs < t.fcpMs });
    checks.push({ label: `${id} transfer < ${t.transferBytes / 1e6} MB`, value: kB(p.wireBytes), pass: p.wireBytes == null ? null : p.wireBytes < t.transferBytes });
    for (const [sid, v] of Object.entries(p.sliders || {}))
      checks.push({ label: `${id} slider ${sid} redraw (median) < ${t.sliderMs} ms`, value: v.error ? 'error' : msOf(v.medianMs), pass: v.error ? false : v.medianMs < t.sliderMs });
  }
  target(7, 'the page: first render < 1 s, transfer < 1.5 MB, slider redraw < 16 ms (from page-metrics.mjs)', checks);
} else target(7, 'the page (page-metrics.mjs)', [{ label: 'page metrics', value: 'not run', pass: null }]);
}
if (realModelsResult) { say(); reportRealModelRows(realModelsResult, { say, target, window: realModelsOpts.window }); }
if (pageErrors.length) { say(); say(`browser errors during the run (${pageErrors.length}):`); for (const e of pageErrors.slice(0, 10)) say(`  ${e}`); }

console.log(out.join('\n'));
fs.mkdirSync(path.dirname(args.json), { recursive: true });
fs.writeFileSync(args.json, JSON.stringify({
  date: new Date().toISOString(), machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.versions.node },
  browser, d, sizes, minTime, minRuns, poolSize,
  ceilings: { native: native?.ceiling ?? null, wasmChromium: ceiling, wasmNode: nodeCeiling },
  peers: { tfjs: tfjsInfo, ort1: ort1Info, ort2: ort2Info },
  rows, targets, pageMetrics, longContext: longRun, realModels: realModelsResult, pageErrors, table: out.join('\n'),
}, null, 1));
progress(`wrote ${path.relative(process.cwd(), args.json)}`);
