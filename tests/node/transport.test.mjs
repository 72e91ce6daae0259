// The transport between a page and an engine Worker (web/js/engine-link/transport.mjs), both
// ends in Node over a real MessageChannel (fake-worker.mjs): request → reply,
// progress, errors keeping their code, a load failure, a trap and a killed worker
// (the stall watchdog) replacing the worker, cancel. No timed assertions: the
// watchdog test only waits for the event.
import test from 'node:test';
import assert from 'node:assert/strict';
import { connectWorker } from '../../web/js/engine-link/transport.mjs';
import { installFakeWorkers } from './fake-worker.mjs';

let loads = 0;
let failLoad = false;
const workers = installFakeWorkers(async () => {
  loads++;
  if (failLoad) throw Object.assign(new Error('attn.wasm is missing'), { code: 'Unknown' });
  return {
    info: { n: loads },
    target: {
      double: (x) => 2 * x,
      half: ({ data }) => ({ data: data.map((x) => x / 2) }),
      refuse: () => { throw Object.assign(new Error('q is 2x3 and k is 2x4'), { code: 'ShapeMismatch' }); },
    },
    handlers: {
      count([to], { progress }) { for (let i = 1; i <= to; i++) progress({ done: i, total: to }); return to; },
      trap() { throw new WebAssembly.RuntimeError('unreachable'); },
      // a long handler: waits a turn at a time until its signal aborts (or `turns` run out)
      async wait([turns], { signal }) {
        let n = 0;
        while (n < turns && !signal.aborted) { n++; await new Promise((r) => { setTimeout(r, 0); }); }
        return { turns: n, aborted: signal.aborted };
      },
    },
  };
});
test.after(() => workers.uninstall());

const codeOf = (p) => p.then(() => 'resolved', (e) => e.code);

test('request → reply; arguments and results cross by structured clone, requests answered in order', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  assert.deepEqual(await link.ready, { n: loads });
  const data = Float32Array.from([2, 4]);
  const [a, b, c] = await Promise.all([link.request('double', [21]), link.request('half', [{ data }]), link.request('double', [1])]);
  assert.deepEqual([a, [...b.data], c], [42, [1, 2], 2]);
  assert.deepEqual([...data], [2, 4], 'the caller keeps its array');
  link.terminate();
});

test('progress reaches onProgress before the reply; errors keep their code; unknown methods are refused', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  const seen = [];
  assert.equal(await link.request('count', [3], { onProgress: (p) => seen.push(p.done) }), 3);
  assert.deepEqual(seen, [1, 2, 3]);
  const err = await link.request('refuse').catch((e) => e);
  assert.ok(err instanceof Error);
  assert.deepEqual([err.code, err.message], ['ShapeMismatch', 'q is 2x3 and k is 2x4']);
  assert.equal(await codeOf(link.request('toString')), 'BadArgument', 'only own methods of the target');
  assert.equal(await codeOf(link.request('nope')), 'BadArgument');
  assert.equal(await codeOf(link.request('double', [() => 1])), 'BadArgument', 'an argument that cannot be cloned');
  assert.equal(await link.request('double', [5]), 10, 'the link works after errors');
  link.terminate();
});

test('a worker whose engine cannot load: ready and requests reject with EngineLoad', async () => {
  failLoad = true;
  try {
    const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
    const statuses = [];
    link.onStatus((kind) => statuses.push(kind));
    const err = await link.ready.catch((e) => e);
    assert.deepEqual([err.code, err.message], ['EngineLoad', 'attn.wasm is missing']);
    assert.equal(await codeOf(link.request('double', [1])), 'EngineLoad');
    assert.deepEqual(statuses, ['error']);
    link.terminate();
  } finally { failLoad = false; }
});

test('a trap inside a call: that call rejects EngineCrashed, a fresh worker answers the next one', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const first = link.worker;
  const crash = new Promise((resolve) => link.onStatus((kind, err) => { if (kind === 'crash') resolve(err.code); }));
  assert.equal(await codeOf(link.request('trap')), 'EngineCrashed');
  assert.equal(await crash, 'EngineCrashed');
  assert.notEqual(link.worker, first);
  assert.ok(!workers.live.has(first), 'the old worker is terminated');
  assert.equal(await link.request('double', [4]), 8);
  link.terminate();
});

test('a killed worker (no reply, no event) is noticed by the stall watchdog and replaced', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs', stallMs: 20 });
  await link.ready;
  const first = link.worker;
  first.kill();
  const err = await link.request('double', [1]).catch((e) => e);
  assert.equal(err.code, 'EngineCrashed');
  assert.match(err.message, /no answer/);
  assert.notEqual(link.worker, first);
  assert.equal(await link.request('double', [3]), 6);
  link.terminate();
});

test('waiting counts the unanswered requests; shortening stallMs while they wait arms the watchdog anew', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });   // the default watchdog, 90 s
  await link.ready;
  assert.equal(link.waiting, 0);
  link.worker.kill();
  const waiting = [link.request('double', [1]), link.request('double', [2])];
  await new Promise((resolve) => setImmediate(resolve));   // both posted (after the readiness they await)
  assert.equal(link.waiting, 2);
  link.stallMs = 20;   // what the browser test does once the learner's call is queued behind a stuck one
  assert.deepEqual(await Promise.all(waiting.map(codeOf)), ['EngineCrashed', 'EngineCrashed']);
  assert.equal(link.waiting, 0);
  assert.equal(await link.request('double', [3]), 6);
  assert.equal(link.waiting, 0);
  link.terminate();
});

test('cancel: waiting requests reject Cancelled, a fresh worker starts, later requests work; terminate is for good', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const first = link.worker;
  const statuses = [];
  link.onStatus((kind) => statuses.push(kind));
  first.kill();   // so that no reply can come before the cancel
  const waiting = [link.request('double', [1]), link.request('count', [2])];
  await new Promise((resolve) => setImmediate(resolve));   // both posted (after the readiness they await)
  link.cancel();
  assert.deepEqual(await Promise.all(waiting.map(codeOf)), ['Cancelled', 'Cancelled']);
  assert.notEqual(link.worker, first);
  assert.equal(await link.request('double', [7]), 14);
  assert.deepEqual(statuses, ['restart', 'ready']);
  link.terminate();
  assert.equal(link.worker, null);
  assert.equal(await codeOf(link.request('double', [1])), 'EngineLoad');
});

test('a handler that returns a promise: later requests wait for it; request({signal}) aborts its ctx.signal', async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs' });
  await link.ready;
  const order = [];
  const controller = new AbortController();
  const long = link.request('wait', [1e9], { signal: controller.signal }).then((r) => { order.push('wait'); return r; });
  const after = link.request('double', [4]).then((r) => { order.push('double'); return r; });
  setTimeout(() => controller.abort(), 0);
  const [r, d] = await Promise.all([long, after]);
  assert.equal(r.aborted, true);
  assert.ok(r.turns < 1e9);
  assert.equal(d, 8);
  assert.deepEqual(order, ['wait', 'double'], 'answered in the order asked');
  // a signal aborted before the request is sent: the handler sees it at once
  const done = new AbortController();
  done.abort();
  assert.deepEqual(await link.request('wait', [5], { signal: done.signal }), { turns: 0, aborted: true });
  assert.deepEqual(await link.request('wait', [3]), { turns: 3, aborted: false });
  link.terminate();
});
