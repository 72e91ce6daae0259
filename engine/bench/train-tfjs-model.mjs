// The character model of engine/src/char_model.cpp written with tfjs ops, for the
// training benchmark (train-bench.mjs): the same shape, the same weights (copied
// from our flat parameter array, whose order char_model_layout.hpp defines and
// layoutOf() repeats), the same loss, the same clipping, AdamW and schedule
// (adamw.cpp). `tf` is passed in (the UMD global in the browser worker,
// @tensorflow/tfjs-core in Node), so this module imports nothing.
// What tfjs-backend-wasm 4.22 lacks, and how it is expressed here:
//   - the embedding: GatherV2's gradient needs UnsortedSegmentSum, which the wasm
//     backend does not register, so it is a product of a one-hot matrix and wte;
//   - GELU: the tanh formula written out (x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))));
//   - cross-entropy: log Σ exp(logits) − logit of the target, from Exp, Sum, Log
//     and a one-hot product;
//   - LayerNorm: moments() and rsqrt (eps 1e-5, biased variance);
//   - causal attention: batched matMul over (B·H, T, hd), a −1e9 additive mask, softmax.
// Linear weights are kept transposed (C_in, C_out): the same values, stored so that
// tfjs-wasm multiplies without its transposeB path, which was several times slower
// in the attention benchmark (README, "Peers"); the bias is fused (tf.fused.matMul).

// Offsets of the flat parameter array, in char_model_layout.hpp's order.
export function layoutOf({ vocab: V, context: T, width: C, layers, heads: H, kvHeads: Hkv = H }) {
  const hd = C / H, Ckv = hd * Hkv, F = 4 * C;
  const tensors = [];
  let total = 0;
  const add = (name, rows, cols, decay) => { tensors.push({ name, offset: total, rows, cols, decay }); total += rows * cols; };
  add('wte', V, C, true);
  add('wpe', T, C, true);
  for (let l = 0; l < layers; l++) {
    add(`h${l}.ln1w`, 1, C, false); add(`h${l}.ln1b`, 1, C, false);
    add(`h${l}.wq`, C, C, true); add(`h${l}.bq`, 1, C, false);
    add(`h${l}.wk`, Ckv, C, true); add(`h${l}.bk`, 1, Ckv, false);
    add(`h${l}.wv`, Ckv, C, true); add(`h${l}.bv`, 1, Ckv, false);
    add(`h${l}.wo`, C, C, true); add(`h${l}.bo`, 1, C, false);
    add(`h${l}.ln2w`, 1, C, false); add(`h${l}.ln2b`, 1, C, false);
    add(`h${l}.wfc`, F, C, true); add(`h${l}.bfc`, 1, F, false);
    add(`h${l}.wproj`, C, F, true); add(`h${l}.bproj`, 1, C, false);
  }
  add('lnfw', 1, C, false); add('lnfb', 1, C, false);
  return { V, T, C, H, Hkv, hd, Ckv, F, layers, tensors, total };
}

// The learning rate of step `step` (0-based): adamw.cpp's learning_rate().
export function learningRate(step, { warmup, totalSteps, lrMax, lrMin }) {
  if (step < warmup) return lrMax * (step + 1) / warmup;
  let u = 1;
  if (totalSteps > warmup + 1) u = Math.min(1, (step - warmup) / (totalSteps - 1 - warmup));
  return lrMin + (lrMax - lrMin) * 0.5 * (1 + Math.cos(Math.PI * u));
}

const LINEAR = /\.(wq|wk|wv|wo|wfc|wproj)$/;

