// Chapter 12's numbers, apart from the page so a Node test can run them on the real
// engine (tests/node/kvcache-compute.test.mjs). Every function takes the engine (the
// page's Worker client or engine.mjs itself: both answer with a value or a Promise)
// and plain parameters, and returns plain numbers / BigInts. No DOM, no prose.
//
//   computeTrace(engine, shape)            → engine.generationTrace (prefill + decode steps)
//   traceStep(trace, step, shape)          → what the step-through shows at one step: the cached keys
//                                            of each key/value head and the newest row's weights
//   computeCost(engine, lengths)           → pairs per generated token and in total, with / without a cache
//   computeIntensity(engine, shape)        → flops and bytes of one decode step and of a prefill
//   kvCacheBytes(shape)                    → exact cache bytes (BigInt), the calculator's formula
//   handExample(intensities)               → a round-number processor's balance and the share of it each phase uses
//   computeCalculator(engine, shape)       → cache bytes (GQA and as MHA) and the score matrices' bytes,
//                                            each checked against an engine count

import { scoreBytes } from '../lesson/byte-sizes.mjs';

export const DTYPES = { fp32: 4, fp16: 2, bf16: 2 };

// the step-through's fixed example: 4 prompt tokens, 8 generated, 4 query heads sharing 2 key/value heads
export const TRACE_SHAPE = Object.freeze({ prompt: 4, steps: 8, headsQ: 4, headsKv: 2, dk: 4, dv: 4, seed: 1 });

export async function computeTrace(engine, shape = TRACE_SHAPE) {
  return engine.generationTrace({ ...shape });
}

/**
 * One step of the step-through (step 0 is the prefill): the engine's record of it, the keys
 * each key/value head has cached by then (rows 0…length−1, no window), and the newest row's
 * weights, one row per query head over the keys it may use (the row's causal prefix).
 * → { step: trace.trace[step], keys: [{rows, cols, data}] per key/value head, weights: {rows, cols, data} }
 */
export function traceStep(trace, step, shape = TRACE_SHAPE) {
  const s = trace.trace[step];
  const N = shape.prompt + shape.steps;
  const keys = Array.from({ length: shape.headsKv }, (_, hd) => ({
    rows: s.length, cols: shape.dk, data: Float32Array.from(trace.k.data.subarray(hd * N * shape.dk, (hd * N + s.length) * shape.dk)),
  }));
  const row = s.first + s.rows - 1, cols = row + 1;
  const w = new Float32Array(shape.headsQ * cols);
  for (let q = 0; q < shape.headsQ; q++) w.set(trace.weights[q].data.subarray(row * N, row * N + cols), q * cols);
  return { step: s, keys, weights: { rows: shape.headsQ, cols, data: w } };
}

/**
 * For each context length T: pairs (query, key) of the T-th generated token with a cache
 * (one query row over T keys), without one (the causal attention of all T tokens again),
 * and the totals for T tokens: with a cache T(T+1)/2 (≈ T²/2, one causal attention spread
 * over the steps), without Σ t(t+1)/2 = T(T+1)(T+2)/6 (≈ T³/6; closed form, checked against
 * a sum of engine counts in the Node test).
 */
export async function computeCost(engine, lengths) {
  const out = [];
  for (const T of lengths) {
    const stepCached = await engine.visiblePairs({ L: 1, S: T, causal: true, rowOffset: T - 1 });
    const stepRecompute = await engine.visiblePairs({ L: T, S: T, causal: true });
    const totalCached = stepRecompute;  // the same count: every (query, earlier key) pair once
    const totalRecompute = (T * (T + 1) * (T + 2)) / 6;
    // (T+1)/2: a half for even T (65,536.5 at 131,072), so the page writes it with one decimal
    const stepRatio = Number(stepRecompute) / Number(stepCached);
    out.push({ T, stepCached, stepRecompute, totalCached, totalRecompute, stepRatio });
  }
  return out;
}

/**
 * Attention's flops and bytes for one sequence (one layer):
 *  decode step at context S: 2·(dk+dv) flops per visible pair per query head; bytes = the K and V
 *    of S rows read once (engine.kvBytesRead, 4-byte entries, scaled to the dtype) + the query row
 *    read and the output row written;
 *  prefill of P tokens: the causal pairs of P rows per query head; bytes = K, V, Q and the output
 *    of P rows, each moved once (as the tiled attention of chapter 8 does).
 */
