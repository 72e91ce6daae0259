// Materialized attention: the whole (L, S) score matrix is built, softmaxed
// row by row (row max subtracted first) and multiplied by V, all through the
// SIMD blocks. This is the textbook path whose L×S memory the lesson measures.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "simd_blocks.hpp"

namespace attn::detail {

double materialized_bytes(const Problem& p, bool return_weights) {
  const double L = static_cast<double>(p.L), S = static_cast<double>(p.S);
  const double d_v = static_cast<double>(p.d_v);
  // out + the working (L, S) buffer (which becomes the weights) + masked_rows,
  // plus a copy of the scores when the caller wants them
  return f32_bytes(L * d_v) + f32_bytes(L * S) + f32_bytes(L) +
         (return_weights ? f32_bytes(L * S) : 0.0);
}

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  w: (L, S)  out: (L, d_v)
void materialized_attention(const Problem& p, bool return_weights, AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  r.out = Matrix(p.L, p.d_v);
  Matrix w(p.L, p.S);
  r.scratch_bytes = p.L * p.S * sizeof(float);
  if (return_weights) r.scores = Matrix(p.L, p.S);

  for (std::size_t i = 0; i < p.L; ++i) {
    const float* q_i = p.q.data + i * p.d_k;
    float* w_i = w.data.data() + i * p.S;
    float* out_i = r.out.data.data() + i * p.d_v;

    // pass 1: scaled scores; keys the causal rule hides are not computed
    const std::size_t end = p.key_end(i);
    for (std::size_t j = 0; j < end; ++j) {
      const bool shown = p.mask == nullptr || p.mask[i * p.S + j] != 0;
      w_i[j] = shown ? p.scale * simd::dot(q_i, p.k.data + j * p.d_k, p.d_k) : neg_inf;
    }
    std::fill(w_i + end, w_i + p.S, neg_inf);
    if (return_weights) std::copy(w_i, w_i + p.S, r.scores.data.data() + i * p.S);

    // pass 2: softmax of the row, subtracting its max so ±1e4 logits stay finite
    const float m = simd::max(w_i, p.S);
    if (m == neg_inf) {  // no visible key: zero weights, zero output
      std::fill(w_i, w_i + p.S, 0.0f);
      r.masked_rows.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    const float l = simd::exp_sum(w_i, p.S, m);
    if (!std::isfinite(m) || !std::isfinite(l)) fail_logit_overflow("attention", i);
    simd::scale(w_i, 1.0f / l, p.S);

    // pass 3: out_i = Σ_j w_ij v_j (hidden keys have weight 0 and are skipped)
    for (std::size_t j = 0; j < end; ++j)
      if (w_i[j] != 0.0f) simd::axpy(out_i, w_i[j], p.v.data + j * p.d_v, p.d_v);
  }
  if (return_weights) r.weights = std::move(w);
}

}  // namespace attn::detail
