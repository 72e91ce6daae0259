// The code listings section 9 shows, as text built from the numbers the engine
// computed. Pure functions (no DOM), so tests/node/listings.test.mjs runs exactly
// these strings: the JavaScript one under Node against the built engine, the NumPy
// one with python3 + NumPy, and compares what they print with the engine.
//
// Usage:
//   import { jsListing, numpyListing, pytorchListing, MASK_LISTING } from './s9-listings.mjs';
//   jsListing(Q, K, V)                  // the engine call on the worked example's Q, K, V
//   numpyListing({ x, Wq, Wk, Wv })     // attention from the word vectors, in NumPy
//   pytorchListing(Q, K, V)             // F.scaled_dot_product_attention on the same numbers
// Matrices are {rows, cols, data} (data null → "…", while the engine has not answered).

// numbers for code: Latin digits, at most 4 decimals, no trailing zeros
const codeNum = (x) => String(Math.round(x * 1e4) / 1e4);
const flat = (m) => (m.data ? Array.from(m.data, codeNum).join(', ') : '…');
const nested = (m, indent) => {
  if (!m.data) return '[…]';
  const rows = [];
  for (let i = 0; i < m.rows; i++) rows.push(`[${Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), codeNum).join(', ')}]`);
  return `[${rows.join(`,\n${indent}`)}]`;
};

export function jsListing(Q, K, V) {
  // a dynamic import from ../js/: it runs as typed in the browser console of /fa/ or /ar/ (the
  // engine is /js/engine.mjs) and as a module file in a folder next to js/
  return `const { loadEngine } = await import('../js/engine.mjs');

const engine = await loadEngine();
const matrix = (rows, cols, values) => ({ rows, cols, data: new Float32Array(values) });

// the worked example after the projections: one row per word (the, cat, sat, down)
const q = matrix(4, 2, [${flat(Q)}]);
const k = matrix(4, 2, [${flat(K)}]);
const v = matrix(4, 2, [${flat(V)}]);

// scale omitted = 1/sqrt(d_k); causal: query i sees keys 0..i
const { out, weights } = engine.attention({ q, k, v, causal: true, returnWeights: true });
console.log(weights.data);  // 4x4, row-major; entries above the diagonal are 0
console.log(out.data);      // 4x2`;
}

export function numpyListing({ x, Wq, Wk, Wv }) {
  const arr = (name, m) => {
    const head = `${name} = np.array(`;
    return `${head}${nested(m, ' '.repeat(head.length + 1))}, dtype=np.float32)`;
  };
  return `import numpy as np

def softmax_rows(s):
    s = s - s.max(axis=-1, keepdims=True)   # largest entry of each row becomes 0: no overflow
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)

def attention(q, k, v, causal=False):
    d_k = q.shape[-1]
    scores = (q @ k.T) / np.sqrt(d_k)       # (L, S): each query against each key
    if causal:
        L, S = scores.shape
        later = np.triu(np.ones((L, S), dtype=bool), k=1)   # True right of the diagonal
        scores = np.where(later, -np.inf, scores)           # row i keeps columns 0..i
    weights = softmax_rows(scores)          # every row adds up to 1
    return weights @ v, weights             # (L, d_v) and (L, S)

# word vectors, one row each: the, cat, sat, down
${arr('x', x)}
${arr('W_q', Wq)}
${arr('W_k', Wk)}
${arr('W_v', Wv)}

q, k, v = x @ W_q, x @ W_k, x @ W_v
out, weights = attention(q, k, v, causal=True)

np.set_printoptions(precision=4, suppress=True)
print(weights)   # row 2 (counting from 0) is sat
print(out)`;
}

export function pytorchListing(Q, K, V) {
  const ind = ' '.repeat('q = torch.tensor(['.length);
  return `import torch
from torch.nn import functional as F

# the same numbers, shaped (batch, tokens, width) = (1, 4, 2)
q = torch.tensor(${nested(Q, ind)}, dtype=torch.float32).unsqueeze(0)
k = torch.tensor(${nested(K, ind)}, dtype=torch.float32).unsqueeze(0)
v = torch.tensor(${nested(V, ind)}, dtype=torch.float32).unsqueeze(0)

# default scale is 1/sqrt(q.size(-1)), as in our engine
y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
# y[0] is 4x2 and matches the engine's out up to float32 rounding`;
}

export const MASK_LISTING = `L, S = q.size(-2), k.size(-2)

# is_causal=True is the same as this boolean mask (True = may attend):
keep = torch.ones(L, S, dtype=torch.bool).tril()   # row i keeps columns 0..i
y_masked = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
assert torch.allclose(y_masked, y)

# Give one or the other: attn_mask together with is_causal=True raises an error.
# With L != S, tril() starts at the top-left corner: query 0 sees key 0 only.
# A decoding step whose queries are the LAST L of S positions needs the
# bottom-right corner instead:
keep_last = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)`;
