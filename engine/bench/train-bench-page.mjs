// The page of the training benchmark (train-bench.html), driven by train-bench.mjs
// through window.trainBench:
//   ceiling({minTime})  → one core's WASM SIMD128 ceiling in a module Worker (bench-worker.mjs)
//   compare({...})      → our model (train-worker.mjs, module Worker, 1 thread) against tfjs-wasm
//        (train-tfjs-worker.mjs, classic Worker, 1 thread) from OUR initial weights: parameter
//        counts, the loss of one held-out batch from identical weights, `checkSteps` identical
//        training steps (losses side by side, then a held-out batch again), then `rounds` timed
//        steps on identical batches, one step of each per round, the order alternating;
//        per-step times are measured inside each worker (performance.now() around trainStep).
//   curve({...})        → a fresh model trained until the bigram's held-out loss (train-worker.mjs 'curve'),
//        then the forward with all attention maps of 64 held-out characters, timed in the worker
//        and, round trip included (postMessage both ways), from the page.
import { batchSampler, validationBatches } from './train-data.mjs';
import { corpusData } from '/js/sections/train-compute.mjs';

function workerCall(worker, msg) {
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.ok ? resolve(data.result) : reject(new Error(data.error)));
    worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
    worker.postMessage(msg);
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function ceiling({ minTime }) {
  const w = new Worker('/bench/bench-worker.mjs', { type: 'module' });
  try { return await workerCall(w, { cmd: 'ceiling', minTime }); } finally { w.terminate(); }
}

async function compare({ corpusUrl, config, training, batch, seed, checkSteps, warmup, rounds }) {
  const data = corpusData(await (await fetch(corpusUrl)).text());
  const next = batchSampler(data.train, batch, config.context, seed);
  const held = validationBatches(data.val, config.context, batch)[0];
  const ours = new Worker('/bench/train-worker.mjs', { type: 'module' });
  const tfjs = new Worker('/bench/train-tfjs-worker.mjs');
  try {
    const o = await workerCall(ours, { cmd: 'init', config, training });
    const t = await workerCall(tfjs, { cmd: 'init', config, training, params: o.params });
    const ev = async () => [(await workerCall(ours, { cmd: 'evaluate', ...held })).loss, (await workerCall(tfjs, { cmd: 'evaluate', ...held })).loss];
    const [initOurs, initTfjs] = await ev();
    const check = [];
    for (let i = 0; i < checkSteps; i++) {
      const b = next();
      const a = await workerCall(ours, { cmd: 'step', ...b }), c = await workerCall(tfjs, { cmd: 'step', ...b });
      check.push({ ours: a.loss, tfjs: c.loss });
    }
    const [afterOurs, afterTfjs] = await ev();
    for (let i = 0; i < warmup; i++) {
      const b = next();
      await workerCall(ours, { cmd: 'step', ...b });
      await workerCall(tfjs, { cmd: 'step', ...b });
    }
    const ms = { ours: [], tfjs: [] };
    let tensors = null;
    for (let r = 0; r < rounds; r++) {
      const b = next();
      const order = r % 2 ? ['tfjs', 'ours'] : ['ours', 'tfjs'];
      for (const who of order) {
        const x = await workerCall(who === 'ours' ? ours : tfjs, { cmd: 'step', ...b });
        ms[who].push(x.ms);
        if (who === 'tfjs') tensors = x.tensors;
      }
    }
    return {
      parameterCount: { ours: o.parameterCount, tfjs: t.parameterCount }, simd: o.simd,
      tfjs: { version: t.version, backend: t.backend, threads: t.threads, simd: t.simd, multithreadBuild: t.multithreadBuild, liveTensors: tensors },
      initialLoss: { ours: initOurs, tfjs: initTfjs, heldChars: held.chars }, check,
      afterCheckLoss: { ours: afterOurs, tfjs: afterTfjs },
      ms, medianMs: { ours: median(ms.ours), tfjs: median(ms.tfjs) }, tokensPerStep: batch * config.context,
    };
  } finally { ours.terminate(); tfjs.terminate(); }
}

async function curve({ corpusUrl, config, training, batch, seed, every, maxSteps, maxSeconds, target, forwardRuns }) {
  const w = new Worker('/bench/train-worker.mjs', { type: 'module' });
  try {
    const c = await workerCall(w, { cmd: 'curve', corpusUrl, config, training, batch, seed, every, maxSteps, maxSeconds, target });
    const inWorker = await workerCall(w, { cmd: 'forwardAttention', runs: forwardRuns });
    const trip = [];
    for (let r = 0; r < forwardRuns; r++) {
      const t0 = performance.now();
      const x = await workerCall(w, { cmd: 'forwardAttention', runs: 1, returnMaps: true });
      if (x.maps.attention.length !== config.layers) throw new Error('forward: wrong number of layers');
      trip.push(performance.now() - t0);
    }
    return { ...c, forward: { ...inWorker, roundTripMedianMs: median(trip), roundTripMinMs: Math.min(...trip) } };
  } finally { w.terminate(); }
}

window.trainBench = { ceiling, compare, curve };
window.trainBenchReady = true;
