// Sliding windows and query periods (AttentionOptions::window, query_period):
// the rule written out from its definition in engine.hpp as a plain L×S mask
// is the oracle for the reference; every kernel is then checked against the
// reference on edge shapes; the chunked kernel's skipped tiles are counted;
// visible_pairs is checked against brute-force counting.
#include <cmath>
#include <cstdint>
#include <vector>

#include "heads_helpers.hpp"

namespace {

struct Rule {
  bool causal = false;
  std::size_t window = 0, row_offset = 0, period = 0;
};

attn::AttentionOptions options_of(const Rule& r) {
  attn::AttentionOptions opt;
  opt.causal = r.causal;
  opt.window = r.window;
  opt.row_offset = r.row_offset;
  opt.query_period = r.period;
  return opt;
}

// engine.hpp's definition, one pair at a time, in signed 64-bit arithmetic.
bool sees(const Rule& r, std::size_t i, std::size_t j) {
  const long long pos = static_cast<long long>((r.period ? i % r.period : i) + r.row_offset);
  const long long key = static_cast<long long>(j), w = static_cast<long long>(r.window);
  if (r.causal && key > pos) return false;
  if (r.window > 0 && (r.causal ? pos - key >= w : std::llabs(pos - key) >= w)) return false;
  return true;
}

std::vector<std::uint8_t> rule_mask(std::size_t L, std::size_t S, const Rule& r) {
  std::vector<std::uint8_t> m(L * S);
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < S; ++j) m[i * S + j] = sees(r, i, j) ? 1 : 0;
  return m;
}

struct Shape {
  std::size_t L, S, d_k, d_v;
};

// The reference under the rule must equal the reference under the rule's
// mask; every fast kernel must match the reference (out, masked rows, and the
// materialized weights), for several tile shapes of the chunked kernel.
void check_rule(const Shape& s, const Rule& rule, const std::uint8_t* extra_mask, std::uint64_t seed) {
  CAPTURE(s.L);
  CAPTURE(s.S);
  CAPTURE(s.d_k);
  CAPTURE(rule.causal);
  CAPTURE(rule.window);
  CAPTURE(rule.row_offset);
  CAPTURE(rule.period);
  const attn::Matrix q = test::randn(seed, s.L, s.d_k), k = test::randn(seed + 1, s.S, s.d_k);
  const attn::Matrix v = test::randn(seed + 2, s.S, s.d_v);
  std::vector<std::uint8_t> oracle = rule_mask(s.L, s.S, rule);
  if (extra_mask)
    for (std::size_t t = 0; t < oracle.size(); ++t) oracle[t] &= extra_mask[t];
  attn::AttentionOptions plain;
  plain.mask = oracle.data();
  plain.return_weights = true;
  const attn::AttentionResult want = test::run(q, k, v, plain, attn::Variant::Reference);

  attn::AttentionOptions opt = options_of(rule);
  opt.mask = extra_mask;
  opt.return_weights = true;
  const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
  CHECK(test::mismatches(ref.out, want.out) == 0);
  CHECK(test::mismatches(ref.weights, want.weights) == 0);
  CHECK(ref.masked_rows == want.masked_rows);

  const attn::AttentionResult mat = test::run(q, k, v, opt, attn::Variant::Materialized);
  CHECK(test::mismatches(mat.out, want.out) == 0);
  CHECK(test::mismatches(mat.weights, want.weights) == 0);
  CHECK(test::mismatches(mat.scores, want.scores, 1e-5f) == 0);
  CHECK(mat.masked_rows == want.masked_rows);

  opt.return_weights = false;
  const std::size_t blocks[][2] = {{1, 1}, {3, 5}, {8, 11}, {13, 64}, {64, 7}, {64, 64}};
  for (const auto& b : blocks) {
    CAPTURE(b[0]);
    CAPTURE(b[1]);
    opt.block_q = b[0];
    opt.block_k = b[1];
    const attn::AttentionResult ch = test::run(q, k, v, opt, attn::Variant::Chunked);
    CHECK(test::mismatches(ch.out, want.out) == 0);
    CHECK(ch.masked_rows == want.masked_rows);
  }
}

