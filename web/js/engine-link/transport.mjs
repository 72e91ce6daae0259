// The one road between a page and an engine Worker: both ends of the message
// protocol, so that the client (engine-client.mjs), the pool (engine-pool.mjs)
// and the worker (engine-worker.mjs) never post or read a message themselves.
//
// Messages (structured clone; typed arrays in results are transferred):
//   worker → page, once at start:  {ready: true, info} | {ready: false, error}
//   page → worker:                 {id, method, args: [...], aborted?: true}   (args reach the handler as they
//                                  were sent; aborted: its signal had aborted before it was sent)
//   worker → page, any number:     {id, progress}              (a handler's progress(p); counts as word)
//   worker → page, last:           {id, result} | {id, error: {message, code}}
//   page → worker:                 {abort: id}  the request's signal aborted: its handler's ctx.signal aborts
//   page → worker, at start:       {alive: name}   hold the Web Lock `name` for as long as you live
//   worker → page:                 {alive: true}   held (the page then waits for that lock)
// An error keeps its `code` ('ShapeMismatch', 'TooLarge', … from engine.mjs); a WebAssembly trap or
// an Emscripten abort inside a call becomes 'EngineCrashed' (the engine's memory can no longer be
// trusted). Page-side codes: 'EngineLoad' (the worker did not start), 'EngineCrashed' (see below),
// 'Cancelled' (cancel()).
//
// Page side:
//   const link = connectWorker({ workerUrl, stallMs });
//   await link.ready;                                    // the worker's info, or rejects 'EngineLoad'
//   const r = await link.request('attention', [args], { transfer, onProgress, signal });
//        signal (an AbortSignal): aborting it aborts the handler's ctx.signal in the worker (a long
//        handler such as a training run stops between steps and answers); the request still settles
//        with what the handler returns. link.cancel() is the hard stop (a fresh worker).
//   link.cancel();       // terminate: waiting requests reject 'Cancelled'; a fresh worker starts
//   link.onStatus((kind, detail) => …);                  // 'ready' | 'error' | 'restart' | 'crash'
//   link.terminate();    // for good
// Requests run one after another in the worker, in the order they were made (a handler that
// returns a promise holds the next request back until it settles; only {abort} passes it). A crashed or stuck
// worker (killed, out of memory, a trap or abort, an uncaught error, a reply that cannot be read,
// or no word for `stallMs` while a request waits) is replaced: every waiting request rejects with
// 'EngineCrashed' and onStatus listeners get ('crash', err).
// A worker the system kills sends no event. So that the page hears of it at once and not only
// from the stall watchdog (90 s), each worker holds a Web Lock (navigator.locks) named for it for
// its whole life, and the page asks for the same lock: the browser grants it to the page the
// moment the worker's context is gone. This works while the worker is busy inside a long engine
// call (a ping it would have to answer could not tell a busy worker from a dead one). Without
// navigator.locks the stall watchdog is the only way to tell.
//
// Worker side:
//   serveWorker(self, async () => ({ target, handlers, info }));
//   //   a method is handlers[method](args, {progress, signal}) if there is one, else target[method](...args);
//   //   a handler may return a promise (its result is posted once it settles)

const STALL_MS = 90000;

/** An Error with an engine-style code. */
export function codedError(code, message) {
  return Object.assign(new Error(message), { code });
}

/** The error a cancelled request or pool call rejects with. */
export const cancelledError = () => codedError('Cancelled', 'cancelled');

// A reply's {message, code} (or anything thrown while posting) as an Error.
const replyError = (e, code) => codedError(code || (e && e.code) || 'Unknown', e && e.message ? e.message : String(e));

// ------------------------------------------------------------------ page side
let aliveSeq = 0;
const aliveName = () => `attn-engine-alive-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${++aliveSeq}`;

