// Softmax of one row in float32, with or without subtracting the row max, so
// the lesson can show the overflow the subtraction prevents (exp(100) is inf
// in float32). Scalar on purpose: this is a teaching helper, not a kernel.
// The exps and weights are float32; their sum is accumulated in double and
// rounded once to float32: a float32 running sum stops growing once it is
// 2^24 times the terms (2^25 equal logits would give weights summing to 2).
// Rounded once, the sum still overflows to inf exactly when float32's would
// have to, so the overflow the lesson shows is unchanged.
#include <cmath>
#include <limits>

#include "checks.hpp"

namespace attn {

// logits: (n)  weights: (n)
SoftmaxRowResult softmax_row(const std::vector<float>& logits, bool subtract_max) {
  const char* fn = "softmax_row";
  const std::size_t n = logits.size();
  if (n == 0) detail::fail(ErrorCode::ZeroDimension, "softmax_row: the row is empty");
  for (std::size_t j = 0; j < n; ++j)  // -inf is allowed: it marks a hidden key
    if (std::isnan(logits[j]) || logits[j] == std::numeric_limits<float>::infinity())
      detail::fail(ErrorCode::NonFinite, std::string(fn) + ": logit " + std::to_string(j) +
                                             " is " + detail::num(logits[j]) +
                                             "; logits must be finite or -inf");

  detail::require_budget(detail::f32_bytes(static_cast<double>(n)), fn, "the weights of a row of " +
                                                                          std::to_string(n) + " logits");
  SoftmaxRowResult r;
  r.weights.assign(n, 0.0f);
  float m = -std::numeric_limits<float>::infinity();
  for (float x : logits) m = x > m ? x : m;
  if (m == -std::numeric_limits<float>::infinity()) return r;  // every key hidden: zeros
  const float shift = subtract_max ? m : 0.0f;

  double sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    r.weights[j] = std::exp(logits[j] - shift);
    if (std::isinf(r.weights[j])) r.overflowed = true;
    sum += r.weights[j];
  }
  const float l = static_cast<float>(sum);  // inf past FLT_MAX, as a float32 sum
  for (std::size_t j = 0; j < n; ++j) {
    r.weights[j] /= l;
    if (std::isnan(r.weights[j])) r.overflowed = true;
  }
  if (std::isinf(l)) r.overflowed = true;
  return r;
}

}  // namespace attn
