// The register-blocked micro-kernel behind both attention kernels:
//
//   C[m][n] = C[m][n]·row_scale[m] (or 0) + Σ_k A[m][k]·B[k][n]
//   for m < MR, n < NV·width, k < K
//
// A is read one scalar at a time and broadcast (A[m][k] = a[m·a_m + k·a_k],
// so A may be a row-major block or the transpose of one: K rows as they are
// for Q·Kᵀ, the transposed score tile for P·V, no packing), B one row of NV
// batches at a time (B[k][n] = b[k·ldb + n]). The MR·NV accumulators stay in
// registers for the whole k loop: every B load feeds MR multiply-adds and
// every broadcast feeds NV, which is what lifts the kernels from load-bound
// dot products to the arithmetic ceiling. No horizontal sums are needed.
//
// Q·Kᵀ uses it with A = K rows and B = the packed, scaled Qᵀ panel (so the
// result is the transposed score tile); P·V with A = that tile read
// transposed and B = V rows. `gemm_block` covers any M×N with the largest
// tile that fits, then smaller ones, then scalar leftover columns.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "simd_blocks.hpp"

namespace attn::simd::gemm {

// Tile shape per instruction set, sized to the register file: accumulators +
// NV loaded B batches + one broadcast (+ one product without FMA) must fit.
//   AVX-512 (32 zmm, 2 FMA ports): 6×4 batches = 24 accumulators.
//   AVX/AVX2 (16 ymm):             6×2 batches = 12 accumulators.
//   SSE and WebAssembly SIMD128 (16 xmm, V8 keeps a few, no FMA): 4×2.
#if defined(__EMSCRIPTEN__)
constexpr std::size_t mr = 4, nv = 2;
#else
constexpr std::size_t mr = width >= 16 ? 6 : (width == 8 ? 6 : 4);
constexpr std::size_t nv = width >= 16 ? 4 : 2;
#endif
constexpr std::size_t nr = nv * width;  // columns of one full tile

struct Args {
  std::size_t K;
  const float* a;
  std::size_t a_m, a_k;
  const float* b;
  std::size_t ldb;
  float* c;
  std::size_t ldc;
  const float* row_scale;  // C = C·row_scale[m] + A·B; null: C = A·B
};

namespace detail {
// The tile's loops are written as fold expressions over index sequences, so
// they are straight-line code at any optimization level and the MR·NV
// accumulators (acc[e], e = m·NV + v) stay scalars in registers rather
// than an array in memory (a partially unrolled loop measured 10× slower
// in WebAssembly).
template <std::size_t NV, std::size_t... E>
inline void start(batch* acc, const Args& g, std::index_sequence<E...>) {
  if (g.row_scale != nullptr)
    ((acc[E] = batch::load_unaligned(g.c + (E / NV) * g.ldc + (E % NV) * width) *
               batch(g.row_scale[E / NV])), ...);
  else
    ((acc[E] = batch(0.0f)), ...);
}
template <std::size_t NV, std::size_t... E>
inline void step(batch* acc, const float* a, std::size_t a_m, const batch* b_k, std::index_sequence<E...>) {
  ((acc[E] = simd::madd(batch(a[(E / NV) * a_m]), b_k[E % NV], acc[E])), ...);
}
template <std::size_t... V>
inline void load_b(batch* b_k, const float* b, std::index_sequence<V...>) {
  ((b_k[V] = batch::load_unaligned(b + V * width)), ...);
}
template <std::size_t NV, std::size_t... E>
inline void finish(const batch* acc, const Args& g, std::index_sequence<E...>) {
  (acc[E].store_unaligned(g.c + (E / NV) * g.ldc + (E % NV) * width), ...);
}
}  // namespace detail

// One MR×NV tile. A_CONTIGUOUS (a_m = 1, as in P·V) makes the MR broadcasts
// constant offsets from one pointer; WebAssembly has no scaled-index
// addressing, so a runtime a_m costs V8 an address computation per broadcast.
template <std::size_t MR, std::size_t NV, bool A_CONTIGUOUS>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void tile_body(const Args& g) {
  using tiles = std::make_index_sequence<MR * NV>;
  batch acc[MR * NV];
  detail::start<NV>(acc, g, tiles{});
  const float* a = g.a;
  const float* b = g.b;
  const std::size_t a_m = A_CONTIGUOUS ? 1 : g.a_m;
  for (std::size_t k = 0; k < g.K; ++k, a += g.a_k, b += g.ldb) {
    batch b_k[NV];
    detail::load_b(b_k, b, std::make_index_sequence<NV>{});
    detail::step<NV>(acc, a, a_m, b_k, tiles{});
  }
  detail::finish<NV>(acc, g, tiles{});
}

// Never inlined into their callers: inlined into the loops of gemm_block,
// clang interleaved neighbouring tiles and the WebAssembly kernel ran at 40%
// of its speed. `tile` is one tile; `strip` is `count` full tiles down the M
// dimension in one call (mr rows each), which saves a call and the argument
// set-up per tile.
template <std::size_t MR, std::size_t NV, bool A_CONTIGUOUS>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void tile(const Args& args) {
  const Args g = args;  // a local copy: stores through c cannot alias it
  tile_body<MR, NV, A_CONTIGUOUS>(g);
}

template <std::size_t NV, bool A_CONTIGUOUS>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void strip(const Args& args, std::size_t count) {
  Args g = args;
  for (std::size_t i = 0; i < count; ++i) {
    tile_body<mr, NV, A_CONTIGUOUS>(g);
    g.a += mr * g.a_m;
    g.c += mr * g.ldc;
    if (g.row_scale != nullptr) g.row_scale += mr;
  }
}

// Leftover columns (fewer than `width`), one scalar at a time.
inline void tile_scalar(const Args& g, std::size_t rows, std::size_t cols) {
  for (std::size_t m = 0; m < rows; ++m)
    for (std::size_t n = 0; n < cols; ++n) {
      float sum = g.row_scale != nullptr ? g.c[m * g.ldc + n] * g.row_scale[m] : 0.0f;
      for (std::size_t k = 0; k < g.K; ++k) sum += g.a[m * g.a_m + k * g.a_k] * g.b[k * g.ldb + n];
      g.c[m * g.ldc + n] = sum;
    }
}

namespace detail {
using TileFn = void (*)(const Args&);
template <bool A_CONTIGUOUS, std::size_t... I>
constexpr std::array<TileFn, sizeof...(I)> make_table(std::index_sequence<I...>) {
  return {&tile<I / nv + 1, I % nv + 1, A_CONTIGUOUS>...};
}
// tiles[(rows-1)·nv + (batches-1)] for 1 ≤ rows ≤ mr, 1 ≤ batches ≤ nv
inline constexpr std::array<TileFn, mr * nv> tiles_strided =
    make_table<false>(std::make_index_sequence<mr * nv>{});
inline constexpr std::array<TileFn, mr * nv> tiles_contiguous =
    make_table<true>(std::make_index_sequence<mr * nv>{});
using StripFn = void (*)(const Args&, std::size_t);
template <bool A_CONTIGUOUS, std::size_t... V>
constexpr std::array<StripFn, sizeof...(V)> make_strips(std::index_sequence<V...>) {
  return {&strip<V + 1, A_CONTIGUOUS>...};
}
// strips[batches-1] for 1 ≤ batches ≤ nv
inline constexpr std::array<StripFn, nv> strips_strided = make_strips<false>(std::make_index_sequence<nv>{});
inline constexpr std::array<StripFn, nv> strips_contiguous = make_strips<true>(std::make_index_sequence<nv>{});
}  // namespace detail

// One tile of `rows` ≤ mr rows and `batches` ≤ nv batches of columns.
inline void tile_any(const Args& g, std::size_t rows, std::size_t batches) {
  const auto& table = g.a_m == 1 ? detail::tiles_contiguous : detail::tiles_strided;
  table[(rows - 1) * nv + (batches - 1)](g);
}

// `count` full tiles (mr rows each) stacked down M, `batches` ≤ nv batches wide.
inline void strip_any(const Args& g, std::size_t count, std::size_t batches) {
  const auto& table = g.a_m == 1 ? detail::strips_contiguous : detail::strips_strided;
  table[batches - 1](g, count);
}

// The whole M×N block: full tiles, then partial ones at the bottom and right
// edges, then the last N % width columns with the scalar loop.
inline void gemm_block(const Args& g, std::size_t M, std::size_t N) {
  const std::size_t n_vec = N - N % width;
  for (std::size_t n0 = 0; n0 < n_vec; n0 += nr) {
    const std::size_t batches = std::min(nv, (n_vec - n0) / width);
    Args t = g;
    t.b = g.b + n0;
    t.c = g.c + n0;
    const std::size_t full = M / mr;
    if (full > 0) strip_any(t, full, batches);
    if (M % mr != 0) {  // the bottom tile
      const std::size_t m0 = full * mr;
      t.a = g.a + m0 * g.a_m;
      t.c = g.c + m0 * g.ldc + n0;
      if (g.row_scale != nullptr) t.row_scale = g.row_scale + m0;
      tile_any(t, M - m0, batches);
    }
  }
  if (n_vec < N) {  // leftovers
    Args t = g;
    t.b = g.b + n_vec;
    t.c = g.c + n_vec;
    tile_scalar(t, M, N - n_vec);
  }
}

}  // namespace attn::simd::gemm
