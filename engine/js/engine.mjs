// The one JavaScript module the project imports to use the attention engine
// (C++ compiled to WebAssembly, attn.mjs + attn.wasm next to this file).
// It validates every argument in JS, with an English message and an
// `error.code` ('ShapeMismatch' | 'ZeroDimension' | 'NonFinite' | 'TooLarge' |
// 'BadArgument'), calls the Embind functions and returns copies only.
// Matrices are {rows, cols, data: Float32Array}; masks {rows, cols, data: Uint8Array}.
// API contract: engine/README.md. Works in a page, a module Worker and Node 20.
import createAttnModule from './attn.mjs';

const VARIANTS = ['materialized', 'chunked', 'reference'];
const DEFAULT_BLOCK = 64;  // AttentionOptions::block_q / block_k

// ------------------------------------------------------------------ loading
let modulePromise = null;

// The smallest module that uses f32x4.relaxed_madd: (func (param v128 v128 v128)
// (result v128) local.get 0 local.get 1 local.get 2 f32x4.relaxed_madd).
const RELAXED_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123,
  3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);

/** 'relaxed' when this runtime has relaxed SIMD (attn-relaxed.wasm: fused multiply-adds), else 'simd128'. */
export function wasmVariant() {
  try { return WebAssembly.validate(RELAXED_PROBE) ? 'relaxed' : 'simd128'; } catch { return 'simd128'; }
}

async function instantiate() {
  const variant = wasmVariant();
  // both builds share attn.mjs (byte-identical glue, checked by the build); only the .wasm differs
  const wasmFile = variant === 'relaxed' ? 'attn-relaxed.wasm' : 'attn.wasm';
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
function fail(code, message) {
  const error = new Error(message);
  error.code = code;
  throw error;
}

function typeName(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an Array';
  if (ArrayBuffer.isView(x)) return `a ${x.constructor.name}`;
  return typeof x === 'object' ? 'an object' : `${typeof x} ${String(x)}`;
}

const tag = (x) => Object.prototype.toString.call(x);
const isF32 = (x) => tag(x) === '[object Float32Array]';
const isU8 = (x) => tag(x) === '[object Uint8Array]';

function options(fn, args, allowed) {
  if (args === undefined) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    fail('BadArgument', `${fn}: expected an options object, got ${typeName(args)}`);
  for (const key of Object.keys(args))
    if (!allowed.includes(key) && args[key] !== undefined)
      fail('BadArgument', `${fn}: unknown option '${key}'; expected ${allowed.join(', ')}`);
  return args;
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

function requireFinite(fn, name, data, cols) {
  if (isF32(data)) {
    // x·0 is 0 for every finite float and NaN for ±Infinity and NaN: one
    // multiply-add per entry and no branch (the per-entry test below cost
    // about 2% of a whole attention call at n = 2048)
    let probe = 0;
    for (let i = 0; i < data.length; i++) probe += data[i] * 0;
    if (probe === 0) return;
  }
  for (let i = 0; i < data.length; i++) {  // find the first bad entry (or a non-number) for the message
    const x = data[i];
    if (!Number.isFinite(x)) {
      if (typeof x !== 'number') fail('BadArgument', `${fn}: ${name}[${i}] must be a number, got ${typeName(x)}`);
      const where = cols ? `row ${Math.floor(i / cols)}, column ${i % cols}` : `index ${i}`;
      fail('NonFinite', `${fn}: ${name} has ${x} at ${where}; all entries must be finite`);
    }
  }
}

function matrix(fn, name, m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m) || ArrayBuffer.isView(m))
    fail('BadArgument', `${fn}: ${name} must be a matrix {rows, cols, data: Float32Array}, got ${typeName(m)}`);
  const rows = count(fn, `${name}.rows`, m.rows, { min: 0 });
  const cols = count(fn, `${name}.cols`, m.cols, { min: 0 });
  if (rows === 0 || cols === 0)
    fail('ZeroDimension', `${fn}: ${name} is ${rows}x${cols}; every dimension must be at least 1`);
  if (!isF32(m.data))
    fail('BadArgument', `${fn}: ${name}.data must be a Float32Array, got ${typeName(m.data)}` +
      (Array.isArray(m.data) ? ' (wrap it: new Float32Array(array))' : ''));
  if (m.data.length !== rows * cols)
    fail('ShapeMismatch', `${fn}: ${name}.data has ${m.data.length} numbers but ${name} is ${rows}x${cols} (needs ${rows * cols})`);
  requireFinite(fn, name, m.data, cols);
  return m;
}

// number[] or Float32Array, at least one finite entry.
function vector(fn, name, x) {
  if (!isF32(x) && !Array.isArray(x))
    fail('BadArgument', `${fn}: ${name} must be a Float32Array or an array of numbers, got ${typeName(x)}`);
  if (x.length === 0) fail('ZeroDimension', `${fn}: ${name} is empty; it needs at least 1 entry`);
  requireFinite(fn, name, x, 0);
  return x;
}

