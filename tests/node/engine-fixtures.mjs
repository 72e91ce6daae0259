// Shared fixtures for the engine-*.test.mjs files: the built engine wrapper
// (build/site/js/engine.mjs, run `build-scripts/build` first), small matrix
// helpers and the lesson's worked example (the cat sat down, d_k = 2).
export { loadEngine } from '../../build/site/js/engine.mjs';

/** {rows, cols, data: Float32Array} from an array of rows. */
export const mat = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });

/** Entry (i, j) of a matrix. */
export const at = (m, i, j) => m.data[i * m.cols + j];

/** Row i of a matrix as a plain array. */
export const row = (m, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));

/** Largest |a_i - b_i|. */
export const maxAbsDiff = (a, b) => {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

// The worked example (d_k = 2): each word's query, key and value, i.e. the
// lesson's word vectors already multiplied by W_q, W_k and W_v.
export const example = {
  q: mat([[0, 1], [1, 0], [1, 1], [0, 1]]),
  k: mat([[1, 0], [1, 1], [1, 2], [0, 1]]),
  v: mat([[1, 0], [0, 1], [1, 2], [1, 1]]),
};
