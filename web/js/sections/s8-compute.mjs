// Section 8's numbers, without the page: chunked attention.
// Part 1: one query row traced tile by tile (engine.onlineSoftmaxTrace) next to the
// materialized result, and the grid of query tiles × key tiles under the causal rule.
// Part 2: one head at length n through an engine pool: the materialized path asked
// first (refused past the engine's memory budget), then the chunked path.
// The engine is engine.mjs itself or the page's worker client (every call is awaited);
// the pool is engine-pool.mjs's. s8-chunked.mjs draws; tests: tests/node/s8-compute.test.mjs.

import { checkRowsFor } from '../engine-link/engine-pool.mjs';

export const D = 4, DV = 3;                // the traced example: q, k of width 4, v of width 3
export const KEYS_MAX = 16, BLOCK_MAX = 16, SEED_MAX = 1e9;
export const BIG_D = 64, BIG_BLOCK = 64, BIG_SEED = 1;
export const BIG_NS = [4096, 8192, 16384, 32768, 65536, 131072];
export const BIG_DEFAULT = 131072;
// the trace's output and the materialized one are called equal below this difference
export const EQUAL_TOL = 1e-5;

/**
 * A tile of query rows [q0, q1) against key tiles [k0, k1) under the causal rule
 * "row i sees keys j <= i": 'skip' when every key comes after the tile's last row
 * (the kernel never reads it), 'full' when every key is visible to its first row,
 * else 'partial' (the diagonal crosses it: some entries masked). Without the mask
 * every tile is 'full'.
 */
export function classifyTile(q0, q1, k0, k1, causal = true) {
  if (!causal) return 'full';
  if (k0 > q1 - 1) return 'skip';
  if (k1 - 1 <= q0) return 'full';
  return 'partial';
}

/**
 * The tile grid for n keys (= n query rows) in tiles of b: T tiles a side, kinds[qt][kt],
 * how many tiles of each kind, the score entries the kernel computes (every entry of a
 * tile it does not skip) and the entries the rule leaves visible.
 */
export function tileGrid(n, b, causal) {
  const T = Math.ceil(n / b);
  const span = (t) => [t * b, Math.min(n, (t + 1) * b)];
  const kinds = [];
  const count = { full: 0, partial: 0, skip: 0 };
  let computed = 0;
  for (let qi = 0; qi < T; qi++) {
    const [q0, q1] = span(qi);
    const row = [];
    for (let ki = 0; ki < T; ki++) {
      const [k0, k1] = span(ki);
      const kind = classifyTile(q0, q1, k0, k1, causal);
      row.push(kind);
      count[kind]++;
      if (kind !== 'skip') computed += (q1 - q0) * (k1 - k0);
    }
    kinds.push(row);
  }
  const visible = causal ? (n * (n + 1)) / 2 : n * n;
  return { T, span, kinds, count, computed, visible };
}

/**
 * Part 1 for one setting: Q (keys×D), K (keys×D), V (keys×DV) from randomNormal(seed,
 * seed+1, seed+2), one query row per key, so any row can be traced (with the causal
 * mask row i sees keys 0…i). Returns the row's scores (scaled, before the mask), the
 * engine's trace of that row, the materialized output row and diff = max |trace − materialized|.
 */
export async function computeTrace(engine, { keys, block, seed, row, causal }) {
  const q = await engine.randomNormal({ seed, rows: keys, cols: D });
  const k = await engine.randomNormal({ seed: seed + 1, rows: keys, cols: D });
  const v = await engine.randomNormal({ seed: seed + 2, rows: keys, cols: DV });
  const all = await engine.attention({ q, k, v, variant: 'materialized', returnWeights: true });
  const mat = causal ? await engine.attention({ q, k, v, causal: true, variant: 'materialized' }) : all;
  const trace = await engine.onlineSoftmaxTrace({ q, k, v, row, blockK: block, causal });
  const matRow = mat.out.data.slice(row * DV, (row + 1) * DV);
  let diff = 0;
  for (let i = 0; i < DV; i++) diff = Math.max(diff, Math.abs(trace.out[i] - matRow[i]));
  return {
    scores: all.scores.data.slice(row * keys, (row + 1) * keys), mat: matRow,
    trace, diff, keys, block, seed, row, causal,
  };
}

/**
 * Part 2, step 1: the whole n×n matrix in one engine, with its real memory budget.
 * → {need (bytes of the n×n float32 scores), ms} when it ran, {need, refused: true, budget}
 * when the engine refused it ('TooLarge'); any other error is thrown.
 */
export async function askMaterialized(engine, pool, { n, d = BIG_D, seed = BIG_SEED, causal }, { signal, onAsking } = {}) {
  const need = await engine.scoreMatrixBytes({ n, bytesPerElement: 4 });
  if (onAsking) onAsking(need);
  try {
    const m = await pool.attentionSeeded({ n, d, seed, causal, variant: 'materialized' }, { signal, taskRows: n });
    return { need, ms: m.ms };
  } catch (err) {
    if (!err || err.code !== 'TooLarge') throw err;
    const said = /memory budget of (\d+) bytes/.exec(err.message || '');
    const budget = said ? Number(said[1]) : await engine.memoryBudget();
    return { need, refused: true, budget };
  }
}

/**
 * Part 2, step 2: the chunked path through the pool, one task per query tile (block rows:
 * the progress bar moves from the first finished tile), three rows checked against the
 * engine's reference. → {ms, gflops, workers, scratch (per worker), heap, checksum, checks,
 * maxDiff (over the checked rows)}.
 */
export async function runChunked(pool, { n, d = BIG_D, seed = BIG_SEED, causal, block = BIG_BLOCK }, { signal, onProgress } = {}) {
  const r = await pool.attentionSeeded({ n, d, seed, causal, variant: 'chunked', blockQ: block, blockK: block }, {
    signal, taskRows: block, checkRows: checkRowsFor(n), onProgress,
  });
  return {
    n, d, causal, ms: r.ms, gflops: r.flops / (r.ms * 1e6), workers: r.workers,
    scratch: r.scratchBytes, heap: r.heapBytes, checksum: r.checksum, checks: r.checks,
    maxDiff: Math.max(...r.checks.map((c) => c.maxAbsDiff)),
  };
}