// undefined: 1/sqrt(d_k); null: no scaling (1); else a finite number > 0.
function scaleOption(fn, scale) {
  if (scale === undefined) return undefined;
  if (scale === null) return 1;
  if (typeof scale !== 'number') fail('BadArgument', `${fn}: scale must be a number, null or omitted, got ${typeName(scale)}`);
  if (!Number.isFinite(scale)) fail('NonFinite', `${fn}: scale is ${scale}; it must be finite`);
  if (scale <= 0) fail('BadArgument', `${fn}: scale is ${scale}; it must be greater than 0`);
  return scale;
}

function sameWidth(fn, q, k) {
  if (q.cols !== k.cols)
    fail('ShapeMismatch', `${fn}: q is ${q.rows}x${q.cols} and k is ${k.rows}x${k.cols}; q and k need the same number of columns (d_k)`);
}

function qkv(fn, args) {
  const q = matrix(fn, 'q', args.q);
  const k = matrix(fn, 'k', args.k);
  const v = matrix(fn, 'v', args.v);
  sameWidth(fn, q, k);
  if (v.rows !== k.rows)
    fail('ShapeMismatch', `${fn}: k is ${k.rows}x${k.cols} and v is ${v.rows}x${v.cols}; k and v need the same number of rows (S)`);
  return { q, k, v };
}

function mask(fn, m, L, S) {
  if (m === null || typeof m !== 'object' || Array.isArray(m) || ArrayBuffer.isView(m))
    fail('BadArgument', `${fn}: mask must be {rows, cols, data: Uint8Array}, got ${typeName(m)}`);
  const rows = count(fn, 'mask.rows', m.rows, { min: 0 });
  const cols = count(fn, 'mask.cols', m.cols, { min: 0 });
  if (rows !== L || cols !== S)
    fail('ShapeMismatch', `${fn}: mask is ${rows}x${cols} but the scores are ${L}x${S} (q rows x k rows)`);
  if (!isU8(m.data)) fail('BadArgument', `${fn}: mask.data must be a Uint8Array, got ${typeName(m.data)}`);
  if (m.data.length !== L * S)
    fail('ShapeMismatch', `${fn}: mask.data has ${m.data.length} entries but the mask is ${L}x${S} (needs ${L * S})`);
  const bad = m.data.findIndex((x) => x > 1);
  if (bad >= 0)
    fail('BadArgument', `${fn}: mask has ${m.data[bad]} at row ${Math.floor(bad / S)}, column ${bad % S}; use 1 for visible and 0 for hidden`);
  return m;
}

const ATTENTION_OPTIONS = ['causal', 'scale', 'variant', 'blockQ', 'blockK', 'mask', 'returnWeights', 'rowOffset'];

// The checked, normalised options object the bindings expect (L query rows, S keys).
function attentionOptions(fn, args, L, S) {
  const variant = args.variant ?? 'materialized';
  if (!VARIANTS.includes(variant))
    fail('BadArgument', `${fn}: unknown variant '${variant}'; use 'materialized', 'chunked' or 'reference'`);
  const returnWeights = boolean(fn, 'returnWeights', args.returnWeights, false);
  if (returnWeights && variant === 'chunked')
    fail('BadArgument', `${fn}: returnWeights is not available with the 'chunked' variant (it never holds the ${L}x${S} weights); use 'materialized'`);
  return {
    causal: boolean(fn, 'causal', args.causal, false),
    scale: scaleOption(fn, args.scale),
    variant,
    blockQ: args.blockQ === undefined ? DEFAULT_BLOCK : count(fn, 'blockQ', args.blockQ, { dimension: false }),
    blockK: args.blockK === undefined ? DEFAULT_BLOCK : count(fn, 'blockK', args.blockK, { dimension: false }),
    mask: args.mask === undefined || args.mask === null ? null : mask(fn, args.mask, L, S),
    returnWeights,
    rowOffset: args.rowOffset === undefined ? 0 : count(fn, 'rowOffset', args.rowOffset, { min: 0 }),
  };
}

