// The rows of chapters 10–12 (issue 15) in the Chromium bench (bench.mjs --real-models; build-scripts/bench --real-models):
//   window: causal chunked with a sliding window w at several n on the pool (fresh pool per
//           run, so the heap is that n's), the full causal run at the largest n, then the
//           largest windowed run again (best of the two counts): measured time ratio
//           against predicted = visiblePairs(window) / visiblePairs(causal), and the heap per n;
//   decode: one decode step against a cache of S rows (d, H_q = 32, H_kv = 8 and 32) in a
//           module Worker, next to a wasm memory.copy ceiling, interleaved in the same worker;
//   heads:  pool.multiheadAttention, H_q/H_kv = 4 against multi-head (same H_q), interleaved.
// Nothing here asserts a time: the target lines say what was measured against the issue's numbers.
const MiB = 1024 * 1024;

export async function runRealModelRows({ call, page, progress, opts }) {
  const { windowSizes, window, d, poolSize, decodeRows, minTime, minRuns } = opts;
  const out = { window: [], full: null, decode: null, heads: null, errors: [] };
  const attempt = async (what, f) => {
    try { return await f(); } catch (e) { const m = `${what}: ${String(e.message).split('\n')[0]}`; out.errors.push(m); progress(`ERROR ${m}`); return null; }
  };
  const nMax = Math.max(...windowSizes);
  for (const n of windowSizes) {
    progress(`issue 15: window ${window}, n=${n}, causal chunked, ${poolSize} workers`);
    const r = await attempt(`window n=${n}`, () => call(page, 'windowRun', { n, d, window, size: poolSize }));
    if (r) { out.window.push(r); progress(`  ${(r.ms / 1000).toFixed(2)} s, heap ${(r.heapBytes / MiB).toFixed(1)} MiB, max|diff| ${r.maxAbsDiff.toExponential(1)}`); }
  }
  progress(`issue 15: full causal n=${nMax} (minutes)`);
  out.full = await attempt(`full causal n=${nMax}`, () => call(page, 'windowRun', { n: nMax, d, window: 0, size: poolSize }));
  if (out.full) progress(`  ${(out.full.ms / 1000).toFixed(2)} s`);
  progress(`issue 15: window ${window}, n=${nMax} again`);
  const again = await attempt(`window n=${nMax} again`, () => call(page, 'windowRun', { n: nMax, d, window, size: poolSize }));
  if (again) { out.windowAgain = again; progress(`  ${(again.ms / 1000).toFixed(2)} s`); }

  progress(`issue 15: decode S=${decodeRows}, d=128, H_q=32, H_kv 8 and 32, with the memory.copy ceiling`);
  out.decode = await attempt('decode', () => call(page, 'decodeBench', { S: decodeRows, d: 128, headsQ: 32, headsKv: [8, 32], minMs: Math.max(3000, minTime * 1e3), minRuns: Math.max(5, minRuns) }));
  progress('issue 15: pool.multiheadAttention H_q=8, H_kv 2 and 8, L=S=2048, d=64, causal chunked');
  out.heads = await attempt('heads', () => call(page, 'headsBench', { L: 2048, S: 2048, d: 64, headsQ: 8, headsKv: [2, 8], size: poolSize, minTime: Math.max(1, minTime), minRuns: Math.max(5, minRuns) }));
  return out;
}

