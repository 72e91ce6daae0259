// Small helpers shared by the engine tests: seeded random matrices and the
// tolerance every fast path must meet against the scalar reference
// (1e-5 relative or 1e-6 absolute at the default 1/sqrt(d_k) scale).
// Uses only the public header.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attn/engine.hpp"

namespace test {

// The kernel variants every table-driven test sweeps: ONE list, so that a new
// variant is tested everywhere at once. The static_assert (ggml's tripwire)
// fails to compile when attn::Variant gains a member this list lacks.
inline constexpr attn::Variant kAllVariants[] = {attn::Variant::Reference, attn::Variant::Materialized,
                                                 attn::Variant::Chunked};
static_assert(sizeof(kAllVariants) / sizeof(kAllVariants[0]) == static_cast<std::size_t>(attn::Variant::Count),
              "attn::Variant has a variant that test::kAllVariants does not list");
// The float32 SIMD kernels (every variant but the double-precision reference).
inline constexpr attn::Variant kFastVariants[] = {attn::Variant::Materialized, attn::Variant::Chunked};
static_assert(sizeof(kFastVariants) / sizeof(kFastVariants[0]) + 1 == sizeof(kAllVariants) / sizeof(kAllVariants[0]),
              "a new fast variant belongs in test::kFastVariants too");
// Whether a variant can return the L×S weights (all but chunked, which never holds them).
inline bool has_weights(attn::Variant v) { return v != attn::Variant::Chunked; }
inline std::vector<attn::Variant> variants_with_weights() {
  std::vector<attn::Variant> out;
  for (attn::Variant v : kAllVariants)
    if (has_weights(v)) out.push_back(v);
  return out;
}

// Query rows of a block rounded up to whole SIMD batches, as the fast kernels
// lay them out, and a bound on the chunked kernel's tile memory.
inline std::size_t padded(std::size_t rows) {
  const std::size_t w = attn::simd_width();
  return (rows + w - 1) / w * w;
}
// A bound on the chunked kernel's scratch stated from the tiles alone, not from
// how the kernel lays them out: a few tiles of scores (bq x bk) and of query,
// output and value rows (bq or bk by d), for up to 4 query blocks at a time,
// each padded to the SIMD width. A kernel that held anything L x S would pass it
// only for tiny shapes, which the tests do not use.
inline std::size_t chunked_scratch_bound(std::size_t bq, std::size_t bk, std::size_t d_k, std::size_t d_v) {
  const std::size_t rows = 4 * padded(bq) + padded(bk);
  return 4 * (2 * padded(bq) * bk + 2 * rows * (d_k + d_v + 4));
}

inline attn::Matrix randn(std::uint64_t seed, std::size_t rows, std::size_t cols) {
  attn::NormalRng rng(seed);
  return attn::random_normal(rng, rows, cols);
}

inline attn::Matrix from_rows(const std::vector<std::vector<float>>& rows) {
  attn::Matrix m(rows.size(), rows.at(0).size());
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) m.at(i, j) = rows[i].at(j);
  return m;
}

// A 0/1 matrix written one row per string of binary digits ("011" = [0, 1, 1]).
inline attn::Matrix from_bits(const std::vector<std::string>& rows) {
  attn::Matrix m(rows.size(), rows.at(0).size());
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) m.at(i, j) = rows[i].at(j) == '1' ? 1.0f : 0.0f;
  return m;
}

inline bool close(float got, float want, float abs_tol = 1e-6f) {
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= abs_tol + 1e-5f * std::fabs(want);
}

// Number of entries of got outside the tolerance around want (-1 if the
// shapes differ); NaN always counts.
inline int mismatches(const attn::Matrix& got, const attn::Matrix& want, float abs_tol = 1e-6f) {
  if (got.rows != want.rows || got.cols != want.cols) return -1;
  int bad = 0;
  for (std::size_t t = 0; t < want.data.size(); ++t)
    if (!close(got.data[t], want.data[t], abs_tol) || std::isnan(got.data[t])) ++bad;
  return bad;
}

// Largest finite |x| in m (the logit magnitude, for unscaled tolerances).
inline float max_abs_finite(const attn::Matrix& m) {
  float top = 0.0f;
  for (float x : m.data)
    if (std::isfinite(x)) top = std::fmax(top, std::fabs(x));
  return top;
}

inline attn::AttentionResult run(const attn::Matrix& q, const attn::Matrix& k,
                                 const attn::Matrix& v, attn::AttentionOptions opt,
                                 attn::Variant variant) {
  opt.variant = variant;
  return attn::attention(q.view(), k.view(), v.view(), opt);
}

}  // namespace test
