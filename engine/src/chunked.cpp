// Chunked (FlashAttention-style) attention: for each block of block_q query
// rows, tiles of block_k keys are scored, folded into the rows' running max
// and sum by online softmax, and their values added to the block's output,
// which is rescaled as the max grows (Milakov & Gimelshein 2018; Dao et al.
// 2022). It never allocates L×S: its scratch is a few tiles whatever the
// length, and it skips the tiles the causal mask hides. The steps are those
// of attention_block.hpp (transposed tiles, vertical softmax).
#include <algorithm>
#include <limits>

#include "attention_block.hpp"
#include "detail.hpp"
#include "kernels.hpp"

namespace attn::detail {
namespace {

// Tile sizes actually used: a block larger than the matrix is clamped, and
// query rows are rounded up to whole SIMD batches.
struct Tiles {
  std::size_t bq, cols, bk;
};

Tiles tiles(const Problem& p, std::size_t block_q, std::size_t block_k) {
  const std::size_t bq = std::min(block_q, p.L);
  return {bq, block::padded_cols(bq), std::min(block_k, p.S)};
}

std::size_t tile_floats(const Problem& p, const Tiles& t) {
  // panel (d_k, cols), st (bk, cols), o (cols, d_v), v_tile (bk, d_v padded), m, l, alpha (cols)
  return t.cols * (p.d_k + t.bk + p.d_v + 3) + t.bk * block::padded_cols(p.d_v);
}

}  // namespace

double chunked_bytes(const Problem& p, std::size_t block_q, std::size_t block_k) {
  const double L = static_cast<double>(p.L), d_v = static_cast<double>(p.d_v);
  // out + masked_rows + tiles
  return f32_bytes(L * d_v) + f32_bytes(L) +
         f32_bytes(static_cast<double>(tile_floats(p, tiles(p, block_q, block_k))));
}

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  out: (L, d_v)
// panel: (d_k, cols)  st: (bk, cols)  o: (cols, d_v)  v_tile: (bk, ldv)  m, l, alpha: (cols)
void chunked_attention(const Problem& p, std::size_t block_q, std::size_t block_k,
                       AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const Tiles t = tiles(p, block_q, block_k);
  r.out = Matrix(p.L, p.d_v);
  // every region's size is a multiple of the SIMD width, so each starts aligned
  const AlignedFloats scratch = aligned_floats(tile_floats(p, t));
  const std::size_t ldv = block::padded_cols(p.d_v);
  float* panel = scratch.get();
  float* st = panel + p.d_k * t.cols;
  float* o = st + t.bk * t.cols;
  float* v_tile = o + t.cols * p.d_v;
  float* m = v_tile + t.bk * ldv;
  float* l = m + t.cols;
  float* alpha = l + t.cols;
  r.scratch_bytes = tile_floats(p, t) * sizeof(float);
  const bool v_aligned = is_aligned(p.v.data) && (p.d_v * sizeof(float)) % cache_line == 0;

  for (std::size_t i0 = 0; i0 < p.L; i0 += t.bq) {
    const std::size_t rows = std::min(t.bq, p.L - i0), cols = block::padded_cols(rows);
    block::pack_query_panel(p, i0, rows, cols, panel);
    std::fill(m, m + cols, neg_inf);
    std::fill(l, l + cols, 0.0f);
    // keys at or past this bound are hidden from every row of the block
    const std::size_t keys_end = p.key_end(i0 + rows - 1);
    for (std::size_t j0 = 0; j0 < keys_end; j0 += t.bk) {
      const std::size_t keys = std::min(t.bk, keys_end - j0);
      block::score_tile(p, panel, i0, rows, cols, j0, keys, st, cols);
      block::online_softmax_tile(p, i0, rows, j0, st, cols, keys, cols, m, l, alpha);
      // the first tile starts the output; later ones rescale it by alpha
      // P·V reads every value row once per column batch: unless V's rows already
      // start on cache lines, they are read from an aligned copy of the tile
      const float* v_rows = p.v.data + j0 * p.d_v;
      std::size_t v_ld = p.d_v;
      if (!v_aligned) {
        block::copy_value_rows(p, j0, keys, v_tile);
        v_rows = v_tile, v_ld = ldv;
      }
      block::weighted_values(p, i0, rows, j0, st, cols, cols, v_rows, v_ld, keys,
                             j0 == 0 ? nullptr : alpha, o);
    }
    block::store_rows(p, i0, rows, o, m, l, true, r);
  }
}

}  // namespace attn::detail
