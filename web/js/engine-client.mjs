// Main-thread client for the engine Worker (engine-worker.mjs).
//
// Usage:
//   import { createEngineClient } from '../engine-client.mjs';
//   const engine = createEngineClient();
//   await engine.ready;                       // rejects with err.code 'EngineLoad' if the wasm cannot load
//   const r = await engine.attention({ q, k, v, causal: true, returnWeights: true });
//   //   r.out, r.weights, r.scores are {rows, cols, data: Float32Array}
//   try { await engine.attention({ q, k, v, variant: 'materialized' }); }
//   catch (e) { if (e.code === 'TooLarge') … }   // codes: ShapeMismatch ZeroDimension NonFinite TooLarge
//                                              //        BadArgument EngineLoad Cancelled
//   const job = engine.runChunkedAtScale({ n: 65536, d: 64, causal: true, blockQ: 64, blockK: 64, seed: 1 },
//                                        ({ done, total }) => bar.value = done / total);
//   const summary = await job;                // {n, d, ms, scratchBytes, checksum, firstRow, inputBytes}
//   engine.cancel();                          // terminates the worker (pending calls reject 'Cancelled'),
//                                             // then starts a fresh one; later calls work as before
//
// Every method of engine.mjs is available under the same name and returns a
// Promise: attention rowStats experiment scoreMatrixBytes info softmaxRow
// onlineSoftmaxTrace logitStats jacobianNorm randomNormal memoryBudget setMemoryBudget.
// `engine.call(name, ...args)` reaches any other export; `engine.send(name, arg, {transfer, onProgress})`
// posts one argument with a transfer list (the pool protocol of engine-worker.mjs). Arguments are copied
// (structured clone) so the caller keeps its arrays; results are transferred.
// Calls run one after another in the worker, in the order they were made.
//
// A crashed or stuck worker (killed, out of memory, a WebAssembly trap or abort, an uncaught
// error, a reply that cannot be read, or no word from it for `stallMs`, default 90 s, while a
// call waits; progress messages count as word) is noticed: every waiting call rejects with
// code 'EngineCrashed', the worker is replaced by a fresh one (engine.ready is its readiness)
// and onStatus listeners get ('crash', err). Later calls work as before; the page keeps the
// learner's inputs (they live in the page and the URL, never in the worker).
// engine.stallMs can be changed at run time; engine.worker is the current Worker (tests).

const STALL_MS = 90000;

const METHODS = [
  'attention', 'rowStats', 'experiment', 'scoreMatrixBytes', 'info', 'softmaxRow',
  'onlineSoftmaxTrace', 'logitStats', 'jacobianNorm', 'randomNormal', 'memoryBudget',
  'setMemoryBudget',
];

function makeError(e) {
  const err = new Error(e && e.message ? e.message : String(e));
  err.code = (e && e.code) || 'Unknown';
  if (e && e.name) err.engineName = e.name;
  return err;
}

