// Materialized attention: the whole score matrix is built and softmaxed
// before any output is formed. It is the textbook path whose L×S memory the
// lesson measures: the matrix is held transposed, as one (S, cols) slab per
// block of query rows, so that each block's scores are contiguous and every
// step of attention_block.hpp stays vertical and sequential (see there). Blocks of block_rows query
// rows: scores of all their keys → exact softmax down the columns → P·V.
#include <algorithm>
#include <limits>

#include "attention_block.hpp"
#include "checks.hpp"
#include "scratch.hpp"
#include "kernels.hpp"

namespace attn::detail {
namespace {

// Query rows per block: their S scores per row (S × 64 floats) stay in L2
// between the three passes, and the Qᵀ panel (d_k × 64) in L1.
constexpr std::size_t block_rows = 64;
// Keys per step of P·V: a chunk of V rows (and of the block's weights)
// stays in cache while every row tile of the block uses it.
constexpr std::size_t key_chunk = 256;

struct Sizes {
  std::size_t ld, rows, cols;  // ld: L padded to whole SIMD batches (the slabs' total width)
};

Sizes sizes(const Problem& p) {
  const std::size_t rows = std::min(block_rows, p.L);
  return {block::padded_cols(p.L), rows, block::padded_cols(rows)};
}

}  // namespace

double materialized_bytes(const Problem& p, bool return_weights) {
  const Sizes z = sizes(p);
  const double L = static_cast<double>(p.L), S = static_cast<double>(p.S);
  const double d_v = static_cast<double>(p.d_v), ld = static_cast<double>(z.ld);
  const double cols = static_cast<double>(z.cols), d_k = static_cast<double>(p.d_k);
  // out + masked_rows, the (S, L_pad) matrix, the block's panel, output, m,
  // l and ones; the caller's copies of scores and weights on request
  return f32_bytes(L * d_v) + f32_bytes(L) + f32_bytes(S * ld) +
         f32_bytes(cols * (d_k + d_v + 3.0)) + (return_weights ? f32_bytes(2.0 * L * S) : 0.0);
}

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  out: (L, d_v)
// wt: slabs (S, cols) of scores, then weights, transposed, one per block   panel: (d_k, cols)   o: (cols, d_v)
void materialized_attention(const Problem& p, bool return_weights, AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const Sizes z = sizes(p);
  r.out = Matrix(p.L, p.d_v);
  // uninitialized on purpose: every entry a row can see is written before it is read
  const AlignedFloats wt = aligned_floats(p.S * z.ld);
  const AlignedFloats panel = aligned_floats(p.d_k * z.cols), o = aligned_floats(z.cols * p.d_v);
  const AlignedFloats m = aligned_floats(z.cols), l = aligned_floats(z.cols), ones = aligned_floats(z.cols);
  std::fill(ones.get(), ones.get() + z.cols, 1.0f);
  r.scratch_bytes = (p.S * z.ld + z.cols * (p.d_k + p.d_v + 3)) * sizeof(float);
  if (return_weights) r.scores = Matrix(p.L, p.S, neg_inf), r.weights = Matrix(p.L, p.S);

  for (std::size_t i0 = 0; i0 < p.L; i0 += block_rows) {
    const std::size_t rows = std::min(block_rows, p.L - i0), cols = block::padded_cols(rows);
    // keys outside [kb, ke) are hidden from the whole block (causal rule, window)
    const Visibility::Span span = p.vis.span(i0, i0 + rows);
    const std::size_t ke = span.end_max, kb = std::min(span.begin_min, ke);
    float* st = wt.get() + i0 * p.S;  // every earlier slab is block_rows wide
    block::pack_query_panel(p, i0, rows, cols, panel.get());
    block::score_tile(p, panel.get(), i0, rows, cols, kb, ke - kb, st + kb * cols, cols);
    if (return_weights)
      for (std::size_t row = 0; row < rows; ++row)
        for (std::size_t j = kb; j < ke; ++j) r.scores.at(i0 + row, j) = st[j * cols + row];
    // no key at all: m = -inf, l = 0, and store_rows writes zero rows
    block::softmax_columns(st + kb * cols, cols, ke - kb, cols, m.get(), l.get());
    for (std::size_t j0 = kb; j0 < ke; j0 += key_chunk)
      block::weighted_values(p, i0, rows, j0, st + j0 * cols, cols, cols, p.v.data + j0 * p.d_v,
                             p.d_v, std::min(key_chunk, ke - j0), j0 == kb ? nullptr : ones.get(),
                             o.get());
    block::store_rows(p, i0, rows, o.get(), m.get(), l.get(), false, r);
    if (return_weights)
      for (std::size_t row = 0; row < rows; ++row)
        for (std::size_t j = kb; j < ke; ++j) r.weights.at(i0 + row, j) = st[j * cols + row];
  }
}

}  // namespace attn::detail
