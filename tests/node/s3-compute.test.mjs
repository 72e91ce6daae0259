// Section 3's compute module (web/js/sections/s3-compute.mjs) on the real engine: the two
// roads agree, the loop's rows are the matrix's rows, the memory table's four numbers equal
// the engine's own runs and counts, and its note names the larger scratch.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadEngine, maxAbsDiff } from './engine-fixtures.mjs';
import { computeRoads, loopRow, loopRows, memoryHeld, roadInputs, DRAW_MAX, D } from '../../web/js/sections/s3-compute.mjs';
import { DEFAULT, computeExample } from '../../web/js/lesson/worked-example.mjs';

const engine = await loadEngine();

test('n = 4 is the worked example; larger n are seeded d = 16 inputs', async () => {
  const ex = await computeExample(engine, { ...DEFAULT, causal: false });
  const four = await roadInputs(engine, { n: 4, seed: 9 });
  assert.deepEqual(Array.from(four.q.data), Array.from(ex.Q.data));
  const eight = await roadInputs(engine, { n: 8, seed: 5 });
  assert.deepEqual([eight.q.rows, eight.q.cols], [8, D]);
  assert.deepEqual(Array.from(eight.v.data), Array.from(engine.randomNormal({ seed: 7, rows: 8, cols: D }).data));
});

test('the loop and the matrix give the same output, with and without the mask; the loop\'s rows are the matrix\'s', async () => {
  for (const n of [4, 8, 64]) {
    for (const causal of [false, true]) {
      const r = await computeRoads(engine, { n, seed: 1, causal });
      assert.ok(r.maxDiff < 1e-5, `n ${n} causal ${causal}: ${r.maxDiff}`);
      assert.equal(r.maxDiff, maxAbsDiff(r.loopRes.out.data, r.matRes.out.data));
      const rows = await loopRows(engine, r);
      assert.equal(rows.length, n);
      for (let i = 0; i < n; i++) {
        const want = r.matRes.weights.data.subarray(i * n, (i + 1) * n);
        assert.ok(maxAbsDiff(rows[i].data, want) < 1e-6, `n ${n} causal ${causal} row ${i}`);
        if (causal && i + 1 < n) assert.equal(rows[i].data[i + 1], 0, 'a masked key gets no weight');
      }
      assert.deepEqual(Array.from((await loopRow(engine, r, n - 1)).data), Array.from(rows[n - 1].data));
    }
  }
});

test('the memory table: scores held (one row, all n²) and the kernel\'s scratch equal the engine; the note names the larger', async () => {
  for (const n of [4, 8, 64]) {
    const r = await computeRoads(engine, { n, seed: 1, causal: false });
    const m = memoryHeld(r);
    // the same two runs, with the engine itself
    const d = await roadInputs(engine, { n, seed: 1 });
    const loop = engine.attention({ ...d, variant: 'chunked', blockQ: 1, blockK: n });
    const mat = engine.attention({ ...d, variant: 'materialized' });
    const matrix = engine.scoreMatrixBytes({ n, bytesPerElement: 4 });
    assert.equal(matrix, n * n * 4);
    assert.deepEqual([m.scoresLoop, m.scoresMatrix, m.scratchLoop, m.scratchMatrix], [matrix / n, matrix, loop.scratchBytes, mat.scratchBytes], `n ${n}`);
    assert.equal(m.noteKey, loop.scratchBytes > mat.scratchBytes ? 's3.mem.loopMore' : 's3.mem.matrixMore', `n ${n}`);
    assert.equal(m.ratio, mat.scratchBytes / loop.scratchBytes);
    assert.equal(r.bytes16, n * n * 2);
  }
});

test('the full weights come back only up to the size the page draws', async () => {
  assert.ok((await computeRoads(engine, { n: DRAW_MAX, seed: 1, causal: true })).matRes.weights);
  assert.equal((await computeRoads(engine, { n: 1024, seed: 1, causal: true })).matRes.weights, undefined);
});
