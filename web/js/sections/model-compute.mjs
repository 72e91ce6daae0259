// Chapter 13's numbers (a character model trained on the reader's language), apart from the
// page so a Node test can run them on the real engine (tests/node/model-compute.test.mjs).
// No DOM, no prose.
//
// The model lives in the engine worker (char-model-worker.mjs): the page reaches it with
// engine.call(name, arg). Here every engine call goes through a `port`:
//   port(name, arg) → value or Promise, name one of charModelLoad, charModelForward,
//   charDecoderCreate, charDecoderFeed, charDecoderDelete, charModelDelete.
// The page's port is (n, a) => engine.call(n, a); a Node test's is
// (n, a) => charModelHandlers(engine)[n]([a]), the same handlers the worker serves.
//
//   loadModel(port, bytes)               → {id, config, parameterCount, vocabulary}; a refused file
//                                           throws {code: 'BadModel'}
//   encode(text, vocabulary, context)    → {ids, chars, unknown: [{ch, index}], cut}: characters
//                                           the model never saw are reported, not dropped silently
//   glyph(ch)                            → a visible label for a character (space, half-space, newline, marks)
//   runText(port, model, ids)            → the engine's forward: {probs, attention[layer][head]}
//   topPredictions(probs, t, vocab, k)   → the k likeliest next characters after position t
//   HEAD_JOBS, jobTarget(job, chars, t)  → where a head with a job would look from position t
//   scoreHeads(attention, chars, scores) → adds one text's rows to running per-head job sums
//   heldOut(corpus)                      → the validation split (the last 10% of the characters)
//   scoreHeldOut(port, model, text, vocab) → head scores and the model's loss over held-out windows
//   withTemperature(probs, T)            → the distribution sampling draws from at temperature T
//   generate(port, model, opts)          → a seeded continuation through the KV cache, step by step
//   scaleComparison(parameterCount, config, presets) → ratios against real model shapes

import { createRng } from '../practice/random.mjs';
import { isLanguage, language, languageCodes } from '../i18n/languages.mjs';

/** A refused model file: a typed error the page answers in its language. */
const badModel = (cause) => Object.assign(new Error(`model: ${cause && cause.message}`), { code: 'BadModel', cause });

export async function loadModel(port, bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw badModel(new Error('empty file'));
  try {
    const r = await port('charModelLoad', { bytes });
    return { id: r.id, config: r.config, parameterCount: r.parameterCount, vocabulary: Array.from(r.vocabulary) };
  } catch (err) {
    // a crashed worker is not a bad file: let the page offer the recompute
    if (err && err.code === 'EngineCrashed') throw err;
    throw badModel(err);
  }
}

export const ZWNJ = '\u200c';
export const SPACE = ' ';
// characters that end a word: where "the start of the current word" and "the last space" look for
const SEPARATORS = new Set([SPACE, ZWNJ, '\n']);
export const isSeparator = (ch) => SEPARATORS.has(ch);

/**
 * The text as model ids, one per code point (the vocabulary is code points). Characters outside
 * the vocabulary are listed with their position (from 0) and left out of `ids`; so is
 * everything past the model's context (`cut` counts those characters).
 */
export function encode(text, vocabulary, context = Infinity) {
  const index = new Map(vocabulary.map((cp, i) => [cp, i]));
  const ids = [], chars = [], unknown = [];
  let cut = 0;
  Array.from(String(text)).forEach((ch, i) => {
    const id = index.get(ch.codePointAt(0));
    if (id === undefined) { unknown.push({ ch, index: i }); return; }
    if (ids.length >= context) { cut++; return; }
    ids.push(id);
    chars.push(ch);
  });
  return { ids, chars, unknown, cut };
}

/** The characters of ids, as a string. */
export const decode = (ids, vocabulary) => String.fromCodePoint(...Array.from(ids, (i) => vocabulary[i]));

