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
