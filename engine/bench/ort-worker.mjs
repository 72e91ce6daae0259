// Module Worker running onnxruntime-web for the browser benchmark, so that a
// 1-thread and a 2-thread ort (ort.env.wasm.numThreads is fixed once per
// realm) live side by side in one page. With numThreads > 1 ort starts its
// own pthread workers (needs crossOriginIsolated, which the bench server gives).
//   {cmd: 'init', threads}                         → {version, numThreads}
//   {cmd: 'prepare', id, n, d, causal, q, k, v}    → {out}: session created (graph from onnx-model.mjs), one run
//   {cmd: 'step', id}                              → {ms}: one timed run (tensors in, session.run, output data out)
//   {cmd: 'dispose', id}                           → {}
//   {cmd: 'memory'}                                → {bytes}: size of the WebAssembly.Memory ort created
import { attentionModel } from './onnx-model.mjs';

const memories = new Set();
{
  const Native = WebAssembly.Memory;
  const Hooked = function Memory(desc) { const m = new Native(desc); memories.add(m); return m; };
  Hooked.prototype = Native.prototype;
  WebAssembly.Memory = Hooked;
  for (const fn of ['instantiate', 'instantiateStreaming']) {
    const orig = WebAssembly[fn];
    if (orig) WebAssembly[fn] = (...a) => orig.apply(WebAssembly, a).then((r) => {
      const exp = (r && (r.instance || r)).exports;
      if (exp) for (const x of Object.values(exp)) if (x instanceof Native) memories.add(x);
      return r;
    });
  }
}

let ort = null;
const sessions = new Map();   // id -> {session, n, d, q, k, v}

async function runOnce(s) {
  const feeds = {
    Q: new ort.Tensor('float32', s.q.data, [s.n, s.d]),
    K: new ort.Tensor('float32', s.k.data, [s.n, s.d]),
    V: new ort.Tensor('float32', s.v.data, [s.n, s.d]),
  };
  const r = await s.session.run(feeds);
  const data = r.out.data;   // a Float32Array copied out of the wasm heap
  return data;
}

self.onmessage = async ({ data: m }) => {
  try {
    let result;
    if (m.cmd === 'init') {
      ort = await import('/nm/onnxruntime-web/dist/ort.wasm.min.mjs');
      ort.env.wasm.wasmPaths = '/nm/onnxruntime-web/dist/';
      ort.env.wasm.numThreads = m.threads;
      ort.env.wasm.proxy = false;
      ort.env.logLevel = 'error';
      const s = await ort.InferenceSession.create(attentionModel({ L: 2, S: 2, d: 2 }), { executionProviders: ['wasm'] });
      await s.release();
      result = { version: ort.env.versions?.web ?? null, numThreads: ort.env.wasm.numThreads, crossOriginIsolated: self.crossOriginIsolated };
    } else if (m.cmd === 'prepare') {
      const session = await ort.InferenceSession.create(attentionModel({ L: m.n, S: m.n, d: m.d, causal: m.causal }),
        { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const s = { session, n: m.n, d: m.d, q: m.q, k: m.k, v: m.v };
      sessions.set(m.id, s);
      const out = new Float32Array(await runOnce(s));   // own copy, transferable
      self.postMessage({ ok: true, result: { out } }, [out.buffer]);
      return;
    } else if (m.cmd === 'step') {
      const s = sessions.get(m.id);
      const t0 = performance.now();
      await runOnce(s);
      result = { ms: performance.now() - t0 };
    } else if (m.cmd === 'dispose') {
      const s = sessions.get(m.id);
      sessions.delete(m.id);
      if (s) await s.session.release();
      result = {};
    } else if (m.cmd === 'memory') {
      result = { bytes: [...memories].reduce((t, x) => t + x.buffer.byteLength, 0) || null };
    } else throw new Error(`ort-worker: unknown cmd ${m.cmd}`);
    self.postMessage({ ok: true, result });
  } catch (e) {
    self.postMessage({ ok: false, error: String(e && e.stack || e) });
  }
};