const Shape kShapes[] = {{1, 1, 1, 1}, {1, 9, 3, 2}, {67, 67, 5, 3}, {17, 40, 1, 2}, {40, 17, 3, 1}};

}  // namespace

TEST_CASE("window: every kernel agrees with the rule written as a mask") {
  std::uint64_t seed = 100;
  for (const Shape& s : kShapes)
    for (std::size_t w : {1, 2, 7, 13, 64, 67, 200})
      for (bool causal : {true, false})
        for (std::size_t offset : {0, 5}) {
          Rule r;
          r.causal = causal;
          r.window = w;
          r.row_offset = offset;
          check_rule(s, r, nullptr, seed += 3);
        }
}

TEST_CASE("window: w >= n hides nothing more than the causal rule") {
  const std::size_t n = 23;
  const attn::Matrix q = test::randn(1, n, 4), k = test::randn(2, n, 4), v = test::randn(3, n, 4);
  attn::AttentionOptions opt;
  opt.causal = true;
  const attn::AttentionResult causal = test::run(q, k, v, opt, attn::Variant::Reference);
  for (std::size_t w : {n, n + 1, SIZE_MAX}) {
    opt.window = w;
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(w);
      CAPTURE(static_cast<int>(variant));
      CHECK(test::mismatches(test::run(q, k, v, opt, variant).out, causal.out) == 0);
    }
  }
}

TEST_CASE("window 1 with causal: every row copies its own value row") {
  const std::size_t n = 19;
  const attn::Matrix q = test::randn(4, n, 3), k = test::randn(5, n, 3), v = test::randn(6, n, 2);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.window = 1;
  opt.block_q = 4;
  opt.block_k = 5;
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    const attn::AttentionResult r = test::run(q, k, v, opt, variant);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < 2; ++c) CHECK(r.out.at(i, c) == doctest::Approx(v.at(i, c)));
  }
}

TEST_CASE("window combined with a boolean mask") {
  std::uint64_t seed = 900;
  for (const Shape& s : kShapes) {
    attn::NormalRng rng(seed);
    std::vector<std::uint8_t> mask(s.L * s.S);
    for (auto& m : mask) m = rng.next_uniform() < 0.7 ? 1 : 0;
    for (std::size_t w : {1, 3, 16})
      for (bool causal : {true, false}) {
        Rule r;
        r.causal = causal;
        r.window = w;
        r.row_offset = 2;
        check_rule(s, r, mask.data(), seed += 3);
      }
  }
}

TEST_CASE("window: rows past the keys' end see nothing, give zeros and are listed") {
  // positions 4..8 against 4 keys, window 2: only row 0 (position 4) sees key 3
  const attn::Matrix q = test::randn(7, 5, 3), k = test::randn(8, 4, 3), v = test::randn(9, 4, 2);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.window = 2;
  opt.row_offset = 4;
  opt.block_q = 2;
  opt.block_k = 3;
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    const attn::AttentionResult r = test::run(q, k, v, opt, variant);
    CHECK(r.masked_rows == std::vector<std::uint32_t>{1, 2, 3, 4});
    CHECK(r.out.at(0, 1) == doctest::Approx(v.at(3, 1)));
    for (std::size_t i = 1; i < 5; ++i) CHECK(r.out.at(i, 0) == 0.0f);
  }
  opt.causal = false;  // a band: row i sees keys with |3 + i - j| < 2: row 1 only key 3, rows 2-4 none
  opt.row_offset = 3;
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(static_cast<int>(variant));
    const attn::AttentionResult r = test::run(q, k, v, opt, variant);
    CHECK(r.masked_rows == std::vector<std::uint32_t>{2, 3, 4});
    CHECK(r.out.at(1, 0) == doctest::Approx(v.at(3, 0)));
  }
}

