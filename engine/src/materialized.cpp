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

namespace {

// Query rows per block: their logits and weights rows (block_rows × S floats)
// stay in cache between the passes, and K and V are streamed once per block.
constexpr std::size_t block_rows = 16;
// Keys per chunk inside a block: a chunk of K or V rows (key_chunk × d floats)
// stays in L1 while every row of the block uses it.
constexpr std::size_t key_chunk = 64;

}  // namespace

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  w: (L, S)  out: (L, d_v)
// Rows are processed in blocks of block_rows: pass 1 and pass 3 are
// register-tiled over (rows × keys) so that each q, k and v load is reused.
void materialized_attention(const Problem& p, bool return_weights, AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  r.out = Matrix(p.L, p.d_v);
  Matrix w(p.L, p.S);
  r.scratch_bytes = p.L * p.S * sizeof(float);
  if (return_weights) r.scores = Matrix(p.L, p.S);

  for (std::size_t i0 = 0; i0 < p.L; i0 += block_rows) {
    const std::size_t rows = std::min(block_rows, p.L - i0);
    const float* q_i0 = p.q.data + i0 * p.d_k;
    float* w_i0 = w.data.data() + i0 * p.S;
    float* out_i0 = r.out.data.data() + i0 * p.d_v;
    // key_end grows with i, so the block's last row sees the most keys
    const std::size_t block_end = p.key_end(i0 + rows - 1);

    // pass 1: scaled scores of the block; keys the causal rule hides from the
    // whole block are not computed, the rest of the hidden ones are set to -inf
    for (std::size_t j0 = 0; j0 < block_end; j0 += key_chunk)
      simd::dot_tile(w_i0 + j0, p.S, q_i0, p.d_k, p.k.data + j0 * p.d_k, p.d_k, p.scale, rows,
                     std::min(key_chunk, block_end - j0), p.d_k);
    for (std::size_t i = i0; i < i0 + rows; ++i) {
      float* w_i = w.data.data() + i * p.S;
      const std::size_t end = p.key_end(i);
      if (p.mask != nullptr)
        for (std::size_t j = 0; j < end; ++j)
          if (p.mask[i * p.S + j] == 0) w_i[j] = neg_inf;
      std::fill(w_i + end, w_i + p.S, neg_inf);
      if (return_weights) std::copy(w_i, w_i + p.S, r.scores.data.data() + i * p.S);

      // pass 2: softmax of the row, subtracting its max so ±1e4 logits stay
      // finite; keys past the causal end get weight 0 without an exp
      const float m = simd::max(w_i, end);
      if (m == neg_inf) {  // no visible key: zero weights, zero output
        std::fill(w_i, w_i + p.S, 0.0f);
        r.masked_rows.push_back(static_cast<std::uint32_t>(i));
        continue;
      }
      const float l = simd::exp_sum(w_i, end, m);
      if (!std::isfinite(m) || !std::isfinite(l)) fail_logit_overflow("attention", i);
      simd::scale(w_i, 1.0f / l, end);
      std::fill(w_i + end, w_i + p.S, 0.0f);
    }

    // pass 3: out_i = Σ_j w_ij v_j over the block's keys (hidden keys have
    // weight 0 and add nothing)
    for (std::size_t j0 = 0; j0 < block_end; j0 += key_chunk)
      simd::axpy_tile(out_i0, p.d_v, w_i0 + j0, p.S, p.v.data + j0 * p.d_v, p.d_v, rows,
                      std::min(key_chunk, block_end - j0), p.d_v);
  }
  if (return_weights) r.weights = std::move(w);
}

}  // namespace attn::detail
