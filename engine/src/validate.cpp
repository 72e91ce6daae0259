// Input checks shared by all entry points: non-empty matrices with data,
// finite values, and the softmax scale. They run before anything large is
// allocated and throw attn::Error with the offending shape or value.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "checks.hpp"

namespace attn::detail {

void require_matrix(MatrixView m, const char* fn, const char* name) {
  if (m.rows == 0 || m.cols == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": " + name + " is " + shape(m) +
                                       "; every dimension must be at least 1");
  if (m.data == nullptr)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + name + " (" + shape(m) + ") has no data");
}

namespace {

// The bits of the largest |entry|: without the sign bit, float32 bits
// order like the magnitudes they encode, and NaN and ±inf (exponent all
// ones) are above every finite value. An integer max over the bits, with
// no early exit, so the compiler turns the loop into SIMD code (a check of
// every input on every call; it was about 2% of a whole attention call at
// n = 2048 as a scalar loop). One pass gives both the finiteness check and
// the magnitude the kernels' overflow guard needs (fast_path_safe).
std::uint32_t max_abs_bits(const float* data, std::size_t n) {
  std::uint32_t top = 0;
  for (std::size_t idx = 0; idx < n; ++idx) {
    std::uint32_t bits;
    std::memcpy(&bits, data + idx, sizeof bits);
    bits &= 0x7fffffffu;
    top = bits > top ? bits : top;
  }
  return top;
}

}  // namespace

float require_finite(MatrixView m, const char* fn, const char* name) {
  // m: (rows, cols); the product fits size_t because the caller owns the data.
  const std::size_t n = m.rows * m.cols;
  const std::uint32_t top = max_abs_bits(m.data, n);
  if (top < 0x7f800000u) {  // below the exponent of all ones: finite
    float magnitude;
    std::memcpy(&magnitude, &top, sizeof magnitude);
    return magnitude;
  }
  for (std::size_t idx = 0; idx < n; ++idx) {  // find the first bad entry for the message
    if (!std::isfinite(m.data[idx]))
      fail(ErrorCode::NonFinite, std::string(fn) + ": " + name + " (" + shape(m) + ") has " +
                                     num(m.data[idx]) + " at row " + std::to_string(idx / m.cols) +
                                     ", column " + std::to_string(idx % m.cols) +
                                     "; all entries must be finite");
  }
  return 0.0f;  // not reached: some entry was not finite
}

float resolve_scale(std::optional<float> scale, std::size_t d_k, const char* fn) {
  if (!scale) return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_k)));
  const float s = *scale;
  if (!std::isfinite(s))
    fail(ErrorCode::NonFinite, std::string(fn) + ": scale is " + num(s) + "; it must be finite");
  if (s <= 0.0f)
    fail(ErrorCode::BadArgument,
         std::string(fn) + ": scale is " + num(s) + "; it must be greater than 0");
  return s;
}

}  // namespace attn::detail
