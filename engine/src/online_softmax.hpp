// One step of online softmax (Milakov & Gimelshein 2018; as used tile by
// tile in FlashAttention, Dao et al. 2022): fold a tile of scaled logits into
// a row's running max m, running sum l and unnormalised accumulator acc.
// Used by the lesson's step-by-step trace (the chunked kernel does the same
// step for a whole block of rows at once, in attention_block.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "simd_blocks.hpp"

namespace attn::detail {

struct OnlineUpdate {
  float tile_max = 0;  // max logit in the tile, -inf if all hidden
  float rescale = 1;   // exp(m_old - m_new); 0 on the first visible tile, 1 if nothing visible
};

// The softmax half of one step: folds the tile's logits s into m and l and
// rescales acc by exp(m_old - m_new). s is overwritten by the tile's weights
// exp(s - m_new) (all 0 when nothing is visible); the caller then adds
// Σ_c s[c]·v_c to acc, key by key (online_update).
// s: (w) logits of keys [j0, j0 + w), hidden = -inf   acc: (d_v)
inline OnlineUpdate online_rescale(float* s, std::size_t w, std::size_t d_v, float& m, float& l,
                                   float* acc) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  OnlineUpdate u;
  u.tile_max = simd::max(s, w);
  if (u.tile_max == neg_inf) {  // nothing visible: state unchanged, weights 0
    std::fill(s, s + w, 0.0f);
    return u;
  }

  const float m_new = u.tile_max > m ? u.tile_max : m;
  // exp(0) = 1 exactly: when the max does not move (most tiles after the
  // first few) neither exp nor the rescale of acc is needed
  u.rescale = m == neg_inf ? 0.0f : m_new == m ? 1.0f : std::exp(m - m_new);
  const float tile_sum = simd::exp_sum(s, w, m_new);
  l = l * u.rescale + tile_sum;
  if (u.rescale != 1.0f) simd::scale(acc, u.rescale, d_v);
  m = m_new;
  return u;
}

// One whole step for one row.
// s: (w) logits of keys [j0, j0 + w), hidden = -inf; overwritten by exp(s - m_new)
// v_tile: (w, d_v) rows j0.. of v   acc: (d_v)
inline OnlineUpdate online_update(float* s, std::size_t w, const float* v_tile, std::size_t d_v,
                                  float& m, float& l, float* acc) {
  const OnlineUpdate u = online_rescale(s, w, d_v, m, l, acc);
  for (std::size_t c = 0; c < w; ++c)
    if (s[c] != 0.0f) simd::axpy(acc, s[c], v_tile + c * d_v, d_v);
  return u;
}

}  // namespace attn::detail
