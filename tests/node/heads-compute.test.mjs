// Chapter 10's compute module (web/js/sections/heads-compute.mjs) against the real engine:
// the two-head worked example (per-head attention, concatenation · W_O), the mean-pooling
// of K/V heads, grouped-query attention against a per-head loop, the KV byte counts and
// the parameter counts the text quotes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';
import { DEFAULT } from '../../web/js/lesson/worked-example.mjs';
import {
  HEAD_DEFAULTS, WO_DEFAULT, computeTwoHeads, computeGqa, computeGqaTable, meanPoolHeads, gqaInputs,
  divisors, groupsOf, headOf, attentionParams, difference,
} from '../../web/js/sections/heads-compute.mjs';

const engine = await loadEngine();
const at = (m, i, j) => m.data[i * m.cols + j];

// x·W in doubles, the plain loop (a reference the engine is compared with)
function matmul(a, b) {
  const out = new Float64Array(a.rows * b.cols);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < b.cols; j++) {
    let s = 0;
    for (let c = 0; c < a.cols; c++) s += at(a, i, c) * at(b, c, j);
    out[i * b.cols + j] = s;
  }
  return { rows: a.rows, cols: b.cols, data: out };
}

test('two heads: each head is one attention() on its own projections', async () => {
  const r = await computeTwoHeads(engine, { x: DEFAULT.x, heads: HEAD_DEFAULTS, Wo: WO_DEFAULT });
  assert.equal(r.heads.length, 2);
  for (const [h, { Wq, Wk, Wv }] of HEAD_DEFAULTS.entries()) {
    const Q = matmul(DEFAULT.x, Wq), K = matmul(DEFAULT.x, Wk), V = matmul(DEFAULT.x, Wv);
    assert.ok(maxAbsDiff(r.heads[h].Q.data, Q.data) < 1e-6, `Q of head ${h + 1}`);
    const one = engine.attention({ q: r.heads[h].Q, k: r.heads[h].K, v: r.heads[h].V, returnWeights: true, variant: 'reference' });
    assert.ok(maxAbsDiff(r.heads[h].weights.data, one.weights.data) < 1e-6, `weights of head ${h + 1}`);
    assert.ok(maxAbsDiff(r.heads[h].out.data, one.out.data) < 1e-6, `output of head ${h + 1}`);
    assert.ok(maxAbsDiff(K.data, r.heads[h].K.data) < 1e-6 && maxAbsDiff(V.data, r.heads[h].V.data) < 1e-6);
  }
  // head 1 is chapter 2's head: its output equals the worked example's
  const f32 = (m) => ({ ...m, data: Float32Array.from(m.data) });
  const s2 = engine.attention({ q: f32(matmul(DEFAULT.x, DEFAULT.Wq)), k: f32(matmul(DEFAULT.x, DEFAULT.Wk)), v: f32(matmul(DEFAULT.x, DEFAULT.Wv)) });
  assert.ok(maxAbsDiff(r.heads[0].out.data, s2.out.data) < 1e-6);
});

test('two heads: the concatenation times W_O equals the engine\'s final rows', async () => {
  const r = await computeTwoHeads(engine, { x: DEFAULT.x, heads: HEAD_DEFAULTS, Wo: WO_DEFAULT });
  assert.deepEqual([r.concat.rows, r.concat.cols, r.final.rows, r.final.cols], [4, 4, 4, 3]);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++)
    assert.equal(at(r.concat, i, j), j < 2 ? at(r.heads[0].out, i, j) : at(r.heads[1].out, i, j - 2), `concat ${i},${j}`);
  const want = matmul(r.concat, WO_DEFAULT);
  assert.ok(maxAbsDiff(r.final.data, want.data) < 1e-5, 'concat·W_O');
  // and W_O applied head by head, summed: the same rows (the split the text explains)
  const wo = (a, b) => ({ rows: b - a, cols: 3, data: WO_DEFAULT.data.slice(a * 3, b * 3) });
  const sum = matmul(r.heads[0].out, wo(0, 2)).data.map((x, i) => x + matmul(r.heads[1].out, wo(2, 4)).data[i]);
  assert.ok(maxAbsDiff(r.final.data, sum) < 1e-5);
});

test('two heads: the default heads attend differently (the text says so)', async () => {
  const r = await computeTwoHeads(engine, { x: DEFAULT.x, heads: HEAD_DEFAULTS, Wo: WO_DEFAULT });
  const argmax = (w, i) => { let b = 0; for (let j = 1; j < w.cols; j++) if (at(w, i, j) > at(w, i, b)) b = j; return b; };
  const differ = [0, 1, 2, 3].filter((i) => argmax(r.heads[0].weights, i) !== argmax(r.heads[1].weights, i));
  assert.ok(differ.length >= 2, `rows whose strongest key differs: ${differ}`);
  // what heads.ex.head1 / head2 say of the defaults: sat weighs itself most in head 1;
  // in head 2 cat and sat weigh "the" most, and down's weights are equal (its query is 0)
  assert.equal(argmax(r.heads[0].weights, 2), 2);
  assert.equal(argmax(r.heads[1].weights, 1), 0);
  assert.equal(argmax(r.heads[1].weights, 2), 0);
  for (let j = 0; j < 4; j++) assert.equal(at(r.heads[1].Q, 3, j % 2), 0);
  for (let j = 0; j < 4; j++) assert.ok(Math.abs(at(r.heads[1].weights, 3, j) - 0.25) < 1e-6);
  // causal: every weight above the diagonal is 0 in both heads
  const c = await computeTwoHeads(engine, { x: DEFAULT.x, heads: HEAD_DEFAULTS, Wo: WO_DEFAULT, causal: true });
  for (const hd of c.heads) for (let i = 0; i < 4; i++) for (let j = i + 1; j < 4; j++) assert.equal(at(hd.weights, i, j), 0);
});

