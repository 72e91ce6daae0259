// Checkpoints of the character model through engine.mjs: save → loadCharModel
// round trips (f32 exact and resuming training exactly with the optimizer's
// state; f16 and int8 within their stated bounds), and refusals with typed
// codes that build nothing (truncated, corrupted, empty, not bytes).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const SMALL = { vocab: 8, context: 16, width: 32, layers: 2, heads: 4, kvHeads: 2, seed: 4 };
const VOCAB = [10, 32, 0x627, 0x628, 0x67e, 0x6a9, 0x6cc, 0x200c];  // newline, space, ا ب پ ک ی, ZWNJ
const text = Array.from({ length: 64 }, (_, i) => (i * 3) % 7);
const batch = (s) => [text.slice(s, s + 16), text.slice(s + 1, s + 17)];

function trainedModel() {
  const m = engine.charModel(SMALL);
  for (let s = 0; s < 5; s++) m.trainStep(...batch(s));
  return m;
}

function throwsCode(fn, code, ...patterns) {
  assert.throws(fn, (error) => {
    assert.equal(error.code, code, `code for: ${error.message}`);
    for (const p of patterns) assert.match(error.message, p);
    return true;
  });
}

test('f32 with the optimizer: the same weights, vocabulary and step; training resumes exactly', () => {
  const m = trainedModel();
  const bytes = m.save({ format: 'f32', optimizer: true, vocabulary: VOCAB });
  assert.ok(bytes instanceof Uint8Array);
  const { model, vocabulary, format, optimizer } = engine.loadCharModel(bytes);
  try {
    assert.deepEqual(vocabulary, VOCAB);
    assert.equal(format, 'f32');
    assert.equal(optimizer, true);
    assert.equal(model.step, 5);
    assert.deepEqual({ ...model.config, training: undefined }, { ...m.config, training: undefined });
    assert.deepEqual(model.parameters(), m.parameters());
    // the next step from both: the same loss and the same weights after it
    assert.equal(model.trainStep(...batch(7)), m.trainStep(...batch(7)));
    assert.deepEqual(model.parameters(), m.parameters());
    // save() without a vocabulary keeps the loaded one
    assert.deepEqual(engine.loadCharModel(model.save()).vocabulary, VOCAB);
  } finally {
    model.delete();
    m.delete();
  }
});

test('f16 and int8: weights within their bounds, smaller files, forward close; without the optimizer step 0', () => {
  const m = trainedModel();
  const w = m.parameters();
  const sizes = {};
  for (const format of ['f32', 'f16', 'int8']) {
    const bytes = m.save({ format });
    sizes[format] = bytes.length;
    const { model, vocabulary, optimizer } = engine.loadCharModel(bytes);
    try {
      assert.deepEqual(vocabulary, [0, 1, 2, 3, 4, 5, 6, 7], 'default vocabulary 0..V-1');
      assert.equal(optimizer, false);
      assert.equal(model.step, 0);
      const back = model.parameters();
      let worst = 0;
      for (let i = 0; i < w.length; i++) worst = Math.max(worst, Math.abs(back[i] - w[i]) / Math.max(Math.abs(w[i]), 1e-3));
      if (format === 'f32') assert.equal(worst, 0);
      if (format === 'f16') assert.ok(worst <= 2 ** -10, `f16 relative error ${worst}`);
      const a = m.forward(text.slice(0, 16)).probs.data, b = model.forward(text.slice(0, 16)).probs.data;
      const diff = a.reduce((d, x, i) => Math.max(d, Math.abs(x - b[i])), 0);
      assert.ok(diff < (format === 'int8' ? 0.05 : 1e-3), `${format}: probabilities differ by ${diff}`);
    } finally {
      model.delete();
    }
  }
  assert.ok(sizes.int8 < sizes.f16 && sizes.f16 < sizes.f32, JSON.stringify(sizes));
  m.delete();
});

test('truncated, corrupted, empty or foreign bytes are refused with a typed code and build nothing', () => {
  const m = trainedModel();
  const bytes = m.save({ format: 'int8', optimizer: true });
  m.delete();
  const live = engine.charModelsLive();
  throwsCode(() => engine.loadCharModel(bytes.subarray(0, 1)), 'BadArgument');
  for (const cut of [10, bytes.length >> 1, bytes.length - 1])
    throwsCode(() => engine.loadCharModel(bytes.subarray(0, cut)), 'BadArgument', /truncated/);
  const flipped = bytes.slice();
  flipped[bytes.length >> 1] ^= 0x10;
  throwsCode(() => engine.loadCharModel(flipped), 'BadArgument', /corrupted|CRC/);
  const longer = new Uint8Array(bytes.length + 3);
  longer.set(bytes);
  throwsCode(() => engine.loadCharModel(longer), 'ShapeMismatch');
  const foreign = bytes.slice();
  foreign[0] ^= 0xff;
  throwsCode(() => engine.loadCharModel(foreign), 'BadArgument');
  throwsCode(() => engine.loadCharModel(new Uint8Array(0)), 'ZeroDimension', /bytes is empty/);
  throwsCode(() => engine.loadCharModel(Array.from(bytes)), 'BadArgument', /must be a Uint8Array/);
  assert.equal(engine.charModelsLive(), live, 'a refused file leaves no model behind');
  // the intact bytes still load
  engine.loadCharModel(bytes).model.delete();
});

test('save: bad options get the typed codes', () => {
  const m = engine.charModel(SMALL);
  try {
    throwsCode(() => m.save({ format: 'f64' }), 'BadArgument', /unknown format 'f64'/);
    throwsCode(() => m.save({ vocabulary: [1, 2, 3] }), 'BadArgument', /vocabulary/);
    throwsCode(() => m.save({ vocabulary: [0xd800, 1, 2, 3, 4, 5, 6, 7] }), 'BadArgument');
    throwsCode(() => m.save({ optimizer: 1 }), 'BadArgument', /optimizer must be true or false/);
  } finally {
    m.delete();
  }
});
