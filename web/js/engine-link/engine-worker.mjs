// The engine's module Worker: loads ./engine.mjs once and answers requests through
// the transport (transport.mjs has the message shapes). A request names any method
// of engine.mjs and its arguments reach it whole; engine.mjs checks them. Besides
// those: the pool's handlers (pool-worker.mjs), the character model's
// (char-model-worker.mjs) and `testCrash`.
//   testCrash [{kind: 'throw' | 'trap' | 'hang'}]   for the browser tests of the crash handling
//        (engine-crash.test.mjs): an uncaught error, a WebAssembly trap, a worker that never answers
import { serveWorker } from './transport.mjs';
import { poolHandlers } from './pool-worker.mjs';
import { charModelHandlers } from './char-model-worker.mjs';

function testCrash([{ kind = 'throw' } = {}]) {
  if (kind === 'trap') throw new WebAssembly.RuntimeError('unreachable (test)');
  if (kind === 'hang') { for (;;) { /* a stuck worker: never answers */ } }
  setTimeout(() => { throw new Error('uncaught error (test)'); });
  return { ok: true };
}

serveWorker(self, async () => {
  const { loadEngine } = await import('../engine.mjs');
  const engine = await loadEngine();
  let info = null;
  try { info = engine.info(); } catch { /* info is optional */ }
  return { target: engine, handlers: { ...poolHandlers(engine), ...charModelHandlers(engine), testCrash }, info };
});
