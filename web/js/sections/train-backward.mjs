// Chapter 14, part 3: the backward pass of attention tile by tile, without the DOM.
// The forward is the engine's (engine.attention with returnWeights: the output, the scaled
// scores, the weights); from it this file keeps what a chunked forward would keep, the output
// and each row's log-sum-exp, then walks the chunked backward of FlashAttention-2 (Dao 2023):
// for each block of keys, for each block of queries that sees it, recompute the tile of weights
// from Q, K and the log-sum-exp, and add its share to dV, dK and dQ. The same gradients are
// computed the materialized way (the whole n×n weights and their gradient at once); both must
// agree, and tests/node/train-backward.test.mjs checks them against finite differences of the
// engine's own forward.
// The engine may be engine.mjs itself (Node tests) or the page's client (every call a Promise).
// Also: the gradient of softmax cross-entropy, p − y, for one row of the model's probabilities.

export const EXAMPLE = Object.freeze({ n: 6, d: 4, block: 2 });

const row = (m, i) => m.data.subarray(i * m.cols, (i + 1) * m.cols);
const zeros = (rows, cols) => ({ rows, cols, data: new Float64Array(rows * cols) });

/** Q, K, V and the gradient of the output dO, drawn by the engine from one seed (four streams). */
export async function drawExample(engine, seed, { n, d } = EXAMPLE) {
  const draw = (s) => engine.randomNormal({ seed: (seed * 4 + s) >>> 0, rows: n, cols: d });
  const [q, k, v, dOut] = await Promise.all([draw(0), draw(1), draw(2), draw(3)]);
  return { q, k, v, dOut, n, d };
}

/**
 * The forward through the engine (causal) and what the chunked forward saves:
 * {out, weights, scores, lse (row log-sum-exp of the scaled scores), D (row sums of dO ∘ O), scale}.
 */
export async function forwardSaved(engine, ex) {
  const r = await engine.attention({ q: ex.q, k: ex.k, v: ex.v, causal: true, returnWeights: true });
  const n = ex.q.rows;
  const lse = new Float64Array(n), D = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = row(r.scores, i);
    let m = -Infinity;
    for (const x of s) if (x > m) m = x;
    let z = 0;
    for (const x of s) if (x > -Infinity) z += Math.exp(x - m);
    lse[i] = m + Math.log(z);
    const o = row(r.out, i), g = row(ex.dOut, i);
    for (let c = 0; c < o.length; c++) D[i] += o[c] * g[c];
  }
  return { out: r.out, weights: r.weights, scores: r.scores, lse, D, scale: 1 / Math.sqrt(ex.q.cols) };
}

const visible = (i, j) => j <= i;   // the causal rule

/** dQ, dK, dV the materialized way: P and dP held whole (n×n each). */
export function materializedBackward(ex, f) {
  const { q, k, v, dOut } = ex;
  const n = q.rows, d = q.cols, dv = v.cols;
  const P = f.weights;
  const dQ = zeros(n, d), dK = zeros(n, d), dV = zeros(n, dv);
  const dS = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const p = P.data[i * n + j];
      if (!visible(i, j)) continue;
      let dp = 0;
      for (let c = 0; c < dv; c++) { dp += dOut.data[i * dv + c] * v.data[j * dv + c]; dV.data[j * dv + c] += p * dOut.data[i * dv + c]; }
      dS[i * n + j] = p * (dp - f.D[i]);
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    const s = dS[i * n + j] * f.scale;
    if (s === 0) continue;
    for (let c = 0; c < d; c++) { dQ.data[i * d + c] += s * k.data[j * d + c]; dK.data[j * d + c] += s * q.data[i * d + c]; }
  }
  return { dQ, dK, dV, heldBytes: 2 * n * n * 4 };
}

/**
 * The chunked backward, one tile per step: [{kb, qb, rows: [i0, i1), cols: [j0, j1), P (tile),
 * dS (tile), dQ, dK, dV (copies after this tile)}]. Tiles that the causal rule hides entirely are
 * skipped (they are never computed), as the kernel does.
 */
