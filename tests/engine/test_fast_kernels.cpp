// The pieces behind the fast kernels, checked on their own and at sizes the
// small sweep (test_sweep.cpp) does not reach: the polynomial exp against
// std::exp, and whole attention calls that span several 64-row blocks,
// several 256-key chunks of the materialized P·V and several key tiles,
// with lengths that are multiples of nothing in particular.
#include <cmath>
#include <limits>
#include <vector>

#include "fast_exp.hpp"
#include "helpers.hpp"

// exp(0) must be exactly 1: the online softmax multiplies by exp(m_old - m_new)
// once per tile, so a polynomial with p(0) = 1 + 7e-8 (a minimax fit tried
// once) drifted past the tolerance with one-key tiles.
TEST_CASE("exp_softmax: a few ulps plus the rounding of x·log2 e, exp(0) = 1 and exactly 0 below -87") {
  using attn::simd::batch;
  constexpr std::size_t w = attn::simd::width;
  // relative error beyond what t = x·log2 e brings (its rounding, at most
  // |t|·2⁻²⁴·ln 2 = |x|·2⁻²⁴ relative, and log2 e's own as a float,
  // |x|·1.34e-8), and absolute error, which is what a softmax weight (at
  // most exp(0) = 1) needs
  double worst_relative = 0.0, worst_absolute = 0.0;
  for (int step = 0; step <= 200000; ++step) {
    alignas(64) float x[w], y[w];
    for (std::size_t lane = 0; lane < w; ++lane)
      x[lane] = -87.0f + 87.0f * static_cast<float>(step * w + lane) / static_cast<float>(200001 * w);
    attn::simd::exp_softmax(batch::load_aligned(x)).store_aligned(y);
    for (std::size_t lane = 0; lane < w; ++lane) {
      const double exact = std::exp(static_cast<double>(x[lane]));
      const double error = std::fabs(y[lane] - exact);
      worst_relative = std::fmax(worst_relative, error / exact - std::fabs(x[lane]) * (0x1p-24 + 1.34e-8));
      worst_absolute = std::fmax(worst_absolute, error);
    }
  }
  CAPTURE(worst_relative);
  CAPTURE(worst_absolute);
  CHECK(worst_relative < 4e-7);  // about 3 float ulps
  CHECK(worst_absolute < 2e-7);  // below 2 ulps of 1
  alignas(64) float x[w], y[w];
  const float specials[] = {-std::numeric_limits<float>::infinity(), -1e30f, -88.0f, -87.5f, 0.0f};
  for (float s : specials) {
    for (std::size_t lane = 0; lane < w; ++lane) x[lane] = s;
    attn::simd::exp_softmax(batch::load_aligned(x)).store_aligned(y);
    CAPTURE(s);
    CHECK(y[0] == (s == 0.0f ? 1.0f : 0.0f));
    CHECK(y[w - 1] == y[0]);
  }
}

TEST_CASE("fast paths agree with the reference on shapes spanning many blocks and tiles") {
  struct Shape {
    std::size_t L, S, d_k, d_v, row_offset;
    bool causal;
  };
  const Shape shapes[] = {
      {300, 517, 64, 64, 0, false}, {300, 517, 64, 64, 0, true},  {129, 1000, 65, 3, 0, true},
      {257, 257, 17, 64, 0, true},  {70, 600, 64, 63, 500, true}, {1, 700, 8, 8, 0, false},
      {600, 1, 5, 7, 0, true},      {192, 320, 1, 1, 0, true},
  };
  std::uint64_t seed = 40;
  for (const Shape& z : shapes) {
    CAPTURE(z.L);
    CAPTURE(z.S);
    CAPTURE(z.d_k);
    CAPTURE(z.d_v);
    CAPTURE(z.causal);
    CAPTURE(z.row_offset);
    const attn::Matrix q = test::randn(++seed, z.L, z.d_k);
    const attn::Matrix k = test::randn(++seed, z.S, z.d_k);
    const attn::Matrix v = test::randn(++seed, z.S, z.d_v);
    attn::AttentionOptions opt;
    opt.causal = z.causal;
    opt.row_offset = z.row_offset;
    const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
    for (attn::Variant variant : test::kFastVariants)
      CHECK(test::mismatches(test::run(q, k, v, opt, variant).out, ref.out) == 0);
    for (std::size_t block : {1, 13, 100}) {  // odd tiles, including one row / key at a time
      opt.block_q = block;
      opt.block_k = block + 7;
      CHECK(test::mismatches(test::run(q, k, v, opt, attn::Variant::Chunked).out, ref.out) == 0);
    }
  }
}

