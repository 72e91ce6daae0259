// The engine's JS API for heads and the KV cache (engine/README.md):
// multiheadAttention against a loop of attention() over heads, kvBytesRead,
// and kvCache handles (prefill, decode row by row = full causal attention,
// windows, budget, typed errors, delete and the garbage-collection net).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';

import { loadEngine, mat, maxAbsDiff } from './engine-fixtures.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const engine = await loadEngine();

const randn = (seed, rows, cols) => engine.randomNormal({ seed, rows, cols });
// Rows [a, b) of every head of a head-major matrix with `per` rows per head.
const heads = (m, count, per, a, b) => {
  const data = new Float32Array(count * (b - a) * m.cols);
  for (let h = 0; h < count; h++)
    data.set(m.data.subarray((h * per + a) * m.cols, (h * per + b) * m.cols), h * (b - a) * m.cols);
  return { rows: count * (b - a), cols: m.cols, data };
};
const codeOf = (f) => {
  try { f(); } catch (error) { return error.code; }
  return 'no error';
};
// Reference attention of every query head h against its key/value head h / G, stacked.
function perHeadReference({ q, k, v, hq, hkv, ...opts }) {
  const L = q.rows / hq, S = k.rows / hkv, G = hq / hkv;
  const outs = [];
  for (let h = 0; h < hq; h++) {
    const g = Math.floor(h / G);
    outs.push(engine.attention({ q: { rows: L, cols: q.cols, data: q.data.slice(h * L * q.cols, (h + 1) * L * q.cols) },
      k: { rows: S, cols: k.cols, data: k.data.slice(g * S * k.cols, (g + 1) * S * k.cols) },
      v: { rows: S, cols: v.cols, data: v.data.slice(g * S * v.cols, (g + 1) * S * v.cols) },
      ...opts, variant: 'reference' }));
  }
  return outs;
}

test('multiheadAttention equals attention() head by head (MHA, GQA 8/2, MQA; causal; L != S)', () => {
  for (const [hq, hkv, L, S, dk, dv, causal] of [[2, 2, 5, 5, 4, 3, false], [8, 2, 6, 9, 16, 5, true], [4, 1, 7, 3, 3, 2, false]]) {
    const q = randn(hq, hq * L, dk), k = randn(hkv + 10, hkv * S, dk), v = randn(hkv + 20, hkv * S, dv);
    const want = perHeadReference({ q, k, v, hq, hkv, causal, returnWeights: true });
    for (const variant of engine.variants()) {
      const returnWeights = variant !== 'chunked';
      const r = engine.multiheadAttention({ q, k, v, headsQ: hq, headsKv: hkv, causal, variant, returnWeights, blockQ: 2, blockK: 3 });
      assert.equal(r.out.rows, hq * L);
      assert.equal(r.out.cols, dv);
      assert.equal(r.maskedRows.length, hq);
      assert.equal(r.kernelCalls, hkv);  // one kernel call per key/value group
      for (let h = 0; h < hq; h++) {
        const got = r.out.data.subarray(h * L * dv, (h + 1) * L * dv);
        assert.ok(maxAbsDiff(got, want[h].out.data) < 1e-5, `${variant} head ${h}`);
        assert.deepEqual(r.maskedRows[h], []);
        if (returnWeights) assert.ok(maxAbsDiff(r.weights[h].data, want[h].weights.data) < 1e-6, `${variant} weights ${h}`);
      }
      assert.equal(r.weights === undefined, !returnWeights);
    }
  }
});

test('multiheadAttention: headsKv defaults to headsQ; a mask is one L x S for all heads; masked rows per head', () => {
  const q = randn(1, 6, 2), k = randn(2, 8, 2), v = randn(3, 8, 2);  // 2 heads, L = 3, S = 4
  const mask = { rows: 3, cols: 4, data: Uint8Array.from([1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1]) };
  const r = engine.multiheadAttention({ q, k, v, headsQ: 2, mask, returnWeights: true });
  assert.deepEqual(r.maskedRows, [[1], [1]]);
  assert.equal(r.kernelCalls, 2);  // a shared mask: one call per query head
  for (let h = 0; h < 2; h++) {
    assert.deepEqual(Array.from(r.out.data.subarray((h * 3 + 1) * 2, (h * 3 + 2) * 2)), [0, 0]);
    assert.equal(r.weights[h].data[1], 0);  // key 1 hidden in row 0 of every head
  }
});

