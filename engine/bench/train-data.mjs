// The training benchmark's batches and held-out loss. The corpus is cut as the lesson's
// chapter 14 cuts it (corpusData in web/js/sections/train-compute.mjs, served at /js/:
// the same vocabulary and held-out tenth as engine/tools/train_char.cpp); the validation
// loss is the mean over the held-out characters, scored in windows of `context` (the last
// one shorter). Batches: `batch` windows of
// context + 1 characters of the training part at seeded starts (mulberry32; the
// native trainer draws its starts from its own generator, so the batches differ
// from train_char's, not their distribution).

export function batchSampler(ids, batch, context, seed) {
  let a = seed >>> 0;
  const next = (n) => {   // mulberry32
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
  return () => {
    const inputs = new Uint32Array(batch * context), targets = new Uint32Array(batch * context);
    for (let b = 0; b < batch; b++) {
      const at = next(ids.length - context);
      inputs.set(ids.subarray(at, at + context), b * context);
      targets.set(ids.subarray(at + 1, at + context + 1), b * context);
    }
    return { inputs, targets, batch };
  };
}

// Held-out batches: windows of `context` (inputs val[s..s+L), targets val[s+1..s+L+1)),
// the full ones grouped `group` to a call, the shorter last one alone; weight = its characters.
export function validationBatches(val, context, group = 32) {
  const full = [];
  let s = 0;
  for (; s + context + 1 <= val.length; s += context) full.push(s);
  const out = [];
  for (let g = 0; g < full.length; g += group) {
    const starts = full.slice(g, g + group);
    const inputs = new Uint32Array(starts.length * context), targets = new Uint32Array(starts.length * context);
    starts.forEach((at, i) => { inputs.set(val.subarray(at, at + context), i * context); targets.set(val.subarray(at + 1, at + context + 1), i * context); });
    out.push({ inputs, targets, batch: starts.length, chars: starts.length * context });
  }
  if (s + 1 < val.length) {
    const L = val.length - 1 - s;
    out.push({ inputs: val.slice(s, s + L), targets: val.slice(s + 1, s + L + 1), batch: 1, chars: L });
  }
  return out;
}

// Mean loss over the held-out characters; evaluate(inputs, targets, batch) is a model's.
export function validationLoss(evaluate, batches) {
  let total = 0, chars = 0;
  for (const b of batches) { total += evaluate(b.inputs, b.targets, b.batch) * b.chars; chars += b.chars; }
  return total / chars;
}

// FLOPs of one training step of B sequences of T characters (engine/bench/README.md,
// "Training FLOPs"; train_bench.cpp computes the same):
//   forward per sequence = 2·T·(12·layers·C² + V·C) + layers·2·C·T·(T + 1), step = 3 × forward.
export function trainFlops({ vocab: V, width: C, layers }, B, T) {
  return 3 * B * (2 * T * (12 * layers * C * C + V * C) + layers * 2 * C * T * (T + 1));
}