TEST_CASE("window with logits of +-1e4 and with inputs past float32's safe range") {
  SUBCASE("one-hot rows stay exact") {
    const attn::Matrix q = test::from_rows({{100, 0}, {0, 100}, {-100, 0}, {0, -100}});
    const attn::Matrix k = test::from_rows({{100, 0}, {0, 100}, {-100, 0}, {0, -100}});
    const attn::Matrix v = test::from_rows({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
    attn::AttentionOptions opt;
    opt.scale = 1.0f;
    opt.window = 2;  // band: row i sees i-1, i, i+1 and picks itself
    opt.block_k = 2;
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(static_cast<int>(variant));
      const attn::AttentionResult r = test::run(q, k, v, opt, variant);
      for (std::size_t i = 0; i < 4; ++i) CHECK(r.out.at(i, 0) == doctest::Approx(v.at(i, 0)));
    }
  }
  SUBCASE("entries near 1e19 take the double path with the same rule") {
    attn::Matrix q = test::randn(3, 9, 2), k = test::randn(4, 9, 2);
    for (float& x : q.data) x *= 1e19f;
    for (float& x : k.data) x *= 1e-19f;
    k.at(0, 0) = 4e18f;  // logits up to about 1e38: past fast_path_safe's bound, within float32
    const attn::Matrix v = test::randn(5, 9, 2);
    Rule rule;
    rule.causal = true;
    rule.window = 3;
    check_rule({9, 9, 2, 2}, rule, nullptr, 77);  // ordinary values first
    attn::AttentionOptions opt = options_of(rule);
    opt.scale = 1.0f;
    const std::vector<std::uint8_t> oracle = rule_mask(9, 9, rule);
    attn::AttentionOptions plain;
    plain.scale = 1.0f;
    plain.mask = oracle.data();
    const attn::AttentionResult want = test::run(q, k, v, plain, attn::Variant::Reference);
    for (attn::Variant variant : test::kFastVariants) {
      CAPTURE(static_cast<int>(variant));
      const attn::AttentionResult r = test::run(q, k, v, opt, variant);
      CHECK(test::mismatches(r.out, want.out) == 0);
    }
  }
}

TEST_CASE("query_period: stacked heads equal one call per head") {
  // H heads of P query rows each against one K/V: one call with query_period = P
  const std::size_t H = 3, P = 5, S = 9, d = 4;
  const attn::Matrix k = test::randn(41, S, d), v = test::randn(42, S, d);
  const attn::Matrix stacked = test::randn(43, H * P, d);
  for (Rule rule : {Rule{true, 0, 4, P}, Rule{true, 3, 4, P}, Rule{false, 2, 3, P}, Rule{false, 0, 0, P},
                    Rule{true, 2, 0, P}}) {
    CAPTURE(rule.causal);
    CAPTURE(rule.window);
    CAPTURE(rule.row_offset);
    check_rule({H * P, S, d, d}, rule, nullptr, 500 + rule.window);
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(static_cast<int>(variant));
      attn::AttentionOptions opt = options_of(rule);
      opt.block_q = 4;  // blocks that straddle two heads
      opt.block_k = 3;
      const attn::AttentionResult all = test::run(stacked, k, v, opt, variant);
      opt.query_period = 0;
      for (std::size_t h = 0; h < H; ++h) {
        attn::Matrix q_h(P, d);
        std::copy(stacked.data.begin() + h * P * d, stacked.data.begin() + (h + 1) * P * d, q_h.data.begin());
        const attn::AttentionResult one = test::run(q_h, k, v, opt, variant);
        for (std::size_t i = 0; i < P; ++i)
          for (std::size_t c = 0; c < d; ++c) {
            CAPTURE(h);
            CAPTURE(i);
            CHECK(test::close(all.out.at(h * P + i, c), one.out.at(i, c)));
          }
      }
    }
  }
}

