// SIMD building blocks over float32 rows: dot, axpy, scale, max, exp-sum.
// Each is an xsimd::batch<float> loop (default arch: sse2/sse4.x/avx/avx-512
// natively, SIMD128 in WebAssembly via -msse4.1) plus an explicit leftovers
// loop, so no block ever reads or writes past element n-1 of any row. The
// row-at-a-time parts of the engine (experiments, the online-softmax trace,
// softmax_row) use these; the attention kernels use gemm_tile.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
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

#if defined(__EMSCRIPTEN__)
#include <wasm_simd128.h>
#endif

namespace attn::simd {

using batch = xsimd::batch<float>;
constexpr std::size_t width = batch::size;

// Three operations of the softmax inner loops, each one instruction on
// WebAssembly where xsimd's SSE path is emulated with several: Emscripten's
// _mm_max_ps is a compare plus a bitselect (NaN rules of x86), and
// _mm_blendv_ps a shift plus a bitselect, where f32x4.pmax and v128.and do.
#if defined(__EMSCRIPTEN__)
inline batch vmax(batch a, batch b) {
  return batch(static_cast<__m128>(wasm_f32x4_pmax(static_cast<v128_t>(a.data), static_cast<v128_t>(b.data))));
}
// value where x >= bound, else +0 (also for NaN x)
inline batch zero_below(batch value, batch x, batch bound) {
  const v128_t keep = wasm_f32x4_ge(static_cast<v128_t>(x.data), static_cast<v128_t>(bound.data));
  return batch(static_cast<__m128>(wasm_v128_and(static_cast<v128_t>(value.data), keep)));
}
// m, or 0 where m is -inf
inline batch zero_if_neg_inf(batch m) {
  const v128_t neg_inf = wasm_f32x4_splat(-std::numeric_limits<float>::infinity());
  const v128_t is_neg_inf = wasm_f32x4_eq(static_cast<v128_t>(m.data), neg_inf);
  return batch(static_cast<__m128>(wasm_v128_andnot(static_cast<v128_t>(m.data), is_neg_inf)));
}
#else
inline batch vmax(batch a, batch b) { return xsimd::max(a, b); }
inline batch zero_below(batch value, batch x, batch bound) {
  return xsimd::select(x >= bound, value, batch(0.0f));
}
inline batch zero_if_neg_inf(batch m) {
  return xsimd::select(m == batch(-std::numeric_limits<float>::infinity()), batch(0.0f), m);
}
#endif

// a·b + c for the matrix kernels. The relaxed-SIMD build of the WebAssembly
// module (-mrelaxed-simd) uses one f32x4.relaxed_madd, fused where the CPU
// has FMA (clang 14 emits it under its prototype opcode, which
// build-scripts/relax-wasm.mjs rewrites); the plain SIMD128 build does a
// multiply and an add, and native builds use xsimd's fma.
#if defined(__EMSCRIPTEN__) && defined(__wasm_relaxed_simd__)
inline batch madd(batch a, batch b, batch c) {
  return batch(static_cast<__m128>(__builtin_wasm_fma_f32x4(static_cast<__f32x4>(a.data), static_cast<__f32x4>(b.data),
                                                            static_cast<__f32x4>(c.data))));
}
#else
inline batch madd(batch a, batch b, batch c) { return xsimd::fma(a, b, c); }
#endif

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

// x[t] = exp_batch(x[t] - m) in place (std::exp on the leftovers) and returns Σ x[t].
// Entries at -inf become 0. The exponential is a parameter because the softmax
// kernels use the cheaper simd::exp_softmax (fast_exp.hpp) and the statistics xsimd::exp.
template <class ExpBatch>
inline float exp_sum_with(float* x, std::size_t n, float m, ExpBatch exp_batch) {
  const std::size_t vec_end = n - n % width;
  const batch mb(m);
  batch acc(0.0f);
  std::size_t t = 0;
  for (; t < vec_end; t += width) {
    const batch e = exp_batch(batch::load_unaligned(x + t) - mb);
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

inline float exp_sum(float* x, std::size_t n, float m) {
  return exp_sum_with(x, n, m, [](batch b) { return xsimd::exp(b); });
}

}  // namespace attn::simd
