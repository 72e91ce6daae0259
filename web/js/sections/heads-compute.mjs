// Chapter 10's numbers (several heads; grouped-query attention), without DOM, so
// the section and tests/node/heads-compute.test.mjs run exactly the same calls.
// Every product and every attention is the engine's: projections as chapter 2
// does them (worked-example.mjs `project`), heads by multiheadAttention. JS only
// moves numbers (stacking heads, concatenating, transposing) and compares outputs.
//
//   computeTwoHeads(engine, {x, heads: [{Wq, Wk, Wv}, {…}], Wo, causal})
//     → {heads: [{Q, K, V, weights, out}], concat (4×(2·d_v)), final (4×d_model), kernelCalls}
//   computeGqa(engine, {n, hq, dk, seed, hkv, causal})
//     → {hkv, group, groups, kvBytesToken, kvBytesSeq, maxAbs, rel, mha, gqa}
//   attentionParams({dModel, hq, hkv}) → weights of W_Q, W_K, W_V, W_O (d_k = d_model / H_q)
// Shapes: head-major, as the engine's multiheadAttention: head h holds rows [h·L, (h+1)·L).

import { project, DEFAULT } from '../lesson/worked-example.mjs';

const bits = (rowsText) => {
  const rows = rowsText.split(' ');
  return { rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.join(''), Number) };
};

// Head 1 is chapter 2's head (the reader has its numbers); head 2 asks another question:
// its queries look for the key that "the" and "cat" carry (x's first two columns) and
// ignore the third, so cat and sat look back at "the"/"cat" instead of at "sat".
export const HEAD_DEFAULTS = Object.freeze([
  Object.freeze({ Wq: DEFAULT.Wq, Wk: DEFAULT.Wk, Wv: DEFAULT.Wv }),
  Object.freeze({ Wq: bits('20 02 00'), Wk: bits('02 20 00'), Wv: bits('01 10 00') }),
]);
// W_O: (2 heads · 2 columns) × 3 = back to the word vectors' width.
export const WO_DEFAULT = bits('100 010 001 110');

/** Rows of several head-major matrices stacked: [A; B; …]. */
export function stackRows(ms) {
  const cols = ms[0].cols;
  const data = new Float32Array(ms.reduce((s, m) => s + m.rows, 0) * cols);
  let off = 0;
  for (const m of ms) { data.set(m.data, off); off += m.data.length; }
  return { rows: data.length / cols, cols, data };
}

/** Head h of a head-major matrix with `per` rows per head. */
export function headOf(m, h, per) {
  return { rows: per, cols: m.cols, data: m.data.slice(h * per * m.cols, (h + 1) * per * m.cols) };
}

/** [out_1 | out_2 | …] row by row: the heads' outputs side by side (concatenation). */
export function concatColumns(ms) {
  const rows = ms[0].rows, cols = ms.reduce((s, m) => s + m.cols, 0);
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let c = 0;
    for (const m of ms) { data.set(m.data.subarray(i * m.cols, (i + 1) * m.cols), i * cols + c); c += m.cols; }
  }
  return { rows, cols, data };
}

/** The worked example with two heads, every number from the engine. */
export async function computeTwoHeads(engine, { x, heads, Wo, causal = false }) {
  const L = x.rows;
  const proj = await Promise.all(heads.map(async ({ Wq, Wk, Wv }) => {
    const [Q, K, V] = await Promise.all([project(engine, x, Wq), project(engine, x, Wk), project(engine, x, Wv)]);
    return { Q, K, V };
  }));
  const dk = proj[0].Q.cols;
  for (const p of proj)
    if (p.Q.cols !== dk || p.K.cols !== dk || p.V.cols !== proj[0].V.cols) {
      const e = new Error('heads: every head needs the same d_k and d_v'); e.code = 'ShapeMismatch'; throw e;
    }
  const r = await engine.multiheadAttention({
    q: stackRows(proj.map((p) => p.Q)), k: stackRows(proj.map((p) => p.K)), v: stackRows(proj.map((p) => p.V)),
    headsQ: heads.length, headsKv: heads.length, causal, returnWeights: true,
  });
  const outs = proj.map((_, h) => headOf(r.out, h, L));
  const concat = concatColumns(outs);
  const final = await project(engine, concat, Wo);
  return {
    heads: proj.map((p, h) => ({ ...p, weights: r.weights[h], out: outs[h] })),
    concat, final, dk, kernelCalls: r.kernelCalls,
  };
}

/** Divisors of hq, largest first (H_kv = H_q is multi-head, 1 is multi-query). */
export const divisors = (hq) => Array.from({ length: hq }, (_, i) => hq - i).filter((d) => hq % d === 0);

