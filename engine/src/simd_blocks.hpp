// SIMD building blocks over float32 rows: dot, axpy, scale, max, exp-sum, and
// their register-tiled forms dot_tile (a block of logits) and axpy_tile (a
// block of weighted sums of value rows). Each is an xsimd::batch<float> loop
// (default arch: sse2/sse4.x/avx natively, SIMD128 in WebAssembly via
// -msse4.1) plus an explicit leftovers loop, so no block ever reads or writes
// past element n-1 of any row. Kernels call only these.
#pragma once

#include <cstddef>
#include <cmath>
#include <limits>

// GCC 12 reports _mm512_undefined_ps inside the AVX-512 intrinsics that
// xsimd's haddp uses as uninitialized (the false positive of GCC bug 105593,
// -Wuninitialized flavour); the warning is silenced for those headers only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <xsimd/xsimd.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace attn::simd {

using batch = xsimd::batch<float>;
constexpr std::size_t width = batch::size;

// Σ a[t]·b[t] for t < n.
inline float dot(const float* a, const float* b, std::size_t n) {
  const std::size_t vec_end = n - n % width;
  batch acc(0.0f);
  std::size_t t = 0;
  for (; t < vec_end; t += width)
    acc = xsimd::fma(batch::load_unaligned(a + t), batch::load_unaligned(b + t), acc);
  float sum = xsimd::hadd(acc);
  for (; t < n; ++t) sum += a[t] * b[t];  // leftovers
  return sum;
}

// y[t] += alpha·x[t] for t < n.
inline void axpy(float* y, float alpha, const float* x, std::size_t n) {
  const std::size_t vec_end = n - n % width;
  const batch a(alpha);
  std::size_t t = 0;
  for (; t < vec_end; t += width)
    xsimd::fma(a, batch::load_unaligned(x + t), batch::load_unaligned(y + t)).store_unaligned(y + t);
  for (; t < n; ++t) y[t] += alpha * x[t];  // leftovers
}

// y[t] *= alpha for t < n.
inline void scale(float* y, float alpha, std::size_t n) {
  const std::size_t vec_end = n - n % width;
  const batch a(alpha);
  std::size_t t = 0;
  for (; t < vec_end; t += width) (batch::load_unaligned(y + t) * a).store_unaligned(y + t);
  for (; t < n; ++t) y[t] *= alpha;  // leftovers
}

// max over x[0..n); -inf when n == 0 or every entry is -inf.
inline float max(const float* x, std::size_t n) {
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const std::size_t vec_end = n - n % width;
  batch acc(neg_inf);
  std::size_t t = 0;
  for (; t < vec_end; t += width) acc = xsimd::max(acc, batch::load_unaligned(x + t));
  alignas(64) float lanes[width];
  acc.store_aligned(lanes);
  float m = neg_inf;
  for (std::size_t lane = 0; lane < width; ++lane) m = lanes[lane] > m ? lanes[lane] : m;
  for (; t < n; ++t) m = x[t] > m ? x[t] : m;  // leftovers
  return m;
}

// x[t] = exp(x[t] - m) in place and returns Σ x[t]. Entries at -inf become 0.
inline float exp_sum(float* x, std::size_t n, float m) {
  const std::size_t vec_end = n - n % width;
  const batch mb(m);
  batch acc(0.0f);
  std::size_t t = 0;
  for (; t < vec_end; t += width) {
    const batch e = xsimd::exp(batch::load_unaligned(x + t) - mb);
    e.store_unaligned(x + t);
    acc += e;
  }
  float sum = xsimd::hadd(acc);
  for (; t < n; ++t) {  // leftovers
    x[t] = std::exp(x[t] - m);
    sum += x[t];
  }
  return sum;
}

