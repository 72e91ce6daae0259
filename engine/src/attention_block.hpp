// The steps both SIMD kernels apply to one block of query rows, in the
// "transposed" layout that keeps every step vertical:
//
//   panel  (d_k, cols)   scale·Qᵀ of the block's rows, zero-padded columns
//   st     (keys, cols)  transposed scores Sᵀ: st[c·ld + r] = logit(i0+r, j0+c)
//   o      (cols, d_v)   the block's output rows (unnormalized in chunked)
//
// cols is the row count rounded up to the SIMD width, so a column of st
// (one query row) is spread over lanes and the softmax over keys is a
// column-wise max / exp / sum with no horizontal reduction, and Q·Kᵀ and
// P·V are both the broadcast-A micro-kernel of gemm_tile.hpp. The padding
// columns hold logits of zero rows and are never written to the output.
#pragma once

#include <cstddef>

#include "problem.hpp"

namespace attn::detail::block {

// Rows rounded up to whole SIMD batches.
std::size_t padded_cols(std::size_t rows);

// panel[t·cols + r] = scale·q[(i0+r)·d_k + t] for r < rows, 0 for rows ≤ r < cols.
void pack_query_panel(const Problem& p, std::size_t i0, std::size_t rows, std::size_t cols,
                      float* panel);

// st[c·ld + r] = logit of query i0+r and key j0+c for c < keys, r < cols,
// -inf where the visibility rule hides the key from a real row. Tiles of
// keys hidden from every row of a panel are filled, not computed; tiles
// every row sees get no per-entry test.
void score_tile(const Problem& p, const float* panel, std::size_t i0, std::size_t rows,
                std::size_t cols, std::size_t j0, std::size_t keys, float* st, std::size_t ld);

// Exact softmax down each column over keys c < keys: st becomes the weights
// (zeros for a column that sees no key), l[r] the sum of exponentials
// before normalizing (0 for such a column), m[r] the column max.
void softmax_columns(float* st, std::size_t ld, std::size_t keys, std::size_t cols, float* m,
                     float* l);

// Online-softmax step for one tile of keys j0 .. j0+keys-1 seen by the block's
// rows i0 .. i0+rows-1: m, l are the running max and sum of every column; on
// return st holds exp(logit − m_new), m and l are updated and alpha[r] =
// exp(m_old − m_new) is the factor the column's output accumulated so far
// must be multiplied by. On a tile the causal diagonal or a window's end
// crosses, a batch of columns stops at the last key its rows (and the P·V
// strips that hold them) can see: the entries past it stay -inf and are
// never read.
void online_softmax_tile(const Problem& p, std::size_t i0, std::size_t rows, std::size_t j0,
                         float* st, std::size_t ld, std::size_t keys, std::size_t cols, float* m,
                         float* l, float* alpha);

// o (cols × d_v) = o·row_scale (or 0 when row_scale is null) + Pᵀᵀ·V for
// the keys j0 .. j0+keys-1: P is read from st transposed, and
// v_rows[c·ldv + t] is the value row of key j0+c (V itself, or an aligned
// copy of the tile). Each strip of query rows stops at the last key its
// rows can see, so the hidden half of a diagonal tile is not multiplied
// (keys before a window's start have weight 0 and are).
void weighted_values(const Problem& p, std::size_t i0, std::size_t rows, std::size_t j0,
                     const float* st, std::size_t ld, std::size_t cols, const float* v_rows,
                     std::size_t ldv, std::size_t keys, const float* row_scale, float* o);

// v_tile[c·ldv + t] = v[(j0+c)·d_v + t]: a tile of value rows copied to
// cache-line-aligned scratch, rows padded to ldv = padded_cols(d_v) floats.
void copy_value_rows(const Problem& p, std::size_t j0, std::size_t keys, float* v_tile);

// out rows i0 .. i0+rows-1 = o rows × inv_l (row scale 1/l, 0 when l = 0);
// rows with m = -inf saw no key: their output is zero and they are recorded;
// a non-finite m or l means a logit overflowed float32 (attn::Error).
void store_rows(const Problem& p, std::size_t i0, std::size_t rows, const float* o, const float* m,
                const float* l, bool divide_by_l, AttentionResult& r);

}  // namespace attn::detail::block