TEST_CASE("KeyValues: checked once, then slices of q with row_offset rebuild the full causal result") {
  const std::size_t L = 203, S = 203, d = 64;
  const attn::Matrix q = test::randn(90, L, d), k = test::randn(91, S, d), v = test::randn(92, S, d);
  const attn::KeyValues kv(k, v);
  for (attn::Variant variant : test::kFastVariants) {
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.variant = variant;
    const attn::AttentionResult whole = attn::attention(q.view(), k.view(), v.view(), opt);
    attn::Matrix stitched(L, d);
    for (std::size_t r0 = 0; r0 < L; r0 += 50) {  // slices of 50, 50, 50, 50, 3 rows
      const std::size_t rows = std::min<std::size_t>(50, L - r0);
      opt.row_offset = r0;
      const attn::AttentionResult part =
          attn::attention({q.data.data() + r0 * d, rows, d}, kv, opt);
      std::copy(part.out.data.begin(), part.out.data.end(), stitched.data.begin() + r0 * d);
    }
    CHECK(test::mismatches(stitched, whole.out) == 0);
  }
  attn::Matrix bad = test::randn(93, S, d);
  bad.at(7, 3) = NAN;
  CHECK_THROWS_AS(attn::KeyValues(k, bad), attn::Error);
  CHECK_THROWS_AS(attn::KeyValues(k, test::randn(94, S - 1, d)), attn::Error);
}

// Matrix storage starts on a cache line, so the chunked kernel reads V in
// place; a view that starts one float later (a caller's own buffer) takes the
// other path, an aligned copy of each tile of value rows. Both must agree.
TEST_CASE("chunked: values read in place or from an aligned copy give the same result") {
  const std::size_t L = 150, S = 211, d = 64;
  const attn::Matrix q = test::randn(95, L, d), k = test::randn(96, S, d), v = test::randn(97, S, d);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data.data()) % 64 == 0);
  std::vector<float> shifted(S * d + 1);
  std::copy(v.data.begin(), v.data.end(), shifted.begin() + 1);
  const attn::MatrixView v_unaligned{shifted.data() + 1, S, d};
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    attn::AttentionOptions opt;
    opt.causal = causal;
    const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
    opt.variant = attn::Variant::Chunked;
    const attn::AttentionResult in_place = attn::attention(q.view(), k.view(), v.view(), opt);
    const attn::AttentionResult copied = attn::attention(q.view(), k.view(), v_unaligned, opt);
    CHECK(test::mismatches(in_place.out, ref.out) == 0);
    CHECK(test::mismatches(copied.out, ref.out) == 0);
    CHECK(copied.out.data == in_place.out.data);  // same arithmetic, bit for bit
  }
}

// The chunked kernel runs query blocks in groups of up to four over each tile
// of keys (chunked.cpp). A call of one 64-row block at a time is a group of
// one; the grouped call must give the same rows bit for bit, including the
// blocks of a causal group that see fewer keys than the group's last one.
TEST_CASE("chunked: blocks run in groups give the rows of one block at a time, bit for bit") {
  const std::size_t L = 300, S = 517, d = 24;  // 5 blocks: a group of 4, then 1
  const attn::Matrix q = test::randn(98, L, d), k = test::randn(99, S, d), v = test::randn(100, S, d);
  const attn::KeyValues kv(k, v);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    attn::AttentionOptions opt;
    opt.variant = attn::Variant::Chunked;
    opt.causal = causal;
    opt.row_offset = causal ? S - L : 0;  // bottom-right alignment: every row sees some keys
    const attn::AttentionResult whole = attn::attention(q.view(), k.view(), v.view(), opt);
    std::vector<float> stitched(L * d);
    for (std::size_t r0 = 0; r0 < L; r0 += 64) {
      const std::size_t rows = std::min<std::size_t>(64, L - r0);
      attn::AttentionOptions one = opt;
      one.row_offset = opt.row_offset + r0;
      const attn::AttentionResult part = attn::attention({q.data.data() + r0 * d, rows, d}, kv, one);
      std::copy(part.out.data.begin(), part.out.data.end(), stitched.begin() + r0 * d);
    }
    CHECK(std::equal(stitched.begin(), stitched.end(), whole.out.data.begin()));
    CHECK(test::mismatches(whole.out, test::run(q, k, v, opt, attn::Variant::Reference).out) == 0);
  }
}
