// An engine worker that dies without any event (killed by the system) is noticed at once, not
// after the 90 s stall watchdog: each worker holds a Web Lock for its life and the page waits for
// that lock (web/js/engine-link/transport.mjs). Fake workers and fake Web Locks (tests/node/fake-worker.mjs):
// kill() ends the worker silently and releases what it held, as a browser does.
import test from 'node:test';
import assert from 'node:assert/strict';
import { connectWorker } from '../../web/js/engine-link/transport.mjs';
import { installFakeWorkers, FakeLocks } from './fake-worker.mjs';

const locks = new FakeLocks();
const workers = installFakeWorkers(async () => ({
  target: {
    double: (x) => 2 * x,
    // a busy worker: a long synchronous call, as a big engine call is
    busy: (ms) => { const end = Date.now() + ms; while (Date.now() < end) { /* computing */ } return ms; },
  },
}), { locks });
test.after(() => workers.uninstall());

const page = locks.client().locks;
// the page waits for the worker's lock once the worker says it holds it
const watching = () => new Promise((resolve) => {
  const check = () => (locks.queue.some((e) => e.name.startsWith('attn-engine-alive-')) ? resolve() : setTimeout(check, 1));
  check();
});

test('a worker killed mid-call (no reply, no event): the call rejects EngineCrashed at once, a fresh worker answers', { timeout: 10000 }, async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs', locks: page });   // the default 90 s watchdog
  await link.ready;
  await watching();
  const first = link.worker;
  const crash = new Promise((resolve) => link.onStatus((kind, err) => { if (kind === 'crash') resolve(err); }));
  // the worker is killed with the call on its way: no reply, no event (the fake worker lives on
  // the test's own thread, so it cannot also be busy for long)
  const call = link.request('double', [1]).catch((e) => e);
  await new Promise((r) => setImmediate(r));
  first.kill();
  const t0 = Date.now();
  const err = await call;
  assert.equal(err.code, 'EngineCrashed');
  assert.match(err.message, /stopped/);
  assert.ok(Date.now() - t0 < 5000, 'noticed long before the stall watchdog');
  assert.equal((await crash).code, 'EngineCrashed');
  assert.notEqual(link.worker, first);
  assert.equal(await link.request('double', [21]), 42);
  link.terminate();
});

test('a worker busy in a long call is not taken for dead; cancel and terminate do not count as a crash', { timeout: 10000 }, async () => {
  const link = connectWorker({ workerUrl: 'engine-worker.mjs', locks: page });
  await link.ready;
  await watching();
  const statuses = [];
  link.onStatus((kind) => statuses.push(kind));
  assert.equal(await link.request('busy', [300]), 300);
  link.cancel();
  await link.ready;
  assert.equal(await link.request('double', [2]), 4);
  link.terminate();
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(!statuses.includes('crash'), statuses.join(' '));
});
