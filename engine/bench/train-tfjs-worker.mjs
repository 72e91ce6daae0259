// tfjs (the @tensorflow/tfjs 4.22.0 bundle, for its registered gradients; tfjs-core's
// own dist bundle has none) with @tensorflow/tfjs-backend-wasm 4.22.0, one thread, in
// a CLASSIC Worker (importScripts loads the UMD bundles; the model comes by dynamic
// import), training the model of train-tfjs-model.mjs. The same messages as
// train-worker.mjs, except that 'init' takes our weights: {cmd: 'init', config,
// training, params} → {parameterCount, backend, threads, simd}.
/* global importScripts, tf */
let model = null;
let ready = null;

async function load() {
  importScripts('/nm/@tensorflow/tfjs/dist/tf.min.js', '/nm/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js');
  tf.wasm.setWasmPaths('/nm/@tensorflow/tfjs-backend-wasm/dist/');
  tf.wasm.setThreadsCount(1);   // before setBackend: XNNPACK's thread pool gets one thread
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  const { tfjsCharModel } = await import('/bench/train-tfjs-model.mjs');
  return {
    tfjsCharModel,
    info: {
      version: tf.version.tfjs, backend: tf.getBackend(), threads: tf.wasm.getThreadsCount(),
      simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
      multithreadBuild: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
    },
  };
}

self.onmessage = async ({ data: msg }) => {
  try {
    ready ??= load();
    const { tfjsCharModel, info } = await ready;
    let result;
    switch (msg.cmd) {
      case 'init':
        model?.dispose();
        model = tfjsCharModel(tf, msg.config, msg.params, msg.training);
        result = { parameterCount: model.parameterCount, ...info };
        break;
      case 'evaluate':
        result = { loss: model.evaluate(msg.inputs, msg.targets, msg.batch) };
        break;
      case 'step': {
        const t0 = performance.now();
        const loss = model.trainStep(msg.inputs, msg.targets, msg.batch);
        result = { loss, ms: performance.now() - t0, tensors: tf.memory().numTensors };
        break;
      }
      default: throw new Error(`unknown command ${msg.cmd}`);
    }
    self.postMessage({ ok: true, result });
  } catch (e) {
    self.postMessage({ ok: false, error: String(e?.stack || e) });
  }
};