export async function computeIntensity(engine, { headsQ, headsKv, dHead, S, P, bytesPerElement }) {
  const d2 = 2 * dHead;  // dk + dv
  const b = bytesPerElement;
  const decodePairs = await engine.visiblePairs({ L: 1, S, causal: true, rowOffset: S - 1 });
  const kvRead = (await engine.kvBytesRead({ headsQ, headsKv, S, dk: dHead, dv: dHead })) / 4 * b;
  const decodeFlops = 2 * d2 * headsQ * decodePairs;
  const decodeBytes = kvRead + headsQ * d2 * b;
  const prefillPairs = await engine.visiblePairs({ L: P, S: P, causal: true });
  const prefillFlops = 2 * d2 * headsQ * prefillPairs;
  const prefillBytes = (await engine.kvBytesRead({ headsQ, headsKv, S: P, dk: dHead, dv: dHead })) / 4 * b + headsQ * P * d2 * b;
  return {
    decodeFlops, decodeBytes, decodeIntensity: decodeFlops / decodeBytes, kvRead,
    prefillFlops, prefillBytes, prefillIntensity: prefillFlops / prefillBytes,
  };
}

// Chapter 12's hand-sized example of compute against memory speed: a made-up processor with
// round numbers close to a current data-centre GPU (the text says they are round, not a product's).
export const HAND_MACHINE = Object.freeze({ teraFlops: 1000, teraBytes: 3 });

/**
 * What the hand example prints: the processor's balance (operations it can do per byte it
 * reads: below it, work waits for memory) and, for a decode step and a prefill of the given
 * intensities, the share of its compute they can use, min(1, intensity / balance).
 */
export function handExample({ decodeIntensity, prefillIntensity }, machine = HAND_MACHINE) {
  const balance = machine.teraFlops / machine.teraBytes;
  return { ...machine, balance, decodeBusy: Math.min(1, decodeIntensity / balance), prefillBusy: Math.min(1, prefillIntensity / balance) };
}

const big = (x) => BigInt(x);

/** Tokens each layer keeps: min(n, window) on the windowed layers, n on the others. */
export function tokensKept({ n, window = 0, windowedLayers = 0 }) {
  return window > 0 && windowedLayers > 0 ? Math.min(n, window) : n;
}

/**
 * 2 (K and V) · H_kv · d_head · bytes · batch · Σ over layers of the tokens the layer keeps,
 * exactly (BigInt): windowedLayers layers keep min(n, window), the rest keep n.
 */
export function kvCacheBytes({ layers, headsKv, dHead, n, bytesPerElement, batch = 1, window = 0, windowedLayers = 0 }) {
  const wl = window > 0 ? windowedLayers : 0;
  const rows = big(wl) * big(tokensKept({ n, window, windowedLayers: wl })) + big(layers - wl) * big(n);
  return 2n * big(headsKv) * big(dHead) * big(bytesPerElement) * big(batch) * rows;
}

/**
 * The calculator: the cache (as configured, and with H_kv = H_q, multi-head), and the score
 * matrices chapter 7 would hold for the same n (H_q heads, every layer, the batch). The exact
 * counts are BigInt; each is checked against a count of the engine (kvBytesRead per layer,
 * scoreMatrixBytes) and the call throws {code: 'Mismatch'} if they disagree.
 */
export async function computeCalculator(engine, shape) {
  const { layers, headsQ, headsKv, dHead, n, bytesPerElement, batch = 1, window = 0, windowedLayers = 0 } = shape;
  const wl = window > 0 ? windowedLayers : 0;
  const cache = kvCacheBytes({ ...shape, windowedLayers: wl });
  const mha = kvCacheBytes({ ...shape, headsKv: headsQ, windowedLayers: wl });
  const score = scoreBytes({ n, bytesPerElement, heads: headsQ, layers, batch });
  // the engine's own counts, in doubles: K and V of one layer at 4 bytes per entry
  const perLayer = async (hkv, S) => (await engine.kvBytesRead({ headsQ, headsKv: hkv, S, dk: dHead, dv: dHead })) / 4 * bytesPerElement * batch;
  const kept = tokensKept({ n, window, windowedLayers: wl });
  const engineCache = wl * (await perLayer(headsKv, kept)) + (layers - wl) * (await perLayer(headsKv, n));
  const engineMha = wl * (await perLayer(headsQ, kept)) + (layers - wl) * (await perLayer(headsQ, n));
  const engineScore = await engine.scoreMatrixBytes({ n, bytesPerElement, heads: headsQ, layers, batch });
  for (const [exact, approx, what] of [[cache, engineCache, 'cache'], [mha, engineMha, 'mha'], [score, engineScore, 'score']]) {
    if (Math.abs(Number(exact) - approx) > approx * 2 ** -48)
      throw Object.assign(new Error(`kvcache: ${what} ${exact} vs engine ${approx}`), { code: 'Mismatch' });
  }
  return { cache, mha, score, engineCache, engineMha, engineScore, kept, windowedLayers: wl };
}
