// The numbers of chapter 11 (sliding-window attention), computed by the engine.
// Pure: no DOM. Called by sections/window.mjs and by tests/node/window-compute.test.mjs
// with the real engine (in the page, the worker client: every method returns a Promise;
// in Node, the engine itself: `await` works on both).
//
//   computeBand(engine, {n, w, causal, seed})
//     → {n, w, causal, weights (n×n, engine attention with window + returnWeights),
//        pairs (visiblePairs with the window), full (n², visiblePairs without any rule),
//        causalPairs (n(n+1)/2, visiblePairs causal), perRow: keys each row sees (from the weights' scores)}
//   computeReach(engine, {n, w, k})
//     → {n, w, k, influence (n×n: entry (i, j) = how much token j's value reaches output i after
//        k causal windowed layers), reach (engine: how many positions back the last token is
//        influenced), reachRows (the same for every row), formula (min(n − 1, k·(w − 1)))}
//   rowsSentence(band) → {key, counts: {both, first, last}}: which sentence says what w counts,
//        and the key counts it names (each with the noun that agrees: window.band.keys.<plural>)
//   predictRatio(engine, {n, w}) → {windowed, causal, ratio}: visible pairs causal with the
//        window over causal without it (the work the long run does, up to constant costs)

const D = 8;   // width of the random Q and K of the band's heatmap

/** The formula the chapter states for the reach of k causal windowed layers. */
export function reachFormula({ n, w, k }) {
  return Math.min(n - 1, k * (w - 1));
}

export async function computeBand(engine, { n, w, causal, seed = 5 }) {
  const q = await engine.randomNormal({ seed, rows: n, cols: D });
  const k = await engine.randomNormal({ seed: seed + 1, rows: n, cols: D });
  const v = { rows: n, cols: 1, data: new Float32Array(n) };
  const r = await engine.attention({ q, k, v, causal, window: w, returnWeights: true });
  const perRow = [];
  for (let i = 0; i < n; i++) {
    let c = 0;
    for (let j = 0; j < n; j++) if (Number.isFinite(r.scores.data[i * n + j])) c++;
    perRow.push(c);
  }
  const [pairs, full, causalPairs] = await Promise.all([
    engine.visiblePairs({ L: n, S: n, causal, window: w }),
    engine.visiblePairs({ L: n, S: n }),
    engine.visiblePairs({ L: n, S: n, causal: true }),
  ]);
  return { n, w, causal, weights: r.weights, pairs, full, causalPairs, perRow };
}

/**
 * What the sentence under the band says: with the mask, the first row and the last; without
 * it, also a row far from both edges, which sees w − 1 keys on each side and itself, 2w − 1 in
 * all; when 2w − 1 > n no row is that far, and the widest row (the engine's count) sees fewer.
 */
export function rowsSentence({ n, w, causal, perRow }) {
  // w = 1: every row sees itself only, with or without the mask (no sentence about zero keys)
  const key = w === 1 ? 'window.band.rowsSelf' : causal ? 'window.band.rowsCausal' : 2 * w - 1 <= n ? 'window.band.rowsBoth' : 'window.band.rowsBothNarrow';
  return { key, counts: { both: Math.max(...perRow), first: perRow[0], last: perRow[n - 1] } };
}

/**
 * k layers of causal windowed attention stacked, with equal scores (Q = K = 0, so
 * every visible key gets a positive weight) and V = the n×n identity: the output
 * of one layer is the V of the next. Row i of the result holds, in column j, the
 * share of token j's one-hot value that reached position i, so its nonzero
 * columns are exactly the tokens that can influence position i. Positive weights
 * multiply and add without cancelling, and the smallest product, (1/w)^k, stays
 * far above float32's smallest number for the sizes the page allows.
 */
export async function computeReach(engine, { n, w, k }) {
  const zeros = { rows: n, cols: 1, data: new Float32Array(n) };
  let v = { rows: n, cols: n, data: new Float32Array(n * n) };
  for (let i = 0; i < n; i++) v.data[i * n + i] = 1;
  for (let layer = 0; layer < k; layer++) {
    const r = await engine.attention({ q: zeros, k: zeros, v, causal: true, window: w });
    v = r.out;
  }
  const reachRows = [];
  for (let i = 0; i < n; i++) {
    let first = i;
    for (let j = 0; j <= i; j++) if (v.data[i * n + j] > 0) { first = j; break; }
    reachRows.push(i - first);
  }
  return { n, w, k, influence: v, reach: reachRows[n - 1], reachRows, formula: reachFormula({ n, w, k }) };
}

export async function predictRatio(engine, { n, w }) {
  const [windowed, causal] = await Promise.all([
    engine.visiblePairs({ L: n, S: n, causal: true, window: w }),
    engine.visiblePairs({ L: n, S: n, causal: true }),
  ]);
  return { windowed, causal, ratio: windowed / causal };
}

/** The long run's sizes: 2,048 doubling up to `max`. */
export function runSizes(max) {
  const out = [];
  for (let n = 2048; n <= max; n *= 2) out.push(n);
  return out;
}
