// The one JavaScript module the project imports to use the attention engine
// (C++ compiled to WebAssembly, attn.mjs + attn.wasm next to this file).
// It validates every argument in JS, with an English message and an
// `error.code` ('ShapeMismatch' | 'ZeroDimension' | 'NonFinite' | 'TooLarge' |
// 'BadArgument'; 'Internal' for an engine defect; the list is errorCodes()),
// calls the Embind functions and returns copies only.
// Matrices are {rows, cols, data: Float32Array}; masks {rows, cols, data: Uint8Array}.
// API contract: engine/README.md. Works in a page, a module Worker and Node 20.
import createAttnModule from './attn.mjs';

// The variants' names, from the engine's own table (attn::variant_name) when it loads.
let VARIANTS = [];
const DEFAULT_BLOCK = 64;  // AttentionOptions::block_q / block_k

// ------------------------------------------------------------------ loading
let modulePromise = null;

// The smallest module that uses f32x4.relaxed_madd: (func (param v128 v128 v128)
// (result v128) local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd).
const RELAXED_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123,
  3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);

/** 'relaxed' when this runtime has relaxed SIMD (attn-relaxed.wasm: fused multiply-adds), else 'simd128'. */
export function wasmBuild() {
  try { return WebAssembly.validate(RELAXED_PROBE) ? 'relaxed' : 'simd128'; } catch { return 'simd128'; }
}

async function instantiate() {
  const build = wasmBuild();
  // both builds share attn.mjs (byte-identical glue, checked by the build); only the .wasm differs
  const wasmFile = build === 'relaxed' ? 'attn-relaxed.wasm' : 'attn.wasm';
  const options = {
    locateFile: (file) => new URL(file === 'attn.wasm' ? wasmFile : file, import.meta.url).href,
  };
  if (typeof process !== 'undefined' && process.versions?.node) {
    // The module is built for web,worker only: in Node we hand it the bytes ourselves.
    const { readFile } = await import('node:fs/promises');
    options.wasmBinary = await readFile(new URL(`./${wasmFile}`, import.meta.url));
  }
  return createAttnModule(options);
}

/** Loads the engine once per realm; later calls return the same API. */
export async function loadEngine() {
  if (!modulePromise) {
    modulePromise = instantiate().then(makeApi);
    modulePromise.catch(() => { modulePromise = null; });  // allow a retry after a failed load
  }
  return modulePromise;
}

// ------------------------------------------------------------------ validation
// What is checked where: engine.mjs checks what only JavaScript can (types,
// whole numbers up to 2^53, typed-array kinds, a data length that matches
// rows x cols, sizes that wasm32 cannot address, each field read once); every
// rule about shapes and values that the engine checks itself (q, k and v
// agreeing, the scale, return_weights with chunked, the KV cache's rows) is
// left to the engine, so its English message is the one the page shows: one
// text per rule, not a JS copy and a C++ copy that drift apart.
//
// Every caller field is read exactly ONCE, here, into plain values and fresh
// typed-array views; only those reach the bindings. A getter that answers
// differently on a later read, or throws on one, then cannot slip a
// different array past the checks (an out-of-bounds read in wasm) or throw
// from inside an Embind call (which skips C++ destructors: a leak of every
// input already copied into the wasm heap).

// Errors made by fail(): the read phase (readArgs) passes them on and wraps anything else.
const engineErrors = new WeakSet();
function fail(code, message, cause) {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.code = code;
  engineErrors.add(error);
  throw error;
}

// The typed-array views made by the read phase running now: {view, length, name}.
let viewsBeingRead = null;

// Runs read(), the argument checks of `fn`. An exception from the caller's
// own code (a getter, a Proxy trap) becomes BadArgument with it as `cause`.
// A later getter may still shrink (a resizable ArrayBuffer) or detach the
// buffer of an array checked earlier; its fresh view then reads as empty, and
// the bindings' copy would throw a TypeError inside the Embind call (which
// skips C++ destructors: the inputs already copied into the wasm heap leak).
// So every view's length is checked again once the whole read is done.
function readArgs(fn, read) {
  const outer = viewsBeingRead;
  const views = [];
  viewsBeingRead = views;
  try {
    const args = read();
    for (const { view, length, name } of views)
      if (lengthOf(view) !== length)
        fail('BadArgument', `${fn}: the buffer of ${name} was resized or detached while the arguments were read (it had ${length} entries, now ${lengthOf(view)})`);
    return args;
  } catch (error) {
    if (engineErrors.has(error)) throw error;
    let what;
    try { what = error instanceof Error ? `${error.name}: ${error.message}` : String(error); } catch { what = 'a value'; }
    return fail('BadArgument', `${fn}: reading the arguments threw ${what}`, error);
  } finally {
    viewsBeingRead = outer;
  }
}

// The intrinsic getters of %TypedArray%.prototype read a typed array's internal
// slots: neither Symbol.toStringTag nor an own 'length' property can lie to them
// (Object.prototype.toString and x.length can be made to).
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (key) => Object.getOwnPropertyDescriptor(typedArrayProto, key).get;
const kindGetter = intrinsic(Symbol.toStringTag);  // 'Float32Array', ... or undefined
const bufferGetter = intrinsic('buffer'), offsetGetter = intrinsic('byteOffset'), lengthGetter = intrinsic('length');
const kindOf = (x) => kindGetter.call(x);
const lengthOf = (x) => lengthGetter.call(x);
// A fresh view of the same memory: no own properties, nothing of the caller's object.
// readArgs checks its length again at the end of the read (see there).
function viewOf(Type, x, name) {
  const view = new Type(bufferGetter.call(x), offsetGetter.call(x), lengthGetter.call(x));
  if (viewsBeingRead) viewsBeingRead.push({ view, length: lengthOf(view), name });
  return view;
}

// wasm32 addresses 4 GiB; no single input may need more.
const WASM_BYTES = 2 ** 32;