/**
 * A label a reader can see: a space, a half-space and a newline have no ink of their own,
 * and a diacritic alone sits on a dotted circle.
 */
export function glyph(ch) {
  if (ch === SPACE) return '␣';
  if (ch === ZWNJ) return '¦';
  if (ch === '\n') return '↵';
  if (/^\p{M}$/u.test(ch)) return '◌' + ch;
  if (/^\p{C}$/u.test(ch)) return `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return ch;
}

/** The engine's forward on one text (1…context ids): {probs (T, V), attention[layer][head] (T, T)}. */
export async function runText(port, model, ids) {
  return port('charModelForward', { id: model.id, tokens: Uint32Array.from(ids) });
}

/** The k likeliest characters after position t (row t of probs), likeliest first: [{id, ch, p}]. */
export function topPredictions(probs, t, vocabulary, k = 5) {
  const V = probs.cols;
  const row = probs.data.subarray(t * V, (t + 1) * V);
  return Array.from(row, (p, id) => ({ id, p }))
    .sort((a, b) => b.p - a.p || a.id - b.id)
    .slice(0, k)
    .map((x) => ({ ...x, ch: String.fromCodePoint(vocabulary[x.id]) }));
}

/** The probability and rank (1 = likeliest) the model gave character `id` after position t. */
export function rankOf(probs, t, id) {
  const V = probs.cols, row = probs.data.subarray(t * V, (t + 1) * V);
  let rank = 1;
  for (let j = 0; j < V; j++) if (row[j] > row[id] || (row[j] === row[id] && j < id)) rank++;
  return { p: row[id], rank };
}

/** Row t of a head's (T, T) weights, positions 0…t (the causal prefix). */
export const rowOf = (m, t) => Array.from(m.data.subarray(t * m.cols, t * m.cols + t + 1));

// Jobs a head may do, each a rule for the position it would look at from position t (or -1 when
// the rule does not apply there). Rows where the job's target is t itself or t − 1 are left out of
// "first", "space" and "word" so that they do not simply re-count "self" and "previous".
export const HEAD_JOBS = ['prev', 'self', 'first', 'space', 'word'];

export function jobTarget(job, chars, t) {
  switch (job) {
    case 'prev': return t >= 1 ? t - 1 : -1;
    case 'self': return t;
    case 'first': return t >= 2 ? 0 : -1;
    case 'space': {   // the last space, half-space or newline before t − 1
      for (let j = t - 2; j >= 0; j--) if (isSeparator(chars[j])) return j;
      return -1;
    }
    case 'word': {    // the first letter of the word t is in (t itself a letter), two or more back
      if (isSeparator(chars[t])) return -1;
      let j = t;
      while (j > 0 && !isSeparator(chars[j - 1])) j--;
      // a word cut by the window's start has no start in view
      return j === 0 || j > t - 2 ? -1 : j;
    }
    default: throw new Error(`unknown job ${job}`);
  }
}

/** Empty running sums for `layers` × `heads` heads: sum of the weight on each job's target, and rows counted. */
export function emptyScores(layers, heads) {
  const jobs = {};
  for (const job of HEAD_JOBS) {
    jobs[job] = { sum: Array.from({ length: layers }, () => new Float64Array(heads)), rows: 0, uniform: 0 };
  }
  return { layers, heads, jobs };
}

/**
 * Adds one text's rows: for every position t where a job applies, the weight each head puts on
 * the job's target, and 1/(t+1), what a head spreading its weight evenly would put there.
 */
export function scoreHeads(attention, chars, scores) {
  const T = chars.length;
  for (const job of HEAD_JOBS) {
    const s = scores.jobs[job];
    for (let t = 0; t < T; t++) {
      const j = jobTarget(job, chars, t);
      if (j < 0) continue;
      s.rows++;
      s.uniform += 1 / (t + 1);
      for (let l = 0; l < scores.layers; l++) {
        for (let hd = 0; hd < scores.heads; hd++) {
          const m = attention[l][hd];
          s.sum[l][hd] += m.data[t * m.cols + j];
        }
      }
    }
  }
  return scores;
}

/**
 * The mean weights: {jobs: {job: {mean[l][h], rows, uniform, best: {layer, head, score}}}}.
 * `best` is the head with the highest mean (ties: the first).
 */
export function finishScores(scores) {
  const out = { layers: scores.layers, heads: scores.heads, jobs: {} };
  for (const job of HEAD_JOBS) {
    const s = scores.jobs[job];
    const mean = s.sum.map((r) => Array.from(r, (x) => (s.rows ? x / s.rows : NaN)));
    let best = null;
    mean.forEach((r, l) => r.forEach((v, hd) => { if (best === null || v > best.score) best = { layer: l, head: hd, score: v }; }));
    out.jobs[job] = { mean, rows: s.rows, uniform: s.rows ? s.uniform / s.rows : NaN, best };
  }
  return out;
}

/** Head scores of one text (the reader's own check). */
export function scoreText(attention, chars, layers, heads) {
  return finishScores(scoreHeads(attention, chars, emptyScores(layers, heads)));
}

/**
 * The held-out part of the training corpus, as engine/tools/train_char.cpp splits it: the corpus as
 * code points, the last floor(n / 10) of them.
 */
export function heldOut(corpus) {
  const cps = Array.from(corpus);
  return cps.slice(cps.length - Math.floor(cps.length / 10)).join('');
}

/**
 * Head scores over held-out text, in consecutive windows of `context` characters (the windows
 * train_char's validation loss uses), and the model's mean loss on the same predictions (nats per
 * character, −ln of the probability of each next character). `maxWindows` bounds the work.
 * onWindow(done, total) after each window (the page shows progress).
 */
export async function scoreHeldOut(port, model, text, { maxWindows = Infinity, onWindow } = {}) {
  const { config, vocabulary } = model;
  const { ids, chars } = encode(text, vocabulary);
  const T = config.context;
  const total = Math.min(maxWindows, Math.ceil((ids.length - 1) / T));
  const scores = emptyScores(config.layers, config.heads);
  let nll = 0, predicted = 0;
  for (let w = 0; w < total; w++) {
    const s = w * T;
    const L = Math.min(T, ids.length - 1 - s);
    const { probs, attention } = await runText(port, model, ids.slice(s, s + L));
    scoreHeads(attention, chars.slice(s, s + L), scores);
    for (let t = 0; t < L; t++) nll -= Math.log(probs.data[t * probs.cols + ids[s + t + 1]]);
    predicted += L;
    if (onWindow) onWindow(w + 1, total);
  }
  return { ...finishScores(scores), loss: nll / predicted, predicted, windows: total, characters: ids.length, unknown: chars.length - ids.length };
}

/**
 * The distribution sampling draws from at temperature T: softmax(logits / T), which from the
 * model's probabilities p is p^(1/T) renormalized (computed in logs, largest first, so a small T
 * does not underflow to nothing).
 */
export function withTemperature(probs, T) {
  const logs = Array.from(probs, (p) => (p > 0 ? Math.log(p) / T : -Infinity));
  const m = Math.max(...logs);
  const e = logs.map((x) => Math.exp(x - m));
  const z = e.reduce((a, b) => a + b, 0);
  return Float64Array.from(e, (x) => x / z);
}

/** The index a uniform u in [0, 1) picks from a distribution (the inverse of its running sum). */
export function draw(dist, u) {
  let acc = 0;
  for (let i = 0; i < dist.length; i++) {
    acc += dist[i];
    if (u < acc) return i;
  }
  // rounding left the sum a hair under 1: the last character with any weight
  for (let i = dist.length - 1; i >= 0; i--) if (dist[i] > 0) return i;
  return dist.length - 1;
}

/**
 * Continues `prompt` (ids, at least one) by up to `count` characters through the model's KV cache:
 * each prompt character is fed to a decoder (the prefill, one character at a time), then each new
 * character is drawn from withTemperature(probs, temperature) with a seeded generator (mulberry32,
 * practice/random.mjs: the same seed, temperature and prompt give the same text in every browser)
 * and fed back. Stops when the cache holds the model's context. Returns {ids (new only), steps:
 * [{length, cacheBytes, cacheCapacityBytes, probs, drawn}]} where steps[i] is the state after i + 1
 * characters fed and drawn the character drawn from its probs (-1 where none was drawn).
 */
export async function generate(port, model, { prompt, count, temperature, seed }) {
  if (!prompt.length) throw Object.assign(new Error('generate: an empty prompt'), { code: 'EmptyPrompt' });
  const ctxLen = model.config.context;
  const fed = prompt.slice(0, ctxLen);
  const rng = createRng(seed);
  const { decoder } = await port('charDecoderCreate', { id: model.id });
  const steps = [], ids = [];
  try {
    let last = null;
    const feed = async (tok) => {
      last = await port('charDecoderFeed', { decoder, token: tok });
      steps.push({ length: last.length, cacheBytes: last.cacheBytes, cacheCapacityBytes: last.cacheCapacityBytes, probs: Float32Array.from(last.probs), drawn: -1 });
    };
    for (const tok of fed) await feed(tok);
    // the cache holds at most the model's context: prompt + new characters ≤ context
    const room = Math.min(count, ctxLen - fed.length);
    while (ids.length < room) {
      const tok = draw(withTemperature(steps.at(-1).probs, temperature), rng.next());
      steps.at(-1).drawn = tok;
      ids.push(tok);
      await feed(tok);
    }
  } finally {
    await port('charDecoderDelete', { decoder });
  }
  return { ids, steps, promptLength: fed.length };
}

/**
 * Our model next to the real ones of chapter 12's calculator (kvcache-presets.mjs), each number
 * from a shape: attention heads in all layers, the width a layer's heads add up to (H_q · d_head),
 * and the KV cache of one token (2 · layers · H_kv · d_head numbers; ours are float32 in the engine,
 * 4 bytes, theirs bf16, 2 bytes).
 */
export function scaleComparison(parameterCount, config, presets) {
  const dHead = config.width / config.heads;
  const ours = {
    parameters: parameterCount,
    heads: config.layers * config.heads,
    width: config.width,
    kvBytesToken: 2 * config.layers * config.kvHeads * dHead * 4,
    context: config.context,
  };
  const rows = Object.entries(presets).map(([key, p]) => {
    const heads = p.layers * p.headsQ, width = p.headsQ * p.dHead, kvBytesToken = 2 * p.layers * p.headsKv * p.dHead * 2;
    return { key, heads, width, kvBytesToken, headsRatio: heads / ours.heads, widthRatio: width / ours.width, kvRatio: kvBytesToken / ours.kvBytesToken };
  });
  return { ours, rows };
}

/**
 * The edition whose trained model and corpus (models/<code>.ckpt, .json, .corpus.txt) the
 * chapters on the model (13, 14) read for edition `lang`: its own, or the one its registry
 * entry names in `modelFrom`. Only the test-only editions that make-site adds with
 * --extra-languages have no model, and make-site gives them modelFrom (the default edition);
 * a real edition has its own (tests/node/model-language.test.mjs). A code that is no edition
 * is the caller's mistake, not a reader's choice (the page's lang is an edition already), so
 * it throws rather than showing some other language's model.
 */
export function modelLanguage(lang) {
  if (!isLanguage(lang)) {
    throw new Error(`modelLanguage: ${JSON.stringify(lang)} is not an edition of i18n/languages.mjs (${languageCodes().join(', ')})`);
  }
  return language(lang).modelFrom ?? lang;
}