export function connectWorker({ workerUrl, stallMs = STALL_MS, locks = globalThis.navigator?.locks } = {}) {
  let worker = null;
  let nextId = 1;
  let pending = new Map();          // id → {resolve, reject, onProgress}
  let readyPromise = null;
  const listeners = new Set();
  let watchdog = null;              // armed while requests wait: fires when the worker stays silent

  function emit(kind, detail) {
    for (const fn of listeners) { try { fn(kind, detail); } catch { /* listener errors stay local */ } }
  }

  function spawn() {
    let settle;
    readyPromise = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    readyPromise.catch(() => {});   // a rejected readiness nobody awaits is not an unhandled rejection
    let w;
    try {
      w = new Worker(workerUrl, { type: 'module' });
    } catch (e) {
      const err = replyError({ message: String(e && e.message || e) }, 'EngineLoad');
      settle.reject(err);
      emit('error', err);
      return;
    }
    worker = w;
    let isReady = false;
    const name = aliveName();
    if (locks && typeof locks.request === 'function') {
      try { w.postMessage({ alive: name }); } catch { /* the watchdog stays the guard */ }
    }
    w.onmessage = (ev) => {
      if (w !== worker) return;   // a replaced worker's late message
      heard();
      const msg = ev.data || {};
      if (msg.id === undefined && msg.alive === true) {
        // granted only once the worker no longer holds it: the worker is gone
        const stop = new AbortController();
        stopWatching = () => stop.abort();
        Promise.resolve()
          .then(() => locks.request(name, { signal: stop.signal }, () => {
            if (w === worker) crashed('the engine worker stopped without a word');
          }))
          .catch(() => { /* aborted: this worker was replaced or terminated by the page */ });
        return;
      }
      if (msg.id === undefined && 'ready' in msg) {
        if (msg.ready) {
          isReady = true;
          settle.resolve(msg.info || null);
          emit('ready', msg.info || null);
        } else {
          const err = replyError(msg.error || {}, 'EngineLoad');
          settle.reject(err);
          emit('error', err);
        }
        return;
      }
      const p = pending.get(msg.id);
      if (!p) return;
      if ('progress' in msg) {
        if (p.onProgress) { try { p.onProgress(msg.progress); } catch { /* progress never breaks a call */ } }
        return;
      }
      pending.delete(msg.id);
      if (!pending.size) quiet();
      if (msg.error) {
        p.reject(replyError(msg.error));
        if (msg.error.code === 'EngineCrashed') crashed(msg.error.message);
      } else p.resolve(msg.result);
    };
    w.onerror = (ev) => {
      if (ev && ev.preventDefault) ev.preventDefault();
      if (w !== worker) return;
      if (!isReady) {
        // a module that fails to load (missing engine.mjs or attn.wasm, the CSP) lands here
        const err = replyError({ message: (ev && ev.message) || 'worker failed to start' }, 'EngineLoad');
        settle.reject(err);
        emit('error', err);
        rejectAll(err);
        return;
      }
      crashed((ev && ev.message) || 'uncaught error in the engine worker');
    };
    // a reply that cannot be deserialized: its request would never settle
    w.onmessageerror = () => { if (w === worker) crashed('a reply of the engine worker could not be read'); };
  }

  let stopWatching = () => {};

  function rejectAll(err) {
    quiet();
    const old = pending;
    pending = new Map();
    for (const [, p] of old) p.reject(err);
  }

  // Stop the worker, reject what waits with err, start a fresh one.
  function replace(err, kind) {
    stopWatching();
    if (worker) worker.terminate();
    rejectAll(err);
    spawn();
    emit(kind, kind === 'crash' ? err : null);
  }

  const crashed = (message) => replace(codedError('EngineCrashed', message), 'crash');

  // Watchdog: armed while requests wait, re-armed by every message from the worker.
  function heard() {
    clearTimeout(watchdog);
    watchdog = pending.size ? setTimeout(() => {
      if (pending.size) crashed(`the engine worker gave no answer for ${Math.round(stallMs / 1000)} s`);
    }, stallMs) : null;
  }
  function quiet() { clearTimeout(watchdog); watchdog = null; }

  async function request(method, args = [], { transfer = [], onProgress = null, signal = null } = {}) {
    await readyPromise;   // throws the EngineLoad error when the worker could not start
    const id = nextId++;
    const w = worker;
    const promise = new Promise((resolve, reject) => {
      const start = !pending.size;
      pending.set(id, { resolve, reject, onProgress });
      if (start) heard();
      try {
        w.postMessage(signal?.aborted ? { id, method, args, aborted: true } : { id, method, args }, transfer);
      } catch (e) {   // arguments that cannot be cloned (a function, a detached buffer)
        pending.delete(id);
        if (!pending.size) quiet();
        reject(replyError({ message: String(e && e.message || e) }, 'BadArgument'));
      }
    });
    if (signal && typeof signal.addEventListener === 'function') {
      // tell the worker once; a worker replaced meanwhile never hears of it (its requests were rejected)
      const onAbort = () => { if (w === worker && pending.has(id)) { try { w.postMessage({ abort: id }); } catch { /* gone */ } } };
      if (!signal.aborted) {
        signal.addEventListener('abort', onAbort, { once: true });
        const off = () => signal.removeEventListener('abort', onAbort);
        promise.then(off, off);
      }
    }
    return promise;
  }

  spawn();

  return {
    get ready() { return readyPromise; },
    request,
    cancel: () => replace(cancelledError(), 'restart'),
    onStatus(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    terminate() {
      stopWatching();
      rejectAll(cancelledError());
      if (worker) worker.terminate();
      worker = null;
      readyPromise = Promise.reject(codedError('EngineLoad', 'the engine worker was terminated'));
      readyPromise.catch(() => {});
    },
    get stallMs() { return stallMs; },
    set stallMs(ms) { stallMs = Math.max(1, Number(ms) || STALL_MS); if (pending.size) heard(); },
    /** How many requests the worker has not answered yet (tests wait on it). */
    get waiting() { return pending.size; },
    get worker() { return worker; },
  };
}

// ------------------------------------------------------------------ worker side
function serializeError(e) {
  const trap = (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError)
    || /^Aborted\(/.test(String(e && e.message));
  return {
    message: (e && e.message) ? String(e.message) : String(e),
    code: trap ? 'EngineCrashed' : (e && e.code) ? String(e.code) : 'Unknown',
  };
}

// Every ArrayBuffer reachable from a plain result object (the transfer list).
function collectBuffers(value, out = new Set(), depth = 0) {
  if (value == null || depth > 6) return out;
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  } else if (Array.isArray(value)) {
    for (const v of value) collectBuffers(v, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const k of Object.keys(value)) collectBuffers(value[k], out, depth + 1);
  }
  return out;
}

// Hold the lock `name` until this worker's context ends (never released by the worker itself),
// then tell the page it may start waiting for it.
function holdAlive(scope, name) {
  const locks = scope.navigator?.locks;
  if (!locks || typeof locks.request !== 'function') return;
  let held;
  const holding = new Promise((resolve) => { held = resolve; });
  try {
    locks.request(name, () => { held(); return new Promise(() => {}); }).catch(() => {});
  } catch {
    return;
  }
  holding.then(() => scope.postMessage({ alive: true }));
}

/**
 * Answers requests in a worker (`scope` is the worker's global, or anything with
 * postMessage and onmessage). load() resolves {target, handlers, info}; requests that
 * arrive before it has resolved wait for it, in order.
 */
export function serveWorker(scope, load) {
  const loaded = Promise.resolve().then(load);
  loaded.then(({ info = null } = {}) => scope.postMessage({ ready: true, info }),
    (e) => scope.postMessage({ ready: false, error: serializeError(e) }));

  const post = (id, result) => {
    try {
      scope.postMessage({ id, result }, [...collectBuffers(result)]);   // results are fresh copies
    } catch (e) {
      scope.postMessage({ id, error: serializeError(e) });
    }
  };

  // Returns a promise only for a handler that returned one (the queue waits for it).
  function answer({ target = {}, handlers = {} }, { id, method, args = [] }, signal) {
    try {
      let result;
      if (Object.hasOwn(handlers, method)) {
        result = handlers[method](args, { progress: (p) => scope.postMessage({ id, progress: p }), signal });
      } else if (typeof method === 'string' && Object.hasOwn(target, method) && typeof target[method] === 'function') {
        result = target[method](...args);
      } else {
        throw codedError('BadArgument', `unknown engine method: ${method}`);
      }
      if (result && typeof result.then === 'function')
        return Promise.resolve(result).then((r) => post(id, r), (e) => scope.postMessage({ id, error: serializeError(e) }));
      post(id, result);
    } catch (e) {
      scope.postMessage({ id, error: serializeError(e) });
    }
    return undefined;
  }

  const aborts = new Map();            // id → AbortController of a request not yet answered
  let queue = loaded.catch(() => {});  // requests run one after another, in order
  scope.onmessage = (ev) => {
    const msg = ev.data || {};
    if (msg.id === undefined && typeof msg.alive === 'string') { holdAlive(scope, msg.alive); return; }
    if (msg.id === undefined && msg.abort !== undefined) { aborts.get(msg.abort)?.abort(); return; }
    const controller = new AbortController();
    if (msg.aborted === true) controller.abort();
    aborts.set(msg.id, controller);
    queue = queue.then(() => loaded).then((api) => answer(api || {}, msg, controller.signal),
      () => scope.postMessage({ id: msg.id, error: { message: 'engine not loaded', code: 'EngineLoad' } }))
      .finally(() => aborts.delete(msg.id));
  };
}
