// Chapter 14's numbers without the DOM (train.mjs draws them; tests/node/train-compute.test.mjs
// checks them): the training text cut as engine/tools/train_char.cpp cuts it, the unigram and
// bigram baselines on the same held-out part, the two model sizes, the batches' seeds, the
// held-out windows a run is measured on, and the saved run's format (written to IndexedDB by
// train-store.mjs, refused with a typed reason when it cannot be trusted).

// ------------------------------------------------------------------ the text
/**
 * The corpus as train_char.cpp reads it: its code points, the vocabulary (every code point that
 * occurs, sorted), each character's id (its place in the vocabulary), and the last tenth
 * (rounded down) held out for validation.
 */
export function corpusData(text) {
  const cps = Array.from(text, (c) => c.codePointAt(0));
  const vocab = [...new Set(cps)].sort((a, b) => a - b);
  const index = new Map(vocab.map((c, i) => [c, i]));
  const ids = Uint32Array.from(cps, (c) => index.get(c));
  const nVal = Math.floor(ids.length / 10);
  return { vocab, index, train: ids.subarray(0, ids.length - nVal), val: ids.subarray(ids.length - nVal) };
}

/** Ids of `text`'s characters; characters outside the vocabulary are left out. */
export function tokenize(text, data) {
  const out = [];
  for (const c of text) {
    const id = data.index.get(c.codePointAt(0));
    if (id !== undefined) out.push(id);
  }
  return Uint32Array.from(out);
}

/** The characters of ids, as a string. */
export const detokenize = (ids, data) => String.fromCodePoint(...Array.from(ids, (i) => data.vocab[i]));

/**
 * Add-one (Laplace) smoothed unigram and bigram models counted on the training part, in nats
 * per character on val[1..] (the same characters and formula as train_char.cpp's baselines).
 */
export function baselines(data) {
  const { train, val } = data;
  const V = data.vocab.length;
  const uni = new Float64Array(V), first = new Float64Array(V), bi = new Float64Array(V * V);
  for (const t of train) uni[t] += 1;
  for (let i = 1; i < train.length; i++) { bi[train[i - 1] * V + train[i]] += 1; first[train[i - 1]] += 1; }
  let u = 0, b = 0;
  for (let i = 1; i < val.length; i++) {
    const prev = val[i - 1], cur = val[i];
    u -= Math.log((uni[cur] + 1) / (train.length + V));
    b -= Math.log((bi[prev * V + cur] + 1) / (first[prev] + V));
  }
  return { unigram: u / (val.length - 1), bigram: b / (val.length - 1), uniform: Math.log(V) };
}

// ------------------------------------------------------------------ the model sizes
// Two sizes: 'small' for a phone or a machine with fewer than 4 cores (defaultSize), small enough
// that its loss passes the unigram and bigram baselines while the reader watches; 'default', with
// about four times the weights (tests/node/train-compute.test.mjs checks the ratio), where there
// are the cores for it. Their measured times: engine/bench/README.md, "The page's two model sizes".
export const SIZES = Object.freeze({
  small: Object.freeze({ config: { context: 32, width: 32, layers: 1, heads: 2 }, batch: 8, length: 32 }),
  default: Object.freeze({ config: { context: 64, width: 48, layers: 2, heads: 4 }, batch: 8, length: 64 }),
});
export const TOTAL_STEPS = 3000;
export const TRAINING = Object.freeze({ lrMax: 3e-3, lrMin: 3e-4, warmup: 10, totalSteps: TOTAL_STEPS, clipNorm: 1, weightDecay: 0.01 });

/** The default size for a screen `width` CSS px wide and `cores` logical processors. */
export const defaultSize = ({ width, cores }) => (width < 600 || !(cores >= 4) ? 'small' : 'default');

/** The engine configuration of a size for a vocabulary of V characters and a seed. */
export const modelConfig = (size, V, seed) => ({ vocab: V, ...SIZES[size].config, seed, training: { ...TRAINING } });

/**
 * The batches' seed for a training call that starts after `step` steps of a run seeded `seed`
 * (a call restarts the worker's window generator, so each call gets its own stream: the same
 * run paused at the same steps repeats exactly).
 */
