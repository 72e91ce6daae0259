// online_softmax_trace: the per-tile state (m, l, rescale, acc) of one row
// is consistent, and the final row equals the scalar reference.
#include <cmath>
#include <limits>

#include "helpers.hpp"

TEST_CASE("online softmax trace ends at the reference row") {
  const std::size_t S = 23, d_k = 6, d_v = 5;
  const attn::Matrix q = test::randn(41, 4, d_k), k = test::randn(42, S, d_k), v = test::randn(43, S, d_v);
  for (bool causal : {false, true}) {
    for (std::size_t block_k : {1, 4, 5, 23, 50}) {
      for (std::size_t row : {0, 2, 3}) {
        CAPTURE(causal);
        CAPTURE(block_k);
        CAPTURE(row);
        const attn::OnlineSoftmaxTrace t =
            attn::online_softmax_trace(q.view(), k.view(), v.view(), row, block_k, causal, {});
        // the same row from attention()
        attn::AttentionOptions opt;
        opt.causal = causal;
        opt.variant = attn::Variant::Reference;
        opt.return_weights = true;
        const attn::AttentionResult ref = attn::attention(q.view(), k.view(), v.view(), opt);
        REQUIRE(t.out.size() == d_v);
        REQUIRE(t.reference.size() == d_v);
        for (std::size_t c = 0; c < d_v; ++c) {
          CHECK(test::close(t.out[c], ref.out.at(row, c)));
          CHECK(t.reference[c] == doctest::Approx(ref.out.at(row, c)).epsilon(1e-6));
        }
        CHECK(t.max_abs_diff < 1e-5f);

        // tiles: contiguous, causal ones stop after the last visible key
        const std::size_t visible = causal ? row + 1 : S;
        const std::size_t bk = block_k < S ? block_k : S;
        REQUIRE(!t.steps.empty());
        CHECK(t.steps.size() == (visible + bk - 1) / bk);
        CHECK(t.steps.front().rescale == 0.0f);
        CHECK(t.steps.front().m_old == -std::numeric_limits<float>::infinity());
        for (std::size_t s = 0; s < t.steps.size(); ++s) {
          const attn::OnlineSoftmaxStep& step = t.steps[s];
          CAPTURE(s);
          CHECK(step.tile == s);
          CHECK(step.key_begin == s * bk);
          CHECK(step.key_end == (s * bk + bk < S ? s * bk + bk : S));
          CHECK(step.m_new >= step.m_old);  // m never decreases
          CHECK(step.m_new == std::fmax(step.m_old, step.tile_max));
          if (s > 0) {
            CHECK(step.m_old == t.steps[s - 1].m_new);
            CHECK(step.l_old == t.steps[s - 1].l_new);
            CHECK(step.rescale == doctest::Approx(std::exp(step.m_old - step.m_new)));
            CHECK(step.rescale <= 1.0f);
          }
          CHECK(step.acc.size() == d_v);
        }
        // l at the end = Σ exp(logit - m_final) over visible keys
        const attn::OnlineSoftmaxStep& last = t.steps.back();
        double l = 0;
        for (std::size_t j = 0; j < visible; ++j)
          l += std::exp(double(ref.scores.at(row, j)) - last.m_new);
        CHECK(last.l_new == doctest::Approx(l).epsilon(1e-5));
        float top = -INFINITY;
        for (std::size_t j = 0; j < visible; ++j) top = std::fmax(top, ref.scores.at(row, j));
        CHECK(last.m_new == doctest::Approx(top).epsilon(1e-6));
        for (std::size_t c = 0; c < d_v; ++c)
          CHECK(last.acc[c] / last.l_new == doctest::Approx(t.out[c]).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("online softmax trace rescales when a later tile has a larger max") {
  // keys chosen so the logits rise tile by tile: 1, 2 | 3, 4 | 5
  const attn::Matrix q = test::from_rows({{1}});
  const attn::Matrix k = test::from_rows({{1}, {2}, {3}, {4}, {5}});
  const attn::Matrix v = test::from_rows({{1}, {0}, {0}, {0}, {2}});
  const attn::OnlineSoftmaxTrace t =
      attn::online_softmax_trace(q.view(), k.view(), v.view(), 0, 2, false, 1.0f);
  REQUIRE(t.steps.size() == 3);
  CHECK(t.steps[0].tile_max == 2.0f);
  CHECK(t.steps[0].l_new == doctest::Approx(1 + std::exp(-1.0)));
  CHECK(t.steps[1].m_new == 4.0f);
  CHECK(t.steps[1].rescale == doctest::Approx(std::exp(-2.0)));
  CHECK(t.steps[1].l_new == doctest::Approx(std::exp(-3.0) + std::exp(-2.0) + std::exp(-1.0) + 1));
  CHECK(t.steps[2].rescale == doctest::Approx(std::exp(-1.0)));
  double l = 0;
  for (int j = 1; j <= 5; ++j) l += std::exp(j - 5.0);
  CHECK(t.out[0] == doctest::Approx((std::exp(-4.0) + 2.0) / l).epsilon(1e-6));
}