// A trainable tfjs model from `params` (Float32Array, our layout).
// training: {lrMax, lrMin, warmup, totalSteps, clipNorm, weightDecay} (engine.mjs's names).
export function tfjsCharModel(tf, config, params, training) {
  const lo = layoutOf(config);
  if (params.length !== lo.total) throw new Error(`tfjs model: ${params.length} parameters for a layout of ${lo.total}`);
  const { V, C, H, Hkv, hd, F } = lo;
  if (Hkv !== H) throw new Error('tfjs model: only kvHeads = heads (the default model) is written here');
  const vars = {}, decay = {}, m = {}, v = {};
  for (const t of lo.tensors) {
    const data = params.subarray(t.offset, t.offset + t.rows * t.cols);
    let x = t.rows === 1 ? tf.tensor1d(data) : tf.tensor2d(data, [t.rows, t.cols]);
    if (LINEAR.test(t.name)) { const xt = tf.transpose(x); x.dispose(); x = xt; }   // (C_in, C_out)
    vars[t.name] = tf.variable(x, true, t.name);
    x.dispose();
    decay[t.name] = t.decay;
    m[t.name] = tf.variable(tf.zerosLike(vars[t.name]), false);
    v[t.name] = tf.variable(tf.zerosLike(vars[t.name]), false);
  }
  const count = Object.values(vars).reduce((s, x) => s + x.size, 0);
  const masks = new Map();   // T -> (T, T) additive causal mask
  const maskFor = (T) => {
    if (!masks.has(T)) {
      const a = new Float32Array(T * T);
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) a[i * T + j] = -1e9;
      masks.set(T, tf.keep(tf.tensor2d(a, [T, T])));   // made inside a tidy: kept
    }
    return masks.get(T);
  };
  const layerNorm = (x, w, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), w), b);
  };
  const linear = (x, w, b) => tf.fused.matMul({ a: x, b: w, bias: b });
  const gelu = (x) => tf.mul(tf.mul(x, 0.5),
    tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.mul(tf.mul(x, x), x)))))));
  const toHeads = (x, B, T) => tf.reshape(tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]), [B * H, T, hd]);
  const fromHeads = (x, B, T) => tf.reshape(tf.transpose(tf.reshape(x, [B, H, T, hd]), [0, 2, 1, 3]), [B * T, C]);

  // Mean cross-entropy (nats per character) of B sequences of T characters.
  // onehotIn, onehotOut: (B·T, V) float tensors of the inputs and targets.
  const lossOf = (onehotIn, onehotOut, B, T) => {
    const p = vars;
    const pos = tf.slice(p.wpe, [0, 0], [T, C]);
    let x = tf.reshape(tf.add(tf.reshape(tf.matMul(onehotIn, p.wte), [B, T, C]), pos), [B * T, C]);
    const scale = 1 / Math.sqrt(hd), mask = maskFor(T);
    for (let l = 0; l < lo.layers; l++) {
      const w = (n) => p[`h${l}.${n}`];
      const a = layerNorm(x, w('ln1w'), w('ln1b'));
      const q = toHeads(linear(a, w('wq'), w('bq')), B, T);
      const k = toHeads(linear(a, w('wk'), w('bk')), B, T);
      const vv = toHeads(linear(a, w('wv'), w('bv')), B, T);
      const s = tf.add(tf.mul(tf.matMul(q, tf.transpose(k, [0, 2, 1])), scale), mask);
      const att = fromHeads(tf.matMul(tf.softmax(s), vv), B, T);
      x = tf.add(x, linear(att, w('wo'), w('bo')));
      const h = gelu(linear(layerNorm(x, w('ln2w'), w('ln2b')), w('wfc'), w('bfc')));
      x = tf.add(x, linear(h, w('wproj'), w('bproj')));
    }
    const logits = tf.matMul(layerNorm(x, p.lnfw, p.lnfb), tf.transpose(p.wte));   // tied output projection
    const lse = tf.log(tf.sum(tf.exp(logits), -1));
    return tf.mean(tf.sub(lse, tf.sum(tf.mul(logits, onehotOut), -1)));
  };
  const onehots = (inputs, targets) => [
    tf.cast(tf.oneHot(tf.tensor1d(Int32Array.from(inputs), 'int32'), V), 'float32'),
    tf.cast(tf.oneHot(tf.tensor1d(Int32Array.from(targets), 'int32'), V), 'float32'),
  ];
  const { beta1, beta2, eps } = { beta1: 0.9, beta2: 0.999, eps: 1e-8 };
  let step = 0;
  return {
    parameterCount: count,
    layout: lo,
    /** Mean loss without an update. */
    evaluate(inputs, targets, batch) {
      const T = inputs.length / batch;
      return tf.tidy(() => { const [a, b] = onehots(inputs, targets); return lossOf(a, b, batch, T).dataSync()[0]; });
    },
    /** Forward, backward, global-norm clipping, AdamW (decay on the weight matrices only); returns the loss before the update. */
    trainStep(inputs, targets, batch) {
      const T = inputs.length / batch;
      const lr = learningRate(step, training);
      step += 1;
      const c1 = 1 - beta1 ** step, c2 = 1 - beta2 ** step;
      const loss = tf.tidy(() => {
        const [a, b] = onehots(inputs, targets);
        const { value, grads } = tf.variableGrads(() => lossOf(a, b, batch, T));
        const names = Object.keys(grads);
        const norm = tf.sqrt(tf.addN(names.map((n) => tf.sum(tf.square(grads[n])))));
        const clip = tf.minimum(1, tf.div(training.clipNorm, tf.maximum(norm, 1e-30)));
        for (const n of names) {
          const g = tf.mul(grads[n], clip);
          m[n].assign(tf.add(tf.mul(m[n], beta1), tf.mul(g, 1 - beta1)));
          v[n].assign(tf.add(tf.mul(v[n], beta2), tf.mul(tf.square(g), 1 - beta2)));
          let upd = tf.div(tf.div(m[n], c1), tf.add(tf.sqrt(tf.div(v[n], c2)), eps));
          if (decay[n]) upd = tf.add(upd, tf.mul(vars[n], training.weightDecay));
          vars[n].assign(tf.sub(vars[n], tf.mul(upd, lr)));
        }
        return value.dataSync()[0];
      });
      return loss;
    },
    dispose() {
      for (const n of Object.keys(vars)) { vars[n].dispose(); m[n].dispose(); v[n].dispose(); }
      for (const x of masks.values()) x.dispose();
    },
  };
}
