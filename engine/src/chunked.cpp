// Chunked (FlashAttention-style) attention: for each block of block_q query
// rows, tiles of block_k keys are scored, folded into the rows' running max
// and sum by online softmax, and their values added to the block's output,
// which is rescaled as the max grows (Milakov & Gimelshein 2018; Dao et al.
// 2022). It never allocates L×S: its scratch is a few tiles whatever the
// length, and it skips the key tiles the visibility rule (causal, window;
// visibility.hpp) hides from a whole block, so with a window w its work
// grows as L·w. The steps are those of attention_block.hpp (transposed
// tiles, vertical softmax).
//
// Query blocks go through the keys in groups of up to four: each tile of
// keys and values is used by the group's blocks one after the other while
// it is still in cache, instead of being read again from memory once per
// block. Once K and V outgrow the core's L2 (2 MiB here: S·(d_k+d_v)·4
// bytes, n = 4096 at d = 64) that measured 4% faster natively at
// n = 4096 and 7% at L = 1024, S = 8192 (paired calls, median); it was
// neutral at n ≤ 2048 and in WebAssembly. It costs three more blocks of
// state in the scratch, still the same at every length.
#include <algorithm>
#include <limits>

#include "attention_block.hpp"
#include "checks.hpp"
#include "scratch.hpp"
#include "kernels.hpp"

namespace attn::detail {
namespace {

constexpr std::size_t blocks_per_group = 4;  // see the top of the file

// Tile sizes actually used: a block larger than the matrix is clamped, and
// query rows are rounded up to whole SIMD batches.
struct Tiles {
  std::size_t bq, cols, bk, group;
};

Tiles tiles(const Problem& p, std::size_t block_q, std::size_t block_k) {
  const std::size_t bq = std::min(block_q, p.L);
  const std::size_t blocks = (p.L + bq - 1) / bq;
  return {bq, block::padded_cols(bq), std::min(block_k, p.S), std::min(blocks_per_group, blocks)};
}

// One query block's state: panel (d_k, cols), o (cols, d_v), m, l, alpha (cols).
std::size_t block_floats(const Problem& p, const Tiles& t) { return t.cols * (p.d_k + p.d_v + 3); }

std::size_t tile_floats(const Problem& p, const Tiles& t) {
  // st (bk, cols), v_tile (bk, d_v padded), the group's block states
  return t.bk * t.cols + t.bk * block::padded_cols(p.d_v) + t.group * block_floats(p, t);
}

struct BlockState {
  std::size_t i0, rows, cols;
  Visibility::Span keys;  // every row's keys lie in [keys.begin_min, keys.end_max)
  bool started;           // a tile has written o
  float *panel, *o, *m, *l, *alpha;
};

}  // namespace

double chunked_bytes(const Problem& p, std::size_t block_q, std::size_t block_k) {
  const double L = static_cast<double>(p.L), d_v = static_cast<double>(p.d_v);
  // out + masked_rows + tiles
  return f32_bytes(L * d_v) + f32_bytes(L) +
         f32_bytes(static_cast<double>(tile_floats(p, tiles(p, block_q, block_k))));
}

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  out: (L, d_v)
// st: (bk, cols)  v_tile: (bk, ldv), then per block of the group:
// panel: (d_k, cols)  o: (cols, d_v)  m, l, alpha: (cols)
void chunked_attention(const Problem& p, std::size_t block_q, std::size_t block_k,
                       AttentionResult& r) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const Tiles t = tiles(p, block_q, block_k);
  r.out = Matrix(p.L, p.d_v);
  // every region's size is a multiple of the SIMD width, so each starts aligned
  const AlignedFloats scratch = aligned_floats(tile_floats(p, t));
  const std::size_t ldv = block::padded_cols(p.d_v);
  float* st = scratch.get();
  float* v_tile = st + t.bk * t.cols;
  float* states = v_tile + t.bk * ldv;
  r.scratch_bytes = tile_floats(p, t) * sizeof(float);
  // P·V reads every value row once per column batch: unless V's rows already
  // start on cache lines, they are read from an aligned copy of the tile
  const bool v_aligned = is_aligned(p.v.data) && (p.d_v * sizeof(float)) % cache_line == 0;
  BlockState group[blocks_per_group];

  for (std::size_t g0 = 0; g0 < p.L; g0 += t.group * t.bq) {
    // the group's keys: from the tile holding its first visible key to its last
    std::size_t count = 0, keys_begin = p.S, keys_end = 0;
    for (std::size_t i0 = g0; i0 < p.L && count < t.group; i0 += t.bq, ++count) {
      BlockState& b = group[count];
      b.i0 = i0;
      b.rows = std::min(t.bq, p.L - i0);
      b.cols = block::padded_cols(b.rows);
      b.keys = p.vis.span(i0, i0 + b.rows);
      b.started = false;
      b.panel = states + count * block_floats(p, t);
      b.o = b.panel + p.d_k * t.cols;
      b.m = b.o + t.cols * p.d_v;
      b.l = b.m + t.cols;
      b.alpha = b.l + t.cols;
      block::pack_query_panel(p, i0, b.rows, b.cols, b.panel);
      std::fill(b.m, b.m + b.cols, neg_inf);
      std::fill(b.l, b.l + b.cols, 0.0f);
      if (b.keys.begin_min >= b.keys.end_max) continue;  // no row sees a key
      keys_begin = std::min(keys_begin, b.keys.begin_min);
      keys_end = std::max(keys_end, b.keys.end_max);
    }
    for (std::size_t j0 = keys_begin / t.bk * t.bk; j0 < keys_end; j0 += t.bk) {
      const std::size_t tile_keys = std::min(t.bk, keys_end - j0);
      const float* v_rows = p.v.data + j0 * p.d_v;
      std::size_t v_ld = p.d_v;
      if (!v_aligned) {
        block::copy_value_rows(p, j0, tile_keys, v_tile);
        v_rows = v_tile, v_ld = ldv;
      }
      for (std::size_t n = 0; n < count; ++n) {
        BlockState& b = group[n];
        // causal rule or window: skip a tile no row of the block sees
        if (!p.vis.any_visible(b.keys, j0, j0 + tile_keys)) continue;
        const std::size_t keys = std::min(tile_keys, b.keys.end_max - j0);
        block::score_tile(p, b.panel, b.i0, b.rows, b.cols, j0, keys, st, b.cols);
        block::online_softmax_tile(p, b.i0, b.rows, j0, st, b.cols, keys, b.cols, b.m, b.l, b.alpha);
        // the block's first tile starts the output; later ones rescale it by alpha
        block::weighted_values(p, b.i0, b.rows, j0, st, b.cols, b.cols, v_rows, v_ld, keys,
                               b.started ? b.alpha : nullptr, b.o);
        b.started = true;
        ++r.tiles_scored;
      }
    }
    for (std::size_t n = 0; n < count; ++n)
      block::store_rows(p, group[n].i0, group[n].rows, group[n].o, group[n].m, group[n].l, true, r);
  }
}

}  // namespace attn::detail
