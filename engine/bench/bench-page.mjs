// The browser side of build-scripts/bench: window.bench, called by
// engine/bench/bench.mjs through Playwright.
// Every engine gets the same q, k, v (the engine's randomNormal, seeds 42, 43,
// 44). For each (n, mask) the driver: computes the scalar reference
// (`reference`), prepares every engine (`prepare`: set up, one call, output
// compared with the reference; a wrong result is refused and never timed),
// then times them side by side (`rounds`: round after round, one call of each
// engine per round in a rotating order, until every engine has >= minRuns
// calls and >= minTime seconds; the best call counts), so a change in the
// machine's load hits all engines alike. Time: performance.now(), including
// the copies in and out:
//   wasm 1t:  engine.attention() inside a module Worker (bench-worker.mjs), a fresh worker per engine row;
//   wasm Nw:  await pool.attention() on the main thread, N plain module Workers (engine-pool.mjs),
//             including posting Q slices, K and V to the workers and the rows back;
//   tfjs 1t:  on the main thread: tf.tensor2d ×3, matMul(q, transpose(k)) [or matMul(q, k, transposeB)]
//             → mul(scale) → [add(mask)] → softmax → matMul, dataSync();
//   ort Nt:   inside a module Worker (ort-worker.mjs; numThreads is per realm): new ort.Tensor ×3,
//             session.run(), output .data.
// Peer memory: the byte length of the WebAssembly.Memory the library created
// (hooked; memory only grows, so it is the peak of that instance so far).
import { loadEngine } from '/js/engine.mjs';

const log = (s) => { document.getElementById('log').textContent += s + '\n'; };
const TOLERANCE = 1e-3;

// ------------------------------------------------------------------ wasm memory of tfjs (main thread)
const tfMemories = new Set();
let hookOn = false;
{
  const Native = WebAssembly.Memory;
  const Hooked = function Memory(desc) { const m = new Native(desc); if (hookOn) tfMemories.add(m); return m; };
  Hooked.prototype = Native.prototype;
  WebAssembly.Memory = Hooked;
  for (const fn of ['instantiate', 'instantiateStreaming']) {
    const orig = WebAssembly[fn];
    if (orig) WebAssembly[fn] = (...a) => orig.apply(WebAssembly, a).then((r) => {
      const exp = hookOn && (r && (r.instance || r)).exports;
      if (exp) for (const x of Object.values(exp)) if (x instanceof Native) tfMemories.add(x);
      return r;
    });
  }
}

// ------------------------------------------------------------------ inputs and references
let mainEngine = null;
const inputs = new Map();   // `${n}x${d}` -> {q, k, v}
const refs = new Map();     // `${n}/${causal}` -> Float32Array

async function getInputs(n, d) {
  const key = `${n}x${d}`;
  if (!inputs.has(key)) {
    mainEngine = mainEngine || await loadEngine();
    inputs.clear();
    inputs.set(key, {
      q: mainEngine.randomNormal({ seed: 42, rows: n, cols: d }),
      k: mainEngine.randomNormal({ seed: 43, rows: n, cols: d }),
      v: mainEngine.randomNormal({ seed: 44, rows: n, cols: d }),
    });
  }
  return inputs.get(key);
}

function maxAbsDiff(a, b) {
  if (!b) throw new Error('no reference output for this shape yet');
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.abs(a[i] - b[i]);
    if (!(x <= m)) m = Number.isNaN(x) ? Infinity : x;
  }
  return m;
}
function check(out, n, causal) {
  const diff = maxAbsDiff(out, refs.get(`${n}/${causal}`));
  return { ok: diff <= TOLERANCE, maxAbsDiff: Number.isFinite(diff) ? diff : null };
}

// ------------------------------------------------------------------ workers
function workerCall(worker, msg, transfer = []) {
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.ok ? resolve(data.result) : reject(new Error(data.error)));
    worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
    worker.postMessage(msg, transfer);
  });
}
const engineWorker = () => new Worker('/bench/bench-worker.mjs', { type: 'module' });