export function reportRealModelRows(r, { say, target, window }) {
  const gb = (x) => `${(x / 1e9).toFixed(2)} GB/s`;
  say('issue 15 rows (Chromium; wall time, performance.now(); the machine\'s load is in the first line):');
  const best = (a, b) => (a && b ? (a.ms <= b.ms ? a : b) : a || b);
  const nMax = r.window.length ? Math.max(...r.window.map((x) => x.n)) : null;
  for (const x of r.window) {
    say(`  window w=${x.window} causal chunked n=${x.n} d=${x.d}, ${x.workers} workers, ${x.tasks} tasks: ${(x.ms / 1000).toFixed(3)} s` +
      `${x.n === nMax && r.windowAgain ? ` (again after the full run: ${(r.windowAgain.ms / 1000).toFixed(3)} s)` : ''}, ` +
      `${(x.flops / (x.ms * 1e6)).toFixed(1)} GFLOP/s, visible pairs ${x.pairs}, heap/worker ${(x.heapBytes / MiB).toFixed(1)} MiB ` +
      `(minus K, V held by the engine: ${((x.heapBytes - 2 * x.n * x.d * 4) / MiB).toFixed(1)}), scratch ${(x.scratchBytes / 1024).toFixed(1)} KiB, ` +
      `rows ${x.checked.join(', ')} within ${x.maxAbsDiff.toExponential(1)} of the reference`);
  }
  const f = r.full;
  if (f) say(`  full causal chunked n=${f.n}: ${(f.ms / 1000).toFixed(3)} s, ${(f.flops / (f.ms * 1e6)).toFixed(1)} GFLOP/s, visible pairs ${f.pairs}, ` +
    `heap/worker ${(f.heapBytes / MiB).toFixed(1)} MiB, max|diff| ${f.maxAbsDiff.toExponential(1)}`);
  const wMax = best(r.window.find((x) => x.n === nMax), r.windowAgain);
  {
    const checks = [];
    if (wMax && f) {
      const measured = wMax.ms / f.ms, predicted = wMax.pairs / f.pairs, issue = (wMax.n * window) / (f.n * f.n / 2);
      r.windowRatio = { measured, predicted, issue, over: measured / predicted };
      checks.push({ label: `n=${wMax.n}: completes, rows checked`, value: `${(wMax.ms / 1000).toFixed(2)} s, max|diff| ${wMax.maxAbsDiff.toExponential(1)}`, pass: wMax.ok });
      checks.push({ label: 'time ratio window / full causal, against predicted = visiblePairs(window) / visiblePairs(causal)',
        value: `${measured.toFixed(4)} / ${predicted.toFixed(4)} = ${(measured / predicted).toFixed(2)} (the issue's (n·w)/(n²/2) = ${issue.toFixed(4)}: ${(measured / issue).toFixed(2)})`,
        pass: measured / predicted <= 1.5 });
    } else checks.push({ label: 'window and full causal runs', value: 'missing', pass: null });
    if (r.window.length >= 2) {
      const sc = r.window.map((x) => x.scratchBytes);
      checks.push({ label: 'scratch flat as n grows', value: r.window.map((x) => `n=${x.n}: ${(x.scratchBytes / 1024).toFixed(1)} KiB`).join(', '), pass: Math.max(...sc) <= Math.min(...sc) * 1.05 });
      checks.push({ label: 'info: heap/worker (minus the K and V of n×d each that every worker\'s engine holds; the wasm heap only grows, in steps)', pass: true,
        value: r.window.map((x) => `n=${x.n}: ${(x.heapBytes / MiB).toFixed(1)} (${((x.heapBytes - 2 * x.n * x.d * 4) / MiB).toFixed(1)}) MiB`).join(', ') });
    }
    target('15a', `sliding window w=${window}, causal chunked, 2-worker pool: completes; time within 1.5× of the visible-pairs prediction against the full causal run; heap flat`, checks);
  }
  const dcd = r.decode;
  if (dcd) {
    say(`  decode: memory.copy ceiling ${gb(dcd.copy.bytesPerSecond)} (256 MiB, best of ${dcd.copy.runs}: ${dcd.copy.bestMs.toFixed(1)} ms); wasm heap of the worker ${(dcd.heapBytes / MiB).toFixed(0)} MiB`);
    for (const s of dcd.steps) {
      const c = dcd.caches.find((x) => x.headsKv === s.headsKv);
      say(`  decode S=${dcd.S} d=${dcd.d} H_q=${dcd.headsQ} H_kv=${s.headsKv}: ${s.bestMs.toFixed(2)} ms/step (best of ${s.runs}), K/V read ${(s.kvBytesRead / MiB).toFixed(1)} MiB, ` +
        `${gb(s.bytesPerSecond)} = ${(100 * s.bytesPerSecond / dcd.copy.bytesPerSecond).toFixed(1)}% of memory.copy; cache ${(c.cacheBytes / MiB).toFixed(0)} MiB; ` +
        `one step against the reference: max|diff| ${c.maxAbsDiff.toExponential(1)}`);
    }
    const g = dcd.steps.find((s) => s.headsKv === 8), m = dcd.steps.find((s) => s.headsKv === 32);
    const gc = dcd.caches.find((x) => x.headsKv === 8), mc = dcd.caches.find((x) => x.headsKv === 32);
    r.decodeRatio = { pct: g.bytesPerSecond / dcd.copy.bytesPerSecond, bytes: m.kvBytesRead / g.kvBytesRead, time: g.bestMs / m.bestMs };
    target('15b', `decode step, cache of ${dcd.S} rows, d=128, 8 KV heads (32 query heads): K/V bytes per second >= 50% of a wasm memory.copy ceiling in the same run`, [
      { label: 'checked against the reference', value: `max|diff| ${gc.maxAbsDiff.toExponential(1)}`, pass: gc.maxAbsDiff <= 1e-3 },
      { label: 'GQA 32/8 step vs memory.copy', value: `${gb(g.bytesPerSecond)} / ${gb(dcd.copy.bytesPerSecond)} = ${(100 * r.decodeRatio.pct).toFixed(1)}%`, pass: r.decodeRatio.pct >= 0.5 },
    ]);
    target('15c', 'GQA H_q/H_kv = 4 against MHA (same H_q), same run: K/V bytes read 4× fewer, time per call below MHA', [
      { label: 'decode: K/V bytes per step MHA / GQA (engine.kvBytesRead)', value: `${(m.kvBytesRead / MiB).toFixed(0)} / ${(g.kvBytesRead / MiB).toFixed(0)} MiB = ${r.decodeRatio.bytes.toFixed(2)}×`, pass: r.decodeRatio.bytes >= 4 },
      { label: 'decode: time per step GQA / MHA', value: `${g.bestMs.toFixed(2)} / ${m.bestMs.toFixed(2)} ms = ${r.decodeRatio.time.toFixed(3)}`, pass: g.bestMs < m.bestMs && mc.maxAbsDiff <= 1e-3 },
      ...headsChecks(r),
    ]);
  } else {
    target('15b', 'decode step against a wasm memory.copy ceiling', [{ label: 'decode', value: 'not measured', pass: null }]);
    target('15c', 'GQA against MHA', headsChecks(r));
  }
  if (r.errors.length) { say('  errors:'); for (const e of r.errors) say(`    ${e}`); }
}

