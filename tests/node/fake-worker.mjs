// A stand-in for the browser's Worker in Node, so that the page side of the
// transport (web/js/transport.mjs: engine-client.mjs, engine-pool.mjs) talks to a
// worker side served by the same module (serveWorker), over a real MessageChannel:
// every message is structured-cloned (typed arrays transferred) as between threads.
//
// Usage:
//   const workers = installFakeWorkers(() => ({ target: engine, handlers: poolHandlers(engine) }));
//   const client = createEngineClient();            // its `new Worker(...)` is a FakeWorker
//   workers.live          // the FakeWorkers not terminated; w.kill() drops the worker side silently
//   workers.uninstall();  // terminates what is left and restores globalThis.Worker
import { serveWorker } from '../../web/js/transport.mjs';

export function installFakeWorkers(load) {
  const live = new Set();
  const previous = globalThis.Worker;

  class FakeWorker {
    constructor(url) {
      this.url = String(url);
      const { port1, port2 } = new MessageChannel();
      this.page = port1;
      this.inside = port2;
      port1.onmessage = (ev) => this.onmessage && this.onmessage(ev);
      serveWorker({
        postMessage: (m, transfer) => port2.postMessage(m, transfer),
        set onmessage(fn) { port2.onmessage = fn; },
      }, load);
      live.add(this);
    }

    postMessage(message, transfer) { this.page.postMessage(message, transfer); }

    /** A worker killed from outside: no reply, no event (only the watchdog can tell). */
    kill() { this.inside.close(); }

    terminate() {
      this.page.close();
      this.inside.close();
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