// ---------------------------------------------------------------- tiled blocks
// Register tile of the two blocks below: tile_rows rows of a (or y) at once
// against tile_keys rows of b (or tile_cols batches of columns), so every load
// feeds several FMAs and dot_tile reduces its tile_rows·tile_keys sums with a
// single transposing haddp per `width` sums instead of one hadd per dot.
// Sized for the register file: 16 accumulators with AVX-512's 32 registers,
// 8 with the 16 of SSE / AVX / WebAssembly SIMD128 (V8 on x64; 4×4 and
// 1×4 tiles measured slower there).
constexpr std::size_t tile_rows = width >= 16 ? 4 : 2;
constexpr std::size_t tile_keys = 4;
constexpr std::size_t tile_cols = 4;  // batches of columns in axpy_tile

namespace tile {

// Which accumulator's sum xsimd::haddp puts in each lane, found once by
// probing: xsimd 8.1's AVX-512 haddp returns lanes 2,3 <-> 4,5 and
// 10,11 <-> 12,13 swapped; SSE (and so SIMD128) returns them in order.
struct HaddpLanes {
  std::size_t row[width];
  HaddpLanes() {
    batch unit[width];
    for (std::size_t e = 0; e < width; ++e) {
      alignas(64) float lanes[width] = {};
      lanes[0] = static_cast<float>(e + 1);
      unit[e] = batch::load_aligned(lanes);
    }
    alignas(64) float sums[width];
    xsimd::haddp(unit).store_aligned(sums);
    for (std::size_t lane = 0; lane < width; ++lane) row[lane] = static_cast<std::size_t>(sums[lane]) - 1;
  }
};
inline const HaddpLanes haddp_lanes;

// s[r·ld_s + c] = alpha · Σ_t a[r·ld_a + t]·b[c·ld_b + t] for r < R, c < C, t < n.
template <std::size_t R, std::size_t C>
inline void dot_rc(float* s, std::size_t ld_s, const float* a, std::size_t ld_a, const float* b,
                   std::size_t ld_b, float alpha, std::size_t n) {
  constexpr std::size_t RC = R * C;
  const std::size_t vec_end = n - n % width;
  batch acc[RC];
  for (std::size_t e = 0; e < RC; ++e) acc[e] = batch(0.0f);
  std::size_t t = 0;
  for (; t < vec_end; t += width) {
    batch b_t[C];
    for (std::size_t c = 0; c < C; ++c) b_t[c] = batch::load_unaligned(b + c * ld_b + t);
    for (std::size_t r = 0; r < R; ++r) {
      const batch a_t = batch::load_unaligned(a + r * ld_a + t);
      for (std::size_t c = 0; c < C; ++c) acc[r * C + c] = xsimd::fma(a_t, b_t[c], acc[r * C + c]);
    }
  }
  alignas(64) float sums[RC];
  if constexpr (RC % width == 0) {
    alignas(64) float lanes[width];
    for (std::size_t g = 0; g < RC; g += width) {
      xsimd::haddp(acc + g).store_aligned(lanes);
      for (std::size_t lane = 0; lane < width; ++lane) sums[g + haddp_lanes.row[lane]] = lanes[lane];
    }
  } else {
    for (std::size_t e = 0; e < RC; ++e) sums[e] = xsimd::hadd(acc[e]);
  }
  for (; t < n; ++t)  // leftovers
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) sums[r * C + c] += a[r * ld_a + t] * b[c * ld_b + t];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) s[r * ld_s + c] = alpha * sums[r * C + c];
}

// y[r·ld_y + t] += Σ_c w[r·ld_w + c]·x[c·ld_x + t] for r < R, c < keys and
// the B·width columns t starting at y, x (the caller keeps them in range).
template <std::size_t R, std::size_t B>
inline void axpy_rb(float* y, std::size_t ld_y, const float* w, std::size_t ld_w, const float* x,
                    std::size_t ld_x, std::size_t keys) {
  batch acc[R * B];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t b = 0; b < B; ++b)
      acc[r * B + b] = batch::load_unaligned(y + r * ld_y + b * width);
  for (std::size_t c = 0; c < keys; ++c) {
    batch x_c[B];
    for (std::size_t b = 0; b < B; ++b) x_c[b] = batch::load_unaligned(x + c * ld_x + b * width);
    for (std::size_t r = 0; r < R; ++r) {
      const batch w_rc(w[r * ld_w + c]);
      for (std::size_t b = 0; b < B; ++b) acc[r * B + b] = xsimd::fma(w_rc, x_c[b], acc[r * B + b]);
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t b = 0; b < B; ++b)
      acc[r * B + b].store_unaligned(y + r * ld_y + b * width);
}

