// Materialized and chunked attention against the scalar reference over a
// sweep of shapes that hit the SIMD leftovers and partial tiles: L, S in
// 1..70, d_k, d_v in {1, 3, 4, 5, 16, 63, 64, 65}, causal or not, odd blocks.
#include <cmath>
#include <vector>

#include "helpers.hpp"

namespace {

const std::size_t kLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70};
const std::size_t kWidths[] = {1, 3, 4, 5, 16, 63, 64, 65};
const std::size_t kBlocks[] = {1, 3, 7, 16, 33, 32, 100};

}  // namespace

TEST_CASE("fast paths agree with the reference on a sweep of shapes") {
  std::size_t combo = 0, checked = 0;
  for (std::size_t L : kLengths) {
    for (std::size_t S : kLengths) {
      for (bool causal : {false, true}) {
        // a deterministic subset of widths and blocks, cycling through all of them
        ++combo;
        const std::size_t d_k = kWidths[combo % 8];
        const std::size_t d_v = kWidths[(combo * 5 + 3) % 8];
        const std::size_t block_q = kBlocks[combo % 7];
        const std::size_t block_k = kBlocks[(combo * 3 + 1) % 7];
        CAPTURE(L);
        CAPTURE(S);
        CAPTURE(d_k);
        CAPTURE(d_v);
        CAPTURE(causal);
        CAPTURE(block_q);
        CAPTURE(block_k);
        const attn::Matrix q = test::randn(combo, L, d_k);
        const attn::Matrix k = test::randn(combo + 1000, S, d_k);
        const attn::Matrix v = test::randn(combo + 2000, S, d_v);
        attn::AttentionOptions opt;
        opt.causal = causal;
        opt.block_q = block_q;
        opt.block_k = block_k;
        if (combo % 3 == 0) opt.scale = 1.0f;  // unscaled logits: larger, peakier
        opt.return_weights = true;
        const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
        // Unscaled logits reach |s| ~ 30 where one float32 ulp is ~2e-6, so
        // there the absolute tolerance grows with the largest logit.
        const float tol = opt.scale ? 1e-6f * std::fmax(1.0f, test::max_abs_finite(ref.scores)) : 1e-6f;
        CAPTURE(tol);
        CHECK(ref.masked_rows.empty());  // causal alone always leaves key 0 visible
        for (attn::Variant variant : test::kFastVariants) {
          CAPTURE(attn::variant_name(variant));
          opt.return_weights = test::has_weights(variant);
          const attn::AttentionResult fast = test::run(q, k, v, opt, variant);
          CHECK(test::mismatches(fast.out, ref.out, tol) == 0);
          if (opt.return_weights) {
            CHECK(test::mismatches(fast.weights, ref.weights, tol) == 0);
            CHECK(test::mismatches(fast.scores, ref.scores, tol) == 0);
          }
          CHECK(fast.masked_rows.empty());
        }
        ++checked;
      }
    }
  }
  CHECK(checked == 15 * 15 * 2);
}

TEST_CASE("fast paths agree with the reference with a random mask and a row offset") {
  std::size_t combo = 0;
  for (std::size_t L : {1, 6, 17, 40}) {
    for (std::size_t S : {1, 5, 16, 41, 70}) {
      for (std::size_t row_offset : {0, 3, 100}) {
        ++combo;
        const std::size_t d_k = kWidths[combo % 8], d_v = kWidths[(combo + 5) % 8];
        CAPTURE(L);
        CAPTURE(S);
        CAPTURE(row_offset);
        CAPTURE(d_k);
        CAPTURE(d_v);
        const attn::Matrix q = test::randn(combo + 7, L, d_k);
        const attn::Matrix k = test::randn(combo + 8, S, d_k);
        const attn::Matrix v = test::randn(combo + 9, S, d_v);
        // mask: about 60% visible, from the engine's own uniform stream
        attn::NormalRng rng(combo);
        std::vector<std::uint8_t> mask(L * S);
        for (auto& bit : mask) bit = rng.next_uniform() < 0.6 ? 1 : 0;
        attn::AttentionOptions opt;
        opt.causal = combo % 2 == 0;
        opt.row_offset = row_offset;
        opt.mask = mask.data();
        opt.block_q = kBlocks[combo % 7];
        opt.block_k = kBlocks[(combo + 2) % 7];
        opt.return_weights = true;
        const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
        for (attn::Variant variant : test::kFastVariants) {
          CAPTURE(attn::variant_name(variant));
          opt.return_weights = test::has_weights(variant);
          const attn::AttentionResult fast = test::run(q, k, v, opt, variant);
          CHECK(test::mismatches(fast.out, ref.out) == 0);
          if (opt.return_weights) {
            CHECK(test::mismatches(fast.weights, ref.weights) == 0);
            CHECK(test::mismatches(fast.scores, ref.scores) == 0);
          }
          CHECK(fast.masked_rows == ref.masked_rows);
          if (!opt.return_weights) continue;
          // hidden entries: score -inf, weight 0
          for (std::size_t i = 0; i < L; ++i)
            for (std::size_t j = 0; j < S; ++j) {
              const bool causal_ok = !opt.causal || j <= i + row_offset;
              if (causal_ok && mask[i * S + j]) continue;
              CHECK(fast.scores.at(i, j) == -INFINITY);
              CHECK(fast.weights.at(i, j) == 0.0f);
            }
        }
      }
    }
  }
}