TEST_CASE("chunked with a window scores O(L·w / (bq·bk)) tiles, not L·S") {
  const std::size_t n = 1024, d = 8, bq = 32, bk = 32;
  const attn::Matrix q = test::randn(61, n, d), k = test::randn(62, n, d), v = test::randn(63, n, d);
  attn::AttentionOptions opt;
  opt.variant = attn::Variant::Chunked;
  opt.block_q = bq;
  opt.block_k = bk;
  const std::size_t blocks = n / bq;
  const attn::AttentionResult full = attn::attention(q.view(), k.view(), v.view(), opt);
  CHECK(full.tiles_scored == blocks * (n / bk));
  opt.causal = true;
  const attn::AttentionResult causal = attn::attention(q.view(), k.view(), v.view(), opt);
  CHECK(causal.tiles_scored <= blocks * (blocks + 1) / 2);
  CHECK(causal.tiles_scored >= blocks * (blocks - 1) / 2);
  for (std::size_t w : {1, 32, 100, 256}) {
    CAPTURE(w);
    opt.window = w;
    const attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
    // a block's rows see keys in a span of bq + w - 1: at most that many keys' tiles plus one
    CHECK(r.tiles_scored <= blocks * ((bq + w - 1 + bk - 1) / bk + 1));
    CHECK(r.tiles_scored >= blocks);
    CHECK(r.scratch_bytes == causal.scratch_bytes);  // tiles only, whatever the window
    opt.causal = false;  // a band of 2w - 1 keys
    const attn::AttentionResult band = attn::attention(q.view(), k.view(), v.view(), opt);
    CHECK(band.tiles_scored <= blocks * ((bq + 2 * w - 2 + bk - 1) / bk + 1));
    opt.causal = true;
  }
}

TEST_CASE("visible_pairs equals brute-force counting") {
  for (std::size_t L : {1, 7, 40})
    for (std::size_t S : {1, 9, 40})
      for (bool causal : {false, true})
        for (std::size_t w : {0, 1, 3, 50})
          for (std::size_t offset : {0, 2, 45})
            for (std::size_t period : {0, 1, 6, 40}) {
              const Rule r{causal, w, offset, period};
              double count = 0;
              for (std::size_t i = 0; i < L; ++i)
                for (std::size_t j = 0; j < S; ++j) count += sees(r, i, j) ? 1 : 0;
              CAPTURE(L);
              CAPTURE(S);
              CAPTURE(causal);
              CAPTURE(w);
              CAPTURE(offset);
              CAPTURE(period);
              CHECK(attn::visible_pairs(L, S, options_of(r)) == count);
            }
  SUBCASE("n = 131072, w = 4096 causal: w(w+1)/2 + (n - w)·w without building anything") {
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.window = 4096;
    const double n = 131072, w = 4096;
    CHECK(attn::visible_pairs(131072, 131072, opt) == w * (w + 1) / 2 + (n - w) * w);
    opt.window = 0;
    CHECK(attn::visible_pairs(131072, 131072, opt) == n * (n + 1) / 2);
  }
  SUBCASE("bad arguments") {
    attn::AttentionOptions opt;
    std::uint8_t m = 1;
    opt.mask = &m;
    CHECK_THROWS_AS(attn::visible_pairs(1, 1, opt), attn::Error);
    CHECK_THROWS_AS(attn::visible_pairs(0, 4, attn::AttentionOptions{}), attn::Error);
  }
}

TEST_CASE("online trace with a window skips the tiles before it and matches the reference") {
  const std::size_t n = 30;
  const attn::Matrix q = test::randn(71, n, 4), k = test::randn(72, n, 4), v = test::randn(73, n, 3);
  const attn::OnlineSoftmaxTrace t =
      attn::online_softmax_trace(q.view(), k.view(), v.view(), 25, 4, true, std::nullopt, 6);
  // keys 20..25 are visible: tiles [20,24) and [24,28) only
  REQUIRE(t.steps.size() == 2);
  CHECK(t.steps[0].key_begin == 20);
  CHECK(t.steps[1].key_end == 28);
  CHECK(t.max_abs_diff < 1e-5f);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.window = 6;
  const attn::AttentionResult ref = test::run(q, k, v, opt, attn::Variant::Reference);
  for (std::size_t c = 0; c < 3; ++c) CHECK(t.reference[c] == doctest::Approx(ref.out.at(25, c)));
}

