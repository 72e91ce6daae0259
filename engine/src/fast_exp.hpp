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

inline batch exp_softmax(batch x) {
  using ibatch = xsimd::batch<std::int32_t>;
  const batch lo(-87.0f);
  const batch xc = vmax(x, lo);                      // keeps 2ⁿ a normal float
  const batch t = xc * batch(1.44269504088896341f);  // log2 e
  const batch magic(12582912.0f);                                    // 1.5·2²³
  const batch j = t + magic;
  const batch n = j - magic;                                          // round(t)
  // u = x − n·ln 2 in two steps (Cody–Waite): n·ln2_hi is exact, so u keeps
  // full precision even at |x| ≈ 87 where t − n would have lost 7 bits
  batch u = xsimd::fnma(n, batch(0.693359375f), xc);
  u = xsimd::fnma(n, batch(-2.12194440e-4f), u);
  // e^u = 1 + u + u²/2! + … + u⁶/6!, Horner form
  batch p(1.0f / 720.0f);
  p = xsimd::fma(p, u, batch(1.0f / 120.0f));
  p = xsimd::fma(p, u, batch(1.0f / 24.0f));
  p = xsimd::fma(p, u, batch(1.0f / 6.0f));
  p = xsimd::fma(p, u, batch(0.5f));
  p = xsimd::fma(p, u, batch(1.0f));
  p = xsimd::fma(p, u, batch(1.0f));
  // (bits(j) << 23) = n << 23 (the magic's own bits shift out), plus the bias
  const ibatch exponent = (xsimd::bitwise_cast<ibatch>(j) << 23) + ibatch(127 << 23);
  return zero_below(p * xsimd::bitwise_cast<batch>(exponent), x, lo);  // 0 for NaN and below -87
}

}  // namespace attn::simd
