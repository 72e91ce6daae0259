// Seeded generators for the numeric exercises ('ex') and numeric quiz
// questions ('quiz'). generate(seed, engine) picks small parameters with the
// seeded PRNG and asks the ENGINE for the answer, so the number a learner is
// graded against is the number the lesson's engine computes. Step values for
// the worked solution are plain arithmetic on the parameters; the tests check
// that the last step equals the engine's answer.
//
// `engine` is loadEngine() in Node or the worker client in the page: every call
// is awaited, so both work. Ids, params and text keys: GENERATORS.md.
//
//   ex:   dot-score scaled-score softmax-weight row-max-weight causal-uniform
//         causal-weight weighted-average score-bytes memory-growth rescale-factor
//         running-sum entropy sat-score
//         kv-cache-preset window-field gqa-speedup             (chapters 10–12)
//         uniform-loss ce-gradient previous-head                (chapters 13–14)
//   quiz: softmax-two shift-invariance temperature score-mb batch-bytes
//         uniform-entropy scale-factor max-weight-gap jacobian-two sat-weight
//         kv-cache-bytes gqa-saved window-reach decode-intensity  (chapters 10–12)
//         char-loss sample-temperature model-weights backward-memory  (chapters 13–14)

import { createRng, toSeed } from './random.mjs';
import { WORDS, DEFAULT, computeExample, at, row } from '../lesson/worked-example.mjs';
import { untrainedLoss } from './char-model-calls.mjs';

// ---------------------------------------------------------------- helpers

const mat = (rows, cols, values) => ({ rows, cols, data: Float32Array.from(values) });
const column = (values) => mat(values.length, 1, values);
const zeros = (rows, cols) => mat(rows, cols, new Array(rows * cols).fill(0));
const GIB = 2 ** 30;
const MIB = 2 ** 20;
// The engine stores K and V as float32: kvBytesRead counts 4 bytes a number. A cache kept in
// another type (float16: 2 bytes) is the same count of numbers times its own size.
const ENGINE_BYTES = 4;

// Tolerances: |x − answer| <= max(abs, rel·|answer|).
const EXACT = { abs: 1e-6, rel: 0 };          // integers
const TWO_DECIMALS = { abs: 0.006, rel: 0.01 }; // "to two decimals" (rounding error 0.005)
const THREE_DECIMALS = { abs: 0.0006, rel: 0.01 }; // small values where 2 decimals say nothing
const ONE_PERCENT = { abs: 0, rel: 0.01 };      // memory sizes

const step = (key, params) => ({ key, params });

// Softmax worked-solution steps in double: subtract the max, exponentiate, sum.
function softmaxSteps(scores) {
  const m = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - m));
  const total = e.reduce((a, b) => a + b, 0);
  return { m, e, total };
}

// The lesson's worked example (the / cat / sat / down, d_k = 2) lives in
// ../worked-example.mjs; WORKED re-exports it as nested arrays for the
// practice blocks, so there is one source for its numbers.
const nested = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
export const WORKED = Object.freeze({
  words: [...WORDS],
  x: nested(DEFAULT.x),
  wq: nested(DEFAULT.Wq),
  wk: nested(DEFAULT.Wk),
  wv: nested(DEFAULT.Wv),
});
const SAT = 2; // 0-based row of «sat»

// A question object; `kind` decides the text-key prefix.
function question(kind, id, seed, fields) {
  const prefix = kind === 'ex' ? 'ex' : 'quiz';
  const hintCount = kind === 'ex' ? 2 : 1;
  return {
    id,
    kind,
    seed,
    promptKey: `${prefix}.${id}.prompt`,
    percentOk: false,
    digits: {},
    hints: Array.from({ length: hintCount }, (_, i) => `${prefix}.${id}.hint.${i + 1}`),
    ...fields,
    steps: fields.steps.map(([name, params]) => step(`${prefix}.${id}.step.${name}`, params)),
  };
}

// ---------------------------------------------------------------- exercises

