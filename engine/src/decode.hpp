// The decode kernel: G query rows (the query heads of one KV group) against
// S cached key/value rows, with no hidden key (a new row sees everything
// cached). Used by KvCache::decode_step (kv_cache.cpp).
#pragma once

#include <cstddef>

namespace attn::detail {

// Floats of scratch decode_rows needs: G·S logits, G·d_k scaled queries, G sums.
inline double decode_scratch_floats(std::size_t G, std::size_t S, std::size_t d_k) {
  return static_cast<double>(G) * (static_cast<double>(S) + static_cast<double>(d_k) + 1.0);
}

// q: (G, d_k)  k: (S, d_k)  v: (S, d_v)  out: (G, d_v)  scratch: decode_scratch_floats
// float32, SIMD; the caller has checked that no float32 step can overflow.
void decode_rows(const float* q, std::size_t G, const float* k, const float* v, std::size_t S,
                 std::size_t d_k, std::size_t d_v, float scale, float* scratch, float* out);

}  // namespace attn::detail