export function chunkedBackwardSteps(ex, f, block = EXAMPLE.block) {
  const { q, k, v, dOut } = ex;
  const n = q.rows, d = q.cols, dv = v.cols;
  const dQ = zeros(n, d), dK = zeros(n, d), dV = zeros(n, dv);
  const steps = [];
  for (let j0 = 0; j0 < n; j0 += block) {
    const j1 = Math.min(n, j0 + block);
    for (let i0 = 0; i0 < n; i0 += block) {
      const i1 = Math.min(n, i0 + block);
      if (!visible(i1 - 1, j0)) continue;   // no query of this block sees any key of that one
      const h = i1 - i0, w = j1 - j0;
      const P = zeros(h, w), dS = zeros(h, w);
      for (let i = i0; i < i1; i++) for (let j = j0; j < j1; j++) {
        if (!visible(i, j)) { P.data[(i - i0) * w + (j - j0)] = 0; continue; }
        let s = 0;
        for (let c = 0; c < d; c++) s += q.data[i * d + c] * k.data[j * d + c];
        const p = Math.exp(s * f.scale - f.lse[i]);   // recomputed from Q, K and the saved lse
        let dp = 0;
        for (let c = 0; c < dv; c++) { dp += dOut.data[i * dv + c] * v.data[j * dv + c]; dV.data[j * dv + c] += p * dOut.data[i * dv + c]; }
        P.data[(i - i0) * w + (j - j0)] = p;
        const ds = p * (dp - f.D[i]);
        dS.data[(i - i0) * w + (j - j0)] = ds;
        for (let c = 0; c < d; c++) { dQ.data[i * d + c] += f.scale * ds * k.data[j * d + c]; dK.data[j * d + c] += f.scale * ds * q.data[i * d + c]; }
      }
      const copy = (m) => ({ rows: m.rows, cols: m.cols, data: Float64Array.from(m.data) });
      steps.push({ kb: j0 / block, qb: i0 / block, rows: [i0, i1], cols: [j0, j1], P, dS, dQ: copy(dQ), dK: copy(dK), dV: copy(dV) });
    }
  }
  return steps;
}

/** Largest |a − b| over two matrices' entries. */
export function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.data.length; i++) m = Math.max(m, Math.abs(a.data[i] - b.data[i]));
  return m;
}

/** The whole example: the forward, every tile, the materialized gradients and how far apart they are. */
export async function backwardExample(engine, seed, block = EXAMPLE.block) {
  const ex = await drawExample(engine, seed);
  const f = await forwardSaved(engine, ex);
  const steps = chunkedBackwardSteps(ex, f, block);
  const whole = materializedBackward(ex, f);
  const last = steps[steps.length - 1];
  const diff = Math.max(maxDiff(last.dQ, whole.dQ), maxDiff(last.dK, whole.dK), maxDiff(last.dV, whole.dV));
  return { ex, f, steps, whole, diff, block };
}

/**
 * What the backward keeps from the forward, in bytes (float32), for n tokens and one head:
 * the chunked road keeps the log-sum-exp (n numbers); the materialized road the weights (n×n,
 * the engine's scoreMatrixBytes).
 */
export async function keptBytes(engine, n) {
  return { chunked: 4 * n, materialized: await engine.scoreMatrixBytes({ n, bytesPerElement: 4 }) };
}

/**
 * The gradient of softmax cross-entropy with respect to the logits of one position:
 * p − y (y the one-hot of the right character). probs: the model's row; target: its id.
 * Returns the `top` characters by probability (the target always among them) with p, y, p − y,
 * and the loss −ln p_target.
 */
export function crossEntropyRow(probs, target, top = 5) {
  const ids = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a]).slice(0, top);
  if (!ids.includes(target)) ids[ids.length - 1] = target;
  const rows = ids.map((id) => ({ id, p: probs[id], y: id === target ? 1 : 0, g: probs[id] - (id === target ? 1 : 0) }));
  let sum = 0;
  for (let i = 0; i < probs.length; i++) sum += probs[i] - (i === target ? 1 : 0);
  return { rows, loss: -Math.log(probs[target]), gradSum: sum };
}
