// Chunked (FlashAttention-style) attention: (block_q × block_k) tiles of
// logits, folded into each row with online softmax (online_softmax.hpp).
// It never allocates the (L, S) matrix and skips tiles the causal mask hides.
// Logits and the P·V update of each tile go through the register-tiled
// blocks simd::dot_tile and simd::axpy_tile.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "online_softmax.hpp"
#include "simd_blocks.hpp"

namespace attn::detail {
namespace {

// Tile sizes actually used: a block larger than the matrix is clamped.
std::size_t clamp_block(std::size_t block, std::size_t n) { return block < n ? block : n; }

}  // namespace

double chunked_bytes(const Problem& p, std::size_t block_q, std::size_t block_k) {
  const double bq = static_cast<double>(clamp_block(block_q, p.L));
  const double bk = static_cast<double>(clamp_block(block_k, p.S));
  const double L = static_cast<double>(p.L), d_v = static_cast<double>(p.d_v);
  // out + masked_rows + tiles: s (bq, bk), m and l (bq), acc (bq, d_v)
  return f32_bytes(L * d_v) + f32_bytes(L) + f32_bytes(bq * bk + 2.0 * bq + bq * d_v);
}

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  out: (L, d_v)
// tiles: s (bq, bk)  m, l: (bq)  acc: (bq, d_v)
void chunked_attention(const Problem& p, std::size_t block_q, std::size_t block_k,
                       AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const std::size_t bq = clamp_block(block_q, p.L), bk = clamp_block(block_k, p.S);
  r.out = Matrix(p.L, p.d_v);
  std::vector<float> s(bq * bk), m(bq), l(bq), acc(bq * p.d_v);
  r.scratch_bytes = (s.size() + m.size() + l.size() + acc.size()) * sizeof(float);

  for (std::size_t i0 = 0; i0 < p.L; i0 += bq) {
    const std::size_t rows = std::min(bq, p.L - i0);
    std::fill(m.begin(), m.end(), neg_inf);
    std::fill(l.begin(), l.end(), 0.0f);
    std::fill(acc.begin(), acc.end(), 0.0f);
    // keys at or past this bound are hidden from every row of the tile
    const std::size_t tile_key_end = p.key_end(i0 + rows - 1);

    for (std::size_t j0 = 0; j0 < tile_key_end; j0 += bk) {
      // partial tiles are processed at their true width w, so nothing is read past S
      const std::size_t w = std::min(bk, p.S - j0);
      // the first `seen` keys of the tile are visible to some row of it
      const std::size_t seen = std::min(w, tile_key_end - j0);
      const float* q_i0 = p.q.data + i0 * p.d_k;
      // pass 1: logits of the tile, register-tiled over (rows × keys); hidden keys at -inf
      simd::dot_tile(s.data(), bk, q_i0, p.d_k, p.k.data + j0 * p.d_k, p.d_k, p.scale, rows, seen,
                     p.d_k);
      for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t i = i0 + row;
        float* s_i = s.data() + row * bk;
        const std::size_t end = p.key_end(i);
        for (std::size_t c = 0; c < w; ++c) {
          const std::size_t j = j0 + c;
          if (j >= end || (p.mask != nullptr && p.mask[i * p.S + j] == 0)) s_i[c] = neg_inf;
        }
        // pass 2: fold the tile into m and l, rescale acc; s_i becomes the weights
        online_rescale(s_i, w, p.d_v, m[row], l[row], acc.data() + row * p.d_v);
      }
      // acc_i += Σ_c s_ic v_{j0+c} for every row of the tile at once
      simd::axpy_tile(acc.data(), p.d_v, s.data(), bk, p.v.data + j0 * p.d_v, p.d_v, rows, seen,
                      p.d_v);
    }

    // pass 3: out_i = acc / l, guarding rows that saw no key (l = 0)
    for (std::size_t row = 0; row < rows; ++row) {
      const std::size_t i = i0 + row;
      if (l[row] == 0.0f) {
        r.masked_rows.push_back(static_cast<std::uint32_t>(i));
        continue;
      }
      if (!std::isfinite(m[row]) || !std::isfinite(l[row])) fail_logit_overflow("attention", i);
      float* out_i = r.out.data.data() + i * p.d_v;
      std::copy_n(acc.data() + row * p.d_v, p.d_v, out_i);
      simd::scale(out_i, 1.0f / l[row], p.d_v);
    }
  }
}

}  // namespace attn::detail
