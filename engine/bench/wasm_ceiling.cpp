// One core's WebAssembly SIMD128 ceiling for build-scripts/bench: independent
// f32x4 mul+add chains. Wasm SIMD128 has no fused multiply-add, so each step
// is a mul and an add (8 flops over 4 lanes). Two shapes, the best counts:
//   shape 0: K chains acc = acc * a + b;
//   shape 1: K pairs of chains m = m * a, s = s + m (the dot-product shape).
// Built with emcc into a standalone .wasm with no imports (CMake target
// attn_wasm_ceiling), run by engine/bench/bench-worker.mjs in Chromium and by
// engine/bench/bench.mjs in Node.
// Export: ceiling_chains(shape, K, iters, a, b) -> checksum, or -1 for an unknown K.
#include <wasm_simd128.h>

namespace {

template <int K>
float fused_pairs(int iters, float a_, float b_) {
  const v128_t a = wasm_f32x4_splat(a_), b = wasm_f32x4_splat(b_);
  v128_t acc[K];
  for (int j = 0; j < K; ++j) acc[j] = wasm_f32x4_splat(1.0f + 0.001f * j);
  for (int i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int j = 0; j < K; ++j) acc[j] = wasm_f32x4_add(wasm_f32x4_mul(acc[j], a), b);
  }
  v128_t t = acc[0];
  for (int j = 1; j < K; ++j) t = wasm_f32x4_add(t, acc[j]);
  return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 3);
}

template <int K>
float dot_shape(int iters, float a_, float b_) {
  const v128_t a = wasm_f32x4_splat(a_);
  v128_t m[K], s[K];
  for (int j = 0; j < K; ++j) {
    m[j] = wasm_f32x4_splat(1.0f + 0.001f * j);
    s[j] = wasm_f32x4_splat(b_);
  }
  for (int i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int j = 0; j < K; ++j) {
      m[j] = wasm_f32x4_mul(m[j], a);
      s[j] = wasm_f32x4_add(s[j], m[j]);
    }
  }
  v128_t t = s[0];
  for (int j = 1; j < K; ++j) t = wasm_f32x4_add(t, wasm_f32x4_add(s[j], m[j]));
  return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 3);
}

}  // namespace

extern "C" {

// a and b come from JS so the chains cannot be folded at compile time.
__attribute__((used)) float ceiling_chains(int shape, int k, int iters, float a, float b) {
  if (shape == 0) {
    switch (k) {
      case 8: return fused_pairs<8>(iters, a, b);
      case 10: return fused_pairs<10>(iters, a, b);
      case 12: return fused_pairs<12>(iters, a, b);
      case 14: return fused_pairs<14>(iters, a, b);
      case 16: return fused_pairs<16>(iters, a, b);
    }
  } else {
    switch (k) {
      case 4: return dot_shape<4>(iters, a, b);
      case 5: return dot_shape<5>(iters, a, b);
      case 6: return dot_shape<6>(iters, a, b);
      case 7: return dot_shape<7>(iters, a, b);
    }
  }
  return -1.0f;
}
}
