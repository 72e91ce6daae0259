// exp(x) for a batch, built for softmax weights: with t = x·log2 e and
// n = round(t), exp(x) = 2ⁿ · 2^u where u = t − n lies in [-0.5, 0.5];
// 2^u is the degree-6 Taylor polynomial of e^(u·ln 2) (truncation error
// below 1.7e-7) and 2ⁿ is written straight into the exponent bits.
// u = t − n is exact, but t carries the rounding of x·log2 e and of log2 e
// itself, |x|·7.3e-8 relative at most: 6e-6 at x = -87, where the weight
// is 1.6e-38. A softmax needs accuracy against its largest weight,
// exp(0) = 1, and there the whole error stays below 2e-7 (tested).
// This is one operation fewer than reducing x itself in two Cody–Waite
// steps, which kept full relative precision nobody downstream uses.
// Rounding uses the 1.5·2²³ trick: after j = t + 1.5·2²³ the low mantissa
// bits of j hold n, so neither a rounding instruction nor a float→int
// conversion is needed (WebAssembly via Emscripten's SSE headers turns
// _mm_cvttps_epi32 into four scalar conversions, which made softmax cost
// as much as both matrix products).
// x below -87 (including -inf, a hidden key) gives exactly 0; the softmax
// callers never pass more than 0, and finite x up to 88 stays finite.
#pragma once

#include "simd_blocks.hpp"

namespace attn::simd {

// 2^u for u in [-0.5, 0.5]: e^(u·ln 2) as a degree-6 Taylor polynomial in
// Horner form, coefficients (ln 2)^k / k!. The constant term is exactly 1,
// so 2^0 = 1 exactly (see the test of exp(0)).
template <class V, class Fma>
inline V exp2_poly(V u, Fma fma) {
  constexpr double ln2 = 0.693147180559945309;
  V p = V(static_cast<float>(ln2 * ln2 * ln2 * ln2 * ln2 * ln2 / 720.0));
  p = fma(p, u, V(static_cast<float>(ln2 * ln2 * ln2 * ln2 * ln2 / 120.0)));
  p = fma(p, u, V(static_cast<float>(ln2 * ln2 * ln2 * ln2 / 24.0)));
  p = fma(p, u, V(static_cast<float>(ln2 * ln2 * ln2 / 6.0)));
  p = fma(p, u, V(static_cast<float>(ln2 * ln2 / 2.0)));
  p = fma(p, u, V(static_cast<float>(ln2)));
  return fma(p, u, V(1.0f));
}

constexpr float exp_low = -87.0f;                   // below: exactly 0
constexpr float log2_e = 1.44269504088896341f;

#if defined(__AVX512F__) && !defined(__EMSCRIPTEN__)
// AVX-512 has the two steps the portable version builds by hand: a rounding
// instruction (vrndscaleps) and p·2ⁿ in one (vscalefps), and a zeroing
// mask instead of a blend: 11 vector operations instead of 15, on the two
// ports that also run the kernels' FMAs (softmax was 16% of a chunked call).
// Same t, n, u and polynomial as the portable version below.
inline batch exp_softmax(batch x) {
  static_assert(batch::size == 16, "xsimd's batch is the AVX-512 register here");
  const __m512 xv = x;
  // false below -87 and for NaN: those lanes (whatever n, u and p became,
  // -inf gives NaN) are zeroed by the last step, so x needs no clamp
  const __mmask16 keep = _mm512_cmp_ps_mask(xv, _mm512_set1_ps(exp_low), _CMP_GE_OQ);
  const __m512 t = _mm512_mul_ps(xv, _mm512_set1_ps(log2_e));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  struct V {
    __m512 v;
    V(float f) : v(_mm512_set1_ps(f)) {}
    V(__m512 r) : v(r) {}
  };
  const V p = exp2_poly(V(_mm512_sub_ps(t, n)), [](V a, V b, V c) { return V(_mm512_fmadd_ps(a.v, b.v, c.v)); });
  return batch(_mm512_maskz_scalef_ps(keep, p.v, n));
}
#else
inline batch exp_softmax(batch x) {
  using ibatch = xsimd::batch<std::int32_t>;
  // no clamp: for x below -87 (or -inf, or NaN) n, u, p and the exponent
  // bits are garbage, and the last step's AND with the x ≥ -87 mask
  // turns every such lane into +0 whatever its bits
  const batch t = x * batch(log2_e);
  const batch magic(12582912.0f);                                    // 1.5·2²³
  const batch j = t + magic;
  const batch n = j - magic;                                          // round(t)
  // madd: one relaxed_madd in the relaxed WebAssembly build, where xsimd's
  // fma is a multiply and an add (its SSE4.1 emulation has no FMA)
  const batch p = exp2_poly(t - n, [](batch a, batch b, batch c) { return madd(a, b, c); });
  // (bits(j) << 23) = n << 23 (the magic's own bits shift out), plus the bias
  const ibatch exponent = (xsimd::bitwise_cast<ibatch>(j) << 23) + ibatch(127 << 23);
  return zero_below(p * xsimd::bitwise_cast<batch>(exponent), x, batch(exp_low));  // 0 for NaN and below -87
}
#endif

}  // namespace attn::simd