async function ceiling({ minTime }) {
  const w = engineWorker();
  try { return await workerCall(w, { cmd: 'ceiling', minTime }); } finally { w.terminate(); }
}

async function reference({ n, d, causal }) {
  const { q, k, v } = await getInputs(n, d);
  const w = engineWorker();
  try {
    const r = await workerCall(w, { cmd: 'prepare', q, k, v, causal, variant: 'reference' });
    refs.set(`${n}/${causal}`, r.out);
    return { ok: true, maxAbsDiff: 0, ms: r.ms, runs: 1, scratchBytes: r.scratchBytes, heapBytes: r.heapBytes, simd: r.simd };
  } finally { w.terminate(); }
}

// ------------------------------------------------------------------ runners: {first() -> {out, ...}, step() -> ms, meta(), dispose()}
function oursRunner({ n, d, causal, variant }) {
  const w = engineWorker();
  return {
    async first() {
      const { q, k, v } = await getInputs(n, d);
      const r = await workerCall(w, { cmd: 'prepare', q, k, v, causal, variant });
      this.simd = r.simd;
      return r;
    },
    async step() { return (await workerCall(w, { cmd: 'step' })).ms; },
    async meta() { const m = await workerCall(w, { cmd: 'meta' }); return { ...m, simd: this.simd }; },
    dispose() { w.terminate(); },
  };
}

function poolRunner({ n, d, causal, variant, size }) {
  let pool = null, call = null, last = null;
  return {
    async first() {
      const { createEnginePool } = await import('/js/engine-link/engine-pool.mjs');
      const { q, k, v } = await getInputs(n, d);
      pool = createEnginePool({ size });
      await pool.ready;
      call = () => pool.attention({ q, k, v, causal, variant });
      last = await call();
      return { out: last.out.data };
    },
    async step() { const t0 = performance.now(); last = await call(); return performance.now() - t0; },
    meta() { return { scratchBytes: last.scratchBytes, heapBytes: last.heapBytes ?? null, workers: last.workers, tasks: last.tasks, poolMs: last.ms }; },
    dispose() { pool?.terminate(); },
  };
}

let tfInfo = null;
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.append(s);
  });
}
async function loadTfjs() {
  if (tfInfo) return tfInfo;
  hookOn = true;
  try {
    await loadScript('/nm/@tensorflow/tfjs-core/dist/tf-core.min.js');
    await loadScript('/nm/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js');
    const tf = globalThis.tf;
    tf.wasm.setWasmPaths('/nm/@tensorflow/tfjs-backend-wasm/dist/');
    tf.wasm.setThreadsCount(1);   // before setBackend: XNNPACK's thread pool gets one thread
    if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
    await tf.ready();
    tfInfo = {
      version: tf.version_core, backend: tf.getBackend(), threads: tf.wasm.getThreadsCount(),
      simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
      multithreadBuild: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
    };
  } finally { hookOn = false; }
  return tfInfo;
}

// composition 'transpose': matMul(q, transpose(k)); 'transposeB': matMul(q, k, false, true). In
// tfjs-backend-wasm 4.22 the transposeB path of matMul is several times slower (measured here),
// so the bench times both and the driver compares with the faster one.
function tfjsRunner({ n, d, causal, composition = 'transpose' }) {
  let run = null, mask = null;
  return {
    async first() {
      await loadTfjs();
      const tf = globalThis.tf;
      const { q, k, v } = await getInputs(n, d);
      const scale = 1 / Math.sqrt(d);
      if (causal) {   // built once, outside the timing (a model keeps it as a constant)
        const m = new Float32Array(n * n);
        for (let i = 0; i < n; i++) m.fill(-1e9, i * n + i + 1, (i + 1) * n);
        mask = tf.tensor2d(m, [n, n]);
      }
      run = () => {
        const o = tf.tidy(() => {
          const Q = tf.tensor2d(q.data, [n, d]), K = tf.tensor2d(k.data, [n, d]), V = tf.tensor2d(v.data, [n, d]);
          const logits = composition === 'transposeB' ? tf.matMul(Q, K, false, true) : tf.matMul(Q, tf.transpose(K));
          let s = tf.mul(logits, tf.scalar(scale));
          if (mask) s = tf.add(s, mask);
          return tf.matMul(tf.softmax(s), V);
        });
        const data = o.dataSync();
        o.dispose();
        return data;
      };
      return { out: run() };
    },
    async step() { const t0 = performance.now(); run(); return performance.now() - t0; },
    meta() {
      return { heapBytes: [...tfMemories].reduce((t, x) => t + x.buffer.byteLength, 0) || null, tensorBytes: globalThis.tf.memory().numBytes };
    },
    dispose() { mask?.dispose(); },
  };
}

