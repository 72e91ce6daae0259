// Causal and boolean masks, fully masked rows and extreme logits, in every
// variant: hidden keys get weight 0, rows with no visible key give zero
// output (never NaN) and are listed in masked_rows.
#include <cmath>
#include <vector>

#include "helpers.hpp"

TEST_CASE("causal mask with equal scores: row i is uniform over keys 0..i") {
  const std::size_t n = 9;
  SUBCASE("identical keys") {
    const attn::Matrix q = test::randn(1, n, 4);
    attn::Matrix k(n, 4, 0.5f);
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.return_weights = true;
    for (attn::Variant variant : test::variants_with_weights()) {
      const attn::AttentionResult r = test::run(q, k, test::randn(2, n, 3), opt, variant);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          CAPTURE(i);
          CAPTURE(j);
          CHECK(r.weights.at(i, j) == doctest::Approx(j <= i ? 1.0 / (i + 1) : 0.0).epsilon(1e-6));
        }
    }
  }
  SUBCASE("q = 0: output row i is the mean of v_0..v_i") {
    const attn::Matrix q(n, 5, 0.0f);
    const attn::Matrix k = test::randn(3, n, 5), v = test::randn(4, n, 2);
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.block_q = 2;
    opt.block_k = 4;
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(static_cast<int>(variant));
      const attn::AttentionResult r = test::run(q, k, v, opt, variant);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < 2; ++c) {
          double mean = 0;
          for (std::size_t j = 0; j <= i; ++j) mean += v.at(j, c);
          mean /= double(i + 1);
          CAPTURE(i);
          CHECK(r.out.at(i, c) == doctest::Approx(mean).epsilon(1e-5));
        }
    }
  }
}

TEST_CASE("causal with L != S is top-left aligned, and row_offset shifts it") {
  const attn::Matrix q(3, 2, 0.0f), k = test::randn(5, 6, 2);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.return_weights = true;
  attn::AttentionResult r = test::run(q, k, k, opt, attn::Variant::Materialized);
  CHECK(r.weights.at(0, 0) == doctest::Approx(1.0));
  CHECK(r.weights.at(0, 1) == 0.0f);
  CHECK(r.weights.at(2, 2) == doctest::Approx(1.0 / 3));
  CHECK(r.weights.at(2, 3) == 0.0f);
  CHECK(r.scores.at(2, 3) == -INFINITY);
  opt.row_offset = 4;  // q rows are global rows 4, 5, 6
  r = test::run(q, k, k, opt, attn::Variant::Materialized);
  CHECK(r.weights.at(0, 4) == doctest::Approx(1.0 / 5));
  CHECK(r.weights.at(0, 5) == 0.0f);
  CHECK(r.weights.at(1, 5) == doctest::Approx(1.0 / 6));
  CHECK(r.weights.at(2, 5) == doctest::Approx(1.0 / 6));
}

TEST_CASE("logits of +-1e4 stay finite and give the right one-hot rows") {
  // q·k = ±1e4 exactly with scale 1; without max subtraction exp would overflow
  const attn::Matrix q = test::from_rows({{100, 0}, {0, 100}, {-100, 0}});
  const attn::Matrix k = test::from_rows({{100, 0}, {0, 100}, {-100, 0}});
  const attn::Matrix v = test::from_rows({{1, 2}, {3, 4}, {5, 6}});
  attn::AttentionOptions opt;
  opt.scale = 1.0f;
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    opt.return_weights = test::has_weights(variant);
    opt.block_k = 2;
    const attn::AttentionResult r = test::run(q, k, v, opt, variant);
    for (std::size_t i = 0; i < 3; ++i) {
      CAPTURE(i);
      CHECK(r.out.at(i, 0) == doctest::Approx(v.at(i, 0)));
      CHECK(r.out.at(i, 1) == doctest::Approx(v.at(i, 1)));
      if (!opt.return_weights) continue;
      for (std::size_t j = 0; j < 3; ++j) CHECK(r.weights.at(i, j) == (i == j ? 1.0f : 0.0f));
    }
    if (opt.return_weights) CHECK(r.scores.at(0, 2) == doctest::Approx(-1e4));
  }
}

TEST_CASE("a fully masked row gives zero output and weights and is listed") {
  const std::size_t L = 5, S = 7;
  const attn::Matrix q = test::randn(5, L, 3), k = test::randn(6, S, 3), v = test::randn(7, S, 4);
  std::vector<std::uint8_t> mask(L * S, 1);
  for (std::size_t j = 0; j < S; ++j) mask[1 * S + j] = 0;  // row 1: nothing visible
  for (std::size_t j = 0; j < S; ++j) mask[4 * S + j] = 0;  // row 4 too
  mask[3 * S + 6] = 0;                                      // row 3: one key hidden
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    attn::AttentionOptions opt;
    opt.mask = mask.data();
    opt.return_weights = test::has_weights(variant);
    opt.block_q = 2;
    opt.block_k = 3;
    const attn::AttentionResult r = test::run(q, k, v, opt, variant);
    CHECK(r.masked_rows == std::vector<std::uint32_t>{1, 4});
    for (std::size_t c = 0; c < 4; ++c) {
      CHECK(r.out.at(1, c) == 0.0f);
      CHECK(r.out.at(4, c) == 0.0f);
      CHECK(r.out.at(0, c) != 0.0f);
    }
    for (float x : r.out.data) CHECK(std::isfinite(x));
    if (!opt.return_weights) continue;
    for (std::size_t j = 0; j < S; ++j) {
      CHECK(r.weights.at(1, j) == 0.0f);
      CHECK(r.scores.at(1, j) == -INFINITY);
    }
    CHECK(r.weights.at(3, 6) == 0.0f);
    CHECK(r.weights.at(3, 5) > 0.0f);
  }
}

TEST_CASE("mask combined with causal can hide a whole row") {
  const attn::Matrix q = test::randn(8, 3, 2), k = test::randn(9, 3, 2);
  std::vector<std::uint8_t> mask = {0, 1, 1,   // row 0 sees only key 0 causally: hidden
                                    1, 0, 1,   // row 1 sees key 0
                                    0, 0, 1};  // row 2 sees key 2
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.mask = mask.data();
    const attn::AttentionResult r = test::run(q, k, k, opt, variant);
    CHECK(r.masked_rows == std::vector<std::uint32_t>{0});
    CHECK(r.out.at(0, 0) == 0.0f);
    CHECK(r.out.at(1, 0) == doctest::Approx(k.at(0, 0)));
    CHECK(r.out.at(2, 1) == doctest::Approx(k.at(2, 1)));
  }
}