function typeName(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an Array';
  const kind = kindOf(x);
  if (kind !== undefined) return `a ${kind}`;
  if (typeof x === 'symbol') return 'a symbol';
  if (typeof x === 'object' || typeof x === 'function') return `an ${typeof x}`;
  return `${typeof x} ${String(x)}`;
}

const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && kindOf(x) === undefined;

// The allowed fields of an options object, each read once, as a plain object.
function options(fn, args, allowed) {
  if (args === undefined) args = {};
  if (!isObject(args)) fail('BadArgument', `${fn}: expected an options object, got ${typeName(args)}`);
  const out = {};
  for (const key of allowed) out[key] = args[key];
  for (const key of Object.keys(args))
    if (!allowed.includes(key) && args[key] !== undefined)
      fail('BadArgument', `${fn}: unknown option '${key}'; expected ${allowed.join(', ')}`);
  return out;
}

// A whole number >= min (0 gets ZeroDimension when `dimension` is set).
function count(fn, name, x, { min = 1, dimension = true } = {}) {
  if (typeof x !== 'number' || !Number.isInteger(x) || x > Number.MAX_SAFE_INTEGER)
    fail('BadArgument', `${fn}: ${name} must be a whole number, got ${typeName(x)}`);
  if (x === 0 && min > 0 && dimension)
    fail('ZeroDimension', `${fn}: ${name} is 0; every dimension must be at least 1`);
  if (x < min) fail('BadArgument', `${fn}: ${name} is ${x}; it must be at least ${min}`);
  return x;
}

function boolean(fn, name, x, fallback) {
  if (x === undefined && fallback !== undefined) return fallback;
  if (typeof x !== 'boolean') fail('BadArgument', `${fn}: ${name} must be true or false, got ${typeName(x)}`);
  return x;
}

// data: a Float32Array or Float64Array of our own (never the caller's object).
function requireFinite(fn, name, data, cols) {
  // x·0 is 0 for every finite float and NaN for ±Infinity and NaN: one
  // multiply-add per entry and no branch (the per-entry test below cost
  // about 2% of a whole attention call at n = 2048)
  let probe = 0;
  for (let i = 0; i < data.length; i++) probe += data[i] * 0;
  if (probe === 0) return;
  for (let i = 0; i < data.length; i++) {  // find the first bad entry for the message
    const x = data[i];
    if (!Number.isFinite(x)) {
      const where = cols ? `row ${Math.floor(i / cols)}, column ${i % cols}` : `index ${i}`;
      fail('NonFinite', `${fn}: ${name} has ${x} at ${where}; all entries must be finite`);
    }
  }
}

// {rows, cols, data: Float32Array} read once -> {rows, cols, data: a fresh view}.
function matrix(fn, name, m) {
  if (!isObject(m))
    fail('BadArgument', `${fn}: ${name} must be a matrix {rows, cols, data: Float32Array}, got ${typeName(m)}`);
  const rows = count(fn, `${name}.rows`, m.rows, { min: 0 });
  const cols = count(fn, `${name}.cols`, m.cols, { min: 0 });
  const data = m.data;
  if (rows === 0 || cols === 0)
    fail('ZeroDimension', `${fn}: ${name} is ${rows}x${cols}; every dimension must be at least 1`);
  if (kindOf(data) !== 'Float32Array')
    fail('BadArgument', `${fn}: ${name}.data must be a Float32Array, got ${typeName(data)}` +
      (Array.isArray(data) ? ' (wrap it: new Float32Array(array))' : ''));
  const length = lengthOf(data);
  if (length !== rows * cols)  // in doubles: exact up to 2^53, no 32-bit wrap
    fail('ShapeMismatch', `${fn}: ${name}.data has ${length} numbers but ${name} is ${rows}x${cols} (needs ${rows * cols})`);
  if (rows * cols * 4 > WASM_BYTES)
    fail('TooLarge', `${fn}: ${name} is ${rows}x${cols}, ${rows * cols * 4} bytes; WebAssembly can address 4 GiB at most`);
  const view = viewOf(Float32Array, data, `${name}.data`);
  requireFinite(fn, name, view, cols);
  return { rows, cols, data: view };
}

// number[] or Float32Array, read once into a typed array of our own, at least one entry, all finite.
function vector(fn, name, x) {
  let data;
  if (kindOf(x) === 'Float32Array') {
    data = viewOf(Float32Array, x, name);
  } else if (Array.isArray(x)) {
    const length = x.length;
    if (typeof length !== 'number' || length * 8 > WASM_BYTES)
      fail('TooLarge', `${fn}: ${name} has ${length} entries; WebAssembly can address 4 GiB at most`);
    data = new Float64Array(length);
    for (let i = 0; i < length; i++) {
      const value = x[i];
      if (typeof value !== 'number') fail('BadArgument', `${fn}: ${name}[${i}] must be a number, got ${typeName(value)}`);
      data[i] = value;
    }
  } else {
    fail('BadArgument', `${fn}: ${name} must be a Float32Array or an array of numbers, got ${typeName(x)}`);
  }
  if (data.length === 0) fail('ZeroDimension', `${fn}: ${name} is empty; it needs at least 1 entry`);
  requireFinite(fn, name, data, 0);
  return data;
}

// undefined: 1/sqrt(d_k); null: no scaling (1); else a number, whose value
// the engine checks (finite, > 0 in float32).
function scaleOption(fn, scale) {
  if (scale === undefined) return undefined;
  if (scale === null) return 1;
  if (typeof scale !== 'number') fail('BadArgument', `${fn}: scale must be a number, null or omitted, got ${typeName(scale)}`);
  return scale;
}

// Three matrices; how their shapes must agree is the engine's check.
function qkv(fn, args) {
  return { q: matrix(fn, 'q', args.q), k: matrix(fn, 'k', args.k), v: matrix(fn, 'v', args.v) };
}

