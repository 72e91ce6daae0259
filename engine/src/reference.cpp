// The scalar reference: scaled dot-product attention with plain loops and
// double accumulation, no SIMD. Every fast path is tested against it.
// It does not tile or vectorise anything; it is meant to be obviously right.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"

namespace attn::detail {

// q_i: (d_k)  k: (S, d_k)  v: (S, d_v)  logits, w: (S)  out_i: (d_v)
bool reference_row(const Problem& p, std::size_t i, double* logits, double* w, double* out_i) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const float* q_i = p.q.data + i * p.d_k;

  // pass 1: scaled logits, hidden keys at -inf, and the row max
  double m = neg_inf;
  for (std::size_t j = 0; j < p.S; ++j) {
    logits[j] = neg_inf;
    if (!p.vis.visible(i, j)) continue;
    logits[j] = reference_logit(p, q_i, j);
    if (logits[j] > m) m = logits[j];
  }
  for (std::size_t c = 0; c < p.d_v; ++c) out_i[c] = 0.0;
  for (std::size_t j = 0; j < p.S; ++j) w[j] = 0.0;
  if (m == neg_inf) return false;  // no visible key: zero weights, zero output

  // pass 2: softmax with the row max subtracted
  double l = 0.0;
  for (std::size_t j = 0; j < p.S; ++j) {
    w[j] = std::exp(logits[j] - m);
    l += w[j];
  }
  for (std::size_t j = 0; j < p.S; ++j) w[j] /= l;

  // pass 3: out_i = Σ_j w_ij v_j
  for (std::size_t j = 0; j < p.S; ++j) {
    const float* v_j = p.v.data + j * p.d_v;
    for (std::size_t c = 0; c < p.d_v; ++c) out_i[c] += w[j] * v_j[c];
  }
  return true;
}

double reference_bytes(const Problem& p, bool return_weights) {
  const double L = static_cast<double>(p.L), S = static_cast<double>(p.S);
  const double d_v = static_cast<double>(p.d_v);
  return f32_bytes(L * d_v) + 8.0 * (2.0 * S + d_v) + f32_bytes(L) +
         (return_weights ? 2.0 * f32_bytes(L * S) : 0.0);
}

// out: (L, d_v)  scores, weights: (L, S) when return_weights
void reference_attention(const Problem& p, bool return_weights, AttentionResult& r,
                         bool float32_logits) {
  r.out = Matrix(p.L, p.d_v);
  if (return_weights) {
    r.scores = Matrix(p.L, p.S);
    r.weights = Matrix(p.L, p.S);
  }
  std::vector<double> logits(p.S), w(p.S), out_i(p.d_v);
  r.scratch_bytes = (2 * p.S + p.d_v) * sizeof(double);
  for (std::size_t i = 0; i < p.L; ++i) {
    if (!reference_row(p, i, logits.data(), w.data(), out_i.data()))
      r.masked_rows.push_back(static_cast<std::uint32_t>(i));
    if (float32_logits)  // hidden keys are -inf, which float32 holds
      for (std::size_t j = 0; j < p.S; ++j)
        if (logits[j] != -std::numeric_limits<double>::infinity())
          require_float_logit(logits[j], "attention", i, j);
    for (std::size_t c = 0; c < p.d_v; ++c) r.out.at(i, c) = static_cast<float>(out_i[c]);
    if (!return_weights) continue;
    for (std::size_t j = 0; j < p.S; ++j) {
      r.scores.at(i, j) = static_cast<float>(logits[j]);
      r.weights.at(i, j) = static_cast<float>(w[j]);
    }
  }
}

}  // namespace attn::detail
