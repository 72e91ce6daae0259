// A stand-in for the browser's Worker in Node, so that the page side of the
// transport (web/js/engine-link/transport.mjs: engine-client.mjs, engine-pool.mjs) talks to a
// worker side served by the same module (serveWorker), over a real MessageChannel:
// every message is structured-cloned (typed arrays transferred) as between threads.
//
// Usage:
//   const workers = installFakeWorkers(() => ({ target: engine, handlers: poolHandlers(engine) }));
//   const client = createEngineClient();            // its `new Worker(...)` is a FakeWorker
//   workers.live          // the FakeWorkers not terminated; w.kill() drops the worker side silently
//   workers.uninstall();  // terminates what is left and restores globalThis.Worker
//   installFakeWorkers(load, { locks })   // locks = new FakeLocks(): each worker's scope gets its
//                                          // own client (navigator.locks); kill() and terminate()
//                                          // release what it held, as a browser does when a context ends
import { serveWorker } from '../../web/js/engine-link/transport.mjs';

/** Web Locks (exclusive mode, AbortSignal) shared by the page and the fake workers. */
export class FakeLocks {
  constructor() { this.held = new Map(); this.queue = []; }
  client() {
    const owner = { names: new Set() };
    owner.locks = { request: (name, opts, cb) => this.request(owner, name, opts, cb) };
    return owner;
  }
  request(owner, name, opts, cb) {
    if (typeof opts === 'function') { cb = opts; opts = {}; }
    return new Promise((resolve, reject) => {
      const entry = { owner, name, cb, resolve, reject };
      if (opts?.signal) {
        opts.signal.addEventListener('abort', () => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) { this.queue.splice(i, 1); reject(new DOMException('aborted', 'AbortError')); }
        });
      }
      this.queue.push(entry);
      this.grant();
    });
  }
  grant() {
    for (const e of [...this.queue]) {
      if (this.held.has(e.name)) continue;
      this.queue.splice(this.queue.indexOf(e), 1);
      this.held.set(e.name, e.owner);
      e.owner.names.add(e.name);
      Promise.resolve().then(() => e.cb({ name: e.name })).then(e.resolve, e.reject)
        .finally(() => this.release(e.owner, e.name));
    }
  }
  release(owner, name) {
    if (this.held.get(name) !== owner) return;
    this.held.delete(name);
    owner.names.delete(name);
    this.grant();
  }
  /** A context ended: every lock it held is released. */
  drop(owner) { for (const n of [...owner.names]) this.release(owner, n); }
}

export function installFakeWorkers(load, { locks } = {}) {
  const live = new Set();
  const previous = globalThis.Worker;

  class FakeWorker {
    constructor(url) {
      this.url = String(url);
      const { port1, port2 } = new MessageChannel();
      this.page = port1;
      this.inside = port2;
      port1.onmessage = (ev) => this.onmessage && this.onmessage(ev);
      this.lockClient = locks ? locks.client() : null;
      serveWorker({
        postMessage: (m, transfer) => port2.postMessage(m, transfer),
        set onmessage(fn) { port2.onmessage = fn; },
        navigator: this.lockClient ? { locks: this.lockClient.locks } : undefined,
      }, load);
      live.add(this);
    }

    postMessage(message, transfer) { this.page.postMessage(message, transfer); }

    /** A worker killed from outside: no reply, no event (only the watchdog can tell). */
    kill() { this.inside.close(); if (this.lockClient) locks.drop(this.lockClient); }

    terminate() {
      this.page.close();
      this.inside.close();
      if (this.lockClient) locks.drop(this.lockClient);
      live.delete(this);
    }
  }

  globalThis.Worker = FakeWorker;
  return {
    live,
    uninstall() {
      for (const w of [...live]) w.terminate();
      globalThis.Worker = previous;
    },
  };
}
