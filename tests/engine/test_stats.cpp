// Row entropy, max weight, logit statistics and the softmax Jacobian norm
// against closed forms: uniform rows, one-hot rows, masked rows.
#include <cmath>
#include <vector>

#include "helpers.hpp"

TEST_CASE("row_stats: uniform row has entropy ln n, one-hot 0, masked 0") {
  const std::size_t n = 7;
  attn::Matrix w(3, n, 0.0f);
  for (std::size_t j = 0; j < n; ++j) w.at(0, j) = 1.0f / n;  // uniform
  w.at(1, 4) = 1.0f;                                             // one-hot
  // row 2 stays all zero (a masked row)
  const attn::RowStats s = attn::row_stats(w.view());
  REQUIRE(s.entropy.size() == 3);
  CHECK(s.entropy[0] == doctest::Approx(std::log(7.0)).epsilon(1e-6));
  CHECK(s.entropy[1] == 0.0f);
  CHECK(s.entropy[2] == 0.0f);
  CHECK(s.max_weight[0] == doctest::Approx(1.0 / 7).epsilon(1e-6));
  CHECK(s.max_weight[1] == 1.0f);
  CHECK(s.max_weight[2] == 0.0f);
}

TEST_CASE("row_stats: a two-point row [0.25, 0.75]") {
  const attn::Matrix w = test::from_rows({{0.25f, 0.75f}});
  const attn::RowStats s = attn::row_stats(w.view());
  CHECK(s.entropy[0] == doctest::Approx(-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))).epsilon(1e-6));
  CHECK(s.max_weight[0] == 0.75f);
}

TEST_CASE("softmax_jacobian_norm: closed forms") {
  // ||diag(p) - p pᵀ||_F² = Σp² - 2Σp³ + (Σp²)²; uniform 1/n gives 1/n - 1/n²
  for (std::size_t n : {1, 2, 3, 8, 100}) {
    CAPTURE(n);
    const std::vector<float> p(n, 1.0f / float(n));
    const double want = std::sqrt(1.0 / n - 1.0 / (double(n) * n));
    CHECK(attn::softmax_jacobian_norm(p.data(), n) == doctest::Approx(want).epsilon(1e-6));
  }
  const std::vector<float> one_hot = {0, 0, 1, 0};
  CHECK(attn::softmax_jacobian_norm(one_hot.data(), 4) == 0.0);
  // nearly one-hot: computed without cancellation (a 2x2 Jacobian written out)
  const std::vector<float> peaked = {1e-6f, 1.0f - 1e-6f};
  const double p0 = 1e-6f, p1 = 1.0f - 1e-6f;
  const double want = std::sqrt(std::pow(p0 * (1 - p0), 2) + std::pow(p1 * (1 - p1), 2) +
                                2 * std::pow(p0 * p1, 2));
  CHECK(attn::softmax_jacobian_norm(peaked.data(), 2) == doctest::Approx(want).epsilon(1e-6));
  const std::vector<float> general = {0.1f, 0.2f, 0.3f, 0.4f};
  double s2 = 0, s3 = 0;
  for (float x : general) {
    s2 += double(x) * x;
    s3 += double(x) * x * x;
  }
  CHECK(attn::softmax_jacobian_norm(general.data(), 4) ==
        doctest::Approx(std::sqrt(s2 - 2 * s3 + s2 * s2)).epsilon(1e-9));
}

TEST_CASE("logit_stats: mean squared q.k, scaled and not") {
  const attn::Matrix q = test::from_rows({{1, 2}, {0, 1}});
  const attn::Matrix k = test::from_rows({{3, 0}, {1, 1}, {0, 0}});
  // q·k: row 0: 3, 3, 0; row 1: 0, 1, 0 -> squares 9+9+0+0+1+0 = 19 over 6
  const attn::LogitStats s = attn::logit_stats(q.view(), k.view(), {});
  CHECK(s.mean_sq_unscaled == doctest::Approx(19.0 / 6));
  CHECK(s.rms_unscaled == doctest::Approx(std::sqrt(19.0 / 6)));
  CHECK(s.mean_sq_scaled == doctest::Approx(19.0 / 12).epsilon(1e-6));  // scale 1/sqrt(2)
  CHECK(s.rms_scaled == doctest::Approx(std::sqrt(19.0 / 12)).epsilon(1e-6));
  const attn::LogitStats t = attn::logit_stats(q.view(), k.view(), 0.5f);
  CHECK(t.mean_sq_scaled == doctest::Approx(19.0 / 24));
}

TEST_CASE("logit_stats: N(0,1) vectors give mean (q.k)^2 close to d_k") {
  const std::size_t d_k = 64;
  const attn::Matrix q = test::randn(51, 64, d_k), k = test::randn(52, 64, d_k);
  const attn::LogitStats s = attn::logit_stats(q.view(), k.view(), {});
  CHECK(s.mean_sq_unscaled > 0.85 * d_k);
  CHECK(s.mean_sq_unscaled < 1.15 * d_k);
  CHECK(s.rms_scaled == doctest::Approx(s.rms_unscaled / 8).epsilon(1e-6));
}