// ------------------------------------------------------------------ API
function makeApi(M) {
  // The bindings return a JS Error instead of throwing it (see engine/bindings/adapter.cpp).
  const call = (fn, ...args) => {
    const result = M[fn](...args);
    if (result instanceof Error) throw result;
    return result;
  };

  return Object.freeze({
    attention(args) {
      const fn = 'attention';
      args = options(fn, args, ['q', 'k', 'v', ...ATTENTION_OPTIONS]);
      const { q, k, v } = qkv(fn, args);
      return call('attention', q, k, v, attentionOptions(fn, args, q.rows, k.rows));
    },

    /**
     * Keys and values copied into the engine once and checked once, for many
     * attention calls on slices of the queries (the worker pool: one copy of
     * K and V per worker per job, not per task). Returns
     * {rows, attention({q, ...options}), release()}; options as attention's.
     */
    keyValues(args) {
      const fn = 'keyValues';
      args = options(fn, args, ['k', 'v']);
      const k = matrix(fn, 'k', args.k), v = matrix(fn, 'v', args.v);
      if (k.rows !== v.rows)
        fail('ShapeMismatch', `${fn}: k has ${k.rows} rows but v has ${v.rows}; both must be S, one per key`);
      const id = call('storeKeyValues', k, v);
      let released = false;
      return Object.freeze({
        rows: k.rows,
        attention(a) {
          const fn = 'attention';
          if (released) fail('BadArgument', `${fn}: these keys and values were released`);
          a = options(fn, a, ['q', ...ATTENTION_OPTIONS]);
          const q = matrix(fn, 'q', a.q);
          if (q.cols !== k.cols)
            fail('ShapeMismatch', `${fn}: q has ${q.cols} columns but k has ${k.cols}; both must be d_k`);
          return call('attentionStored', id, q, attentionOptions(fn, a, q.rows, k.rows));
        },
        release() {
          if (!released) call('releaseKeyValues', id);
          released = true;
        },
      });
    },

    rowStats(weights) {
      return call('rowStats', matrix('rowStats', 'weights', weights));
    },

    experiment(args) {
      const fn = 'experiment';
      args = options(fn, args, ['n', 'dk', 'seeds', 'scale']);
      const n = count(fn, 'n', args.n);
      const dk = count(fn, 'dk', args.dk);
      if (!Array.isArray(args.seeds) || args.seeds.length === 0)
        fail('BadArgument', `${fn}: seeds must be a non-empty array of whole numbers, got ${typeName(args.seeds)}`);
      args.seeds.forEach((s, i) => count(fn, `seeds[${i}]`, s, { min: 0 }));
      const scale = boolean(fn, 'scale', args.scale);
      return call('experiment', n, dk, args.seeds, scale);
    },

    scoreMatrixBytes(args) {
      const fn = 'scoreMatrixBytes';
      args = options(fn, args, ['n', 'bytesPerElement', 'heads', 'layers', 'batch']);
      const { n, bytesPerElement, heads = 1, layers = 1, batch = 1 } = args;
      const whole = (name, x) => count(fn, name, x, { dimension: false });
      return call('scoreMatrixBytes', whole('n', n), whole('bytesPerElement', bytesPerElement),
        whole('heads', heads), whole('layers', layers), whole('batch', batch));
    },

    /** {simd, version, heapBytes}: heapBytes is the current (= peak) wasm heap size. */
    info() {
      return call('info');
    },

    softmaxRow(args) {
      const fn = 'softmaxRow';
      args = options(fn, args, ['logits', 'subtractMax']);
      const logits = vector(fn, 'logits', args.logits);
      return call('softmaxRow', logits, boolean(fn, 'subtractMax', args.subtractMax, true));
    },

    onlineSoftmaxTrace(args) {
      const fn = 'onlineSoftmaxTrace';
      args = options(fn, args, ['q', 'k', 'v', 'row', 'blockK', 'causal', 'scale']);
      const { q, k, v } = qkv(fn, args);
      const row = count(fn, 'row', args.row, { min: 0 });
      if (row >= q.rows) fail('BadArgument', `${fn}: row is ${row} but q has only ${q.rows} rows`);
      const blockK = count(fn, 'blockK', args.blockK, { dimension: false });
      return call('onlineSoftmaxTrace', q, k, v, row, blockK,
        boolean(fn, 'causal', args.causal, false), scaleOption(fn, args.scale));
    },

    logitStats(args) {
      const fn = 'logitStats';
      args = options(fn, args, ['q', 'k', 'scale']);
      const q = matrix(fn, 'q', args.q);
      const k = matrix(fn, 'k', args.k);
      sameWidth(fn, q, k);
      return call('logitStats', q, k, scaleOption(fn, args.scale));
    },

    jacobianNorm(p) {
      return call('jacobianNorm', vector('jacobianNorm', 'p', p));
    },

    randomNormal(args) {
      const fn = 'randomNormal';
      args = options(fn, args, ['seed', 'rows', 'cols']);
      const seed = count(fn, 'seed', args.seed, { min: 0 });
      return call('randomNormal', seed, count(fn, 'rows', args.rows), count(fn, 'cols', args.cols));
    },

    memoryBudget() {
      return call('memoryBudget');
    },

    setMemoryBudget(bytes) {
      call('setMemoryBudget', count('setMemoryBudget', 'bytes', bytes, { min: 0 }));
    },
  });
}
