// Chapter 14's compute modules (web/js/sections/train-compute.mjs, train-backward.mjs) on the
// real engine and the real corpus: the baselines equal the shipped models' json, the batches
// repeat from a seed, a saved run comes back exactly (and trains on exactly as the original
// would), a damaged one is refused with a typed reason, and the tile-by-tile backward equals
// the materialized one and finite differences of the engine's forward.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';

import { loadEngine } from './engine-fixtures.mjs';
import { corpusData, baselines, tokenize, detokenize, SIZES, modelConfig, chunkSeed, validationWindows, showcaseTokens,
  encodeRun, decodeRun, RUN_FORMAT, RUN_VERSION, defaultSize } from '../../web/js/sections/train-compute.mjs';
import { backwardExample, keptBytes, crossEntropyRow, drawExample, forwardSaved, EXAMPLE } from '../../web/js/sections/train-backward.mjs';
import { charModelHandlers } from '../../web/js/engine-link/char-model-worker.mjs';

const engine = await loadEngine();
const root = new URL('../../', import.meta.url);
const corpus = (lang) => readFileSync(new URL(`engine/tools/corpus/${lang}.txt`, root), 'utf8');
const shipped = (lang) => JSON.parse(readFileSync(new URL(`web/models/${lang}.json`, root), 'utf8'));

for (const lang of ['fa', 'ar']) {
  test(`${lang}: the split and the add-one baselines equal the shipped model's json`, () => {
    const data = corpusData(corpus(lang));
    const j = shipped(lang);
    assert.equal(data.vocab.length, j.config.vocab);
    assert.equal(data.train.length, j.characters.train);
    assert.equal(data.val.length, j.characters.validation);
    const b = baselines(data);
    assert.ok(Math.abs(b.unigram - j.validation_nats_per_char.unigram_add_one) < 1e-7, `unigram ${b.unigram}`);
    assert.ok(Math.abs(b.bigram - j.validation_nats_per_char.bigram_add_one) < 1e-7, `bigram ${b.bigram}`);
    assert.ok(Math.abs(b.uniform - Math.log(j.config.vocab)) < 1e-12);
    // the vocabulary is the shipped checkpoint's
    const ck = engine.loadCharModel(new Uint8Array(readFileSync(new URL(`web/models/${lang}.ckpt`, root))));
    assert.deepEqual(ck.vocabulary, data.vocab);
    ck.model.delete();
  });
}

test('tokenize and detokenize are inverse on the corpus\'s characters; others are left out', () => {
  const data = corpusData(corpus('fa'));
  const s = 'سلام، دنیا';
  assert.equal(detokenize(tokenize(s, data), data), s);
  assert.equal(detokenize(tokenize('aسb', data), data), 'س');
  const show = showcaseTokens(data, 32);
  assert.equal(show.length, 32);
});

test('the default size: small on a narrow screen or with few cores', () => {
  assert.equal(defaultSize({ width: 360, cores: 8 }), 'small');
  assert.equal(defaultSize({ width: 1280, cores: 2 }), 'small');
  assert.equal(defaultSize({ width: 1280, cores: undefined }), 'small');
  assert.equal(defaultSize({ width: 1280, cores: 8 }), 'default');
});

test('the default size has about four times the weights of the small one (as train-compute.mjs says)', () => {
  for (const lang of ['fa', 'ar']) {
    const V = corpusData(corpus(lang)).vocab.length;
    const count = {};
    for (const size of Object.keys(SIZES)) {
      const m = engine.charModel(modelConfig(size, V, 1));
      count[size] = m.parameterCount;
      m.delete();
    }
    const ratio = count.default / count.small;
    assert.ok(ratio > 3.5 && ratio < 4.5, `${lang}: ${count.default} / ${count.small} = ${ratio}`);
  }
});

// The worker's training handler with the chapter's settings (the road the page takes).
const handlers = charModelHandlers(engine);
async function run(data, size, seed, chunks) {
  const { id } = handlers.charModelCreate([modelConfig(size, data.vocab.length, seed)]);
  const losses = [];
  let step = 0;
  for (const steps of chunks) {
    const r = await handlers.charModelTrain([{ id, tokens: data.train, steps, batch: SIZES[size].batch, length: SIZES[size].length, seed: chunkSeed(seed, step) }], {});
    losses.push(...r.losses);
    step = r.step;
  }
  return { id, losses, step };
}