test('multiheadAttention refuses bad heads and shapes with the usual codes', () => {
  const q = randn(1, 8, 4), k = randn(2, 6, 4), v = randn(3, 6, 2);
  const run = (extra) => codeOf(() => engine.multiheadAttention({ q, k, v, headsQ: 2, headsKv: 2, ...extra }));
  assert.equal(run({ headsQ: 4, headsKv: 3 }), 'BadArgument');
  assert.equal(run({ headsQ: 0 }), 'ZeroDimension');
  assert.equal(run({ headsKv: 0 }), 'ZeroDimension');
  assert.equal(run({ headsQ: 1.5 }), 'BadArgument');
  assert.equal(run({ headsQ: 3, headsKv: 3 }), 'ShapeMismatch');  // 8 query rows for 3 heads
  assert.equal(run({ headsQ: 4, headsKv: 4 }), 'ShapeMismatch');  // 6 key rows for 4 heads
  assert.equal(run({ mask: { rows: 3, cols: 4, data: new Uint8Array(12) } }), 'ShapeMismatch');  // one head's L x S is 4 x 3
  assert.equal(run({ heads: 2 }), 'BadArgument');
  assert.equal(run({ v: randn(4, 5, 2) }), 'ShapeMismatch');
  assert.equal(run({ q: mat([[NaN, 0, 0, 0], [0, 0, 0, 0]]) }), 'NonFinite');
  assert.equal(run({ returnWeights: true, variant: 'chunked' }), 'BadArgument');
});

test('kvBytesRead: grouped-query attention with H_q/H_kv = 4 reads 4x fewer K/V bytes than multi-head', () => {
  const mha = engine.kvBytesRead({ headsQ: 32, headsKv: 32, S: 32768, dk: 128, dv: 128 });
  const gqa = engine.kvBytesRead({ headsQ: 32, headsKv: 8, S: 32768, dk: 128, dv: 128 });
  assert.equal(mha, 32 * 32768 * 256 * 4);
  assert.equal(mha / gqa, 4);
  assert.equal(codeOf(() => engine.kvBytesRead({ headsQ: 6, headsKv: 4, S: 1, dk: 1, dv: 1 })), 'BadArgument');
});

// Full causal attention of a whole sequence (each row sees at most its last `w` keys when w > 0), per head.
function fullCausal(q, k, v, hq, hkv, n, w) {
  const mask = { rows: n, cols: n, data: new Uint8Array(n * n) };
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) mask.data[i * n + j] = w === 0 || i - j < w ? 1 : 0;
  const parts = perHeadReference({ q, k, v, hq, hkv, causal: true, mask });
  const dv = v.cols, out = new Float32Array(hq * n * dv);
  parts.forEach((r, h) => out.set(r.out.data, h * n * dv));
  return { rows: hq * n, cols: dv, data: out };
}

test('kvCache: prefill + decode row by row = full causal attention (MHA, GQA, windows)', () => {
  for (const [hq, hkv, n, prompt, window] of [[2, 2, 12, 3, 0], [8, 2, 15, 4, 0], [4, 1, 10, 0, 0], [4, 2, 14, 5, 3], [2, 1, 9, 2, 1]]) {
    const dk = 8, dv = 5;
    const q = randn(hq + n, hq * n, dk), k = randn(50 + n, hkv * n, dk), v = randn(70 + n, hkv * n, dv);
    const want = fullCausal(q, k, v, hq, hkv, n, window);
    const cache = engine.kvCache({ headsKv: hkv, dk, dv, window });
    try {
      if (prompt > 0) {
        const r = cache.prefill({ q: heads(q, hq, n, 0, prompt), k: heads(k, hkv, n, 0, prompt), v: heads(v, hkv, n, 0, prompt), headsQ: hq });
        assert.ok(maxAbsDiff(r.out.data, heads(want, hq, n, 0, prompt).data) < 1e-5, 'prefill');
      }
      for (let t = prompt; t < n; t++) {
        const r = cache.decode({ q: heads(q, hq, n, t, t + 1), k: heads(k, hkv, n, t, t + 1), v: heads(v, hkv, n, t, t + 1) });
        assert.equal(r.out.rows, hq);
        assert.ok(maxAbsDiff(r.out.data, heads(want, hq, n, t, t + 1).data) < 1e-5, `hq=${hq} hkv=${hkv} w=${window} t=${t}`);
        assert.equal(cache.length(), window ? Math.min(t + 1, window) : t + 1);
      }
      assert.ok(cache.bytes() >= cache.length() * hkv * (dk + dv) * 4);
    } finally {
      cache.delete();
    }
  }
});

