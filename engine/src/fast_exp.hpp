// exp(x) for a batch, built for softmax weights: with t = x·log2 e and
// n = round(t), exp(x) = 2ⁿ · e^u where u = x − n·ln 2 lies in
// [-0.347, 0.347]; e^u is a degree-6 Taylor polynomial (truncation error
// below 1.3e-7, so a few float ulps in all) and 2ⁿ is written straight into
// the exponent bits.
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

// e^u for u in [-0.347, 0.347]: the degree-6 Taylor polynomial in Horner form.
template <class V, class Fma>
inline V exp_poly(V u, Fma fma) {
  V p = V(1.0f / 720.0f);
  p = fma(p, u, V(1.0f / 120.0f));
  p = fma(p, u, V(1.0f / 24.0f));
  p = fma(p, u, V(1.0f / 6.0f));
  p = fma(p, u, V(0.5f));
  p = fma(p, u, V(1.0f));
  return fma(p, u, V(1.0f));
}

constexpr float exp_low = -87.0f;                   // below: exactly 0
constexpr float log2_e = 1.44269504088896341f;
constexpr float ln2_hi = 0.693359375f;              // few mantissa bits: n·ln2_hi is exact
constexpr float ln2_lo = -2.12194440e-4f;           // ln 2 − ln2_hi

#if defined(__AVX512F__) && !defined(__EMSCRIPTEN__)
// AVX-512 has the two steps the portable version builds by hand: a rounding
// instruction (vrndscaleps) and x·2ⁿ in one (vscalefps), and a zeroing
// mask instead of a blend: 12 vector operations instead of 17, on the two
// ports that also run the kernels' FMAs (softmax was 16% of a chunked call).
// Same n, u and polynomial as the portable version below.
inline batch exp_softmax(batch x) {
  static_assert(batch::size == 16, "xsimd's batch is the AVX-512 register here");
  const __m512 xv = x;
  const __m512 lo = _mm512_set1_ps(exp_low);
  // false below -87 and for NaN: those lanes (whatever n, u and p became,
  // -inf gives NaN) are zeroed by the last step, so x needs no clamp
  const __mmask16 keep = _mm512_cmp_ps_mask(xv, lo, _CMP_GE_OQ);
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xv, _mm512_set1_ps(log2_e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 u = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_hi), xv);
  u = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_lo), u);
  struct V {
    __m512 v;
    V(float f) : v(_mm512_set1_ps(f)) {}
    V(__m512 r) : v(r) {}
  };
  const V p = exp_poly(V(u), [](V a, V b, V c) { return V(_mm512_fmadd_ps(a.v, b.v, c.v)); });
  return batch(_mm512_maskz_scalef_ps(keep, p.v, n));
}
#else
inline batch exp_softmax(batch x) {
  using ibatch = xsimd::batch<std::int32_t>;
  const batch lo(exp_low);
  // no clamp: for x below -87 (or -inf, or NaN) n, u, p and the exponent
  // bits are garbage, and the last step's AND with the x ≥ -87 mask
  // turns every such lane into +0 whatever its bits
  const batch t = x * batch(log2_e);
  const batch magic(12582912.0f);                                    // 1.5·2²³
  const batch j = t + magic;
  const batch n = j - magic;                                          // round(t)
  // u = x − n·ln 2 in two steps (Cody–Waite): n·ln2_hi is exact, so u keeps
  // full precision even at |x| ≈ 87 where t − n would have lost 7 bits
  batch u = xsimd::fnma(n, batch(ln2_hi), x);
  u = xsimd::fnma(n, batch(ln2_lo), u);
  const batch p = exp_poly(u, [](batch a, batch b, batch c) { return xsimd::fma(a, b, c); });
  // (bits(j) << 23) = n << 23 (the magic's own bits shift out), plus the bias
  const ibatch exponent = (xsimd::bitwise_cast<ibatch>(j) << 23) + ibatch(127 << 23);
  return zero_below(p * xsimd::bitwise_cast<batch>(exponent), x, lo);  // 0 for NaN and below -87
}
#endif

}  // namespace attn::simd
