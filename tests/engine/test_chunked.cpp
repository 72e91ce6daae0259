// The chunked kernel's memory: tiles only, never L×S, sized by the clamped
// block sizes; and its results on shapes where causal tiles are skipped.
#include <utility>

#include "helpers.hpp"

TEST_CASE("chunked never allocates L x S") {
  const std::size_t L = 1024, S = 1536, d = 16;
  const attn::Matrix q = test::randn(21, L, d), k = test::randn(22, S, d), v = test::randn(23, S, d);
  attn::AttentionOptions opt;
  opt.variant = attn::Variant::Chunked;
  opt.block_q = 64;
  opt.block_k = 128;
  const attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
  CHECK(r.scratch_bytes <= test::chunked_scratch_bound(64, 128, d, d));
  CHECK(r.scratch_bytes < L * S * 4 / 50);  // tiles, not the 6.3 MB of scores
  // the same tiles whatever the number of query rows and keys
  for (const auto& [L2, S2] : {std::pair<std::size_t, std::size_t>{4 * L, S}, {L, 3 * S}, {257, 4099}}) {
    const attn::Matrix q2 = test::randn(24, L2, d), k2 = test::randn(25, S2, d);
    CHECK(attn::attention(q2.view(), k2.view(), k2.view(), opt).scratch_bytes == r.scratch_bytes);
  }
  CHECK(r.out.rows == L);
  // spot-check rows against the reference
  attn::AttentionOptions ref_opt;
  ref_opt.variant = attn::Variant::Reference;
  const attn::AttentionResult ref = attn::attention(q.view(), k.view(), v.view(), ref_opt);
  CHECK(test::mismatches(r.out, ref.out) == 0);

  opt.variant = attn::Variant::Materialized;
  const attn::AttentionResult mat = attn::attention(q.view(), k.view(), v.view(), opt);
  // the transposed L×S matrix (L = 1024 needs no padding) + one block's panel, output, m, l, ones
  CHECK(mat.scratch_bytes == L * S * 4 + 64 * (d + d + 3) * 4);
}

TEST_CASE("chunked clamps blocks larger than the matrix") {
  const attn::Matrix q = test::randn(1, 5, 4), k = test::randn(2, 7, 4);
  attn::AttentionOptions opt;
  opt.variant = attn::Variant::Chunked;
  opt.block_q = 1000000;
  opt.block_k = 1000000;
  const attn::AttentionResult r = attn::attention(q.view(), k.view(), k.view(), opt);
  // blocks larger than the matrix cost what blocks the size of the matrix cost
  attn::AttentionOptions exact = opt;
  exact.block_q = 5;
  exact.block_k = 7;
  CHECK(r.scratch_bytes == attn::attention(q.view(), k.view(), k.view(), exact).scratch_bytes);
  CHECK(r.scratch_bytes <= test::chunked_scratch_bound(5, 7, 4, 4));
  opt.variant = attn::Variant::Reference;
  CHECK(test::mismatches(r.out, attn::attention(q.view(), k.view(), k.view(), opt).out) == 0);
}

TEST_CASE("chunked causal: skipped tiles do not change the result") {
  // With block 8 and L = S = 67, most upper-right tiles are skipped; each
  // row's last visible key sits at a different place inside its tile.
  const std::size_t n = 67;
  const attn::Matrix q = test::randn(31, n, 5), k = test::randn(32, n, 5), v = test::randn(33, n, 3);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.variant = attn::Variant::Reference;
  const attn::AttentionResult ref = attn::attention(q.view(), k.view(), v.view(), opt);
  opt.variant = attn::Variant::Chunked;
  for (std::size_t block : {1, 2, 8, 13, 67}) {
    CAPTURE(block);
    opt.block_q = block;
    opt.block_k = block + 3;
    const attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
    CHECK(test::mismatches(r.out, ref.out) == 0);
    // row 0 sees only key 0
    CHECK(r.out.at(0, 0) == doctest::Approx(v.at(0, 0)));
    CHECK(r.out.at(0, 2) == doctest::Approx(v.at(0, 2)));
  }
}