test('kvCache: prefill without q only appends; decode refuses bad shapes and leaves the cache as it was', () => {
  const cache = engine.kvCache({ headsKv: 2, dk: 4, dv: 3 });
  assert.equal(cache.prefill({ k: randn(1, 6, 4), v: randn(2, 6, 3) }), undefined);
  assert.equal(cache.length(), 3);
  const q = randn(3, 4, 4), k = randn(4, 2, 4), v = randn(5, 2, 3);
  const step = (extra) => codeOf(() => cache.decode({ q, k, v, ...extra }));
  assert.equal(step({ q: randn(6, 4, 5) }), 'ShapeMismatch');
  assert.equal(step({ q: randn(6, 3, 4) }), 'BadArgument');      // 3 query heads for 2 KV heads
  assert.equal(step({ k: randn(6, 4, 4), v: randn(7, 4, 3) }), 'ShapeMismatch');  // two rows per head
  assert.equal(step({ v: randn(6, 2, 4) }), 'ShapeMismatch');
  assert.equal(step({ k: mat([[0, 0, 0, Infinity], [0, 0, 0, 0]]) }), 'NonFinite');
  assert.equal(step({ causal: true }), 'BadArgument');            // not an option of a decode step
  assert.equal(step({ scale: -1 }), 'BadArgument');
  assert.equal(step({ variant: 'fast' }), 'BadArgument');
  assert.equal(codeOf(() => cache.prefill({ k: randn(1, 5, 4), v: randn(2, 5, 3) })), 'ShapeMismatch');
  assert.equal(codeOf(() => cache.prefill({ k: randn(1, 2, 4), v: randn(2, 2, 3), scale: 1 })), 'BadArgument');
  assert.equal(codeOf(() => cache.prefill({ q: randn(1, 2, 4), k: randn(1, 2, 4), v: randn(2, 2, 3) })), 'BadArgument');  // not empty
  assert.equal(cache.length(), 3);
  assert.equal(cache.decode({ q, k, v }).out.rows, 4);
  assert.equal(cache.length(), 4);
  cache.delete();
  cache.delete();  // twice is harmless
  assert.equal(codeOf(() => cache.decode({ q, k, v })), 'BadArgument');
  assert.equal(codeOf(() => cache.length()), 'BadArgument');
  assert.equal(codeOf(() => engine.kvCache({ headsKv: 0, dk: 1, dv: 1 })), 'ZeroDimension');
  assert.equal(codeOf(() => engine.kvCache({ headsKv: 1, dk: 1, dv: 1, window: -1 })), 'BadArgument');
});

test('kvCache: past the memory budget it refuses with TooLarge and keeps what it had', () => {
  const cache = engine.kvCache({ headsKv: 2, dk: 64, dv: 64 });  // 1 KiB per row of both heads
  try {
    engine.setMemoryBudget(10 * 1024);
    assert.equal(codeOf(() => cache.prefill({ k: randn(1, 22, 64), v: randn(2, 22, 64) })), 'TooLarge');
    assert.equal(cache.length(), 0);
    assert.equal(cache.bytes(), 0);
    cache.prefill({ k: randn(1, 20, 64), v: randn(2, 20, 64) });
    assert.equal(cache.length(), 10);
    assert.equal(codeOf(() => cache.decode({ q: randn(3, 2, 64), k: randn(4, 2, 64), v: randn(5, 2, 64) })), 'TooLarge');
    assert.equal(cache.length(), 10);
  } finally {
    engine.setMemoryBudget(0);
    cache.delete();
  }
});

test('kvCache handles that are never deleted are freed after garbage collection', async () => {
  const k = randn(3, 2 * 256, 64);  // 2 heads x 256 rows: 128 KiB each for K and V
  const make = () => { engine.kvCache({ headsKv: 2, dk: 64, dv: 64 }).prefill({ k, v: k }); };
  for (let i = 0; i < 4; i++) make();
  for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
  const before = engine.info().heapBytes;
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 40; i++) make();
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(engine.info().heapBytes, before, 'the wasm heap grew');
});
