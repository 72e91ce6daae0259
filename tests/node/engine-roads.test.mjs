// Every road from a page to engine.mjs passes the caller's options through whole:
// client → worker → engine, pool → workers → engine (attention and attentionSeeded,
// the reference checks included). The workers are fake-worker.mjs's (a real
// MessageChannel, so everything is structured-cloned as between threads) serving
// the real worker handlers (pool-worker.mjs) over either a recording test double of
// engine.mjs or the real one. A made-up option must arrive unchanged at the double,
// and the real engine.mjs, the one place that checks options, must refuse it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { installFakeWorkers } from './fake-worker.mjs';
import { createEngineClient } from '../../web/js/engine-link/engine-client.mjs';
import { createEnginePool } from '../../web/js/engine-link/engine-pool.mjs';
import { poolHandlers } from '../../web/js/engine-link/pool-worker.mjs';
import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';

// A test double of engine.mjs's API that records what reaches it and answers with zeros.
const log = [];
function recordingEngine() {
  const out = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });
  const answer = (q, v) => ({ out: out(q.rows, v.cols), maskedRows: [], scratchBytes: 1 });
  return {
    attention(args) { log.push({ fn: 'attention', args }); return answer(args.q, args.v); },
    keyValues({ k, v }) {
      log.push({ fn: 'keyValues', args: { k, v } });
      return {
        rows: k.rows,
        attention(args) { log.push({ fn: 'kv.attention', args }); return answer(args.q, v); },
        release() {},
      };
    },
    randomNormal({ seed, rows, cols }) { return { ...out(rows, cols), seed }; },
    info: () => ({ heapBytes: 0 }),
  };
}

const real = await loadEngine();
let engineForNewWorkers = 'double';
const workers = installFakeWorkers(() => {
  const engine = engineForNewWorkers === 'real' ? real : recordingEngine();
  return { target: engine, handlers: poolHandlers(engine), info: {} };
});
test.after(() => workers.uninstall());

const m = (seed, rows, cols) => real.randomNormal({ seed, rows, cols });
const MADE_UP = { madeUpOption: { nested: [1, 2.5], flag: true }, window: 3 };   // no engine has these (yet)
const plain = (x) => JSON.parse(JSON.stringify(x));   // options compared without the matrices

test('client → worker → engine: the options arrive as they were given', async () => {
  engineForNewWorkers = 'double';
  const client = createEngineClient();
  log.length = 0;
  const q = m(1, 3, 4), k = m(2, 5, 4), v = m(3, 5, 2);
  await client.attention({ q, k, v, causal: true, scale: null, ...MADE_UP });
  assert.equal(log.length, 1);
  const { fn, args } = log[0];
  assert.equal(fn, 'attention');
  assert.deepEqual(Object.keys(args).sort(), ['causal', 'k', 'madeUpOption', 'q', 'scale', 'v', 'window']);
  assert.deepEqual([args.causal, args.scale, args.madeUpOption, args.window], [true, null, MADE_UP.madeUpOption, 3]);
  assert.deepEqual([...args.q.data], [...q.data]);
});

test('pool → workers → engine: every task gets the options whole, with its own rows and rowOffset', async () => {
  engineForNewWorkers = 'double';
  const pool = createEnginePool({ size: 2 });
  try {
    await pool.ready;
    log.length = 0;
    const L = 10, S = 12;
    const q = m(1, L, 4), k = m(2, S, 4), v = m(3, S, 2);
    const mask = { rows: L, cols: S, data: new Uint8Array(L * S).fill(1) };
    const options = { causal: true, scale: 0.5, variant: 'chunked', blockQ: 8, blockK: 16, ...MADE_UP };
    const r = await pool.attention({ q, k, v, mask, rowOffset: 2, ...options }, { taskRows: 4 });
    assert.equal(r.tasks, 3);
    const tasks = log.filter((e) => e.fn === 'kv.attention').map((e) => e.args);
    assert.equal(tasks.length, 3);
    for (const a of tasks) {
      const { q: qs, mask: ms, rowOffset, ...rest } = a;
      assert.deepEqual(plain(rest), plain(options), 'the options, whole');
      const r0 = rowOffset - 2;
      assert.deepEqual([qs.rows, ms.rows, ms.cols], [Math.min(4, L - r0), qs.rows, S]);
      assert.deepEqual([...qs.data], [...q.data.subarray(r0 * 4, (r0 + qs.rows) * 4)]);
    }
    assert.deepEqual(tasks.map((a) => a.rowOffset).sort((x, y) => x - y), [2, 6, 10]);
    assert.equal(log.filter((e) => e.fn === 'keyValues').length, 2, 'K and V once per worker');
  } finally { pool.terminate(); }
});

test('pool.attentionSeeded → workers → engine: options whole (variant defaults to chunked), reference checks too', async () => {
  engineForNewWorkers = 'double';
  const pool = createEnginePool({ size: 2 });
  try {
    await pool.ready;
    log.length = 0;
    await pool.attentionSeeded({ n: 16, d: 4, seed: 9, causal: true, blockQ: 4, ...MADE_UP }, { taskRows: 4, checkRows: [0, 15] });
    const calls = log.filter((e) => e.fn === 'kv.attention').map((e) => e.args);
    const expected = { causal: true, blockQ: 4, ...MADE_UP };
    const runs = calls.filter((a) => a.variant === 'chunked');
    const refs = calls.filter((a) => a.variant === 'reference');
    assert.equal(runs.length, 4);
    assert.deepEqual(refs.map((a) => a.rowOffset).sort((x, y) => x - y), [0, 15]);
    for (const a of [...runs, ...refs]) {
      const { q, mask, rowOffset, variant, ...rest } = a;
      assert.deepEqual(plain(rest), plain(expected));
    }
  } finally { pool.terminate(); }
});

test('the real engine.mjs is where options are checked: a made-up option is refused on every road', async () => {
  engineForNewWorkers = 'real';
  const client = createEngineClient();
  const pool = createEnginePool({ size: 2 });
  try {
    const q = m(1, 40, 8), k = m(2, 40, 8), v = m(3, 40, 8);
    const refused = (p) => p.then(() => 'resolved', (e) => `${e.code}: ${e.message}`);
    const expected = /^BadArgument: attention: unknown option 'madeUpOption'/;
    assert.throws(() => real.attention({ q, k, v, madeUpOption: 1 }), (e) => expected.test(`${e.code}: ${e.message}`));
    assert.match(await refused(client.attention({ q, k, v, madeUpOption: 1 })), expected);
    assert.match(await refused(pool.attention({ q, k, v, variant: 'chunked', madeUpOption: 1 }, { taskRows: 8 })), expected);
    assert.match(await refused(pool.attentionSeeded({ n: 40, d: 8, madeUpOption: 1 }, { taskRows: 8 })), expected);
    // and the options it knows still do what one engine call does
    const opts = { causal: true, scale: 0.3, variant: 'chunked', blockQ: 8, blockK: 8, rowOffset: 5 };
    const one = real.attention({ q, k, v, ...opts }).out.data;
    const viaClient = (await client.attention({ q, k, v, ...opts })).out.data;
    const viaPool = (await pool.attention({ q, k, v, ...opts }, { taskRows: 8 })).out.data;
    assert.equal(maxAbsDiff(viaClient, one), 0);
    assert.ok(maxAbsDiff(viaPool, one) <= 1e-6);
  } finally {
    pool.terminate();
  }
});
