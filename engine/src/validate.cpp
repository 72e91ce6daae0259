// Input checks shared by all entry points: non-empty matrices with data,
// finite values, and the softmax scale. They run before anything large is
// allocated and throw attn::Error with the offending shape or value.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "detail.hpp"

namespace attn::detail {

void require_matrix(MatrixView m, const char* fn, const char* name) {
  if (m.rows == 0 || m.cols == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": " + name + " is " + shape(m) +
                                       "; every dimension must be at least 1");
  if (m.data == nullptr)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + name + " (" + shape(m) + ") has no data");
}

namespace {

// True when no entry is NaN or ±inf: an exponent field of all ones marks
// both. Integer ORs over the bits, with no early exit, so the compiler turns
// the loop into SIMD code (a check of every input on every call, it was
// about 2% of a whole attention call at n = 2048 as a scalar loop).
bool all_finite(const float* data, std::size_t n) {
  constexpr std::uint32_t exponent = 0x7f800000u;
  std::uint32_t any_bad = 0;
  for (std::size_t idx = 0; idx < n; ++idx) {
    std::uint32_t bits;
    std::memcpy(&bits, data + idx, sizeof bits);
    any_bad |= static_cast<std::uint32_t>((bits & exponent) == exponent);
  }
  return any_bad == 0;
}

}  // namespace

void require_finite(MatrixView m, const char* fn, const char* name) {
  // m: (rows, cols); the product fits size_t because the caller owns the data.
  const std::size_t n = m.rows * m.cols;
  if (all_finite(m.data, n)) return;
  for (std::size_t idx = 0; idx < n; ++idx) {  // find the first bad entry for the message
    if (!std::isfinite(m.data[idx]))
      fail(ErrorCode::NonFinite, std::string(fn) + ": " + name + " (" + shape(m) + ") has " +
                                     num(m.data[idx]) + " at row " + std::to_string(idx / m.cols) +
                                     ", column " + std::to_string(idx % m.cols) +
                                     "; all entries must be finite");
  }
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