const ortWorkers = new Map();   // threads -> {worker, info}
async function ortWorker(threads) {
  if (!ortWorkers.has(threads)) {
    const worker = new Worker('/bench/ort-worker.mjs', { type: 'module' });
    ortWorkers.set(threads, { worker, info: await workerCall(worker, { cmd: 'init', threads }) });
  }
  return ortWorkers.get(threads);
}
let nextOrtId = 1;
function ortRunner({ n, d, causal, threads }) {
  const id = nextOrtId++;
  let w = null;
  return {
    async first() {
      w = (await ortWorker(threads)).worker;
      const { q, k, v } = await getInputs(n, d);
      return workerCall(w, { cmd: 'prepare', id, n, d, causal, q, k, v });
    },
    async step() { return (await workerCall(w, { cmd: 'step', id })).ms; },
    async meta() { return { heapBytes: (await workerCall(w, { cmd: 'memory' })).bytes }; },
    async dispose() { if (w) await workerCall(w, { cmd: 'dispose', id }); },
  };
}

// ------------------------------------------------------------------ issue 15: window, decode, heads
// Sliding window (and the full causal run it is compared with) on a fresh pool per
// call, so r.heapBytes is this n's peak wasm heap per worker: pool.attentionSeeded
// (Q, K, V drawn inside each worker; nothing large crosses a thread), causal,
// chunked, rows checked against the engine's double reference with the same
// options. ms: the attention only (performance.now(), wall), not the drawing.
async function windowRun({ n, d, window = 0, size = 2, seed = 42 }) {
  const { createEnginePool, checkRowsFor } = await import('/js/engine-link/engine-pool.mjs');
  const pool = createEnginePool({ size });
  try {
    await pool.ready;
    const r = await pool.attentionSeeded({ n, d, seed, causal: true, window: window || undefined, variant: 'chunked' },
      { checkRows: checkRowsFor(n) });
    mainEngine = mainEngine || await loadEngine();
    const pairs = mainEngine.visiblePairs({ L: n, S: n, causal: true, window });
    const maxDiff = Math.max(...r.checks.map((c) => c.maxAbsDiff));
    return { n, d, window, ms: r.ms, genMs: r.genMs, tasks: r.tasks, workers: r.workers, heapBytes: r.heapBytes,
      scratchBytes: r.scratchBytes, flops: r.flops, pairs, checked: r.checks.map((c) => c.row), maxAbsDiff: maxDiff, ok: maxDiff <= TOLERANCE };
  } finally { pool.terminate(); }
}

// Decode steps and the memory.copy ceiling in one module Worker (bench-worker.mjs).
async function decodeBench({ S, d, headsQ, headsKv, minMs, minRuns }) {
  const w = engineWorker();
  try {
    const setup = await workerCall(w, { cmd: 'decodeSetup', S, d, headsQ, headsKv });
    const rounds = await workerCall(w, { cmd: 'decodeRounds', minMs, minRuns });
    return { S, d, headsQ, ...setup, ...rounds, setupHeapBytes: setup.heapBytes };
  } finally { w.terminate(); }
}