function headsChecks(r) {
  const h = r.heads;
  if (!h) return [{ label: 'pool.multiheadAttention GQA vs MHA', value: 'not measured', pass: null }];
  const g = h.find((x) => x.headsQ / x.headsKv === 4), m = h.find((x) => x.headsKv === x.headsQ);
  const line = (x) => `H_kv=${x.headsKv}: ${x.ok ? `${x.ms.toFixed(1)} ms` : 'WRONG'} (${x.tasks} tasks, ${x.kernelCalls} kernel calls, K/V sent ${(x.kvBytesSent / MiB).toFixed(1)} MiB, max|diff| ${x.maxAbsDiff.toExponential(1)})`;
  r.headsRatio = g && m && g.ok && m.ok ? { bytes: m.kvBytesSent / g.kvBytesSent, time: g.ms / m.ms } : null;
  return [
    { label: `info: pool.multiheadAttention L=S=${g.L}, d=${g.d}, H_q=${g.headsQ}, causal chunked`, value: `${line(g)}; ${line(m)}`, pass: g.ok && m.ok ? true : null },
    { label: 'info: pool K/V bytes sent MHA / GQA, time GQA / MHA (the chunked kernel streams K/V per query block: no time gain expected, see the native heads bench)',
      value: r.headsRatio ? `${r.headsRatio.bytes.toFixed(2)}×, ${r.headsRatio.time.toFixed(3)}` : 'missing', pass: r.headsRatio ? true : null },
  ];
}