/** Which key/value head each query head reads: query head h → h / (H_q / H_kv) (engine's rule). */
export const groupsOf = (hq, hkv) => Array.from({ length: hkv }, (_, g) =>
  Array.from({ length: hq / hkv }, (_, i) => g * (hq / hkv) + i));

// Per token, the H heads' rows side by side: (H·n)×d head-major → n×(H·d).
function tokensByHeads(m, H, n) {
  const d = m.cols, data = new Float32Array(n * H * d);
  for (let h = 0; h < H; h++) for (let t = 0; t < n; t++)
    data.set(m.data.subarray((h * n + t) * d, (h * n + t + 1) * d), (t * H + h) * d);
  return { rows: n, cols: H * d, data };
}
// And back: n×(H·d) → (H·n)×d head-major.
function headsByTokens(m, H, n) {
  const d = m.cols / H, data = new Float32Array(n * H * d);
  for (let h = 0; h < H; h++) for (let t = 0; t < n; t++)
    data.set(m.data.subarray((t * H + h) * d, (t * H + h + 1) * d), (h * n + t) * d);
  return { rows: H * n, cols: d, data };
}

/**
 * The mean of each group's K (or V) heads, as Ainslie et al. convert a multi-head
 * checkpoint: (H_q·n)×d → (H_kv·n)×d. The engine multiplies each token's heads by a
 * pooling matrix P (H_q·d × H_kv·d; 1/G where head h belongs to group g, same column).
 */
export async function meanPoolHeads(engine, m, hq, hkv, n) {
  const d = m.cols, G = hq / hkv;
  const P = { rows: hq * d, cols: hkv * d, data: new Float32Array(hq * d * hkv * d) };
  for (let h = 0; h < hq; h++) for (let c = 0; c < d; c++)
    P.data[(h * d + c) * P.cols + Math.floor(h / G) * d + c] = 1 / G;
  return headsByTokens(await project(engine, tokensByHeads(m, hq, n), P), hkv, n);
}

/** Largest |a − b| and ‖a − b‖ / ‖a‖ over all entries (the reference is a). */
export function difference(a, b) {
  let max = 0, num = 0, den = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    max = Math.max(max, Math.abs(d)); num += d * d; den += a[i] * a[i];
  }
  return { maxAbs: max, rel: den > 0 ? Math.sqrt(num / den) : 0 };
}

/** The seeded multi-head inputs of the GQA experiment: q, k, v each (H_q·n)×d_k. */
export async function gqaInputs(engine, { n, hq, dk, seed }) {
  const [q, k, v] = await Promise.all([0, 1, 2].map((i) => engine.randomNormal({ seed: seed + i, rows: hq * n, cols: dk })));
  return { q, k, v };
}

/** One H_kv: GQA from mean-pooled K/V against multi-head attention on the same inputs. */
export async function computeGqa(engine, { n, hq, dk, seed, hkv, causal = true, inputs, mha }) {
  const { q, k, v } = inputs || await gqaInputs(engine, { n, hq, dk, seed });
  const ref = mha || (await engine.multiheadAttention({ q, k, v, headsQ: hq, headsKv: hq, causal })).out;
  const [kp, vp] = hkv === hq ? [k, v]
    : await Promise.all([meanPoolHeads(engine, k, hq, hkv, n), meanPoolHeads(engine, v, hq, hkv, n)]);
  const r = await engine.multiheadAttention({ q, k: kp, v: vp, headsQ: hq, headsKv: hkv, causal });
  const [kvBytesToken, kvBytesSeq] = await Promise.all([
    engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S: 1, dk, dv: dk }),
    engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S: n, dk, dv: dk }),
  ]);
  return {
    hkv, group: hq / hkv, groups: groupsOf(hq, hkv), kvBytesToken, kvBytesSeq,
    ...difference(ref.data, r.out.data), mha: ref, gqa: r.out, kernelCalls: r.kernelCalls,
  };
}

/** Every divisor of H_q at once (the table), sharing the inputs and the multi-head result. */
export async function computeGqaTable(engine, { n, hq, dk, seed, causal = true }) {
  const inputs = await gqaInputs(engine, { n, hq, dk, seed });
  const mha = (await engine.multiheadAttention({ ...inputs, headsQ: hq, headsKv: hq, causal })).out;
  const rows = [];
  for (const hkv of divisors(hq)) rows.push(await computeGqa(engine, { n, hq, dk, seed, hkv, causal, inputs, mha }));
  return rows;
}

/**
 * Weights of one attention layer with H_q query heads of d_k = d_model / H_q:
 * W_Q and W_O are d_model × (H_q·d_k), W_K and W_V d_model × (H_kv·d_k).
 */
export function attentionParams({ dModel, hq, hkv = hq }) {
  const dk = dModel / hq;
  const q = dModel * hq * dk, kv = 2 * dModel * hkv * dk, o = hq * dk * dModel;
  return { dk, q, kv, o, total: q + kv + o };
}