export function createEngineClient(options = {}) {
  const workerUrl = options.workerUrl || new URL('./engine-worker.mjs', import.meta.url);
  let worker = null;
  let nextId = 1;
  let pending = new Map();          // id → {resolve, reject, onProgress}
  let readyPromise = null;
  let engineInfo = null;
  const listeners = new Set();      // status listeners: ('ready'|'error'|'restart'|'crash', detail)
  let stallMs = options.stallMs || STALL_MS;
  let watchdog = null;              // timer while calls wait: fires when the worker stays silent

  function emit(kind, detail) {
    for (const fn of listeners) { try { fn(kind, detail); } catch { /* listener errors stay local */ } }
  }

  function spawn() {
    let settle;
    readyPromise = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    // A rejected ready promise with nobody awaiting it must not become an unhandled rejection.
    readyPromise.catch(() => {});
    let w;
    try {
      w = new Worker(workerUrl, { type: 'module' });
    } catch (e) {
      const err = makeError({ message: String(e && e.message || e), code: 'EngineLoad' });
      settle.reject(err);
      emit('error', err);
      return;
    }
    worker = w;
    let isReady = false;
    w.onmessage = (ev) => {
      if (w !== worker) return;   // a replaced worker's late message
      heard();
      const msg = ev.data || {};
      if (msg.id === undefined && 'ready' in msg) {
        if (msg.ready) {
          isReady = true;
          engineInfo = msg.info || null;
          settle.resolve(engineInfo);
          emit('ready', engineInfo);
        } else {
          const err = makeError({ ...(msg.error || {}), code: 'EngineLoad' });
          settle.reject(err);
          emit('error', err);
        }
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      if (msg.progress) {
        if (p.onProgress) { try { p.onProgress(msg.progress); } catch { /* ignore */ } }
        return;
      }
      pending.delete(msg.id);
      if (!pending.size) quiet();
      if (msg.error && msg.error.code === 'EngineCrashed') {
        // a trap or abort inside the engine: its memory can no longer be trusted
        p.reject(makeError(msg.error));
        crashed(msg.error.message);
      } else if (msg.error) p.reject(makeError(msg.error));
      else p.resolve(msg.result);
    };
    w.onerror = (ev) => {
      if (ev && ev.preventDefault) ev.preventDefault();
      if (w !== worker) return;
      if (!isReady) {
        // A module that fails to load (missing engine.mjs / attn.wasm, CSP) lands here.
        const err = makeError({ message: (ev && ev.message) || 'worker failed to start', code: 'EngineLoad' });
        settle.reject(err); emit('error', err);
        for (const [, p] of pending) p.reject(err);
        pending.clear();
        quiet();
        return;
      }
      // An uncaught error in the running worker (a fault in a module).
      crashed((ev && ev.message) || 'uncaught error in the engine worker');
    };
    // A reply that cannot be deserialized: its call would never settle.
    w.onmessageerror = () => { if (w === worker) crashed('a reply of the engine worker could not be read'); };
  }

  // The worker is gone or broken: reject what waits, start a fresh one, tell the page.
  function crashed(message) {
    quiet();
    if (worker) worker.terminate();
    const err = makeError({ message, code: 'EngineCrashed' });
    const old = pending;
    pending = new Map();
    for (const [, p] of old) p.reject(err);
    spawn();
    emit('crash', err);
  }

  // Watchdog: armed while calls wait, re-armed by every message from the worker.
  function heard() {
    clearTimeout(watchdog);
    watchdog = pending.size ? setTimeout(() => {
      if (pending.size) crashed(`the engine worker gave no answer for ${Math.round(stallMs / 1000)} s`);
    }, stallMs) : null;
  }
  function quiet() { clearTimeout(watchdog); watchdog = null; }
  function waitFor(id, entry) {
    const start = !pending.size;
    pending.set(id, entry);
    if (start) heard();
  }

  async function call(method, ...args) {
    await readyPromise;   // throws the EngineLoad error when the engine could not start
    const id = nextId++;
    const w = worker;
    return new Promise((resolve, reject) => {
      waitFor(id, { resolve, reject, onProgress: null });
      try {
        w.postMessage({ id, method, args });
      } catch (e) {
        pending.delete(id);
        reject(makeError({ message: String(e && e.message || e), code: 'BadArgument' }));
      }
    });
  }

  // One message with an explicit transfer list (the pool sends fresh row slices this way).
  async function send(method, arg, { transfer = [], onProgress = null } = {}) {
    await readyPromise;
    const id = nextId++;
    const w = worker;
    return new Promise((resolve, reject) => {
      waitFor(id, { resolve, reject, onProgress });
      try {
        w.postMessage({ id, method, args: [arg] }, transfer);
      } catch (e) {
        pending.delete(id);
        reject(makeError({ message: String(e && e.message || e), code: 'BadArgument' }));
      }
    });
  }

  function runChunkedAtScale(opts, onProgress) {
    const promise = (async () => {
      await readyPromise;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waitFor(id, { resolve, reject, onProgress });
        worker.postMessage({ id, method: 'runChunkedAtScale', args: [opts] });
      });
    })();
    return promise;
  }

  function cancel() {
    quiet();
    if (worker) worker.terminate();
    const err = makeError({ message: 'cancelled', code: 'Cancelled' });
    const old = pending;
    pending = new Map();
    for (const [, p] of old) p.reject(err);
    spawn();
    emit('restart', null);
  }

  spawn();

  const client = {
    get ready() { return readyPromise; },
    /** The info() the worker reported at start ({simd, version}) or null. */
    get loadedInfo() { return engineInfo; },
    call,
    send,
    runChunkedAtScale,
    cancel,
    /** Subscribe to 'ready' | 'error' | 'restart' | 'crash'; returns an unsubscribe function. */
    onStatus(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    terminate() { quiet(); if (worker) worker.terminate(); worker = null; },
    /** How long a waiting call may go without any word from the worker before it counts as stuck. */
    get stallMs() { return stallMs; },
    set stallMs(ms) { stallMs = Math.max(1, Number(ms) || STALL_MS); if (pending.size) heard(); },
    /** The current Worker (tests terminate it to check the recovery). */
    get worker() { return worker; },
  };
  for (const m of METHODS) client[m] = (...args) => call(m, ...args);
  return client;
}