// axpy_rb over all n columns of R rows: blocks of B batches, then single
// batches, then the leftover columns one by one.
template <std::size_t R>
inline void axpy_r(float* y, std::size_t ld_y, const float* w, std::size_t ld_w, const float* x,
                   std::size_t ld_x, std::size_t keys, std::size_t n) {
  constexpr std::size_t block = tile_cols * width;
  const std::size_t block_end = n - n % block, vec_end = n - n % width;
  std::size_t t = 0;
  for (; t < block_end; t += block) axpy_rb<R, tile_cols>(y + t, ld_y, w, ld_w, x + t, ld_x, keys);
  for (; t < vec_end; t += width) axpy_rb<R, 1>(y + t, ld_y, w, ld_w, x + t, ld_x, keys);
  for (; t < n; ++t)  // leftovers
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < keys; ++c) y[r * ld_y + t] += w[r * ld_w + c] * x[c * ld_x + t];
}

}  // namespace tile

// A block of scaled logits, the dot above for many (row, key) pairs:
// s[r·ld_s + c] = alpha · Σ_t a[r·ld_a + t]·b[c·ld_b + t]
// for r < rows, c < keys, t < n. a: (rows, n) rows ld_a apart, b: (keys, n)
// rows ld_b apart, s: (rows, keys) rows ld_s apart.
inline void dot_tile(float* s, std::size_t ld_s, const float* a, std::size_t ld_a, const float* b,
                     std::size_t ld_b, float alpha, std::size_t rows, std::size_t keys,
                     std::size_t n) {
  const std::size_t row_end = rows - rows % tile_rows, key_end = keys - keys % tile_keys;
  std::size_t r = 0;
  for (; r < row_end; r += tile_rows) {
    float* s_r = s + r * ld_s;
    const float* a_r = a + r * ld_a;
    std::size_t c = 0;
    for (; c < key_end; c += tile_keys)
      tile::dot_rc<tile_rows, tile_keys>(s_r + c, ld_s, a_r, ld_a, b + c * ld_b, ld_b, alpha, n);
    for (; c < keys; ++c)  // leftover keys
      tile::dot_rc<tile_rows, 1>(s_r + c, ld_s, a_r, ld_a, b + c * ld_b, ld_b, alpha, n);
  }
  for (; r < rows; ++r) {  // leftover rows
    float* s_r = s + r * ld_s;
    const float* a_r = a + r * ld_a;
    std::size_t c = 0;
    for (; c < key_end; c += tile_keys)
      tile::dot_rc<1, tile_keys>(s_r + c, ld_s, a_r, ld_a, b + c * ld_b, ld_b, alpha, n);
    for (; c < keys; ++c) s_r[c] = alpha * dot(a_r, b + c * ld_b, n);
  }
}

// The axpy above for a block of rows and keys, accumulated in registers:
// y[r·ld_y + t] += Σ_c w[r·ld_w + c]·x[c·ld_x + t]
// for r < rows, c < keys (in increasing c, as repeated axpy would), t < n.
// y: (rows, n) rows ld_y apart, w: (rows, keys) rows ld_w apart,
// x: (keys, n) rows ld_x apart.
inline void axpy_tile(float* y, std::size_t ld_y, const float* w, std::size_t ld_w, const float* x,
                      std::size_t ld_x, std::size_t rows, std::size_t keys, std::size_t n) {
  const std::size_t row_end = rows - rows % tile_rows;
  std::size_t r = 0;
  for (; r < row_end; r += tile_rows)
    tile::axpy_r<tile_rows>(y + r * ld_y, ld_y, w + r * ld_w, ld_w, x, ld_x, keys, n);
  for (; r < rows; ++r)  // leftover rows
    tile::axpy_r<1>(y + r * ld_y, ld_y, w + r * ld_w, ld_w, x, ld_x, keys, n);
}

}  // namespace attn::simd