test('a run repeats from its seed (same chunks), and another seed gives another run', async () => {
  const data = corpusData(corpus('fa'));
  const a = await run(data, 'small', 7, [3, 2]), b = await run(data, 'small', 7, [3, 2]), c = await run(data, 'small', 8, [3, 2]);
  assert.deepEqual(a.losses, b.losses);
  assert.notDeepEqual(a.losses, c.losses);
  assert.notEqual(chunkSeed(7, 0), chunkSeed(7, 3));
  for (const r of [a, b, c]) handlers.charModelDelete([{ id: r.id }]);
});

test('a saved run comes back exactly: same step, same loss, and it trains on as the original does', async () => {
  const data = corpusData(corpus('ar'));
  const size = 'small', seed = 3;
  const a = await run(data, size, seed, [4]);
  const val = validationWindows(data, SIZES[size].length);
  const before = handlers.charModelEvaluate([{ id: a.id, ...val }]);
  const bytes = handlers.charModelSave([{ id: a.id, format: 'f32', optimizer: true, vocabulary: data.vocab }]);
  const history = { train: a.losses.map((l, i) => [i + 1, l]), val: [[4, before]] };
  const record = structuredClone(encodeRun({ lang: 'ar', size, seed, step: a.step, history, checkpoint: bytes }));
  const back = decodeRun(record, { lang: 'ar' });
  assert.equal(back.ok, true);
  assert.deepEqual(back.run.history, history);
  assert.equal(back.run.step, 4);
  const loaded = handlers.charModelLoad([{ bytes: back.run.checkpoint }]);
  assert.equal(loaded.optimizer, true);
  assert.deepEqual(loaded.vocabulary, data.vocab);
  assert.equal(handlers.charModelEvaluate([{ id: loaded.id, ...val }]), before);
  // the next chunk, on the original and on the restored copy
  const next = { tokens: data.train, steps: 3, batch: SIZES[size].batch, length: SIZES[size].length, seed: chunkSeed(seed, 4) };
  const x = await handlers.charModelTrain([{ id: a.id, ...next }], {});
  const y = await handlers.charModelTrain([{ id: loaded.id, ...next }], {});
  assert.deepEqual(y.losses, x.losses);
  assert.equal(y.step, 7);
  handlers.charModelDelete([{ id: a.id }]);
  handlers.charModelDelete([{ id: loaded.id }]);
});

test('a damaged saved run is refused with a typed reason, never a throw', () => {
  const checkpoint = Uint8Array.from({ length: 64 }, (_, i) => i);
  const good = encodeRun({ lang: 'fa', size: 'small', seed: 1, step: 2, history: { train: [[1, 4.1], [2, 4]], val: [] }, checkpoint });
  assert.equal(decodeRun(good, { lang: 'fa' }).ok, true);
  const reason = (r) => decodeRun(r, { lang: 'fa' }).reason;
  for (const garbage of [null, undefined, 'garbage', 42, [], {}, { format: 'x' }, new Uint8Array(9)]) assert.equal(reason(garbage), 'format');
  assert.equal(reason({ ...good, version: RUN_VERSION + 1 }), 'version');
  assert.equal(reason({ ...good, version: 'one' }), 'format');
  const flipped = new Uint8Array(good.checkpoint); flipped[10] ^= 1;
  assert.equal(reason({ ...good, checkpoint: flipped }), 'checksum');
  assert.equal(reason({ ...good, checkpoint: good.checkpoint.subarray(0, 10) }), 'checksum');
  assert.equal(reason({ ...good, meta: good.meta.replace('"step":2', '"step":3') }), 'checksum');
  assert.equal(reason({ ...good, checkpoint: 'bytes' }), 'fields');
  assert.equal(decodeRun(good, { lang: 'ar' }).reason, 'language');
  // a meta that checks out but holds nonsense
  const bad = encodeRun({ lang: 'fa', size: 'huge', seed: 1, step: 2, history: { train: [], val: [] }, checkpoint });
  assert.equal(reason(bad), 'fields');
  const bad2 = encodeRun({ lang: 'fa', size: 'small', seed: -1, step: 2, history: { train: [], val: [] }, checkpoint });
  assert.equal(reason(bad2), 'fields');
  assert.equal(RUN_FORMAT, good.format);
  // a record that passes the checksum but whose checkpoint the engine refuses: a typed engine code
  let code = null;
  try { engine.loadCharModel(good.checkpoint); } catch (e) { code = e.code; }
  assert.ok(typeof code === 'string' && code.length > 0, `engine code ${code}`);
});

