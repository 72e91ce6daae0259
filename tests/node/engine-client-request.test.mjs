// engine-client.mjs's `request(method, args, {signal, onProgress})`: the road a long
// call (the training chapter's charModelTrain) takes through a client of its own.
// The worker side is the real one (char-model-worker.mjs handlers on the real engine)
// behind a fake Worker (fake-worker.mjs: a MessageChannel, every message cloned).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngineClient } from '../../web/js/engine-link/engine-client.mjs';
import { charModelHandlers } from '../../web/js/engine-link/char-model-worker.mjs';
import { installFakeWorkers } from './fake-worker.mjs';
import { loadEngine } from './engine-fixtures.mjs';

const engine = await loadEngine();
const workers = installFakeWorkers(() => ({ target: engine, handlers: charModelHandlers(engine) }));
test.after(() => workers.uninstall());

const CONFIG = { vocab: 5, context: 8, width: 16, layers: 1, heads: 2 };
const text = Uint32Array.from({ length: 120 }, (_, i) => (i * 3) % 5);

test('progress arrives once per step, in order, with the losses the call returns', async () => {
  const client = createEngineClient();
  try {
    const { id } = await client.charModelCreate(CONFIG);
    const seen = [];
    const r = await client.request('charModelTrain', [{ id, tokens: text, steps: 6, batch: 2, length: 8, seed: 4 }],
      { onProgress: (p) => seen.push(p) });
    assert.equal(r.aborted, false);
    assert.deepEqual(seen.map((p) => p.step), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(seen.map((p) => p.loss), r.losses);
  } finally {
    client.terminate();
  }
});

test('aborting the signal stops the run between two steps; the worker keeps answering', async () => {
  const client = createEngineClient();
  try {
    const { id } = await client.charModelCreate(CONFIG);
    const stop = new AbortController();
    const seen = [];
    const r = await client.request('charModelTrain', [{ id, tokens: text, steps: 500, batch: 2, length: 8, seed: 4 }], {
      signal: stop.signal,
      onProgress: (p) => { seen.push(p.step); if (p.step === 3) stop.abort(); },
    });
    assert.equal(r.aborted, true);
    assert.ok(r.step >= 3 && r.step < 500, `stopped at step ${r.step}`);
    assert.equal(r.losses.length, r.step);
    // the model kept its steps: another call sees them
    const info = await client.request('charModelTrain', [{ id, tokens: text, steps: 1, batch: 1, length: 8, seed: 5 }]);
    assert.equal(info.step, r.step + 1);
  } finally {
    client.terminate();
  }
});

test('an already aborted signal runs no step at all', async () => {
  const client = createEngineClient();
  try {
    const { id } = await client.charModelCreate(CONFIG);
    const stop = new AbortController();
    stop.abort();
    const r = await client.request('charModelTrain', [{ id, tokens: text, steps: 50, batch: 1, length: 8, seed: 1 }], { signal: stop.signal });
    assert.equal(r.aborted, true);
    assert.equal(r.step, 0);
  } finally {
    client.terminate();
  }
});

test('two clients are two workers: a call on the second is not held back by a long run on the first', async () => {
  const a = createEngineClient(), b = createEngineClient();
  try {
    const { id } = await a.charModelCreate(CONFIG);
    const stop = new AbortController();
    let bAnsweredAt = null, steps = 0;
    const run = a.request('charModelTrain', [{ id, tokens: text, steps: 100000, batch: 1, length: 8, seed: 1 }], {
      signal: stop.signal, onProgress: () => { steps++; },
    });
    await b.ready;
    const p = await b.charModelParameterCount(CONFIG);
    bAnsweredAt = steps;
    stop.abort();
    const r = await run;
    assert.equal(p, engine.charModelParameterCount(CONFIG));
    assert.equal(r.aborted, true);
    assert.ok(bAnsweredAt < 100000 && r.step < 100000, 'the second client answered while the first still trained');
  } finally {
    a.terminate(); b.terminate();
  }
});