// Counts and positions are 64-bit in every build, so these hold in
// WebAssembly too (before, wasm32 clamped each at 2^32 - 1): exact counts
// past 2^32, in closed form (L = 2^53 - 1 rows would take days one by one),
// TooLarge past 2^53, and positions past 2^64 - 1 counting as 2^64 - 1.
TEST_CASE("visible_pairs: exact past 2^32 in closed form, TooLarge past 2^53") {
  const std::uint64_t two32 = std::uint64_t(1) << 32, two33 = two32 * 2;
  attn::AttentionOptions opt;
  CHECK(attn::visible_pairs(two33, 3, opt) == 3.0 * 8589934592.0);
  opt.causal = true;
  opt.query_period = 7;
  // each block of 7 rows sees 1 + 2 + ... + 7 = 28 keys; 2^33 = 7·1227133513 + 1
  CHECK(attn::visible_pairs(two33, two33, opt) == 28.0 * 1227133513.0 + 1.0);
  opt.query_period = 0;
  opt.window = 4;
  CHECK(attn::visible_pairs(two33, two33, opt) == 10.0 + (8589934592.0 - 4.0) * 4.0);
  opt = {};
  const std::uint64_t big = (std::uint64_t(1) << 53) - 1;
  CHECK(attn::visible_pairs(big, 1, opt) == 9007199254740991.0);
  CHECK(test::code_of([&] { attn::visible_pairs(big, 2, opt); }) == "TooLarge");
  CHECK(test::code_of([&] { attn::visible_pairs(UINT64_MAX, UINT64_MAX, opt); }) == "TooLarge");
  // a window from a position near 2^64 - 1: positions saturate, the band is exact
  opt.row_offset = UINT64_MAX - 1;
  opt.window = UINT64_MAX;
  // row 0 (position 2^64 - 2) sees keys 0..2; rows 1..4 stop at 2^64 - 1 and see keys 1, 2
  CHECK(attn::visible_pairs(5, 3, opt) == 3.0 + 4.0 * 2.0);
  opt.window = two32;
  opt.row_offset = (std::uint64_t(1) << 53) - 1;
  CHECK(attn::visible_pairs(1, 2, opt) == 0.0);  // both keys are about 2^53 positions away
}

TEST_CASE("kv_bytes_read is exact past 2^32 and refuses past 2^53") {
  CHECK(attn::kv_bytes_read({1, 1}, std::uint64_t(1) << 32, 1, 1) == 34359738368.0);
  CHECK(attn::kv_bytes_read({1, 1}, 3, std::uint64_t(1) << 40, 1) == 13194139533324.0);
  CHECK(attn::kv_bytes_read({std::uint64_t(1) << 40, std::uint64_t(1) << 40}, 1, 1, 1) == 8796093022208.0);
  CHECK(test::code_of([] { attn::kv_bytes_read({1, 1}, std::uint64_t(1) << 52, 1, 1); }) == "TooLarge");
  CHECK(test::code_of([] { attn::kv_bytes_read({1, 1}, UINT64_MAX, UINT64_MAX, UINT64_MAX); }) == "TooLarge");
  CHECK(test::code_of([] { attn::kv_bytes_read({0, 1}, 1, 1, 1); }) == "ZeroDimension");
  CHECK(test::code_of([] { attn::kv_bytes_read({3, 2}, 1, 1, 1); }) == "BadArgument");
}

TEST_CASE("attention: a row offset and a window past 2^32 follow the rule exactly") {
  const attn::Matrix q = test::from_rows({{0}}), k = test::from_rows({{0}, {0}}), v = test::from_rows({{5}, {7}});
  for (attn::Variant variant : test::kAllVariants) {
    CAPTURE(attn::variant_name(variant));
    attn::AttentionOptions opt;
    opt.variant = variant;
    opt.row_offset = (std::uint64_t(1) << 53) - 1;
    opt.window = std::uint64_t(1) << 32;  // the band |pos - j| < 2^32 misses both keys
    attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
    CHECK(r.masked_rows == std::vector<std::uint32_t>{0});
    CHECK(r.out.at(0, 0) == 0.0f);
    opt.row_offset = std::uint64_t(1) << 52;  // from here a band of 2^53 - 1 keys holds both
    opt.window = (std::uint64_t(1) << 53) - 1;
    r = attn::attention(q.view(), k.view(), v.view(), opt);
    CHECK(r.masked_rows.empty());
    CHECK(r.out.at(0, 0) == doctest::Approx(6.0));
  }
}
