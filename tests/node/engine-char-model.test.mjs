// The character model through engine.mjs (attn::CharModel behind a handle):
// what the engine computes (initial loss near ln V, a falling loss on a
// repeating text, causal attention rows that sum to 1, the same seed giving
// the same weights), that delete() frees, that bad arguments get the typed
// codes, and that train() stops between steps when its signal aborts.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const SMALL = { vocab: 8, context: 16, width: 32, layers: 2, heads: 4, kvHeads: 2 };

// A repeating text of 5 characters: the next one is fully predictable.
const text = Array.from({ length: 64 }, (_, i) => i % 5);
const window = (start, T) => ({ inputs: text.slice(start, start + T), targets: text.slice(start + 1, start + T + 1) });

function throwsCode(fn, code, ...patterns) {
  assert.throws(fn, (error) => {
    assert.equal(error.code, code, `code for: ${error.message}`);
    for (const p of patterns) assert.match(error.message, p);
    return true;
  });
}

function withModel(config, fn) {
  const model = engine.charModel(config);
  try { return fn(model); } finally { model.delete(); }
}

test('a fresh model predicts about uniformly: loss near ln V', () => {
  withModel({ ...SMALL, vocab: 20 }, (m) => {
    const { inputs, targets } = window(0, 16);
    const loss = m.evaluate(inputs, targets);
    assert.ok(Math.abs(loss - Math.log(20)) < 0.3, `loss ${loss}, ln 20 = ${Math.log(20)}`);
    assert.equal(m.step, 0);
  });
});

test('30 steps on a repeating text: the loss falls, step counts, weights change', () => {
  withModel(SMALL, (m) => {
    const before = m.parameters();
    assert.equal(before.length, m.parameterCount);
    assert.equal(m.parameterCount, engine.charModelParameterCount(SMALL));
    const losses = [];
    for (let s = 0; s < 30; s++) {
      const a = window(s % 5, 16), b = window((s + 2) % 5, 16);
      losses.push(m.trainStep([...a.inputs, ...b.inputs], [...a.targets, ...b.targets], 2));
    }
    assert.equal(m.step, 30);
    assert.ok(m.lastGradNorm > 0 && Number.isFinite(m.lastGradNorm));
    assert.ok(losses.at(-1) < 0.5 * losses[0], `loss ${losses[0]} -> ${losses.at(-1)}`);
    const { inputs, targets } = window(1, 16);
    assert.ok(m.evaluate(inputs, targets) < 0.5 * losses[0]);
    const after = m.parameters();
    assert.ok(after.some((x, i) => x !== before[i]));
  });
});

test('same seed and data give the same weights; another seed other weights', () => {
  const run = (seed) => withModel({ ...SMALL, seed }, (m) => {
    for (let s = 0; s < 3; s++) m.trainStep(window(s, 16).inputs, window(s, 16).targets);
    return m.parameters();
  });
  assert.deepEqual(run(7), run(7));
  assert.notDeepEqual(run(7), run(8));
});

test('forward: probabilities per position and causal attention rows that sum to 1', () => {
  withModel(SMALL, (m) => {
    const T = 12;
    const { probs, attention } = m.forward(text.slice(0, T));
    assert.equal(probs.rows, T);
    assert.equal(probs.cols, SMALL.vocab);
    for (let i = 0; i < T; i++) {
      const sum = probs.data.subarray(i * 8, i * 8 + 8).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `probs row ${i} sums to ${sum}`);
    }
    assert.equal(attention.length, SMALL.layers);
    for (const layer of attention) {
      assert.equal(layer.length, SMALL.heads);
      for (const w of layer) {
        assert.equal(w.rows, T);
        assert.equal(w.cols, T);
        for (let i = 0; i < T; i++) {
          let sum = 0;
          for (let j = 0; j < T; j++) {
            const x = w.data[i * T + j];
            if (j > i) assert.equal(x, 0, `weight (${i}, ${j}) sees the future`);
            sum += x;
          }
          assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
        }
      }
    }
  });
});

