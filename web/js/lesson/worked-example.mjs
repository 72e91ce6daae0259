// The lesson's worked example (four tokens, width 3 → width 2) and the engine
// calls that compute everything shown about it. Used by sections 1, 2, 3, 9
// (and any section that wants the same numbers).
//
// Usage:
//   import { WORDS, DEFAULT, computeExample, project } from '../lesson/worked-example.mjs' (from a section);
//   const r = await computeExample(ctx.engine, { ...DEFAULT, causal: false });
//   // r.Q r.K r.V (4×2), r.scores (4×4, already ÷√d_k; −Infinity where masked),
//   // r.weights (4×4), r.out (4×2), r.dk — every matrix {rows, cols, data: Float32Array}
//
// The projections Q = x·W_Q etc. are dot products too, so the engine computes
// them with the same kernel: attention(q = x, k = W_Qᵀ, scale = 1) returns
// scores = x·W_Q. Only the transpose (moving numbers around) happens in JS.

export const WORDS = ['the', 'cat', 'sat', 'down'];

// The same four tokens in the reader's language (issue 21 item 11): a short sentence in the
// reader's script, one token per row of the same x, so every number of the lesson is unchanged
// and still computed by the engine. Row 3 (index 2) is the row the prose follows («sat» in
// English). The English sentence stays as a preset of section 2 (URL state s2.words=en).
export const WORD_SETS = Object.freeze({
  en: Object.freeze([...WORDS]),
  fa: Object.freeze(['گربه', 'روی', 'فرش', 'نشست']),
  ar: Object.freeze(['القط', 'جلس', 'على', 'السجادة']),
});

/** The example's tokens for a page language; preset 'en' (or an unknown language) gives English. */
export function exampleWords(lang, preset = null) {
  return preset === 'en' || !Object.hasOwn(WORD_SETS, lang) ? WORD_SETS.en : WORD_SETS[lang];
}

// Entries are 0/1, written one row per group of binary digits ("011" = [0, 1, 1]).
const bits = (rowsText) => {
  const rows = rowsText.split(' ');
  return { rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.join(''), Number) };
};

export const DEFAULT = Object.freeze({
  x: bits('100 010 011 001'),     // the, cat, sat, down
  Wq: bits('01 10 01'),
  Wk: bits('10 11 01'),
  Wv: bits('10 01 11'),
});

export function transpose(m) {
  const t = new Float32Array(m.rows * m.cols);
  for (let i = 0; i < m.rows; i++) for (let j = 0; j < m.cols; j++) t[j * m.rows + i] = m.data[i * m.cols + j];
  return { rows: m.cols, cols: m.rows, data: t };
}

/** x (n×a) · W (a×b) computed by the engine's dot-product kernel. */
export async function project(engine, x, W) {
  const k = transpose(W);                                    // b×a: row j = column j of W
  const v = { rows: k.rows, cols: 1, data: new Float32Array(k.rows) };
  const r = await engine.attention({ q: x, k, v, scale: null, returnWeights: true });
  return r.scores;                                           // n×b = x·W (scale 1)
}

/** Q = x·W_Q, K = x·W_K, V = x·W_V from the engine (the default matrices unless given). */
export async function projectQKV(engine, { x, Wq, Wk, Wv } = DEFAULT) {
  const [q, k, v] = await Promise.all([project(engine, x, Wq), project(engine, x, Wk), project(engine, x, Wv)]);
  return { q, k, v };
}

/** Everything the worked example shows, from the engine. */
export async function computeExample(engine, { x, Wq, Wk, Wv, causal = false }) {
  const { q: Q, k: K, v: V } = await projectQKV(engine, { x, Wq, Wk, Wv });
  const r = await engine.attention({ q: Q, k: K, v: V, causal, returnWeights: true });
  return { x, Wq, Wk, Wv, Q, K, V, scores: r.scores, weights: r.weights, out: r.out, dk: Q.cols, causal };
}

/** How prose shows a token: a Latin one in an LTR isolate (ltr(w)), one in the reader's script in «». */
export const tokenShown = (w, ltr) => (/[A-Za-z]/.test(w) ? ltr(w) : `«${w}»`);

export const at = (m, i, j) => m.data[i * m.cols + j];
export const row = (m, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
