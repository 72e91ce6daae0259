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
// check_kv_finite = false skips the scan of k and v (attn::KeyValues did it).
Problem make_problem(MatrixView q, MatrixView k, MatrixView v, bool causal,
                     std::optional<float> scale, const std::uint8_t* mask, std::size_t row_offset,
                     const char* fn, bool check_kv_finite = true);

// Scalar reference for one query row, in double: logits receives the scaled
// logits (-inf where hidden), w the weights (0 where hidden), out_i the
// output. Returns false if no key is visible (then w and out_i are all zero).
// logits, w: (S)  out_i: (d_v)
bool reference_row(const Problem& p, std::size_t i, double* logits, double* w, double* out_i);

}  // namespace attn::detail