test('delete frees: 100 models created and deleted leave none live; a deleted handle refuses', () => {
  const live = engine.charModelsLive();
  for (let i = 0; i < 100; i++) engine.charModel(SMALL).delete();
  assert.equal(engine.charModelsLive(), live);
  const m = engine.charModel(SMALL);
  assert.equal(engine.charModelsLive(), live + 1);
  m.delete();
  m.delete();  // twice is harmless
  assert.equal(engine.charModelsLive(), live);
  throwsCode(() => m.forward([1]), 'BadArgument', /^forward: this character model was deleted/);
  throwsCode(() => m.trainStep([1], [2]), 'BadArgument', /was deleted/);
});

test('bad arguments: the typed codes, from engine.mjs or the engine', () => {
  throwsCode(() => engine.charModel({}), 'BadArgument', /^charModel: vocab must be a whole number/);
  throwsCode(() => engine.charModel({ vocab: 0 }), 'ZeroDimension', /vocab is 0/);
  throwsCode(() => engine.charModel({ vocab: 8, depth: 2 }), 'BadArgument', /unknown option 'depth'/);
  throwsCode(() => engine.charModel({ ...SMALL, width: 30 }), 'BadArgument', /width 30 is not a multiple of 4 heads/);
  throwsCode(() => engine.charModel({ ...SMALL, kvHeads: 3 }), 'BadArgument', /not a multiple of 3 key\/value heads/);
  throwsCode(() => engine.charModel({ ...SMALL, training: { lrMax: NaN } }), 'NonFinite', /training\.lrMax/);
  throwsCode(() => engine.charModel({ ...SMALL, training: { clipNorm: 0 } }), 'BadArgument', /clipNorm is 0/);
  throwsCode(() => engine.charModel({ ...SMALL, training: { lrMax: 1e-3, lrMin: 1e-2 } }), 'BadArgument', /lrMin/);
  throwsCode(() => engine.charModel({ vocab: 8, width: 2 ** 20, context: 2 ** 20 }), 'TooLarge');
  assert.equal(engine.charModelsLive(), 0);
  withModel(SMALL, (m) => {
    throwsCode(() => m.trainStep([1, 2], [2]), 'ShapeMismatch', /2 inputs but 1 targets/);
    throwsCode(() => m.trainStep([1, 2, 3], [2, 3, 4], 2), 'ShapeMismatch', /do not split into 2/);
    throwsCode(() => m.trainStep([1, 8], [2, 3]), 'BadArgument', /input 1 is 8, not below the vocabulary size 8/);
    throwsCode(() => m.trainStep([1, 2.5], [2, 3]), 'BadArgument', /inputs\[1\] must be a character id/);
    throwsCode(() => m.trainStep(new Float32Array(2), [2, 3]), 'BadArgument', /Uint32Array or an array/);
    throwsCode(() => m.evaluate([], []), 'ZeroDimension', /inputs is empty/);
    throwsCode(() => m.forward(new Uint32Array(17)), 'ShapeMismatch', /context of 16/);
    throwsCode(() => m.forward([9]), 'BadArgument', /vocabulary size 8/);
    assert.equal(m.step, 0, 'a refused step changes nothing');
    // the model is still usable
    assert.ok(Number.isFinite(m.trainStep(new Uint32Array([1, 2]), new Uint32Array([2, 3]))));
  });
});

test('train(): onStep per step; an abort stops it between steps', async () => {
  const m = engine.charModel(SMALL);
  try {
    const controller = new AbortController();
    const seen = [];
    const result = await m.train({
      steps: 50,
      next: (i) => ({ ...window(i % 5, 16), batch: 1 }),
      signal: controller.signal,
      onStep: (s) => {
        seen.push(s);
        if (s.index === 4) controller.abort();
      },
    });
    assert.equal(result.aborted, true);
    assert.equal(result.losses.length, 5);
    assert.equal(m.step, 5);
    assert.deepEqual(seen.map((s) => s.step), [1, 2, 3, 4, 5]);
    // an abort from outside (a timer), while train() waits between steps
    const outer = new AbortController();
    const running = m.train({ steps: 1000, next: () => ({ ...window(0, 16) }), signal: outer.signal });
    setTimeout(() => outer.abort(), 0);
    const r2 = await running;
    assert.equal(r2.aborted, true);
    assert.ok(r2.losses.length < 1000);
    await assert.rejects(m.train({ steps: 1, next: 3 }), { code: 'BadArgument' });
    await assert.rejects(m.train({ steps: 1, next: () => 5 }), { code: 'BadArgument' });
  } finally {
    m.delete();
  }
});