test('the tile-by-tile backward equals the materialized one and finite differences of the engine\'s forward', async () => {
  for (const seed of [1, 2, 5]) {
    const r = await backwardExample(engine, seed);
    assert.equal(r.steps.length, 6, 'n = 6, tiles of 2, causal: 6 of the 9 tiles are computed');
    assert.ok(r.diff < 1e-6, `chunked vs materialized ${r.diff}`);
    // lse: the weights the engine returned are exp(score − lse)
    for (let i = 0; i < EXAMPLE.n; i++) for (let j = 0; j <= i; j++) {
      const w = r.f.weights.data[i * EXAMPLE.n + j], s = r.f.scores.data[i * EXAMPLE.n + j];
      assert.ok(Math.abs(Math.exp(s - r.f.lse[i]) - w) < 1e-6);
    }
    // finite differences of L = Σ dO ∘ attention(q, k, v) through the engine (float32 forward)
    const base = await drawExample(engine, seed);
    const loss = (ex) => {
      const out = engine.attention({ q: ex.q, k: ex.k, v: ex.v, causal: true }).out;
      let s = 0;
      for (let i = 0; i < out.data.length; i++) s += Number(out.data[i]) * ex.dOut.data[i];
      return s;
    };
    const last = r.steps.at(-1);
    for (const [name, grad] of [['q', last.dQ], ['k', last.dK], ['v', last.dV]]) {
      for (let e = 0; e < grad.data.length; e += 3) {
        const h = 1e-2;
        const bump = (delta) => {
          const ex = structuredClone(base);
          ex[name].data[e] += delta;
          return loss(ex);
        };
        const fd = (bump(h) - bump(-h)) / (2 * h);
        assert.ok(Math.abs(fd - grad.data[e]) < 3e-3, `seed ${seed} d${name}[${e}]: tiles ${grad.data[e]}, finite differences ${fd}`);
      }
    }
  }
});

test('what the backward keeps: n numbers of log-sum-exp against n×n weights (engine scoreMatrixBytes)', async () => {
  assert.deepEqual(await keptBytes(engine, 6), { chunked: 24, materialized: 144 });
  assert.equal((await keptBytes(engine, 8192)).materialized, 8192 * 8192 * 4);
});

test('softmax cross-entropy gradient: p − y sums to zero and the loss is −ln p', async () => {
  const f = await forwardSaved(engine, await drawExample(engine, 1));
  assert.equal(f.lse.length, EXAMPLE.n);
  const probs = Float32Array.from([0.5, 0.2, 0.15, 0.1, 0.05]);
  const r = crossEntropyRow(probs, 3, 3);
  assert.deepEqual(r.rows.map((x) => x.id), [0, 1, 3]);
  assert.ok(Math.abs(r.rows[2].g - (0.1 - 1)) < 1e-7);
  assert.ok(Math.abs(r.loss + Math.log(0.1)) < 1e-6);
  assert.ok(Math.abs(r.gradSum) < 1e-6);
});

test('the drawn curve: at most max points, each the mean of its steps, the last step kept', async () => {
  const { curvePoints } = await import('../../web/js/sections/train-compute.mjs');
  const pairs = Array.from({ length: 1000 }, (_, i) => [i + 1, i % 2 ? 3 : 1]);
  const pts = curvePoints(pairs, 300);
  assert.ok(pts.length <= 300);
  assert.equal(pts.at(-1).x, 1000);
  assert.equal(pts[0].x, 4);                      // k = 4
  assert.equal(pts[0].y, 2);                      // mean of 1, 3, 1, 3
  assert.deepEqual(curvePoints([[1, 4.2], [2, 4.1]], 300), [{ x: 1, y: 4.2 }, { x: 2, y: 4.1 }]);
  assert.deepEqual(curvePoints([], 300), []);
});