// {rows, cols, data: Uint8Array} read once -> {rows, cols, data: a fresh view}.
function mask(fn, m, L, S) {
  if (!isObject(m)) fail('BadArgument', `${fn}: mask must be {rows, cols, data: Uint8Array}, got ${typeName(m)}`);
  const rows = count(fn, 'mask.rows', m.rows, { min: 0 });
  const cols = count(fn, 'mask.cols', m.cols, { min: 0 });
  const data = m.data;
  if (rows !== L || cols !== S)
    fail('ShapeMismatch', `${fn}: mask is ${rows}x${cols} but the scores are ${L}x${S} (q rows x k rows)`);
  if (kindOf(data) !== 'Uint8Array') fail('BadArgument', `${fn}: mask.data must be a Uint8Array, got ${typeName(data)}`);
  const length = lengthOf(data);
  if (length !== L * S)  // in doubles: 65536 x 65537 is not 65536 here
    fail('ShapeMismatch', `${fn}: mask.data has ${length} entries but the mask is ${L}x${S} (needs ${L * S})`);
  if (L * S >= WASM_BYTES)
    fail('TooLarge', `${fn}: a ${L}x${S} mask is ${L * S} bytes; WebAssembly can address 4 GiB at most`);
  const view = viewOf(Uint8Array, data, 'mask.data');
  const bad = view.findIndex((x) => x > 1);
  if (bad >= 0)
    fail('BadArgument', `${fn}: mask has ${view[bad]} at row ${Math.floor(bad / S)}, column ${bad % S}; use 1 for visible and 0 for hidden`);
  return { rows, cols, data: view };
}

const ATTENTION_OPTIONS = ['causal', 'scale', 'variant', 'blockQ', 'blockK', 'mask', 'returnWeights', 'rowOffset',
  'window', 'queryPeriod'];

// A whole number >= 0 that defaults to 0 (rowOffset; window and queryPeriod, where 0 = off).
const offOrCount = (fn, name, x) => (x === undefined ? 0 : count(fn, name, x, { min: 0 }));