test('mean-pooling K/V heads by the engine equals the plain mean of each group', async () => {
  const n = 5, hq = 8, d = 3;
  const m = engine.randomNormal({ seed: 9, rows: hq * n, cols: d });
  for (const hkv of [8, 4, 2, 1]) {
    const p = await meanPoolHeads(engine, m, hq, hkv, n);
    assert.deepEqual([p.rows, p.cols], [hkv * n, d]);
    const G = hq / hkv;
    for (let g = 0; g < hkv; g++) for (let t = 0; t < n; t++) for (let c = 0; c < d; c++) {
      let s = 0;
      for (let h = g * G; h < (g + 1) * G; h++) s += at(m, h * n + t, c);
      assert.ok(Math.abs(at(p, g * n + t, c) - s / G) < 1e-5, `hkv ${hkv} group ${g} token ${t} col ${c}`);
    }
  }
});

test('grouped-query attention: a per-head loop over pooled K/V gives the same output; MHA differs by 0', async () => {
  const P = { n: 12, hq: 8, dk: 8, seed: 4 };
  const { q, k, v } = await gqaInputs(engine, P);
  for (const hkv of divisors(8)) {
    const r = await computeGqa(engine, { ...P, hkv });
    const kp = await meanPoolHeads(engine, k, 8, hkv, 12), vp = await meanPoolHeads(engine, v, 8, hkv, 12);
    let max = 0;
    for (let h = 0; h < 8; h++) {
      const g = Math.floor(h / (8 / hkv));
      const one = engine.attention({ q: headOf(q, h, 12), k: headOf(kp, g, 12), v: headOf(vp, g, 12), causal: true, variant: 'reference' });
      max = Math.max(max, maxAbsDiff(one.out.data, headOf(r.gqa, h, 12).data));
      const ref = engine.attention({ q: headOf(q, h, 12), k: headOf(k, h, 12), v: headOf(v, h, 12), causal: true, variant: 'reference' });
      assert.ok(maxAbsDiff(ref.out.data, headOf(r.mha, h, 12).data) < 1e-5);
    }
    assert.ok(max < 1e-5, `hkv ${hkv}: ${max}`);
    assert.deepEqual(r.groups, groupsOf(8, hkv));
    assert.equal(r.kvBytesToken, hkv * 1 * (8 + 8) * 4);
    assert.equal(r.kvBytesSeq, hkv * 12 * (8 + 8) * 4);
    if (hkv === 8) assert.deepEqual([r.maxAbs, r.rel], [0, 0]);
    else assert.ok(r.maxAbs > 0 && r.rel > 0 && r.rel < 2, `hkv ${hkv}: ${r.maxAbs} ${r.rel}`);
    const d = difference(r.mha.data, r.gqa.data);
    assert.equal(d.maxAbs, r.maxAbs);
  }
});

test('the table: every divisor once, memory halves with H_kv, seeds change the numbers', async () => {
  const t = await computeGqaTable(engine, { n: 12, hq: 8, dk: 8, seed: 1 });
  assert.deepEqual(t.map((r) => r.hkv), [8, 4, 2, 1]);
  for (let i = 1; i < t.length; i++) assert.equal(t[i - 1].kvBytesSeq, 2 * t[i].kvBytesSeq);
  const single = await computeGqa(engine, { n: 12, hq: 8, dk: 8, seed: 1, hkv: 2 });
  assert.equal(single.maxAbs, t[2].maxAbs);
  const other = await computeGqa(engine, { n: 12, hq: 8, dk: 8, seed: 2, hkv: 2 });
  assert.notEqual(other.maxAbs, single.maxAbs);
  assert.deepEqual(divisors(12), [12, 6, 4, 3, 2, 1]);
});

test('parameters: more heads at fixed d_model, the same count; fewer K/V heads, fewer', () => {
  for (const hq of [1, 2, 4, 8, 16]) {
    const p = attentionParams({ dModel: 512, hq });
    assert.equal(p.dk * hq, 512);
    assert.equal(p.total, 4 * 512 * 512, `H = ${hq}`);
  }
  const g = attentionParams({ dModel: 512, hq: 8, hkv: 2 });
  assert.equal(g.kv, 2 * 512 * 2 * 64);
  assert.ok(g.total < 4 * 512 * 512);
});