export function chunkSeed(seed, step) {
  let x = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(step >>> 0, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * The held-out windows a run's validation loss is measured on: `count` windows of `length`
 * characters spread evenly over the validation part (fixed, so successive points compare).
 */
export function validationWindows(data, length, count = 8) {
  const { val } = data;
  const inputs = new Uint32Array(count * length), targets = new Uint32Array(count * length);
  const span = val.length - length - 1;
  for (let w = 0; w < count; w++) {
    const s = Math.floor((w * span) / count);
    for (let t = 0; t < length; t++) { inputs[w * length + t] = val[s + t]; targets[w * length + t] = val[s + t + 1]; }
  }
  return { inputs, targets, batch: count };
}

/**
 * The held-out sentence whose attention the chapter shows: the first `length` characters of the
 * validation part after its first line break (a whole line, not the middle of a word).
 */
export function showcaseTokens(data, length) {
  const nl = data.index.get(10);
  let s = 0;
  if (nl !== undefined) { const i = data.val.indexOf(nl); if (i >= 0 && i + 1 + length < data.val.length) s = i + 1; }
  return data.val.slice(s, s + length);
}

/** Tokens per second of `steps` steps of a size in `ms` milliseconds. */
export const tokensPerSecond = (size, steps, ms) => (ms > 0 ? (steps * SIZES[size].batch * SIZES[size].length * 1000) / ms : 0);

// ------------------------------------------------------------------ the saved run
// One record per language in IndexedDB (train-store.mjs):
//   {format: RUN_FORMAT, version: RUN_VERSION, meta: JSON string, checksum, checkpoint: Uint8Array}
//   meta: {lang, size, seed, step, savedAt, history: {train: [[step, loss]…], val: [[step, loss]…]}}
//   checkpoint: the engine's checkpoint (charModelSave, f32 with the optimizer's state), which holds
//   the configuration and the vocabulary and has its own CRC the engine checks when it loads it.
//   checksum: FNV-1a 32 over the meta string and the checkpoint's bytes (a truncated or damaged
//   copy is refused before the engine sees it).
export const RUN_FORMAT = 'attn-lesson-train-run';
export const RUN_VERSION = 1;
// Why a saved run is refused (train.json has a sentence for each: train.saved.<reason>).
export const RUN_REFUSALS = Object.freeze(['format', 'version', 'checksum', 'fields', 'language', 'checkpoint']);

/** FNV-1a, 32 bits, over a string's UTF-16 units then a byte array's bytes. */
export function runChecksum(text, bytes) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  for (let i = 0; i < bytes.length; i++) { h ^= bytes[i]; h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The record to store for a run. */
export function encodeRun({ lang, size, seed, step, history, checkpoint, savedAt = new Date().toISOString() }) {
  const meta = JSON.stringify({ lang, size, seed, step, savedAt, history });
  const bytes = new Uint8Array(checkpoint);
  return { format: RUN_FORMAT, version: RUN_VERSION, meta, checksum: runChecksum(meta, bytes), checkpoint: bytes };
}

const isPairList = (xs) => Array.isArray(xs) && xs.length <= 100000 && xs.every((p) => Array.isArray(p) && p.length === 2
  && Number.isInteger(p[0]) && p[0] >= 0 && typeof p[1] === 'number' && Number.isFinite(p[1]));

/**
 * A stored record back as a run, or why not: {ok: true, run: {lang, size, seed, step, savedAt,
 * history, checkpoint}} | {ok: false, reason} (reason one of RUN_REFUSALS but 'checkpoint', which
 * the engine gives when it refuses the checkpoint itself). Never throws, whatever the record is.
 */
export function decodeRun(record, { lang }) {
  const no = (reason) => ({ ok: false, reason });
  if (record === null || typeof record !== 'object' || record.format !== RUN_FORMAT) return no('format');
  if (record.version !== RUN_VERSION) return no(Number.isInteger(record.version) && record.version > RUN_VERSION ? 'version' : 'format');
  const { meta, checkpoint } = record;
  if (typeof meta !== 'string' || !(checkpoint instanceof Uint8Array) || checkpoint.length === 0) return no('fields');
  if (record.checksum !== runChecksum(meta, checkpoint)) return no('checksum');
  let m;
  try { m = JSON.parse(meta); } catch { return no('fields'); }
  if (m === null || typeof m !== 'object') return no('fields');
  if (!Object.hasOwn(SIZES, m.size) || !Number.isInteger(m.seed) || m.seed < 0 || m.seed > 0xffffffff
    || !Number.isInteger(m.step) || m.step < 0 || m.step > TOTAL_STEPS || typeof m.savedAt !== 'string'
    || !m.history || !isPairList(m.history.train) || !isPairList(m.history.val)) return no('fields');
  if (m.lang !== lang) return no('language');
  return { ok: true, run: { lang: m.lang, size: m.size, seed: m.seed, step: m.step, savedAt: m.savedAt, history: m.history, checkpoint } };
}

/**
 * The training curve as drawn: at most `max` points, each the mean loss of `k` consecutive steps
 * (k the smallest that fits), at the bucket's last step. A 3,000-step run stays a light chart
 * (and its data table a few hundred rows) while every step still counts in it.
 */
export function curvePoints(pairs, max = 300) {
  const k = Math.max(1, Math.ceil(pairs.length / max));
  const out = [];
  for (let i = 0; i < pairs.length; i += k) {
    const bucket = pairs.slice(i, i + k);
    out.push({ x: bucket[bucket.length - 1][0], y: bucket.reduce((s, p) => s + p[1], 0) / bucket.length });
  }
  return out;
}
