// The character model's half inside the engine worker (engine-worker.mjs serves these
// handlers through transport.mjs). A model handle cannot cross to the page, so the
// worker keeps the models under numeric ids and the page names them:
//   charModelCreate   [config]                          engine.charModel(config) → {id, config, parameterCount}
//   charModelTrain    [{id, tokens, steps, batch, length, seed}], {progress, signal}
//        `steps` steps on batches of `batch` windows of `length` + 1 characters of
//        `tokens` (starts drawn by a seeded generator, so a run repeats); a progress
//        message {index, step, loss, gradNorm} after each step; the request's signal
//        (link.request(..., {signal})) stops it between steps → {losses, step, aborted}
//   charModelEvaluate [{id, inputs, targets, batch}]    → loss (nats per character)
//   charModelForward  [{id, tokens}]                    → {probs, attention}
//   charModelParameters [{id}]                          → Float32Array (transferred)
//   charModelDelete   [{id}]                            frees it and its decoders (an unknown id is a no-op)
//   charModelSample   [{id, prompt, count, temperature, topK, seed}]  → Uint32Array of new characters
//   charModelSave     [{id, format, optimizer, vocabulary}]           → Uint8Array checkpoint (transferred)
//   charModelLoad     [{bytes}]          → {id, config, parameterCount, vocabulary, format, optimizer}
//   charDecoderCreate [{id}]             → {decoder}: an id for one-character-at-a-time generation
//   charDecoderFeed   [{decoder, token}] → {probs, length, cacheBytes, cacheCapacityBytes}
//   charDecoderDelete [{decoder}]
// Argument checks are engine.mjs's (the handle's); this file checks only the id and the
// window sizes it derives batches from.
import { codedError } from './transport.mjs';

// A small seeded generator (mulberry32) for the window starts: the same seed gives
// the same batches in every browser and in Node.
function windowStarts(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
}

const whole = (name, x, min) => {
  if (!Number.isInteger(x) || x < min) throw codedError('BadArgument', `charModelTrain: ${name} must be a whole number of at least ${min}, got ${String(x)}`);
  return x;
};

export function charModelHandlers(engine) {
  const models = new Map();   // id → handle
  const decoders = new Map(); // decoder id → {model id, handle}
  let nextId = 1;
  const keep = (m) => { const id = nextId++; models.set(id, m); return id; };

  const model = (id, fn) => {
    const m = models.get(id);
    if (!m) throw codedError('BadArgument', `${fn}: no character model ${String(id)} in this worker (deleted, or the worker was restarted)`);
    return m;
  };

  return {
    charModelCreate([config]) {
      const m = engine.charModel(config);
      return { id: keep(m), config: m.config, parameterCount: m.parameterCount };
    },

    async charModelTrain([{ id, tokens, steps, batch = 1, length, seed = 1 } = {}], { progress, signal } = {}) {
      const m = model(id, 'charModelTrain');
      const n = tokens?.length;
      whole('steps', steps, 0);
      whole('batch', batch, 1);
      whole('length', length, 1);
      whole('seed', seed, 0);
      if (!(n > length)) throw codedError('ShapeMismatch', `charModelTrain: ${n} characters of text, but a window needs ${length + 1}`);
      const next = windowStarts(seed);
      const inputs = new Uint32Array(batch * length), targets = new Uint32Array(batch * length);
      const result = await m.train({
        steps,
        signal,
        next: () => {
          for (let b = 0; b < batch; b++) {
            const s = next(n - length);
            for (let t = 0; t < length; t++) {
              inputs[b * length + t] = tokens[s + t];
              targets[b * length + t] = tokens[s + t + 1];
            }
          }
          return { inputs, targets, batch };
        },
        onStep: (s) => { if (progress) progress(s); },
      });
      return { ...result, step: m.step };
    },

    charModelEvaluate([{ id, inputs, targets, batch } = {}]) {
      return model(id, 'charModelEvaluate').evaluate(inputs, targets, batch);
    },

    charModelForward([{ id, tokens } = {}]) {
      return model(id, 'charModelForward').forward(tokens);
    },

    charModelParameters([{ id } = {}]) {
      return model(id, 'charModelParameters').parameters();
    },

    charModelDelete([{ id } = {}]) {
      const m = models.get(id);
      if (m) { m.delete(); models.delete(id); }
      for (const [d, entry] of decoders) if (entry.model === id) decoders.delete(d);  // the engine freed them
      return { deleted: Boolean(m) };
    },

    charModelSample([{ id, prompt, count, temperature, topK, seed } = {}]) {
      return model(id, 'charModelSample').sample(prompt, count, { temperature, topK, seed });
    },

    charModelSave([{ id, format, optimizer, vocabulary } = {}]) {
      return model(id, 'charModelSave').save({ format, optimizer, vocabulary });
    },

    charModelLoad([{ bytes } = {}]) {
      const { model: m, vocabulary, format, optimizer } = engine.loadCharModel(bytes);
      return { id: keep(m), config: m.config, parameterCount: m.parameterCount, vocabulary, format, optimizer };
    },

    charDecoderCreate([{ id } = {}]) {
      const decoder = nextId++;
      decoders.set(decoder, { model: id, handle: model(id, 'charDecoderCreate').decoder() });
      return { decoder };
    },

    charDecoderFeed([{ decoder, token } = {}]) {
      const entry = decoders.get(decoder);
      if (!entry) throw codedError('BadArgument', `charDecoderFeed: no decoder ${String(decoder)} in this worker (deleted, or its model was)`);
      const d = entry.handle;
      const probs = d.feed(token);
      return { probs, length: d.length, cacheBytes: d.cacheBytes, cacheCapacityBytes: d.cacheCapacityBytes };
    },

    charDecoderDelete([{ decoder } = {}]) {
      const entry = decoders.get(decoder);
      if (entry) { entry.handle.delete(); decoders.delete(decoder); }
      return { deleted: Boolean(entry) };
    },
  };
}