// pool.multiheadAttention, grouped-query against multi-head with the same H_q, timed in
// interleaved rounds on one pool; each output first checked against one
// engine.multiheadAttention 'reference' call in the page. kvBytesSent: the K/V bytes the
// pool posted to its workers for one call (counted by the pool).
async function headsBench({ L, S, d, headsQ, headsKv, causal = true, variant = 'chunked', size = 2, minTime, minRuns }) {
  const { createEnginePool } = await import('/js/engine-link/engine-pool.mjs');
  mainEngine = mainEngine || await loadEngine();
  const pool = createEnginePool({ size });
  try {
    await pool.ready;
    const q = mainEngine.randomNormal({ seed: 42, rows: headsQ * L, cols: d });
    const cases = [];
    for (const hkv of headsKv) {
      const args = { q, k: mainEngine.randomNormal({ seed: 43, rows: hkv * S, cols: d }), v: mainEngine.randomNormal({ seed: 44, rows: hkv * S, cols: d }),
        headsQ, headsKv: hkv, causal, variant };
      const ref = mainEngine.multiheadAttention({ ...args, variant: 'reference' }).out.data;
      const first = await pool.multiheadAttention(args);
      const diff = maxAbsDiff(first.out.data, ref);
      cases.push({ headsKv: hkv, args, maxAbsDiff: diff, ok: diff <= TOLERANCE, kvBytesSent: first.kvBytesSent, kernelCalls: first.kernelCalls,
        tasks: first.tasks, workers: first.workers, ms: Infinity, runs: 0, total: 0 });
    }
    const live = cases.filter((c) => c.ok);
    for (let round = 0; live.some((c) => c.runs < minRuns || c.total < minTime * 1e3); round++) {
      for (let i = 0; i < live.length; i++) {
        const c = live[(i + round) % live.length];
        const t0 = performance.now();
        await pool.multiheadAttention(c.args);
        const ms = performance.now() - t0;
        c.ms = Math.min(c.ms, ms); c.total += ms; c.runs++;
      }
    }
    return cases.map(({ args, ...c }) => ({ ...c, L, S, d, headsQ, causal, variant, ms: c.ok ? c.ms : null,
      flops: 2 * 2 * d * headsQ * mainEngine.visiblePairs({ L, S, causal }) }));
  } finally { pool.terminate(); }
}

// ------------------------------------------------------------------ API for the driver
const runners = new Map();   // id -> runner
const RUNNERS = { ours: oursRunner, pool: poolRunner, tfjs: tfjsRunner, ort: ortRunner };

async function prepare(spec) {
  const runner = RUNNERS[spec.kind](spec);
  try {
    const r = await runner.first();
    const c = check(r.out, spec.n, spec.causal);
    if (!c.ok) { await runner.dispose(); return c; }
    runners.set(spec.id, runner);
    return c;
  } catch (e) {
    await runner.dispose();
    throw e;
  }
}

async function rounds({ ids, minTime, minRuns }) {
  const stats = Object.fromEntries(ids.map((id) => [id, { ms: Infinity, runs: 0, total: 0 }]));
  const done = () => ids.every((id) => stats[id].runs >= minRuns && stats[id].total >= minTime * 1e3);
  for (let round = 0; !done(); round++) {
    for (let j = 0; j < ids.length; j++) {
      const id = ids[(j + round) % ids.length];   // rotate who goes first
      const s = stats[id];
      if (s.runs >= minRuns && s.total >= minTime * 1e3) continue;
      const ms = await runners.get(id).step();
      s.ms = Math.min(s.ms, ms);
      s.total += ms;
      s.runs++;
    }
  }
  const out = {};
  for (const id of ids) out[id] = { ms: stats[id].ms, runs: stats[id].runs, ...(await runners.get(id).meta()) };
  return out;
}

async function dispose(ids) {
  for (const id of ids) { const r = runners.get(id); runners.delete(id); if (r) await r.dispose(); }
  return true;
}

window.bench = {
  info: async () => ({
    userAgent: navigator.userAgent, crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency,
    // which of our two builds this browser runs: 'relaxed' (attn-relaxed.wasm) or 'simd128' (attn.wasm)
    engineWasm: (await import('/js/engine.mjs')).wasmBuild(),
  }),
  ceiling,
  reference,
  windowRun,
  decodeBench,
  headsBench,
  prepare,
  rounds,
  dispose,
  tfjsInfo: loadTfjs,
  ortInfo: async (threads) => (await ortWorker(threads)).info,
};
log('ready');
window.benchReady = true;
