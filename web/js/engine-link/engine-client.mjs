// The page's engine: engine.mjs's methods, each run in a module Worker
// (engine-worker.mjs) through the transport (transport.mjs).
//
// Usage:
//   import { createEngineClient } from '../engine-link/engine-client.mjs';   (from pages/)
//   const engine = createEngineClient();
//   await engine.ready;                       // rejects with err.code 'EngineLoad' if the wasm cannot load
//   const r = await engine.attention({ q, k, v, causal: true, returnWeights: true });
//   //   r.out, r.weights, r.scores are {rows, cols, data: Float32Array}
//   try { await engine.attention({ q, k, v, variant: 'materialized' }); }
//   catch (e) { if (e.code === 'TooLarge') … }   // codes: ShapeMismatch ZeroDimension NonFinite TooLarge
//                                              //        BadArgument EngineLoad EngineCrashed
//
// Every method of engine.mjs is a method here under the same name, returning a Promise
// (`engine.call(name, ...args)` is the same thing): there is no list of names to keep in
// step with engine.mjs, and the arguments reach engine.mjs as they were given (structured
// clone, so the caller keeps its arrays; results are transferred), where they are checked.
// A name engine.mjs does not have rejects with 'BadArgument'.
// Calls run one after another in the worker, in the order they were made.
//
// A crashed or stuck worker (killed, out of memory, a WebAssembly trap or abort, an uncaught
// error, a reply that cannot be read, or no word from it for `stallMs`, default 90 s, while a
// call waits) is replaced: every waiting call rejects with code 'EngineCrashed', a fresh worker
// starts (engine.ready is its readiness) and onStatus listeners get ('crash', err). Later calls
// work as before; the page keeps the learner's inputs (they live in the page and the URL).
// engine.stallMs can be changed at run time; engine.worker is the current Worker and
// engine.waiting the number of calls not answered yet (tests).
//
// A long call that reports progress or can be stopped (the worker's charModelTrain):
//   await engine.request('charModelTrain', [args], { signal, onProgress });
//   signal (an AbortSignal) aborts the handler's own signal in the worker (a training run stops
//   between two steps and answers with what it did); onProgress(p) gets each progress message.
// Each createEngineClient() is a worker of its own: a second client (the training chapter's)
// never holds back the calls of the first.

import { connectWorker } from './transport.mjs';

// Names the client never forwards: a Promise looks for `then` (an await on the client
// must not become a call), JSON.stringify for `toJSON`.
const NOT_METHODS = new Set(['then', 'toJSON']);

export function createEngineClient({ workerUrl = new URL('./engine-worker.mjs', import.meta.url), stallMs } = {}) {
  const link = connectWorker({ workerUrl, stallMs });
  const call = (method, ...args) => link.request(method, args);
  const request = (method, args = [], { signal = null, onProgress = null } = {}) =>
    link.request(method, args, { signal, onProgress });
  const client = {
    get ready() { return link.ready; },
    call,
    request,
    /** Stop the worker for good (a section's own client, when it is no longer needed). */
    terminate: () => link.terminate(),
    /** Subscribe to 'ready' | 'error' | 'restart' | 'crash'; returns an unsubscribe function. */
    onStatus: (fn) => link.onStatus(fn),
    /** How long a waiting call may go without any word from the worker before it counts as stuck. */
    get stallMs() { return link.stallMs; },
    set stallMs(ms) { link.stallMs = ms; },
    /** How many calls the worker has not answered yet (tests wait on it, not on time). */
    get waiting() { return link.waiting; },
    /** The current Worker (tests terminate it to check the recovery). */
    get worker() { return link.worker; },
  };
  const methods = new Map();   // one function per name, so engine.attention === engine.attention
  return new Proxy(client, {
    get(target, key, receiver) {
      if (typeof key === 'symbol' || key in target || NOT_METHODS.has(key)) return Reflect.get(target, key, receiver);
      if (!methods.has(key)) methods.set(key, (...args) => call(key, ...args));
      return methods.get(key);
    },
  });
}
