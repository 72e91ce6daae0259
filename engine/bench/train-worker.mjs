// Our engine's character model in a module Worker, one thread, for the training
// benchmark (train-bench-page.mjs). Messages (each answered {ok, result} or {ok: false, error}):
//   {cmd: 'init', config, training}          → {parameterCount, params (Float32Array), simd}
//   {cmd: 'evaluate', inputs, targets, batch} → {loss}
//   {cmd: 'step', inputs, targets, batch}     → {loss, ms}: one trainStep, performance.now() around it
//   {cmd: 'curve', corpusUrl, config, training, batch, seed, every, maxSteps, maxSeconds, target}
//        → a fresh model from `seed` trained on the corpus (train-data.mjs) with the schedule given,
//          the validation loss every `every` steps (the clock paused while it is measured), until the
//          loss is at most `target`, maxSteps steps, or maxSeconds of training:
//          {points: [{step, seconds, val, trainLoss}], reached: {step, seconds} | null, evalSeconds, ...}
//   {cmd: 'forwardAttention', runs, returnMaps} → the trained model's forward with all attention maps on
//          the first `context` held-out characters: {medianMs, minMs, runs, layers, heads, maps (if returnMaps)}
import { loadEngine } from '/js/engine.mjs';
import { batchSampler, validationBatches, validationLoss } from './train-data.mjs';
import { corpusData } from '/js/sections/train-compute.mjs';

let engine = null;
let model = null;
let trained = null;   // {model, val} after 'curve'

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function curve({ corpusUrl, config, training, batch, seed, every, maxSteps, maxSeconds, target }) {
  const text = await (await fetch(corpusUrl)).text();
  const data = corpusData(text);
  if (data.vocab.length !== config.vocab) throw new Error(`the corpus has ${data.vocab.length} characters, the config ${config.vocab}`);
  const m = engine.charModel({ ...config, training });
  const next = batchSampler(data.train, batch, config.context, seed);
  const val = validationBatches(data.val, config.context);
  const evalVal = () => validationLoss((i, t, b) => m.evaluate(i, t, b), val);
  const points = [];
  let seconds = 0, evalMs = 0, reached = null, step = 0, recent = [];
  const measure = () => {
    const t0 = performance.now();
    const v = evalVal();
    evalMs += performance.now() - t0;
    points.push({ step, seconds, val: v, trainLoss: recent.length ? recent.reduce((a, b) => a + b) / recent.length : null });
    recent = [];
    if (reached === null && v <= target) reached = { step, seconds };
    return v;
  };
  measure();
  const wall0 = performance.now();
  while (step < maxSteps && seconds < maxSeconds && reached === null) {
    const t0 = performance.now();
    const b = next();
    recent.push(m.trainStep(b.inputs, b.targets, b.batch));
    seconds += (performance.now() - t0) / 1000;
    step += 1;
    if (step % every === 0) measure();
  }
  if (step % every !== 0) measure();
  trained?.model.delete();
  trained = { model: m, val: data.val };
  return { points, reached, evalSeconds: evalMs / 1000, wallSeconds: (performance.now() - wall0) / 1000, steps: step,
    trainChars: data.train.length, valChars: data.val.length };
}

function forwardAttention({ runs, returnMaps = false }) {
  const T = trained.model.config.context;
  const text = trained.val.slice(0, T);
  const ms = [];
  let f = null;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    f = trained.model.forward(text);
    ms.push(performance.now() - t0);
  }
  const r = { medianMs: median(ms), minMs: Math.min(...ms), runs, chars: T, layers: f.attention.length, heads: f.attention[0].length };
  return returnMaps ? { ...r, maps: f } : r;   // the page's round trip carries the maps, as the lesson's worker would
}

self.onmessage = async ({ data: msg }) => {
  try {
    let result;
    if (!engine) engine = await loadEngine();
    switch (msg.cmd) {
      case 'init':
        model?.delete();
        model = engine.charModel({ ...msg.config, training: msg.training });
        result = { parameterCount: model.parameterCount, params: model.parameters(), simd: engine.info().simd };
        break;
      case 'evaluate':
        result = { loss: model.evaluate(msg.inputs, msg.targets, msg.batch) };
        break;
      case 'step': {
        const t0 = performance.now();
        const loss = model.trainStep(msg.inputs, msg.targets, msg.batch);
        result = { loss, ms: performance.now() - t0 };
        break;
      }
      case 'curve': result = await curve(msg); break;
      case 'forwardAttention': result = forwardAttention(msg); break;
      default: throw new Error(`unknown command ${msg.cmd}`);
    }
    self.postMessage({ ok: true, result });
  } catch (e) {
    self.postMessage({ ok: false, error: String(e?.stack || e) });
  }
};
