// One validated attention request as the kernels see it: input views, sizes,
// the resolved scale and the visibility rule (visibility.hpp).
// Built only by make_problem, after every check in engine.hpp has passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "attn/engine.hpp"
#include "visibility.hpp"

namespace attn::detail {

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  vis.mask: (L, S) or null
struct Problem {
  MatrixView q, k, v;
  std::size_t L = 0, S = 0, d_k = 0, d_v = 0;
  float scale = 1.0f;
  Visibility vis;  // which keys each row sees (visibility.hpp)
  float max_abs_q = 0, max_abs_k = 0, max_abs_v = 0;  // largest |entry| of each input
};

// The scaled logit of query row i (q_i points at it) and key j in double: the
// reference and the online-softmax trace both compute their logits this way.
inline double reference_logit(const Problem& p, const float* q_i, std::size_t j) {
  const float* k_j = p.k.data + j * p.d_k;
  double dot = 0.0;
  for (std::size_t t = 0; t < p.d_k; ++t) dot += static_cast<double>(q_i[t]) * k_j[t];
  return static_cast<double>(p.scale) * dot;
}

// Checks shapes, zero dimensions, null data, the scale and finiteness of
// q, k, v (in that order) and returns the problem; throws attn::Error.
// check_kv_finite = false skips the scan of k and v (attn::KeyValues did it
// and passes the magnitudes it found).
// The rule comes from opt's causal, window, row_offset, query_period and
// mask; its other fields are the caller's (kernel choice, tiles).
Problem make_problem(MatrixView q, MatrixView k, MatrixView v, const AttentionOptions& opt,
                     const char* fn, bool check_kv_finite = true, float max_abs_k = 0,
                     float max_abs_v = 0);

// True when no float32 step of the fast kernels can overflow: the scaled
// query entries, every partial sum of q·k (scaled or not), every logit and
// every un-normalised sum of value rows stay below FLT_MAX/4, bounded from
// the inputs' largest magnitudes (a pass they already get, see
// require_finite). When it is false (entries near 1e19 and up, or values
// near FLT_MAX/S: inputs no lesson uses), float32 would turn inf·0 or
// inf − inf into NaN, and a NaN logit's weight into 0, dropping a key or a
// whole row without a word; the callers then take the double-precision
// path (reference_attention with float32_scores) instead.
bool fast_path_safe(const Problem& p);

// NonFinite if a visible logit of row i (in double) is beyond float32's
// range: the fast paths hand back float32 scores and state, so they refuse
// it, where the reference variant works on in double.
void require_float_logit(double logit, const char* fn, std::size_t i, std::size_t j);

// Scalar reference for one query row, in double: logits receives the scaled
// logits (-inf where hidden), w the weights (0 where hidden), out_i the
// output. Returns false if no key is visible (then w and out_i are all zero).
// logits, w: (S)  out_i: (d_v)
bool reference_row(const Problem& p, std::size_t i, double* logits, double* w, double* out_i);

}  // namespace attn::detail
