// The engine's deterministic N(0, 1) generator: SplitMix64 expands the seed
// into xoshiro256** state; uniforms take the top 53 bits; Box–Muller runs in
// double and caches its second value. Integer-exact on every platform.
#include <cmath>

#include "checks.hpp"

namespace attn {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

NormalRng::NormalRng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (std::uint64_t& word : s_) word = splitmix64(x);
}

// xoshiro256** (Blackman & Vigna 2018)
std::uint64_t NormalRng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double NormalRng::next_uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

// Box–Muller: u1, u2 uniform in [0, 1); r = sqrt(-2 ln(1 - u1)) with
// 1 - u1 in (0, 1], angle 2π u2; returns r cos, keeps r sin for the next call.
float NormalRng::next_normal() {
  if (has_spare_) {
    has_spare_ = false;
    return static_cast<float>(spare_);
  }
  const double two_pi = 6.283185307179586476925286766559;
  const double u1 = next_uniform();
  const double u2 = next_uniform();
  const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  const double angle = two_pi * u2;
  spare_ = r * std::sin(angle);
  has_spare_ = true;
  return static_cast<float>(r * std::cos(angle));
}

// out: (rows, cols), filled row by row
Matrix random_normal(NormalRng& rng, std::size_t rows, std::size_t cols) {
  const char* fn = "random_normal";
  if (rows == 0 || cols == 0)
    detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": asked for a " +
                                               std::to_string(rows) + "x" + std::to_string(cols) +
                                               " matrix; every dimension must be at least 1");
  detail::require_budget(detail::f32_bytes(static_cast<double>(rows) * static_cast<double>(cols)),
                         fn, "a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
  Matrix m(rows, cols);
  for (float& x : m.data) x = rng.next_normal();
  return m;
}

}  // namespace attn