// ------------------------------------------------------------------ sampling and the decoder
// A model trained a little on the repeating text, so that its argmax is meaningful.
function trained() {
  const m = engine.charModel(SMALL);
  for (let s = 0; s < 40; s++) m.trainStep(window(s % 5, 16).inputs, window(s % 5, 16).targets);
  return m;
}

test('sample: the same seed gives the same text; topK 1 is the argmax of forward', () => {
  const m = trained();
  try {
    const a = m.sample([0, 1, 2], 12, { seed: 5, temperature: 1.5 });
    assert.ok(a instanceof Uint32Array);
    assert.equal(a.length, 12);
    assert.ok(a.every((t) => t < SMALL.vocab));
    assert.deepEqual(m.sample([0, 1, 2], 12, { seed: 5, temperature: 1.5 }), a);
    const others = [6, 7, 8].map((seed) => m.sample([0, 1, 2], 12, { seed, temperature: 1.5 }).join());
    assert.ok(others.some((x) => x !== a.join()), 'other seeds give other text');
    // greedy: each new character is the argmax of forward's last row on the text so far
    const text = [0, 1, 2];
    const greedy = m.sample(text, 8, { topK: 1 });
    for (const next of greedy) {
      const { probs } = m.forward(text);
      const last = probs.data.subarray((probs.rows - 1) * probs.cols);
      assert.equal(next, last.indexOf(Math.max(...last)));
      text.push(next);
    }
    assert.deepEqual(Array.from(greedy), [3, 4, 0, 1, 2, 3, 4, 0], 'the trained model continues the pattern');
    assert.equal(m.sample([1], 0).length, 0);
  } finally {
    m.delete();
  }
});

test('decoder: feed one character at a time equals forward rows; cache grows to its capacity; context is the limit', () => {
  const m = trained();
  try {
    const d = m.decoder();
    const text = text16();
    const { probs } = m.forward(text);
    for (let t = 0; t < text.length; t++) {
      const p = d.feed(text[t]);
      assert.equal(p.length, SMALL.vocab);
      const row = probs.data.subarray(t * SMALL.vocab, (t + 1) * SMALL.vocab);
      for (let i = 0; i < p.length; i++) assert.ok(Math.abs(p[i] - row[i]) < 1e-5, `position ${t}, char ${i}: ${p[i]} vs ${row[i]}`);
      assert.equal(d.length, t + 1);
      assert.ok(d.cacheBytes > 0 && d.cacheBytes <= d.cacheCapacityBytes);
    }
    throwsCode(() => d.feed(1), 'ShapeMismatch');
    assert.equal(d.length, 16, 'a refused feed changes nothing');
    d.delete();
    throwsCode(() => d.feed(1), 'BadArgument', /decoder was deleted/);
    const e = m.decoder();
    throwsCode(() => e.feed(8), 'BadArgument', /8/);
    throwsCode(() => e.feed(-1), 'BadArgument', /token must be a character id/);
    m.delete();
    throwsCode(() => e.feed(1), 'BadArgument', /character model was deleted/);
  } finally {
    m.delete();
  }
});

test('sample: bad arguments get the typed codes', () => {
  withModel(SMALL, (m) => {
    throwsCode(() => m.sample([1], 4, { temperature: 0 }), 'BadArgument', /temperature is 0/);
    throwsCode(() => m.sample([1], 4, { temperature: Infinity }), 'NonFinite', /temperature/);
    throwsCode(() => m.sample([1], 4, { topK: 9 }), 'BadArgument', /9/);
    throwsCode(() => m.sample([8], 4), 'BadArgument', /8/);
    throwsCode(() => m.sample([1], 1.5), 'BadArgument', /count must be a whole number/);
    throwsCode(() => m.sample([1], 4, { top_k: 2 }), 'BadArgument', /unknown option 'top_k'/);
  });
});

function text16() { return text.slice(0, 16); }