const exercises = {
  async 'dot-score'(rng, engine) {
    let q, k;
    do {
      q = [rng.int(-3, 3), rng.int(-3, 3), rng.int(-3, 3)];
      k = [rng.int(-3, 3), rng.int(-3, 3), rng.int(-3, 3)];
    } while (q.every((x) => x === 0) || k.every((x) => x === 0));
    // scale: null = no 1/√d_k, so the score is the plain dot product.
    const r = await engine.attention({ q: mat(1, 3, q), k: mat(1, 3, k), v: zeros(1, 1), scale: null, returnWeights: true });
    const answer = r.scores.data[0];
    const p = q.map((x, i) => x * k[i]);
    return {
      params: { q1: q[0], q2: q[1], q3: q[2], k1: k[0], k2: k[1], k3: k[2] },
      answer, tolerance: EXACT,
      steps: [['products', { p1: p[0], p2: p[1], p3: p[2] }], ['sum', { answer }]],
    };
  },

  async 'scaled-score'(rng, engine) {
    const dk = rng.pick([4, 9, 16, 25, 64, 100]);
    const dot = rng.int(2, 40);
    // q = (dot, 0, …), k = (1, 0, …): q·k = dot with d_k columns, engine's default scale 1/√d_k.
    const q = Array(dk).fill(0); q[0] = dot;
    const k = Array(dk).fill(0); k[0] = 1;
    const r = await engine.attention({ q: mat(1, dk, q), k: mat(1, dk, k), v: zeros(1, 1), returnWeights: true });
    const answer = r.scores.data[0];
    const root = Math.sqrt(dk);
    return {
      params: { dot, dk }, answer, tolerance: TWO_DECIMALS, digits: { root: 3 },
      steps: [['root', { dk, root }], ['divide', { dot, root, answer }]],
    };
  },

  async 'softmax-weight'(rng, engine) {
    const s = [rng.int(-2, 3), rng.int(-2, 3), rng.int(-2, 3)];
    const j = rng.int(1, 3);
    const { weights } = await engine.softmaxRow({ logits: s });
    const answer = weights[j - 1];
    const { m, e, total } = softmaxSteps(s);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], j }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      digits: { e1: 3, e2: 3, e3: 3, total: 3, ej: 3 },
      steps: [
        ['shift', { m }], ['exps', { e1: e[0], e2: e[1], e3: e[2] }], ['sum', { total }],
        ['divide', { j, ej: e[j - 1], total, answer }],
      ],
    };
  },

  async 'row-max-weight'(rng, engine) {
    const s = [rng.int(0, 4), rng.int(0, 4), rng.int(0, 4), rng.int(0, 4)];
    const { weights } = await engine.softmaxRow({ logits: s });
    const answer = Math.max(...weights);
    const { m, e, total } = softmaxSteps(s);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], s4: s[3] }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      digits: { e1: 3, e2: 3, e3: 3, e4: 3, total: 3 },
      steps: [
        ['shift', { m }], ['exps', { e1: e[0], e2: e[1], e3: e[2], e4: e[3] }], ['sum', { total }],
        ['divide', { emax: 1, total, answer }],
      ],
    };
  },

  async 'causal-uniform'(rng, engine) {
    const n = rng.int(4, 8);
    const pos = rng.int(1, n);
    // Zero queries: every score is 0, so only the mask shapes the row.
    const r = await engine.attention({ q: zeros(n, 2), k: zeros(n, 2), v: zeros(n, 1), causal: true, returnWeights: true });
    const answer = r.weights.data[(pos - 1) * n];
    return {
      params: { n, pos }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      steps: [['visible', { pos }], ['share', { pos, answer }]],
    };
  },

  async 'causal-weight'(rng, engine) {
    const n = 4;
    const s = [rng.int(0, 3), rng.int(0, 3), rng.int(0, 3), rng.int(0, 3)];
    const pos = rng.int(2, 3);
    const j = rng.int(1, pos);
    // d_k = 1, every query 1 and key j = s_j: row pos sees scores s_1..s_pos.
    const r = await engine.attention({
      q: column(Array(n).fill(1)), k: column(s), v: zeros(n, 1), causal: true, scale: null, returnWeights: true,
    });
    const answer = r.weights.data[(pos - 1) * n + (j - 1)];
    const { e, total } = softmaxSteps(s.slice(0, pos));
    const exps = Object.fromEntries(e.map((x, i) => [`e${i + 1}`, x]));
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], s4: s[3], pos, j }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      digits: { e1: 3, e2: 3, e3: 3, total: 3, ej: 3 },
      steps: [
        ['hidden', { pos, hidden: n - pos }], ['exps', exps], ['sum', { total }],
        ['divide', { j, ej: e[j - 1], total, answer }],
      ],
    };
  },

  async 'weighted-average'(rng, engine) {
    const w = rng.shuffle(rng.pick([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1], [0.7, 0.2, 0.1], [0.4, 0.4, 0.2], [0.5, 0.25, 0.25]]));
    const v = [rng.int(-5, 9), rng.int(-5, 9), rng.int(-5, 9)];
    // Scores ln w_j make softmax return exactly these weights (up to float32).
    const r = await engine.attention({ q: mat(1, 1, [1]), k: column(w.map(Math.log)), v: column(v), scale: null });
    const answer = r.out.data[0];
    const t = w.map((x, i) => x * v[i]);
    return {
      params: { w1: w[0], w2: w[1], w3: w[2], v1: v[0], v2: v[1], v3: v[2] }, answer, tolerance: TWO_DECIMALS,
      steps: [['terms', { t1: t[0], t2: t[1], t3: t[2] }], ['sum', { answer }]],
    };
  },

  async 'score-bytes'(rng, engine) {
    const n = rng.pick([1024, 2048, 4096, 8192, 16384]);
    const bpe = rng.pick([2, 4]);
    const heads = rng.pick([8, 12, 16, 32]);
    const layers = rng.pick([1, 2, 12, 24, 32]);
    const bytes = await engine.scoreMatrixBytes({ n, bytesPerElement: bpe, heads, layers });
    const answer = bytes / GIB;
    return {
      params: { n, bpe, heads, layers }, answer, tolerance: ONE_PERCENT,
      steps: [['pairs', { n, pairs: n * n }], ['bytes', { pairs: n * n, bpe, heads, layers, bytes }], ['unit', { bytes, answer }]],
    };
  },

  async 'memory-growth'(rng, engine) {
    const n = rng.pick([512, 1024, 2048, 4096]);
    const factor = rng.pick([2, 3, 4, 8, 10]);
    const before = await engine.scoreMatrixBytes({ n, bytesPerElement: 2 });
    const after = await engine.scoreMatrixBytes({ n: n * factor, bytesPerElement: 2 });
    const answer = after / before;
    return { params: { n, factor }, answer, tolerance: EXACT, steps: [['square', { factor, answer }]] };
  },

  async 'rescale-factor'(rng, engine) {
    const { s, trace } = await onlineTwoTiles(rng, engine);
    const [, second] = trace.steps;
    const answer = second.rescale;
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], s4: s[3] }, answer, tolerance: THREE_DECIMALS,
      digits: { answer: 3 },
      steps: [
        ['tile1', { mOld: Math.max(s[0], s[1]) }],
        ['tile2', { tileMax: Math.max(s[2], s[3]), mNew: Math.max(...s) }],
        ['factor', { mOld: Math.max(s[0], s[1]), mNew: Math.max(...s), answer }],
      ],
    };
  },

  async 'running-sum'(rng, engine) {
    const { s, trace } = await onlineTwoTiles(rng, engine);
    const answer = trace.steps[1].lNew;
    const mOld = Math.max(s[0], s[1]);
    const mNew = Math.max(...s);
    const lOld = Math.exp(s[0] - mOld) + Math.exp(s[1] - mOld);
    const rescale = Math.exp(mOld - mNew);
    const e3 = Math.exp(s[2] - mNew);
    const e4 = Math.exp(s[3] - mNew);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], s4: s[3] }, answer, tolerance: TWO_DECIMALS,
      digits: { lOld: 3, rescale: 3, scaled: 3, e3: 3, e4: 3, answer: 3 },
      steps: [
        ['tile1', { mOld, lOld }], ['rescale', { lOld, rescale, scaled: lOld * rescale }],
        ['tile2', { mNew, e3, e4 }], ['total', { scaled: lOld * rescale, e3, e4, answer }],
      ],
    };
  },

  async entropy(rng, engine) {
    const p = rng.shuffle(rng.pick([[0.5, 0.25, 0.25], [0.7, 0.2, 0.1], [0.6, 0.2, 0.2], [0.8, 0.1, 0.1], [0.4, 0.3, 0.3], [0.5, 0.4, 0.1]]));
    const { entropy } = await engine.rowStats(mat(1, 3, p));
    const answer = entropy[0];
    const t = p.map((x) => -x * Math.log(x));
    return {
      params: { p1: p[0], p2: p[1], p3: p[2] }, answer, tolerance: TWO_DECIMALS,
      digits: { t1: 3, t2: 3, t3: 3, answer: 3 },
      steps: [['terms', { t1: t[0], t2: t[1], t3: t[2] }], ['sum', { answer }]],
    };
  },

  async 'sat-score'(rng, engine) {
    const key = rng.int(1, 4);
    const ex = await computeExample(engine, DEFAULT);
    const answer = at(ex.scores, SAT, key - 1);
    const [q1, q2] = row(ex.Q, SAT);
    const [k1, k2] = row(ex.K, key - 1);
    return {
      params: { key, q1, q2, k1, k2, dk: ex.dk }, answer, tolerance: TWO_DECIMALS,
      steps: [['dot', { q1, q2, k1, k2, dot: q1 * k1 + q2 * k2 }], ['divide', { dot: q1 * k1 + q2 * k2, answer }]],
    };
  },

  // ---- chapters 10–12 (issue 15)

  async 'kv-cache-preset'(rng, engine) {
    // Shapes of today's open 7–70B models: head width 128, 8 key/value heads (GQA), float16.
    const layers = rng.pick([32, 40, 80]);
    const hkv = 8;
    const d = 128;
    const n = rng.pick([4096, 8192, 32768, 131072]);
    // kvBytesRead = the K and V rows of one layer for n tokens, float32 (what one decode step reads).
    const perLayer32 = await engine.kvBytesRead({ headsQ: hkv, headsKv: hkv, S: n, dk: d, dv: d });
    const bytes = (perLayer32 / ENGINE_BYTES) * 2 * layers;
    const answer = bytes / GIB;
    const perLayer = 2 * hkv * d * 2;
    return {
      params: { layers, hkv, d, n }, answer, tolerance: ONE_PERCENT,
      steps: [
        // kv: a key and a value; bpe: float16. Factors as params, not digits typed in the
        // text: a literal Arabic-Indic digit inside a product turns its order right to left.
        ['layer', { kv: 2, hkv, d, bpe: 2, perLayer }], ['token', { perLayer, layers, perToken: perLayer * layers }],
        ['bytes', { perToken: perLayer * layers, n, bytes }], ['unit', { bytes, answer }],
      ],
    };
  },

  async 'window-field'(rng, engine) {
    const w = rng.pick([128, 512, 1024, 4096]);
    const k = rng.pick([2, 4, 8, 16, 32]);
    // The engine's window rule for one row far from the start: it sees w keys, itself and w − 1
    // before. Stacking k layers adds those w − 1 steps (generators.test checks the sum by
    // stacking the engine's window layers).
    const seen = await engine.visiblePairs({ L: 1, S: w + 4, causal: true, window: w, rowOffset: w + 3 });
    const back = seen - 1;
    const answer = k * back;
    return {
      params: { w, k }, answer, tolerance: EXACT,
      steps: [['layer', { w, back }], ['stack', { k, back, answer }]],
    };
  },

  async 'gqa-speedup'(rng, engine) {
    const [hq, hkv] = rng.pick(GQA_PAIRS);
    const d = rng.pick([64, 128]);
    const n = rng.pick([4096, 8192, 32768]);
    const [mha, gqa] = await Promise.all([
      engine.kvBytesRead({ headsQ: hq, headsKv: hq, S: n, dk: d, dv: d }),
      engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S: n, dk: d, dv: d }),
    ]);
    const answer = mha / gqa;
    return {
      params: { hq, hkv, d, n }, answer, tolerance: EXACT,
      steps: [
        ['mha', { kv: 2, hq, d, bpe: 2, mhaToken: 2 * hq * d * 2 }], ['gqa', { kv: 2, hkv, d, bpe: 2, gqaToken: 2 * hkv * d * 2 }],
        ['ratio', { mhaToken: 2 * hq * d * 2, gqaToken: 2 * hkv * d * 2, hq, hkv, answer }],
      ],
    };
  },

  // ---- chapters 13–14 (issue 24): a character model, and training it

  async 'uniform-loss'(rng, engine) {
    const vocab = rng.pick([32, 40, 48, 64, 67, 69, 80, 100]);
    const seed = rng.int(1, 999);
    // A uniform guess is a model whose logits are all equal: softmax gives every character
    // 1/V, the right one too, and the loss is −ln of that.
    const { weights } = await engine.softmaxRow({ logits: new Array(vocab).fill(0) });
    const p = weights[0];
    const answer = -Math.log(p);
    // The check the lesson makes: an untrained model (random weights, this seed) on a random
    // text of 32 characters lands close to that loss (generators.test bounds the gap).
    const text = Array.from({ length: UNTRAINED_TEXT + 1 }, () => rng.int(0, vocab - 1));
    const untrained = await untrainedLoss(engine, { vocab, context: UNTRAINED_TEXT, width: 32, layers: 1, heads: 2, seed }, text);
    return {
      params: { vocab, seed }, answer, tolerance: TWO_DECIMALS,
      digits: { p: 4, untrained: 3, answer: 3 },
      steps: [['guess', { vocab, p }], ['loss', { p, answer: -Math.log(p) }], ['model', { seed, n: UNTRAINED_TEXT, untrained, answer }]],
    };
  },

  async 'ce-gradient'(rng, engine) {
    const s = [rng.int(-2, 3), rng.int(-2, 3), rng.int(-2, 3), rng.int(-2, 3)];
    const target = rng.int(1, 4);
    // half the time the asked logit is the right character's (p − 1 < 0), else another's (p > 0)
    const j = rng.int(0, 1) === 0 ? target : rng.pick([1, 2, 3, 4].filter((x) => x !== target));
    const { weights } = await engine.softmaxRow({ logits: s });
    const y = j === target ? 1 : 0;
    const answer = weights[j - 1] - y;
    const { e, total } = softmaxSteps(s);
    const pj = e[j - 1] / total;
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], s4: s[3], target, j }, answer, tolerance: TWO_DECIMALS,
      digits: { ej: 3, total: 3, pj: 3, answer: 3 },
      steps: [['softmax', { j, ej: e[j - 1], total, pj }], ['subtract', { j, target, y, pj, answer }]],
    };
  },

  async 'previous-head'(rng, engine) {
    // Two heads on a text of 4 characters, their scores made by hand and their weights by the
    // engine's causal softmax: one head favours the previous character, the other itself or
    // the first character. The learner scores both the way the lesson scores heads.
    const n = PREVIOUS_TEXT;
    const noise = () => Array.from({ length: n * n }, () => rng.int(0, 1));
    const prev = noise();
    for (let i = 1; i < n; i++) prev[i * n + i - 1] += rng.int(2, 4);
    const other = noise();
    const onSelf = rng.int(0, 1) === 0;
    for (let i = 0; i < n; i++) other[i * n + (onSelf ? i : 0)] += rng.int(2, 4);
    const prevIsFirst = rng.int(0, 1) === 0;
    const heads = prevIsFirst ? [prev, other] : [other, prev];
    const onPrevious = [];
    for (const scores of heads) {
      // q = identity, k = scoresᵀ: q_i·k_j = scores[i][j], and no 1/√d_k.
      const kT = Array.from({ length: n * n }, (_, x) => scores[(x % n) * n + Math.floor(x / n)]);
      const r = await engine.attention({
        q: mat(n, n, Array.from({ length: n * n }, (_, x) => (x % (n + 1) === 0 ? 1 : 0))), k: mat(n, n, kT),
        v: zeros(n, 1), causal: true, scale: null, returnWeights: true,
      });
      onPrevious.push(Array.from({ length: n - 1 }, (_, i) => r.weights.data[(i + 1) * n + i]));
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [scoreA, scoreB] = onPrevious.map(mean);
    const head = scoreA >= scoreB ? 1 : 2;
    const answer = Math.max(scoreA, scoreB);
    const [a, b] = onPrevious;
    const three = { a2: 3, a3: 3, a4: 3, b2: 3, b3: 3, b4: 3, scoreA: 3, scoreB: 3, answer: 3 };
    return {
      params: { a2: a[0], a3: a[1], a4: a[2], b2: b[0], b3: b[1], b4: b[2] }, answer, tolerance: TWO_DECIMALS,
      percentOk: true, digits: three,
      steps: [['scores', { scoreA, scoreB }], ['answer', { head, answer }]],
    };
  },
};

