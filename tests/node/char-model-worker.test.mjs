// The character model across the worker road: char-model-worker.mjs's handlers
// served by transport.mjs behind a fake worker (fake-worker.mjs: a real
// MessageChannel, every message structured-cloned). Checks that a run in the
// worker gives the same losses as the same steps through engine.mjs here, that
// progress arrives per step, that aborting the request's signal stops the run
// between steps and the worker keeps answering, and that errors keep their codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { connectWorker } from '../../web/js/engine-link/transport.mjs';
import { charModelHandlers } from '../../web/js/engine-link/char-model-worker.mjs';
import { installFakeWorkers } from './fake-worker.mjs';
import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const workers = installFakeWorkers(() => ({ target: engine, handlers: charModelHandlers(engine) }));
test.after(() => workers.uninstall());

const CONFIG = { vocab: 6, context: 16, width: 32, layers: 1, heads: 4 };
const text = Uint32Array.from({ length: 200 }, (_, i) => (i * 7) % 5);

test('training in the worker: progress per step, falling loss, the same numbers as engine.mjs here', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const { id, parameterCount } = await link.request('charModelCreate', [CONFIG]);
  assert.equal(parameterCount, engine.charModelParameterCount(CONFIG));
  const seen = [];
  const r = await link.request('charModelTrain', [{ id, tokens: text, steps: 30, batch: 2, length: 8, seed: 3 }],
    { onProgress: (p) => seen.push(p) });
  assert.equal(r.aborted, false);
  assert.equal(r.step, 30);
  assert.deepEqual(seen.map((p) => p.step), Array.from({ length: 30 }, (_, i) => i + 1));
  assert.ok(r.losses.at(-1) < 0.6 * r.losses[0], `loss ${r.losses[0]} -> ${r.losses.at(-1)}`);

  // the same first step here: same seed, same first batch, same loss
  const local = engine.charModel(CONFIG);
  try {
    const first = await link.request('charModelCreate', [CONFIG]);
    const one = await link.request('charModelTrain', [{ id: first.id, tokens: text, steps: 1, batch: 1, length: 16, seed: 9 }]);
    const { probs } = await link.request('charModelForward', [{ id: first.id, tokens: [0, 1, 2] }]);
    assert.equal(probs.rows, 3);
    // every window of the text: the loss of the worker's step is one of them, before any update
    const candidates = [];
    for (let s = 0; s + 16 < text.length; s++)
      candidates.push(local.evaluate(text.subarray(s, s + 16), text.subarray(s + 1, s + 17)));
    assert.ok(candidates.some((x) => x === one.losses[0]), `worker loss ${one.losses[0]} is no window's loss here`);
    await link.request('charModelDelete', [{ id: first.id }]);
  } finally {
    local.delete();
  }
  const params = await link.request('charModelParameters', [{ id }]);
  assert.equal(params.length, parameterCount);
  assert.deepEqual(await link.request('charModelDelete', [{ id }]), { deleted: true });
  assert.equal(engine.charModelsLive(), 0);
  link.terminate();
});

test('aborting the request stops the run between steps; the worker answers the next request', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const { id } = await link.request('charModelCreate', [CONFIG]);
  const controller = new AbortController();
  const steps = [];
  const r = await link.request('charModelTrain', [{ id, tokens: text, steps: 10000, batch: 1, length: 8 }], {
    signal: controller.signal,
    onProgress: (p) => { steps.push(p.step); if (p.step === 3) controller.abort(); },
  });
  assert.equal(r.aborted, true);
  assert.ok(r.step >= 3 && r.step < 10000, `stopped at step ${r.step}`);
  assert.equal(r.losses.length, r.step);
  const loss = await link.request('charModelEvaluate', [{ id, inputs: [0, 1, 2], targets: [1, 2, 3] }]);
  assert.ok(Number.isFinite(loss));
  // a signal aborted before the request runs: no step at all
  const done = new AbortController();
  done.abort();
  const none = await link.request('charModelTrain', [{ id, tokens: text, steps: 5, length: 8 }], { signal: done.signal });
  assert.deepEqual([none.aborted, none.losses.length, none.step], [true, 0, r.step]);
  await link.request('charModelDelete', [{ id }]);
  link.terminate();
});

test('errors cross with their codes', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  await assert.rejects(link.request('charModelCreate', [{ ...CONFIG, width: 30 }]), { code: 'BadArgument' });
  const { id } = await link.request('charModelCreate', [CONFIG]);
  await assert.rejects(link.request('charModelForward', [{ id, tokens: [7] }]), { code: 'BadArgument', message: /vocabulary size 6/ });
  await assert.rejects(link.request('charModelTrain', [{ id, tokens: text.subarray(0, 8), steps: 1, length: 8 }]), { code: 'ShapeMismatch' });
  await assert.rejects(link.request('charModelEvaluate', [{ id: 999, inputs: [1], targets: [1] }]), { code: 'BadArgument', message: /no character model 999/ });
  await link.request('charModelDelete', [{ id }]);
  assert.equal(engine.charModelsLive(), 0);
  link.terminate();
});

test('sampling, a decoder and checkpoints across the worker road', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const { id } = await link.request('charModelCreate', [CONFIG]);
  await link.request('charModelTrain', [{ id, tokens: text, steps: 20, batch: 2, length: 8 }]);
  const a = await link.request('charModelSample', [{ id, prompt: [0, 2], count: 10, seed: 4 }]);
  assert.ok(a instanceof Uint32Array && a.length === 10);
  assert.deepEqual(await link.request('charModelSample', [{ id, prompt: [0, 2], count: 10, seed: 4 }]), a);

  const { decoder } = await link.request('charDecoderCreate', [{ id }]);
  const { probs: rows } = await link.request('charModelForward', [{ id, tokens: [0, 2, 4] }]);
  for (const [t, token] of [0, 2, 4].entries()) {
    const r = await link.request('charDecoderFeed', [{ decoder, token }]);
    assert.equal(r.length, t + 1);
    assert.ok(r.cacheBytes <= r.cacheCapacityBytes);
    for (let i = 0; i < CONFIG.vocab; i++) assert.ok(Math.abs(r.probs[i] - rows.data[t * CONFIG.vocab + i]) < 1e-5);
  }

  const bytes = await link.request('charModelSave', [{ id, format: 'f32', vocabulary: [10, 32, 97, 98, 99, 100] }]);
  assert.ok(bytes instanceof Uint8Array);
  const loaded = await link.request('charModelLoad', [{ bytes: bytes.slice() }]);
  assert.deepEqual(loaded.vocabulary, [10, 32, 97, 98, 99, 100]);
  assert.deepEqual(await link.request('charModelParameters', [{ id: loaded.id }]), await link.request('charModelParameters', [{ id }]));
  await assert.rejects(link.request('charModelLoad', [{ bytes: bytes.slice(0, bytes.length - 5) }]), { code: 'BadArgument', message: /truncated/ });

  await link.request('charModelDelete', [{ id }]);
  await assert.rejects(link.request('charDecoderFeed', [{ decoder, token: 1 }]), { code: 'BadArgument' });
  await link.request('charModelDelete', [{ id: loaded.id }]);
  assert.equal(engine.charModelsLive(), 0);
  link.terminate();
});