// The checked, normalised options object the bindings expect (L query rows, S keys).
function attentionOptions(fn, args, L, S) {
  const variant = args.variant ?? 'materialized';
  if (!VARIANTS.includes(variant)) {  // a name, which the engine's enum cannot carry
    const names = VARIANTS.map((x) => `'${x}'`);
    fail('BadArgument', `${fn}: unknown variant '${typeof variant === 'string' ? variant : typeName(variant)}'; use ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  }
  const returnWeights = boolean(fn, 'returnWeights', args.returnWeights, false);
  return {
    causal: boolean(fn, 'causal', args.causal, false),
    scale: scaleOption(fn, args.scale),
    variant,
    blockQ: args.blockQ === undefined ? DEFAULT_BLOCK : count(fn, 'blockQ', args.blockQ, { dimension: false }),
    blockK: args.blockK === undefined ? DEFAULT_BLOCK : count(fn, 'blockK', args.blockK, { dimension: false }),
    mask: args.mask === undefined || args.mask === null ? null : mask(fn, args.mask, L, S),
    returnWeights,
    rowOffset: offOrCount(fn, 'rowOffset', args.rowOffset),
    window: offOrCount(fn, 'window', args.window),
    queryPeriod: offOrCount(fn, 'queryPeriod', args.queryPeriod),
  };
}

// ------------------------------------------------------------------ heads and the KV cache
// Head-major layout (engine/README.md): a matrix of H heads with R rows each
// keeps head h in rows [h·R, (h+1)·R).

// {headsQ, headsKv} -> checked counts: both >= 1, headsQ a multiple of headsKv.
function headCounts(fn, headsQ, headsKv) {
  const hq = count(fn, 'headsQ', headsQ);
  const hkv = headsKv === undefined ? hq : count(fn, 'headsKv', headsKv);
  if (hq % hkv !== 0)
    fail('BadArgument', `${fn}: headsQ is ${hq}, not a multiple of headsKv ${hkv}; each key/value head serves the same number of query heads`);
  return { hq, hkv };
}

// `rows` of a matrix split evenly into `heads` heads (ShapeMismatch otherwise).
function perHead(fn, name, m, heads, what) {
  if (m.rows % heads !== 0)
    fail('ShapeMismatch', `${fn}: ${name} has ${m.rows} rows, not a multiple of ${heads} ${what}; it must hold the same number of rows for each head, head after head`);
  return m.rows / heads;
}

const KV_CACHE_OPTIONS = ['headsKv', 'dk', 'dv', 'window'];
const DECODE_OPTIONS = ['scale', 'variant'];
const PREFILL_OPTIONS = ['scale', 'variant', 'blockQ', 'blockK', 'returnWeights'];

// ------------------------------------------------------------------ the character model
// CharModel (attn/train.hpp) behind a handle; defaults are the engine's (CharModelConfig,
// TrainingConfig). Sizes whose combinations the engine checks (width % heads, heads %
// kvHeads, the memory budget, a token >= vocab, T > context) are left to it.
const CHAR_MODEL_OPTIONS = ['vocab', 'context', 'width', 'layers', 'heads', 'kvHeads', 'seed', 'training'];
const CHECKPOINT_FORMATS = ['f16', 'f32', 'int8'];
const TRAINING_DEFAULTS = Object.freeze({ lrMax: 3e-3, lrMin: 3e-4, warmup: 10, totalSteps: 1000, clipNorm: 1, weightDecay: 0.01 });

// A finite number >= 0 (> 0 when `positive`), or the fallback when undefined.
function real(fn, name, x, fallback, { positive = false } = {}) {
  if (x === undefined) return fallback;
  if (typeof x !== 'number' || !Number.isFinite(x))
    fail(typeName(x) === `number ${x}` ? 'NonFinite' : 'BadArgument', `${fn}: ${name} must be a finite number, got ${typeName(x)}`);
  if (positive ? !(x > 0) : !(x >= 0)) fail('BadArgument', `${fn}: ${name} is ${x}; it must be ${positive ? 'above' : 'at least'} 0`);
  return x;
}

// {vocab, context, width, layers, heads, kvHeads, seed} checked, with the engine's defaults.
function charModelConfig(fn, o) {
  const heads = o.heads === undefined ? 4 : count(fn, 'heads', o.heads);
  return {
    vocab: count(fn, 'vocab', o.vocab),
    context: o.context === undefined ? 64 : count(fn, 'context', o.context),
    width: o.width === undefined ? 64 : count(fn, 'width', o.width),
    layers: o.layers === undefined ? 2 : count(fn, 'layers', o.layers),
    heads,
    kvHeads: o.kvHeads === undefined ? heads : count(fn, 'kvHeads', o.kvHeads),
    seed: o.seed === undefined ? 1 : count(fn, 'seed', o.seed, { min: 0 }),
  };
}

function trainingConfig(fn, t) {
  const o = options(`${fn}: training`, t, Object.keys(TRAINING_DEFAULTS));
  const d = TRAINING_DEFAULTS;
  const out = {
    lrMax: real(fn, 'training.lrMax', o.lrMax, d.lrMax),
    lrMin: real(fn, 'training.lrMin', o.lrMin, d.lrMin),
    warmup: o.warmup === undefined ? d.warmup : count(fn, 'training.warmup', o.warmup, { min: 0 }),
    totalSteps: o.totalSteps === undefined ? d.totalSteps : count(fn, 'training.totalSteps', o.totalSteps),
    clipNorm: real(fn, 'training.clipNorm', o.clipNorm, d.clipNorm, { positive: true }),
    weightDecay: real(fn, 'training.weightDecay', o.weightDecay, d.weightDecay),
  };
  if (out.lrMin > out.lrMax) fail('BadArgument', `${fn}: training.lrMin ${out.lrMin} is above training.lrMax ${out.lrMax}`);
  return out;
}

// Character ids: a Uint32Array (a fresh view) or an array of whole numbers below 2^32 (copied), not empty.
function tokens(fn, name, x) {
  let data;
  if (kindOf(x) === 'Uint32Array') {
    data = viewOf(Uint32Array, x, name);
  } else if (Array.isArray(x)) {
    const length = x.length;
    if (typeof length !== 'number' || length * 4 > WASM_BYTES)
      fail('TooLarge', `${fn}: ${name} has ${length} entries; WebAssembly can address 4 GiB at most`);
    data = new Uint32Array(length);
    for (let i = 0; i < length; i++) {
      const t = x[i];
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t >= 2 ** 32)
        fail('BadArgument', `${fn}: ${name}[${i}] must be a character id (a whole number from 0), got ${typeName(t)}`);
      data[i] = t;
    }
  } else {
    fail('BadArgument', `${fn}: ${name} must be a Uint32Array or an array of character ids, got ${typeName(x)}`);
  }
  if (data.length === 0) fail('ZeroDimension', `${fn}: ${name} is empty; it needs at least 1 character`);
  return data;
}

// (inputs, targets, batch) of trainStep and evaluate; batch defaults to 1.
function batchArgs(fn, inputs, targets, batch) {
  return readArgs(fn, () => [tokens(fn, 'inputs', inputs), tokens(fn, 'targets', targets),
    batch === undefined ? 1 : count(fn, 'batch', batch)]);
}

// Lets the event loop run (an abort, a worker's messages) between two training steps.
const nextTurn = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// ------------------------------------------------------------------ API
function makeApi(M) {
  VARIANTS = M.variantNames();
  const ERROR_CODES = Object.freeze(M.errorCodes());
  // The bindings return a JS Error instead of throwing it (see engine/bindings/adapter.cpp).
  const call = (fn, ...args) => {
    const result = M[fn](...args);
    if (result instanceof Error) throw result;
    return result;
  };

  // An object the engine keeps (stored keys and values, a KV cache) behind a JS handle.
  // free() frees it now, once; alive(name) refuses every use after that; a handle dropped
  // without free() is freed once it is garbage-collected (a safety net, at the runtime's pace).
  const registries = new Map();
  const engineObject = (freeFn, id, gone) => {
    if (!registries.has(freeFn)) registries.set(freeFn, new FinalizationRegistry((x) => { M[freeFn](x); }));
    const registry = registries.get(freeFn);
    let freed = false, token = null;
    return {
      alive(name) { if (freed) fail('BadArgument', `${name}: ${gone}`); },
      free() {
        if (freed) return;
        freed = true;
        if (token) registry.unregister(token);
        call(freeFn, id);
      },
      track(handle) { token = handle; registry.register(handle, id, handle); return handle; },
    };
  };

  // The handle of the character model `id` (api.charModel; loadCharModel later).
  // vocabulary: the code points of its characters (from a checkpoint), or null (save's default 0..V-1).
  const wrapCharModel = (id, config, training, vocabulary = null) => {
    const model = engineObject('deleteCharModel', id, 'this character model was deleted');
    const alive = (name) => model.alive(name);
    const parameterCount = call('charModelInfo', id).parameterCount;
    let lastGradNorm = 0;
    const handle = {
      config: Object.freeze({ ...config, training: Object.freeze({ ...training }) }),
      parameterCount,
      /** Updates done so far. */
      get step() { alive('step'); return call('charModelInfo', id).step; },
      /** Global gradient norm before clipping, at the last trainStep (0 before the first). */
      get lastGradNorm() { return lastGradNorm; },
      /**
       * One step (forward, backward, clipping, AdamW) on `batch` sequences of
       * inputs.length / batch characters; targets[i] follows inputs[i]. Returns the
       * mean cross-entropy before the update (nats per character).
       */
      trainStep(inputs, targets, batch) {
        const name = 'trainStep';
        alive(name);
        const r = call('charModelTrainStep', id, ...batchArgs(name, inputs, targets, batch));
        lastGradNorm = r.gradNorm;
        return r.loss;
      },
      /** The same mean loss, without updating anything. */
      evaluate(inputs, targets, batch) {
        const name = 'evaluate';
        alive(name);
        return call('charModelLoss', id, ...batchArgs(name, inputs, targets, batch));
      },
      /**
       * One text of 1..context characters: {probs: (T, V) next-character
       * probabilities after each position, attention: [layer][head] (T, T) causal weights}.
       */
      forward(text) {
        const name = 'forward';
        alive(name);
        return call('charModelForward', id, readArgs(name, () => tokens(name, 'tokens', text)));
      },
      /**
       * Runs `steps` training steps, yielding to the event loop between two, so an
       * abort of `signal` stops it before the next step. next(i) returns the batch
       * {inputs, targets, batch}; onStep({index, step, loss, gradNorm}) after each.
       * Resolves {losses, aborted}.
       */
      async train(t) {
        const name = 'train';
        alive(name);
        const o = readArgs(name, () => {
          const x = options(name, t, ['steps', 'next', 'signal', 'onStep']);
          const steps = count(name, 'steps', x.steps, { min: 0 });
          if (typeof x.next !== 'function') fail('BadArgument', `${name}: next must be a function returning {inputs, targets, batch}, got ${typeName(x.next)}`);
          if (x.onStep !== undefined && typeof x.onStep !== 'function') fail('BadArgument', `${name}: onStep must be a function, got ${typeName(x.onStep)}`);
          const signal = x.signal;
          if (signal !== undefined && (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean'))
            fail('BadArgument', `${name}: signal must be an AbortSignal, got ${typeName(signal)}`);
          return { steps, next: x.next, signal, onStep: x.onStep };
        });
        const losses = [];
        for (let i = 0; i < o.steps; i++) {
          if (o.signal?.aborted) return { losses, aborted: true };
          const b = o.next(i);
          if (!isObject(b)) fail('BadArgument', `${name}: next(${i}) must return {inputs, targets, batch}, got ${typeName(b)}`);
          const loss = handle.trainStep(b.inputs, b.targets, b.batch);
          losses.push(loss);
          if (o.onStep) o.onStep({ index: i, step: handle.step, loss, gradNorm: lastGradNorm });
          await nextTurn();
        }
        return { losses, aborted: false };
      },
      /**
       * `length` new characters after `prompt` (ids; may be empty) drawn from softmax(logits /
       * temperature) over the topK most likely (0 = all), with the decode path's KV caches;
       * the same seed gives the same text. Returns a Uint32Array of the new characters only.
       */
      sample(prompt, length, opts) {
        const name = 'sample';
        alive(name);
        const a = readArgs(name, () => {
          const p = prompt === undefined || (Array.isArray(prompt) && prompt.length === 0)
            ? new Uint32Array(0) : tokens(name, 'prompt', prompt);
          const n = count(name, 'count', length, { min: 0 });
          const o = options(name, opts, ['temperature', 'topK', 'seed']);
          return [p, n, {
            temperature: real(name, 'temperature', o.temperature, 1, { positive: true }),
            topK: o.topK === undefined ? 0 : count(name, 'topK', o.topK, { min: 0 }),
            seed: o.seed === undefined ? 1 : count(name, 'seed', o.seed, { min: 0 }),
          }];
        });
        return call('charModelSample', id, ...a);
      },
      /**
       * One character at a time through the model's KV caches: {feed(token) → Float32Array
       * of next-character probabilities, length, cacheBytes, cacheCapacityBytes, delete()}.
       * Deleting the model deletes its decoders.
       */
      decoder() {
        alive('decoder');
        const did = call('createCharDecoder', id);
        const dec = engineObject('deleteCharDecoder', did, 'this decoder was deleted (or its model was)');
        const live = (name) => { alive(name); dec.alive(name); };
        return dec.track(Object.freeze({
          feed(token) {
            const name = 'feed';
            live(name);
            if (typeof token !== 'number' || !Number.isInteger(token) || token < 0 || token >= 2 ** 32)
              fail('BadArgument', `${name}: token must be a character id (a whole number from 0), got ${typeName(token)}`);
            return call('charDecoderFeed', did, token);
          },
          get length() { live('length'); return call('charDecoderInfo', did).length; },
          get cacheBytes() { live('cacheBytes'); return call('charDecoderInfo', did).cacheBytes; },
          get cacheCapacityBytes() { live('cacheCapacityBytes'); return call('charDecoderInfo', did).cacheCapacityBytes; },
          delete() { dec.free(); },
        }));
      },
      /**
       * A checkpoint (engine/README.md, "Checkpoints") as a Uint8Array: {format = 'f16' | 'f32' | 'int8'
       * (per-row scales), optimizer = false (AdamW's state too, to resume training exactly),
       * vocabulary = the loaded one, else 0..vocab-1: the code point of each character id}.
       */
      save(opts) {
        const name = 'save';
        alive(name);
        const a = readArgs(name, () => {
          const o = options(name, opts, ['format', 'optimizer', 'vocabulary']);
          const format = o.format ?? 'f16';
          if (!CHECKPOINT_FORMATS.includes(format))
            fail('BadArgument', `${name}: unknown format ${typeof format === 'string' ? `'${format}'` : typeName(format)}; use 'f16', 'f32' or 'int8'`);
          const vocab = o.vocabulary === undefined
            ? (vocabulary ?? Uint32Array.from({ length: config.vocab }, (_, i) => i))
            : tokens(name, 'vocabulary', o.vocabulary);
          return [vocab, format, boolean(name, 'optimizer', o.optimizer, false)];
        });
        return call('charModelSave', id, ...a);
      },
      /** The weights, a Float32Array copy (layout of attn::CharModel::parameters). */
      parameters() {
        alive('parameters');
        return call('charModelParameters', id);
      },
      delete() { model.free(); },
    };
    return model.track(Object.freeze(handle));
  };

  const api = Object.freeze({
    attention(args) {
      const fn = 'attention';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['q', 'k', 'v', ...ATTENTION_OPTIONS]);
        const { q, k, v } = qkv(fn, o);
        return [q, k, v, attentionOptions(fn, o, q.rows, k.rows)];
      });
      return call('attention', ...a);
    },

    /**
     * Keys and values copied into the engine once and checked once, for many
     * attention calls on slices of the queries (the worker pool: one copy of
     * K and V per worker per job, not per task). Returns
     * {rows, attention({q, ...options}), release()}; options as attention's.
     * Call release() when done; a handle that is dropped without it is freed
     * after garbage collection (FinalizationRegistry), at the runtime's pace.
     */
    keyValues(args) {
      const fn = 'keyValues';
      const { k, v } = readArgs(fn, () => {
        const o = options(fn, args, ['k', 'v']);
        return { k: matrix(fn, 'k', o.k), v: matrix(fn, 'v', o.v) };
      });
      const id = call('storeKeyValues', k, v);
      const S = k.rows, dk = k.cols;  // not k itself: the handle must not keep the caller's buffer alive
      const stored = engineObject('releaseKeyValues', id, 'these keys and values were released');
      return stored.track(Object.freeze({
        rows: S,
        attention(a) {
          const fn = 'attention';
          stored.alive(fn);
          const [q, o] = readArgs(fn, () => {
            const opts = options(fn, a, ['q', ...ATTENTION_OPTIONS]);
            const qm = matrix(fn, 'q', opts.q);
            if (qm.cols !== dk)
              fail('ShapeMismatch', `${fn}: q has ${qm.cols} columns but k has ${dk}; both must be d_k`);
            return [qm, attentionOptions(fn, opts, qm.rows, S)];
          });
          return call('attentionStored', id, q, o);
        },
        release() { stored.free(); },
      }));
    },

    /**
     * Attention for H_q query heads sharing H_kv key/value heads (multi-head
     * when equal, multi-query when H_kv = 1): q (H_q·L, d_k), k (H_kv·S, d_k),
     * v (H_kv·S, d_v), head-major; query head h uses key/value head
     * h / (H_q/H_kv). Options as attention's (a mask is one L×S for all heads).
     * Returns {out: (H_q·L, d_v), weights?: H_q matrices (L, S), scores?,
     * scratchBytes, kernelCalls (one per key/value group; one per query head
     * with a mask), maskedRows: one array of row numbers per query head}.
     */
    multiheadAttention(args) {
      const fn = 'multiheadAttention';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['q', 'k', 'v', 'headsQ', 'headsKv', ...ATTENTION_OPTIONS]);
        const { q, k, v } = qkv(fn, o);
        const { hq, hkv } = headCounts(fn, o.headsQ, o.headsKv);
        const L = perHead(fn, 'q', q, hq, 'query heads');
        const S = perHead(fn, 'k', k, hkv, 'key/value heads');
        return [q, k, v, hq, hkv, attentionOptions(fn, o, L, S)];
      });
      return call('multiheadAttention', ...a);
    },

    /**
     * K/V bytes one decode step reads for S cached rows: each key/value head's
     * rows once for all its query heads, H_kv·S·(dk + dv)·4 (so H_q/H_kv = 4
     * reads 4x less than multi-head with the same H_q).
     */
    kvBytesRead(args) {
      const fn = 'kvBytesRead';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['headsQ', 'headsKv', 'S', 'dk', 'dv']);
        const { hq, hkv } = headCounts(fn, o.headsQ, o.headsKv);
        return [hq, hkv, count(fn, 'S', o.S), count(fn, 'dk', o.dk), count(fn, 'dv', o.dv)];
      });
      return call('kvBytesRead', ...a);
    },

    /**
     * A key/value cache for generation, kept in the engine: headsKv heads of
     * dk-wide keys and dv-wide values; window = w > 0 keeps only the last w
     * rows per head. It grows within the memory budget ('TooLarge' past it).
     * Returns {headsKv, dk, dv, window, prefill({k, v, q?, headsQ?, scale,
     * variant, blockQ, blockK}), decode({q, k, v, scale, variant}), length(),
     * bytes(), delete()}; see engine/README.md. Call delete() when done; a
     * handle dropped without it is freed after garbage collection.
     */
    kvCache(args) {
      const fn = 'kvCache';
      const a = readArgs(fn, () => {
        const o = options(fn, args, KV_CACHE_OPTIONS);
        return [count(fn, 'headsKv', o.headsKv), count(fn, 'dk', o.dk), count(fn, 'dv', o.dv),
          o.window === undefined ? 0 : count(fn, 'window', o.window, { min: 0 })];
      });
      const [headsKv, dk, dv, window] = a;
      const id = call('createKvCache', ...a);
      const cache = engineObject('deleteKvCache', id, 'this key/value cache was deleted');
      const alive = (name) => cache.alive(name);
      // the shapes of k, v and q against the cache are the engine's checks (KvCache)
      return cache.track(Object.freeze({
        headsKv, dk, dv, window,
        /** Appends a prompt's rows; with q (H_q·n, dk) also returns its causal multi-head attention (empty cache only). */
        prefill(p) {
          const name = 'prefill';
          alive(name);
          const b = readArgs(name, () => {
            const o = options(name, p, ['k', 'v', 'q', 'headsQ', ...PREFILL_OPTIONS]);
            const k = matrix(name, 'k', o.k), v = matrix(name, 'v', o.v);
            if (o.q === undefined) {
              for (const key of ['headsQ', ...PREFILL_OPTIONS])
                if (o[key] !== undefined) fail('BadArgument', `${name}: ${key} is for the prompt's attention, which needs q`);
              return [k, v, undefined, 0, undefined];
            }
            const q = matrix(name, 'q', o.q);
            const hq = count(name, 'headsQ', o.headsQ ?? headsKv);  // default: one query head per key/value head
            return [k, v, q, hq, attentionOptions(name, o, 0, 0)];
          });
          return call('kvCachePrefill', id, ...b);
        },
        /** One step: appends k (headsKv, dk), v (headsKv, dv), attends q (H_q, dk) to every cached row; {out: (H_q, dv), scratchBytes}. */
        decode(d) {
          const name = 'decode';
          alive(name);
          const b = readArgs(name, () => {
            const o = options(name, d, ['q', 'k', 'v', ...DECODE_OPTIONS]);
            const q = matrix(name, 'q', o.q), k = matrix(name, 'k', o.k), v = matrix(name, 'v', o.v);
            return [q, k, v, attentionOptions(name, o, 0, 0)];
          });
          return call('kvCacheDecode', id, ...b);
        },
        /** Rows held per head now: min(rows appended, window). */
        length() {
          alive('length');
          return call('kvCacheInfo', id).length;
        },
        /** Bytes of K and V storage the cache has reserved. */
        bytes() {
          alive('bytes');
          return call('kvCacheInfo', id).bytes;
        },
        delete() { cache.free(); },
      }));
    },

    /**
     * Generation with a KV cache, in one call (a cache handle cannot cross a
     * Worker): Q, K, V of prompt + steps tokens drawn by randomNormal (seeds
     * seed, seed + 1, seed + 2; head-major, N = prompt + steps rows per head),
     * a kvCache({headsKv, dk, dv, window}) prefilled with the prompt, then one
     * decode step per generated token. Each entry of `trace` (the prefill, then
     * every step) is compared with the same rows of one full causal
     * multiheadAttention over all N tokens (same window), whose weights are
     * returned too. Returns {prompt, steps, headsQ, headsKv, dk, dv, window, q, k, v,
     * weights: H_q matrices (N, N), trace: [{kind: 'prefill'|'decode', first, rows,
     * length, bytes, out: (H_q·rows, dv), maxAbsDiff}], maxAbsDiff}.
     * Small shapes only: N <= 1024 and H_q·N² <= 2^22 ('TooLarge' past them).
     */
    generationTrace(args) {
      const fn = 'generationTrace';
      const p = readArgs(fn, () => {
        const o = options(fn, args, ['prompt', 'steps', 'headsQ', 'headsKv', 'dk', 'dv', 'seed', 'window']);
        const prompt = count(fn, 'prompt', o.prompt);
        const steps = count(fn, 'steps', o.steps, { min: 0 });
        const { hq, hkv } = headCounts(fn, o.headsQ, o.headsKv);
        const dk = count(fn, 'dk', o.dk), dv = count(fn, 'dv', o.dv);
        const seed = o.seed === undefined ? 1 : count(fn, 'seed', o.seed, { min: 0 });
        if (seed > 2 ** 32 - 3) fail('BadArgument', `${fn}: seed is ${seed}; it must be at most ${2 ** 32 - 3} (three seeds from it)`);
        const window = offOrCount(fn, 'window', o.window);
        const N = prompt + steps;
        if (N > 1024 || hq * N * N > 2 ** 22)
          fail('TooLarge', `${fn}: ${N} tokens and ${hq} query heads; a trace holds at most 1024 tokens and H_q·N² <= ${2 ** 22} weights`);
        return { prompt, steps, hq, hkv, dk, dv, seed, window, N };
      });
      const { prompt, steps, hq, hkv, dk, dv, seed, window, N } = p;
      const q = api.randomNormal({ seed, rows: hq * N, cols: dk });
      const k = api.randomNormal({ seed: seed + 1, rows: hkv * N, cols: dk });
      const v = api.randomNormal({ seed: seed + 2, rows: hkv * N, cols: dv });
      // rows [a, b) of every head of a head-major matrix with N rows per head
      const rows = (m, heads, a, b) => {
        const data = new Float32Array(heads * (b - a) * m.cols);
        for (let h = 0; h < heads; h++)
          data.set(m.data.subarray((h * N + a) * m.cols, (h * N + b) * m.cols), h * (b - a) * m.cols);
        return { rows: heads * (b - a), cols: m.cols, data };
      };
      const full = api.multiheadAttention({ q, k, v, headsQ: hq, headsKv: hkv, causal: true, window, returnWeights: true });
      const diff = (out, a, b) => {  // max |out − rows [a, b) of full.out| over every query head
        const want = rows(full.out, hq, a, b).data;
        let m = 0;
        for (let i = 0; i < want.length; i++) m = Math.max(m, Math.abs(out.data[i] - want[i]));
        return m;
      };
      const cache = api.kvCache({ headsKv: hkv, dk, dv, window });
      try {
        const trace = [];
        const pre = cache.prefill({ q: rows(q, hq, 0, prompt), k: rows(k, hkv, 0, prompt), v: rows(v, hkv, 0, prompt), headsQ: hq });
        trace.push({ kind: 'prefill', first: 0, rows: prompt, length: cache.length(), bytes: cache.bytes(), out: pre.out, maxAbsDiff: diff(pre.out, 0, prompt) });
        for (let t = prompt; t < N; t++) {
          const d = cache.decode({ q: rows(q, hq, t, t + 1), k: rows(k, hkv, t, t + 1), v: rows(v, hkv, t, t + 1) });
          trace.push({ kind: 'decode', first: t, rows: 1, length: cache.length(), bytes: cache.bytes(), out: d.out, maxAbsDiff: diff(d.out, t, t + 1) });
        }
        return { prompt, steps, headsQ: hq, headsKv: hkv, dk, dv, window, q, k, v, weights: full.weights, trace,
          maxAbsDiff: trace.reduce((m, s) => Math.max(m, s.maxAbsDiff), 0) };
      } finally {
        cache.delete();
      }
    },

    /**
     * A tiny decoder-only character model (attn::CharModel) kept in the engine:
     * {vocab (required), context = 64, width = 64, layers = 2, heads = 4, kvHeads = heads,
     * seed = 1, training: {lrMax, lrMin, warmup, totalSteps, clipNorm, weightDecay}}.
     * Returns a handle; see engine/README.md. Call delete() when done (a dropped
     * handle is freed after garbage collection).
     */
    charModel(args) {
      const fn = 'charModel';
      const [config, training] = readArgs(fn, () => {
        const o = options(fn, args, CHAR_MODEL_OPTIONS);
        return [charModelConfig(fn, o), trainingConfig(fn, o.training)];
      });
      const id = call('createCharModel', config, training);
      return wrapCharModel(id, config, training);
    },

    /**
     * A model from a checkpoint (a Uint8Array from save()): {model (a charModel handle, at the
     * saved step when the optimizer's state was saved), vocabulary (code points, an array),
     * format, optimizer}. A truncated, corrupted, foreign or newer file is refused with a typed
     * code and nothing is built.
     */
    loadCharModel(bytes) {
      const fn = 'loadCharModel';
      const data = readArgs(fn, () => {
        if (kindOf(bytes) !== 'Uint8Array') fail('BadArgument', `${fn}: bytes must be a Uint8Array, got ${typeName(bytes)}`);
        if (lengthOf(bytes) === 0) fail('ZeroDimension', `${fn}: bytes is empty`);
        return viewOf(Uint8Array, bytes, 'bytes');
      });
      const r = call('loadCharModel', data);
      const model = wrapCharModel(r.id, r.config, r.training, r.vocabulary);
      return { model, vocabulary: Array.from(r.vocabulary), format: r.format, optimizer: r.optimizer };
    },

    /** Number of weights of a configuration (same checks as charModel, nothing allocated). */
    charModelParameterCount(args) {
      const fn = 'charModelParameterCount';
      const config = readArgs(fn, () => charModelConfig(fn, options(fn, args, CHAR_MODEL_OPTIONS.filter((k) => k !== 'training'))));
      return call('charModelParameterCount', config);
    },

    /** Character models created and not yet deleted (freed). */
    charModelsLive() {
      return call('charModelsLive');
    },

    rowStats(weights) {
      return call('rowStats', readArgs('rowStats', () => matrix('rowStats', 'weights', weights)));
    },

    experiment(args) {
      const fn = 'experiment';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['n', 'dk', 'seeds', 'scale']);
        const n = count(fn, 'n', o.n);
        const dk = count(fn, 'dk', o.dk);
        const seeds = o.seeds;
        if (!Array.isArray(seeds))
          fail('BadArgument', `${fn}: seeds must be a non-empty array of whole numbers, got ${typeName(seeds)}`);
        const length = seeds.length;
        if (length === 0) fail('BadArgument', `${fn}: seeds must be a non-empty array of whole numbers, got an empty Array`);
        if (length > 2 ** 20) fail('TooLarge', `${fn}: ${length} seeds; at most ${2 ** 20} per call`);
        const list = [];
        for (let i = 0; i < length; i++) list.push(count(fn, `seeds[${i}]`, seeds[i], { min: 0 }));
        return [n, dk, list, boolean(fn, 'scale', o.scale)];
      });
      return call('experiment', ...a);
    },

    scoreMatrixBytes(args) {
      const fn = 'scoreMatrixBytes';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['n', 'bytesPerElement', 'heads', 'layers', 'batch']);
        const { n, bytesPerElement, heads = 1, layers = 1, batch = 1 } = o;
        const whole = (name, x) => count(fn, name, x, { dimension: false });
        return [whole('n', n), whole('bytesPerElement', bytesPerElement), whole('heads', heads),
          whole('layers', layers), whole('batch', batch)];
      });
      return call('scoreMatrixBytes', ...a);
    },

    /**
     * Number of (query, key) pairs the rule {causal, window, rowOffset,
     * queryPeriod} lets L queries see among S keys (attention's work is
     * proportional to it); exact, without building anything.
     */
    visiblePairs(args) {
      const fn = 'visiblePairs';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['L', 'S', 'causal', 'window', 'rowOffset', 'queryPeriod']);
        return [count(fn, 'L', o.L), count(fn, 'S', o.S), {
          causal: boolean(fn, 'causal', o.causal, false),
          window: offOrCount(fn, 'window', o.window),
          rowOffset: offOrCount(fn, 'rowOffset', o.rowOffset),
          queryPeriod: offOrCount(fn, 'queryPeriod', o.queryPeriod),
        }];
      });
      return call('visiblePairs', ...a);
    },

    /**
     * Every `error.code` this module can throw: the engine's ErrorCode names
     * (attn::error_code_name, the same list engine.mjs's own checks use) and
     * 'Internal' (an engine defect). The pages translate each (err.engine.<code>).
     */
    /** The attention variants' names, from the engine's own table ('reference' first): the one
     *  list the tests sweep, so a new variant is tested everywhere without editing them. */
    variants() {
      return [...VARIANTS];
    },

    errorCodes() {
      return [...ERROR_CODES];
    },

    /** {simd, version, heapBytes}: heapBytes is the current (= peak) wasm heap size. */
    info() {
      return call('info');
    },

    softmaxRow(args) {
      const fn = 'softmaxRow';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['logits', 'subtractMax']);
        return [vector(fn, 'logits', o.logits), boolean(fn, 'subtractMax', o.subtractMax, true)];
      });
      return call('softmaxRow', ...a);
    },

    onlineSoftmaxTrace(args) {
      const fn = 'onlineSoftmaxTrace';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['q', 'k', 'v', 'row', 'blockK', 'causal', 'scale', 'window']);
        const { q, k, v } = qkv(fn, o);
        const row = count(fn, 'row', o.row, { min: 0 });
        const blockK = count(fn, 'blockK', o.blockK, { dimension: false });
        return [q, k, v, row, blockK, boolean(fn, 'causal', o.causal, false), scaleOption(fn, o.scale),
          offOrCount(fn, 'window', o.window)];
      });
      return call('onlineSoftmaxTrace', ...a);
    },

    logitStats(args) {
      const fn = 'logitStats';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['q', 'k', 'scale']);
        return [matrix(fn, 'q', o.q), matrix(fn, 'k', o.k), scaleOption(fn, o.scale)];
      });
      return call('logitStats', ...a);
    },

    jacobianNorm(p) {
      return call('jacobianNorm', readArgs('jacobianNorm', () => vector('jacobianNorm', 'p', p)));
    },

    randomNormal(args) {
      const fn = 'randomNormal';
      const a = readArgs(fn, () => {
        const o = options(fn, args, ['seed', 'rows', 'cols']);
        return [count(fn, 'seed', o.seed, { min: 0 }), count(fn, 'rows', o.rows), count(fn, 'cols', o.cols)];
      });
      return call('randomNormal', ...a);
    },

    memoryBudget() {
      return call('memoryBudget');
    },

    setMemoryBudget(bytes) {
      call('setMemoryBudget', readArgs('setMemoryBudget', () => count('setMemoryBudget', 'bytes', bytes, { min: 0 })));
    },
  });
  return api;
}
