// One validated attention request as the kernels see it: input views, sizes,
// the resolved scale and the visibility rule (causal and/or boolean mask).
// Built only by make_problem, after every check in engine.hpp has passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "attn/engine.hpp"

namespace attn::detail {

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  mask: (L, S) or null
struct Problem {
  MatrixView q, k, v;
  std::size_t L = 0, S = 0, d_k = 0, d_v = 0;
  float scale = 1.0f;
  bool causal = false;
  std::size_t row_offset = 0;
  const std::uint8_t* mask = nullptr;
  float max_abs_q = 0, max_abs_k = 0, max_abs_v = 0;  // largest |entry| of each input

  // Last key index + 1 that the causal rule lets row i see (S without causal).
  std::size_t key_end(std::size_t i) const {
    if (!causal) return S;
    // i + row_offset + 1, clamped to S without overflowing size_t
    const std::size_t room = S - 1;  // S >= 1
    if (i >= room || row_offset >= room - i) return S;
    return i + row_offset + 1;
  }
  bool visible(std::size_t i, std::size_t j) const {
    return j < key_end(i) && (mask == nullptr || mask[i * S + j] != 0);
  }
};

// Checks shapes, zero dimensions, null data, the scale and finiteness of
// q, k, v (in that order) and returns the problem; throws attn::Error.
// check_kv_finite = false skips the scan of k and v (attn::KeyValues did it
// and passes the magnitudes it found).
Problem make_problem(MatrixView q, MatrixView k, MatrixView v, bool causal,
                     std::optional<float> scale, const std::uint8_t* mask, std::size_t row_offset,
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
