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

/** Product of two arrays-of-rows. */
export const matmul = (A, B) => A.map((r) => B[0].map((_, j) => r.reduce((s, a, t) => s + a * B[t][j], 0)));

/** Largest |a_i - b_i|. */
export const maxAbsDiff = (a, b) => {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

// The worked example: one 3-number vector per word, projected by Wq, Wk, Wv.
export const words = ['the', 'cat', 'sat', 'down'];
const x = [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]];
export const example = {
  q: mat(matmul(x, [[0, 1], [1, 0], [0, 1]])),
  k: mat(matmul(x, [[1, 0], [1, 1], [0, 1]])),
  v: mat(matmul(x, [[1, 0], [0, 1], [1, 1]])),
};
