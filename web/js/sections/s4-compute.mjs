// Section 4's numbers, without the page: why the scores are divided by √d_k.
// Every function takes the engine (engine.mjs itself, or the page's worker client:
// each call is awaited, so a plain value and a promise both work) and plain
// parameters, and returns plain numbers; s4-scaling.mjs formats and draws them.
// Q and K are N(0,1) draws from randomNormal(seed) with 2n rows: Q = the first n,
// K = the last n (the stream experiment() uses), so the heatmap, the variance
// numbers and the tables agree. Node tests: tests/node/s4-compute.test.mjs.

export const DK_VALUES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024];
export const SCALES = ['off', 'sqrt', 'dk'];
export const N_MIN = 2, N_MAX = 128, SEED_MAX = 1e9;
export const SWEEP_SEEDS = Array.from({ length: 32 }, (_, i) => i + 1);
// quarter-octave steps from 1 to 1024, rounded and de-duplicated (36 points, includes 64 and 1024)
export const SWEEP_DK = [...new Set(Array.from({ length: 41 }, (_, k) => Math.round(2 ** (k / 4))))];
export const MANY_SEEDS = 40;
export const TREND_DK = [16, 64, 256];

// The Persian report this lesson grew from (quoted, not computed): n = 8, d_k = 64.
export const ARTICLE = {
  n: 8, dk: 64, maxOff: 0.999955, hOff: 0.2718, maxOn: 0.473270, hOn: 1.7842, uniform: 2.0794,
  trend: { 16: { max: 0.99785, h: 0.73, share: 0.35 }, 64: { max: 1.0, h: 0.30, share: 0.14 }, 256: { max: 1.0, h: 0.11, share: 0.05 } },
  single64: 0.27, five64: 0.30,
};

export const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
export const sd = (a) => { const m = mean(a); return Math.sqrt(a.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, a.length - 1)); };

/** Where does y (sampled at xs, decreasing) cross level? Interpolated in log x. */
export function crossing(points, level) {
  if (!points.length) return null;
  if (points[0].y < level) return { kind: 'startBelow', a: points[0].x };
  for (let i = 1; i < points.length; i++) {
    const p = points[i - 1], q = points[i];
    if (p.y >= level && q.y < level) {
      const f = (p.y - level) / (p.y - q.y);
      const x = 2 ** (Math.log2(p.x) + f * (Math.log2(q.x) - Math.log2(p.x)));
      return { kind: 'cross', x, a: p.x, b: q.x };
    }
  }
  return { kind: 'none', min: Math.min(...points.map((p) => p.y)) };
}

/** The engine's scale option for a scale mode: none, its default 1/√d_k, or 1/d_k. */
export const scaleArg = (mode, dk) => (mode === 'off' ? null : mode === 'dk' ? 1 / dk : undefined);

/** The seeded Q (n×dk) and K (n×dk): one randomNormal draw of 2n rows, split in two. */
export async function seededQK(engine, { n, dk, seed }) {
  const m = await engine.randomNormal({ seed, rows: 2 * n, cols: dk });
  return {
    q: { rows: n, cols: dk, data: m.data.slice(0, n * dk) },
    k: { rows: n, cols: dk, data: m.data.slice(n * dk) },
  };
}

const vCol = (n) => ({ rows: n, cols: 1, data: new Float32Array(n) });

async function weightsStats(engine, q, k, n, scale) {
  const r = await engine.attention({ q, k, v: vCol(n), scale, returnWeights: true });
  const s = await engine.rowStats(r.weights);
  return { weights: r.weights, meanH: mean(Array.from(s.entropy)), maxW: Math.max(...s.maxWeight) };
}

/**
 * Every number the panel shows for one (n, d_k, seed, scale): the weights under the chosen
 * scale (main: weights, largest weight, mean row entropy), the same under 1/d_k (byDk), the
 * logits' statistics unscaled / 1/√d_k (ls) and under 1/d_k (lsDk), and the softmax of
 * the two logits ±σ, unscaled (rOff) and scaled (rOn). Derived: uniform = ln n (the
 * entropy of equal weights), share = meanH / uniform, rmsSeen (the logits' RMS under the
 * chosen scale) and the weight ratios of the ±σ pairs.
 */
