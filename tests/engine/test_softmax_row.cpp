// softmax_row in float32: the max subtraction keeps large logits finite;
// without it exp(100) overflows and the lesson's overflow flag is raised.
#include <cmath>

#include "helpers.hpp"

TEST_CASE("softmax_row with the max subtracted handles [1000, 999]") {
  const attn::SoftmaxRowResult r = attn::softmax_row({1000.0f, 999.0f}, true);
  REQUIRE(r.weights.size() == 2);
  CHECK_FALSE(r.overflowed);
  const double e = std::exp(-1.0);
  CHECK(r.weights[0] == doctest::Approx(1.0 / (1.0 + e)).epsilon(1e-6));
  CHECK(r.weights[1] == doctest::Approx(e / (1.0 + e)).epsilon(1e-6));
}

TEST_CASE("softmax_row without the max subtraction overflows on large logits") {
  attn::SoftmaxRowResult r = attn::softmax_row({1000.0f, 999.0f}, false);
  CHECK(r.overflowed);
  CHECK(std::isnan(r.weights[0]));
  r = attn::softmax_row({100.0f, 1.0f, 2.0f}, false);  // exp(100) > FLT_MAX
  CHECK(r.overflowed);
  r = attn::softmax_row({100.0f, 1.0f, 2.0f}, true);
  CHECK_FALSE(r.overflowed);
  CHECK(r.weights[0] == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("softmax_row agrees with and without subtraction on small logits") {
  const std::vector<float> logits = {0.5f, -1.0f, 2.0f, 0.0f, -INFINITY};
  const attn::SoftmaxRowResult a = attn::softmax_row(logits, true);
  const attn::SoftmaxRowResult b = attn::softmax_row(logits, false);
  CHECK_FALSE(a.overflowed);
  CHECK_FALSE(b.overflowed);
  double sum = 0;
  for (float x : logits) sum += std::exp(double(x));
  for (std::size_t j = 0; j < logits.size(); ++j) {
    CAPTURE(j);
    CHECK(a.weights[j] == doctest::Approx(std::exp(double(logits[j])) / sum).epsilon(1e-6));
    CHECK(b.weights[j] == doctest::Approx(a.weights[j]).epsilon(1e-6));
  }
  CHECK(a.weights[4] == 0.0f);
  const attn::SoftmaxRowResult hidden = attn::softmax_row({-INFINITY, -INFINITY}, true);
  CHECK_FALSE(hidden.overflowed);
  CHECK(hidden.weights[0] == 0.0f);
}

// The row's sum must be right at every length the budget allows: a float32
// running sum stops growing at 2^24 (adding 1 to 2^24 rounds back to 2^24),
// so 2^25 equal logits gave weights of 2^-24 that summed to 2.
TEST_CASE("softmax_row weights sum to 1 for a row of 2^25 equal logits") {
  const std::size_t n = std::size_t(1) << 25;
  const attn::SoftmaxRowResult r = attn::softmax_row(std::vector<float>(n, 0.0f), true);
  REQUIRE(r.weights.size() == n);
  CHECK_FALSE(r.overflowed);
  CHECK(r.weights[0] == std::ldexp(1.0f, -25));
  CHECK(r.weights[n - 1] == std::ldexp(1.0f, -25));
  double sum = 0;
  for (float w : r.weights) sum += w;
  CHECK(std::fabs(sum - 1.0) <= 1e-6);  // each weight is within half a float32 ulp of 1/n
}

// The same stall, in a short row: after a weight near 1, each of 2^20 terms
// of about 2^-25.2 is under half an ulp of the running sum and was lost
// (3% of the total).
TEST_CASE("softmax_row keeps many small terms after a large one") {
  const std::size_t n = (std::size_t(1) << 20) + 1;
  std::vector<float> logits(n, -17.4f);
  logits[0] = 0.0f;
  const attn::SoftmaxRowResult r = attn::softmax_row(logits, true);
  double l = 1.0;
  for (std::size_t j = 1; j < n; ++j) l += std::exp(double(-17.4f));
  CHECK(r.weights[0] == doctest::Approx(1.0 / l).epsilon(1e-6));
  CHECK(r.weights[1] == doctest::Approx(std::exp(double(-17.4f)) / l).epsilon(1e-6));
  double sum = 0;
  for (float w : r.weights) sum += w;
  CHECK(std::fabs(sum - 1.0) <= 1e-6);
}
