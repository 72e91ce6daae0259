// Section 3's numbers, apart from the page so a Node test can run them on the real engine
// (tests/node/s3-compute.test.mjs). Every function takes the engine (the page's Worker client
// or engine.mjs itself: both answer with a value or a Promise) and plain parameters. No DOM.
//
//   roadInputs(engine, {n, seed})             → {q, k, v}: the worked example at n = 4, else seeded d = 16
//   computeRoads(engine, {n, seed, causal})   → both roads on the same numbers: the loop (chunked,
//                                               blockQ = 1), the matrix (materialized), the n×n bytes,
//                                               and max |out_loop − out_matrix|
//   loopRow(engine, r, i)                     → the loop's view of query i (its one row of weights)
//   loopRows(engine, r)                       → every row of a result (n ≤ CACHE_MAX_N), sets r.rows
//   memoryHeld(r)                             → the memory table's four numbers and which road's scratch is larger

import { DEFAULT, computeExample } from '../lesson/worked-example.mjs';

export const N_VALUES = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
export const D = 16;
export const DRAW_MAX = 512;       // the full weights are drawn (and returned) up to this n
export const CACHE_MAX_N = 64;     // lesson-sized n: results kept per n and per row

export async function roadInputs(engine, { n, seed }) {
  if (n === 4) {
    const ex = await computeExample(engine, { ...DEFAULT, causal: false });
    return { q: ex.Q, k: ex.K, v: ex.V };
  }
  const [q, k, v] = await Promise.all([
    engine.randomNormal({ seed, rows: n, cols: D }),
    engine.randomNormal({ seed: seed + 1, rows: n, cols: D }),
    engine.randomNormal({ seed: seed + 2, rows: n, cols: D }),
  ]);
  return { q, k, v };
}

/** Every number shown for one (n, seed, causal), computed by the engine. */
export async function computeRoads(engine, p) {
  const d = await roadInputs(engine, p);
  const { n, causal } = p;
  const [loopRes, matRes, bytes32, bytes16] = await Promise.all([
    engine.attention({ ...d, causal, variant: 'chunked', blockQ: 1, blockK: d.k.rows }),
    engine.attention({ ...d, causal, variant: 'materialized', returnWeights: n <= DRAW_MAX }),
    engine.scoreMatrixBytes({ n, bytesPerElement: 4 }),
    engine.scoreMatrixBytes({ n, bytesPerElement: 2 }),
  ]);
  let maxDiff = 0;
  for (let i = 0; i < loopRes.out.data.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(loopRes.out.data[i] - matRes.out.data[i]));
  }
  return { ...p, d, loopRes, matRes, bytes32, bytes16, maxDiff, rows: null };
}

// The loop's view of one query: q row i against every key, rowOffset keeps the causal mask global.
const rowArgs = (r, i) => ({
  q: { rows: 1, cols: r.d.q.cols, data: r.d.q.data.slice(i * r.d.q.cols, (i + 1) * r.d.q.cols) },
  k: r.d.k, v: r.d.v, causal: r.causal, rowOffset: i, returnWeights: true,
});

/** The weights of query row i as the loop holds them (1 × n). */
export async function loopRow(engine, r, i) {
  return (await engine.attention(rowArgs(r, i))).weights;
}

/** Every row of a result, sent together (a worker answers them in order); stored in r.rows. */
export async function loopRows(engine, r) {
  r.rows = await Promise.all(Array.from({ length: r.n }, (_, i) => loopRow(engine, r, i)));
  return r.rows;
}

/**
 * The memory table: the scores each road holds at once (the loop one row of the engine's n×n
 * figure, the matrix all of it) and everything the kernel allocated (engine scratchBytes), and
 * the note that names the larger scratch (with matrix / loop as its ratio).
 */
export function memoryHeld({ n, bytes32, loopRes, matRes }) {
  const scratchLoop = loopRes.scratchBytes, scratchMatrix = matRes.scratchBytes;
  return {
    scoresLoop: bytes32 / n, scoresMatrix: bytes32, scratchLoop, scratchMatrix,
    noteKey: scratchLoop > scratchMatrix ? 's3.mem.loopMore' : 's3.mem.matrixMore',
    ratio: scratchMatrix / scratchLoop,
  };
}