export async function computeScaling(engine, { n, dk, seed, scale }) {
  const { q, k } = await seededQK(engine, { n, dk, seed });
  // sent together: the worker answers in order, without a round trip per call
  const lsP = Promise.resolve(engine.logitStats({ q, k }));
  const [main, byDk, ls, lsDk, [rOff, rOn]] = await Promise.all([
    weightsStats(engine, q, k, n, scaleArg(scale, dk)),
    weightsStats(engine, q, k, n, 1 / dk),
    lsP,
    engine.logitStats({ q, k, scale: 1 / dk }),
    lsP.then((r) => Promise.all([
      engine.softmaxRow({ logits: [r.rmsUnscaled, -r.rmsUnscaled] }),
      engine.softmaxRow({ logits: [r.rmsScaled, -r.rmsScaled] }),
    ])),
  ]);
  const uniform = Math.log(n);
  const ratio = (w) => w.weights[0] / w.weights[1];
  return {
    n, dk, seed, scale, uniform,
    main: { ...main, share: main.meanH / uniform },
    byDk: { maxW: byDk.maxW, meanH: byDk.meanH, share: byDk.meanH / uniform },
    ls, lsDk, rOff, rOn,
    rmsSeen: scale === 'off' ? ls.rmsUnscaled : scale === 'sqrt' ? ls.rmsScaled : lsDk.rmsScaled,
    ratioOff: ratio(rOff), ratioOn: ratio(rOn),
  };
}

/**
 * The replication tables and the per-seed chart, from the learner's seed: the article's
 * first table (n = 8, d_k = 64, one seed, unscaled and scaled), its trend table (d_k = 16,
 * 64, 256 over five seeds, unscaled) and MANY_SEEDS seeds one by one (unscaled).
 */
export async function computeSeedTables(engine, { seed }) {
  const { n, dk } = ARTICLE;
  const off = await engine.experiment({ n, dk, seeds: [seed], scale: false });
  const on = await engine.experiment({ n, dk, seeds: [seed], scale: true });
  const seeds5 = [0, 1, 2, 3, 4].map((i) => seed + i);
  const trend = [];
  for (const d of TREND_DK) {
    const r = await engine.experiment({ n, dk: d, seeds: seeds5, scale: false });
    trend.push({ ...r.mean, dk: d });
  }
  const seeds = Array.from({ length: MANY_SEEDS }, (_, i) => seed + i);
  const many = await engine.experiment({ n, dk, seeds, scale: false });
  const hs = many.perSeed.map((p) => p.meanEntropy);
  return {
    seed, off, on, seeds5, trend,
    many: {
      seeds, points: many.perSeed.map((p) => ({ x: p.seed, y: p.meanEntropy })),
      single: hs[0], mean5: mean(hs.slice(0, 5)), mean: mean(hs), min: Math.min(...hs), max: Math.max(...hs), sd: sd(hs),
    },
  };
}

/**
 * The sweep over d_k: for each of dks, unscaled then scaled, the mean entropy share and
 * Jacobian norm over seeds (one experiment() call per point). onStep(done, total) is called
 * before each call; when stopped() turns true the sweep returns null.
 * Then the softmax Jacobian's norm for a uniform row, a one-hot row and two halves (its
 * largest), the d_k where the unscaled share crosses 50 % and 10 %, and the scaled share's range.
 */
export async function computeSweep(engine, { n, dks = SWEEP_DK, seeds = SWEEP_SEEDS }, { onStep = () => {}, stopped = () => false } = {}) {
  const total = dks.length * 2;
  let done = 0;
  const off = [], on = [];
  for (const dk of dks) {
    for (const scale of [false, true]) {
      if (stopped()) return null;
      onStep(done, total);
      const r = await engine.experiment({ n, dk, seeds, scale });
      (scale ? on : off).push({ dk, share: r.mean.entropyShare, jac: r.mean.jacobianNorm });
      done++;
    }
  }
  if (stopped()) return null;
  const uniJ = await engine.jacobianNorm(new Float32Array(n).fill(1 / n));
  const oneHot = new Float32Array(n); oneHot[0] = 1;
  const oneJ = await engine.jacobianNorm(oneHot);
  const half = new Float32Array(n); half[0] = 0.5; half[1] = 0.5;
  const maxJ = await engine.jacobianNorm(half);
  const shares = (arr) => arr.map((p) => ({ x: p.dk, y: p.share }));
  const onShares = on.map((p) => p.share);
  return {
    n, total, runs: total * seeds.length, off, on, J: { uniJ, oneJ, maxJ },
    cross50: crossing(shares(off), 0.5), cross10: crossing(shares(off), 0.1),
    onMin: Math.min(...onShares), onMax: Math.max(...onShares),
  };
}