// The untrained model's text (uniform-loss) and the two heads' text (previous-head), in characters.
const UNTRAINED_TEXT = 32;
const PREVIOUS_TEXT = 4;

// (query heads, key/value heads) of grouped-query and multi-query attention: H_q a multiple of H_kv.
const GQA_PAIRS = [[8, 1], [12, 4], [16, 2], [16, 4], [24, 8], [28, 4], [32, 1], [32, 4], [32, 8], [40, 8], [48, 8], [64, 8]];

// Four scores in two tiles of two keys, the second tile holding a strictly
// larger max so the rescale factor is below 1 (the interesting case).
async function onlineTwoTiles(rng, engine) {
  const a = [rng.int(0, 3), rng.int(0, 3)];
  const top = Math.max(...a) + rng.int(1, 3);
  const b = rng.shuffle([top, rng.int(0, top)]);
  const s = [...a, ...b];
  const trace = await engine.onlineSoftmaxTrace({
    q: mat(1, 1, [1]), k: column(s), v: zeros(4, 1), row: 0, blockK: 2, scale: null,
  });
  return { s, trace };
}

// ---------------------------------------------------------------- quiz

const quizzes = {
  async 'softmax-two'(rng, engine) {
    let a, b;
    do { a = rng.int(-3, 3); b = rng.int(-3, 3); } while (a === b);
    const { weights } = await engine.softmaxRow({ logits: [a, b] });
    const answer = weights[0];
    return {
      params: { a, b }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      steps: [['diff', { a, b, d: a - b }], ['answer', { d: a - b, answer }]],
    };
  },

  async 'shift-invariance'(rng, engine) {
    const s = [rng.int(0, 3), rng.int(0, 3), rng.int(0, 3)];
    const c = rng.pick([10, 50, 100, 1000]);
    const { weights } = await engine.softmaxRow({ logits: s.map((x) => x + c) });
    const answer = weights[0];
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], c }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      steps: [['same', { answer }]],
    };
  },

  async temperature(rng, engine) {
    const s = rng.shuffle([1, 0, rng.int(0, 1)]);
    const t = rng.pick([2, 4, 10]);
    const u = s.map((x) => x * t);
    const { weights } = await engine.softmaxRow({ logits: u });
    const answer = Math.max(...weights);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], t }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      steps: [['scaled', { u1: u[0], u2: u[1], u3: u[2] }], ['answer', { answer }]],
    };
  },

  async 'score-mb'(rng, engine) {
    const n = rng.pick([512, 2048, 8192, 32768]);
    const bytes = await engine.scoreMatrixBytes({ n, bytesPerElement: 2 });
    const answer = bytes / 1e6;
    return {
      params: { n }, answer, tolerance: ONE_PERCENT,
      steps: [['pairs', { n, pairs: n * n }], ['answer', { pairs: n * n, answer }]],
    };
  },

  async 'batch-bytes'(rng, engine) {
    const n = rng.pick([1024, 2048, 4096]);
    const batch = rng.pick([1, 2, 4, 8]);
    const heads = rng.pick([8, 16, 32]);
    const layers = rng.pick([12, 24, 32]);
    const bytes = await engine.scoreMatrixBytes({ n, bytesPerElement: 2, heads, layers, batch });
    const answer = bytes / GIB;
    return {
      params: { n, batch, heads, layers }, answer, tolerance: ONE_PERCENT,
      steps: [['bytes', { n, batch, heads, layers, bytes }], ['answer', { answer }]],
    };
  },

  async 'uniform-entropy'(rng, engine) {
    const n = rng.pick([2, 4, 8, 10, 16, 100, 1000]);
    const { entropy } = await engine.rowStats(mat(1, n, Array(n).fill(1 / n)));
    const answer = entropy[0];
    return { params: { n }, answer, tolerance: TWO_DECIMALS, steps: [['answer', { n, answer }]] };
  },

  async 'scale-factor'(rng, engine) {
    const dk = rng.pick([16, 64, 128, 256, 512]);
    const one = Array(dk).fill(0); one[0] = 1;
    // q = k = e_1: q·k = 1, so the scaled score IS the factor.
    const r = await engine.attention({ q: mat(1, dk, one), k: mat(1, dk, one), v: zeros(1, 1), returnWeights: true });
    const answer = r.scores.data[0];
    return {
      params: { dk }, answer, tolerance: THREE_DECIMALS, digits: { root: 3, answer: 4 },
      steps: [['answer', { dk, root: Math.sqrt(dk), answer }]],
    };
  },

  async 'max-weight-gap'(rng, engine) {
    const g = rng.int(1, 6);
    const n = rng.pick([2, 4, 8, 10]);
    const logits = [g, ...Array(n - 1).fill(0)];
    const { weights } = await engine.softmaxRow({ logits });
    const answer = weights[0];
    return {
      params: { g, n }, answer, tolerance: TWO_DECIMALS, percentOk: true, digits: { eg: 2 },
      steps: [['answer', { g, n, eg: Math.exp(g), answer }]],
    };
  },

  async 'jacobian-two'(rng, engine) {
    const p = rng.pick([0.5, 0.6, 0.7, 0.8, 0.9, 0.99]);
    const q = Math.round((1 - p) * 100) / 100;
    const answer = await engine.jacobianNorm(Float32Array.from([p, q]));
    return {
      params: { p, q }, answer, tolerance: THREE_DECIMALS, digits: { answer: 4 },
      steps: [['answer', { p, q, answer }]],
    };
  },

  async 'sat-weight'(rng, engine) {
    const key = rng.int(1, 4);
    const ex = await computeExample(engine, DEFAULT);
    const answer = at(ex.weights, SAT, key - 1);
    const [s1, s2, s3, s4] = row(ex.scores, SAT);
    return {
      params: { key }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      steps: [['scores', { s1, s2, s3, s4 }], ['answer', { answer }]],
    };
  },

  // ---- chapters 10–12 (issue 15)

  async 'kv-cache-bytes'(rng, engine) {
    const layers = rng.pick([24, 32, 40, 80]);
    const hkv = rng.pick([4, 8, 16]);
    const d = rng.pick([64, 128]);
    const n = rng.pick([2048, 4096, 8192, 16384]);
    const bpe = rng.pick([2, 4]);
    const batch = rng.pick([1, 2, 4, 8]);
    const perLayer32 = await engine.kvBytesRead({ headsQ: hkv, headsKv: hkv, S: n, dk: d, dv: d });
    const bytes = (perLayer32 / ENGINE_BYTES) * bpe * layers * batch;
    const answer = bytes / GIB;
    const perToken = 2 * hkv * d * bpe * layers;
    return {
      params: { layers, hkv, d, n, bpe, batch }, answer, tolerance: ONE_PERCENT,
      steps: [['token', { kv: 2, hkv, d, bpe, layers, perToken }], ['bytes', { perToken, n, batch, bytes }], ['answer', { bytes, answer }]],
    };
  },

  async 'gqa-saved'(rng, engine) {
    const [hq, hkv] = rng.pick(GQA_PAIRS);
    const d = 128;
    const n = 4096;
    const [mha, gqa] = await Promise.all([
      engine.kvBytesRead({ headsQ: hq, headsKv: hq, S: n, dk: d, dv: d }),
      engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S: n, dk: d, dv: d }),
    ]);
    const answer = 1 - gqa / mha;
    return {
      params: { hq, hkv }, answer, tolerance: TWO_DECIMALS, percentOk: true, digits: { kept: 4, answer: 4 },
      steps: [['kept', { hq, hkv, kept: hkv / hq }], ['answer', { kept: hkv / hq, answer }]],
    };
  },

  async 'window-reach'(rng, engine) {
    const w = rng.int(3, 6);
    const k = rng.int(2, 4);
    const reach = k * (w - 1);
    const pos = reach + rng.int(1, 8);
    // k causal window layers with uniform weights (zero queries and keys) on V = identity:
    // column j of row pos is non-zero exactly when token j's information reaches token pos.
    const n = pos;
    const zero = zeros(n, 1);
    let v = mat(n, n, Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)));
    for (let layer = 0; layer < k; layer++) v = (await engine.attention({ q: zero, k: zero, v, causal: true, window: w })).out;
    const last = Array.from(v.data.subarray((pos - 1) * n, pos * n));
    const answer = last.findIndex((x) => x > 0) + 1;
    return {
      params: { w, k, pos }, answer, tolerance: EXACT,
      steps: [['layer', { w, back: w - 1 }], ['stack', { k, back: w - 1, reach }], ['answer', { pos, reach, answer }]],
    };
  },

  async 'decode-intensity'(rng, engine) {
    const [hq, hkv] = rng.pick([...GQA_PAIRS, [32, 32], [16, 16]]);
    const d = rng.pick([64, 128]);
    const n = rng.pick([1024, 4096, 16384]);
    const bpe = rng.pick([2, 4]);
    // One decode step: one new query row per query head, the last of n tokens, sees all n keys.
    const pairs = await engine.visiblePairs({ L: 1, S: n, causal: true, rowOffset: n - 1 });
    const flops = pairs * hq * 2 * (d + d);
    const read32 = await engine.kvBytesRead({ headsQ: hq, headsKv: hkv, S: n, dk: d, dv: d });
    const bytes = (read32 / ENGINE_BYTES) * bpe;
    const answer = flops / bytes;
    return {
      params: { hq, hkv, d, n, bpe }, answer, tolerance: TWO_DECIMALS,
      steps: [['flops', { n, hq, perPair: 2 * (d + d), flops }], ['bytes', { n, hkv, d, bpe, bytes }], ['answer', { flops, bytes, answer }]],
    };
  },

  // ---- chapters 13–14 (issue 24)

  async 'char-loss'(rng, engine) {
    const s = [rng.int(-1, 3), rng.int(-1, 3), rng.int(-1, 3)];
    const target = rng.int(1, 3);
    const { weights } = await engine.softmaxRow({ logits: s });
    const pt = weights[target - 1];
    const answer = -Math.log(pt);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], target }, answer, tolerance: TWO_DECIMALS, digits: { pt: 3, answer: 3 },
      steps: [['probability', { target, pt }], ['answer', { pt, answer }]],
    };
  },

  async 'sample-temperature'(rng, engine) {
    let s;
    do { s = [rng.int(0, 3), rng.int(0, 3), rng.int(0, 3)]; } while (s.every((x) => x === s[0]));
    const temp = rng.pick([0.5, 2]);
    // Generation divides the logits by the temperature before the softmax.
    const u = s.map((x) => x / temp);
    const { weights } = await engine.softmaxRow({ logits: u });
    const answer = Math.max(...weights);
    return {
      params: { s1: s[0], s2: s[1], s3: s[2], temp }, answer, tolerance: TWO_DECIMALS, percentOk: true,
      digits: { answer: 3 },
      steps: [['scaled', { temp, u1: u[0], u2: u[1], u3: u[2] }], ['answer', { answer }]],
    };
  },

  async 'model-weights'(rng, engine) {
    const vocab = rng.pick([32, 48, 64, 67, 69, 80]);
    const context = rng.pick([32, 64, 128]);
    const d = rng.pick([16, 32, 48, 64]);
    const layers = rng.int(1, 4);
    const answer = await engine.charModelParameterCount({ vocab, context, width: d, layers, heads: 4 });
    // The engine's layout (engine/README.md): token and position embeddings; per block two
    // LayerNorms (4d), Q K V and the output projection with biases (4d² + 4d), an MLP four
    // times as wide (8d² + 5d); a last LayerNorm (2d); the output layer reuses the embedding.
    const embed = (vocab + context) * d;
    const block = 12 * d * d + 13 * d;
    return {
      params: { vocab, context, d, layers }, answer, tolerance: EXACT,
      steps: [['embed', { vocab, context, d, embed }], ['block', { d, block }],
        ['answer', { embed, layers, block, last: 2 * d, answer }]],
    };
  },

  async 'backward-memory'(rng, engine) {
    const n = rng.pick([512, 1024, 2048, 4096]);
    const heads = rng.pick([4, 8, 12]);
    const layers = rng.pick([2, 4, 12]);
    // float32 weights of every head and layer, kept from the forward for the backward
    const bytes = await engine.scoreMatrixBytes({ n, bytesPerElement: 4, heads, layers });
    const answer = bytes / MIB;
    // what the tiled backward keeps instead: one log-sum-exp per row, per head and layer
    const lseKib = (n * heads * layers * 4) / 1024;
    return {
      params: { n, heads, layers }, answer, tolerance: ONE_PERCENT,
      steps: [['pairs', { n, pairs: n * n }], ['bytes', { pairs: n * n, bpe: 4, heads, layers, bytes }],
        ['answer', { bytes, answer, lseKib }]],
    };
  },
};

// ---------------------------------------------------------------- public API

function wrap(kind, table) {
  return Object.fromEntries(
    Object.entries(table).map(([id, make]) => [
      id,
      {
        id,
        kind,
        async generate(seed, engine) {
          const s = toSeed(seed);
          // A per-id stream: the same seed gives unrelated questions in different exercises.
          const rng = createRng(s ^ hashId(id));
          return question(kind, id, s, await make(rng, engine));
        },
      },
    ]),
  );
}

function hashId(id) {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const EXERCISES = wrap('ex', exercises);
export const QUIZ = wrap('quiz', quizzes);

/** Wrap params for t()/tNode(): names listed in digits get {value, opts}. */
export function forDisplay(params, digits = {}) {
  return Object.fromEntries(
    Object.entries(params).map(([k, v]) =>
      k in digits && typeof v === 'number' ? [k, { value: v, opts: { maximumFractionDigits: digits[k] } }] : [k, v],
    ),
  );
}
