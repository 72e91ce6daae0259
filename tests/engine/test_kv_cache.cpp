// KvCache: a decode step's output equals the matching row of full causal
// attention over the whole sequence, row by row (MHA, GQA, MQA, windowed
// caches against a banded mask computed here); prefill_attention equals the
// prompt's rows; growth within the budget, TooLarge before allocating; bad
// shapes give typed errors and leave the cache unchanged.
#include <vector>

#include "heads_helpers.hpp"

namespace {

struct Seq {
  std::size_t hq, hkv, n, d_k, d_v;
};

// Full causal attention over the whole sequence, each query row seeing at
// most the last w keys (w = 0: all), by the reference, as (H_q·n, d_v).
attn::Matrix full_causal(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                         const Seq& s, std::size_t w) {
  std::vector<std::uint8_t> band(s.n * s.n, 0);
  for (std::size_t i = 0; i < s.n; ++i)
    for (std::size_t j = 0; j <= i; ++j) band[i * s.n + j] = w == 0 || i - j < w ? 1 : 0;
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.mask = band.data();
  attn::Matrix out(s.hq * s.n, s.d_v);
  for (std::size_t h = 0; h < s.hq; ++h) {
    const attn::AttentionResult r = test::reference_head(q, k, v, s.hq, s.hkv, h, opt);
    REQUIRE(r.masked_rows.empty());
    std::copy(r.out.data.begin(), r.out.data.end(), out.data.begin() + h * s.n * s.d_v);
  }
  return out;
}

// Prefills `prompt` rows, then decodes the rest one row per step; every
// step's output must equal the full attention's row t of each head.
void check_decode(const Seq& s, std::size_t prompt, std::size_t window, attn::Variant variant,
                  std::uint64_t seed) {
  const attn::Matrix q = test::randn(seed, s.hq * s.n, s.d_k);
  const attn::Matrix k = test::randn(seed + 1, s.hkv * s.n, s.d_k);
  const attn::Matrix v = test::randn(seed + 2, s.hkv * s.n, s.d_v);
  const attn::Matrix want = full_causal(q, k, v, s, window);

  attn::KvCache cache(s.hkv, s.d_k, s.d_v, window);
  attn::AttentionOptions opt;
  opt.variant = variant;
  if (prompt > 0) {
    const attn::MultiheadResult pre = cache.prefill_attention(
        test::head_slice(q, s.hq, s.n, 0, prompt).view(), test::head_slice(k, s.hkv, s.n, 0, prompt).view(),
        test::head_slice(v, s.hkv, s.n, 0, prompt).view(), s.hq, opt);
    CHECK(test::mismatches(pre.out, test::head_slice(want, s.hq, s.n, 0, prompt)) == 0);
  }
  CHECK(cache.appended() == prompt);
  for (std::size_t t = prompt; t < s.n; ++t) {
    CAPTURE(t);
    const attn::AttentionResult r = cache.decode_step(test::head_slice(q, s.hq, s.n, t, t + 1).view(),
                                                      test::head_slice(k, s.hkv, s.n, t, t + 1).view(),
                                                      test::head_slice(v, s.hkv, s.n, t, t + 1).view(), opt);
    CHECK(test::mismatches(r.out, test::head_slice(want, s.hq, s.n, t, t + 1)) == 0);
    CHECK(cache.length() == (window == 0 ? t + 1 : std::min(t + 1, window)));
    CHECK(r.masked_rows.empty());
  }
}


}  // namespace

TEST_CASE("decode step = the matching row of full causal attention (MHA, GQA, MQA)") {
  const Seq seqs[] = {
      {2, 2, 23, 8, 5},     // MHA
      {8, 2, 37, 16, 16},   // GQA, H_q/H_kv = 4
      {6, 1, 19, 5, 7},     // MQA, G = 6 (two chunks of query rows: 4 + 2)
      {1, 1, 9, 1, 1},      // d = 1
      {4, 4, 70, 33, 17},   // S passes a SIMD width and d not a multiple of it
      {7, 1, 13, 9, 6},     // MQA, G = 7: chunks of 4 + 3 query rows (the 3-row kernels;
                            // build-scripts/coverage found them never called)
      {3, 1, 300, 3, 2},    // G = 3 alone, and S past one 256-key block of decode_rows
  };
  std::uint64_t seed = 500;
  for (const Seq& s : seqs)
    for (std::size_t prompt : {std::size_t(0), std::size_t(1), std::size_t(6)})
      for (attn::Variant variant : test::kAllVariants) {
        CAPTURE(s.hq);
        CAPTURE(s.hkv);
        CAPTURE(prompt);
        CAPTURE(static_cast<int>(variant));
        check_decode(s, prompt, 0, variant, seed += 3);
      }
}

TEST_CASE("windowed cache: decode = causal attention over the last w keys (w = 1, w < prompt, w >= n)") {
  const Seq s{4, 2, 29, 8, 6};
  std::uint64_t seed = 900;
  for (std::size_t window : {std::size_t(1), std::size_t(3), std::size_t(5), std::size_t(8), std::size_t(29), std::size_t(64)})
    for (std::size_t prompt : {std::size_t(0), std::size_t(4), std::size_t(10)})
      for (attn::Variant variant : test::kAllVariants) {
        CAPTURE(window);
        CAPTURE(prompt);
        CAPTURE(static_cast<int>(variant));
        check_decode(s, prompt, window, variant, seed += 3);
      }
}

TEST_CASE("windowed prefill_attention = causal attention over the last w keys, chunked, tiles not multiples of w") {
  const Seq s{6, 2, 23, 8, 5};
  std::uint64_t seed = 1300;
  for (std::size_t window : {std::size_t(1), std::size_t(5), std::size_t(7), std::size_t(22), std::size_t(23), std::size_t(40)})
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(window);
      CAPTURE(static_cast<int>(variant));
      const attn::Matrix q = test::randn(seed++, s.hq * s.n, s.d_k);
      const attn::Matrix k = test::randn(seed++, s.hkv * s.n, s.d_k);
      const attn::Matrix v = test::randn(seed++, s.hkv * s.n, s.d_v);
      attn::KvCache cache(s.hkv, s.d_k, s.d_v, window);
      attn::AttentionOptions opt;
      opt.variant = variant;
      opt.block_q = 4;  // 4 and 3 divide none of the windows but 1
      opt.block_k = 3;
      const attn::MultiheadResult r = cache.prefill_attention(q.view(), k.view(), v.view(), s.hq, opt);
      CHECK(test::mismatches(r.out, full_causal(q, k, v, s, window)) == 0);
      CHECK(r.kernel_calls == s.hkv);
      CHECK(cache.length() == std::min(s.n, window));
    }
}

TEST_CASE("windowed prefill_attention builds no n x n mask: a budget far below n^2 bytes suffices (chunked)") {
  const Seq s{2, 1, 600, 4, 4};
  const attn::Matrix q = test::randn(41, s.hq * s.n, s.d_k), k = test::randn(42, s.hkv * s.n, s.d_k),
                     v = test::randn(43, s.hkv * s.n, s.d_v);
  attn::KvCache cache(s.hkv, s.d_k, s.d_v, 16);
  attn::AttentionOptions opt;
  opt.variant = attn::Variant::Chunked;
  attn::MultiheadResult r;
  {
    test::Budget budget(100000);  // a 600 x 600 mask is 360,000 bytes
    r = cache.prefill_attention(q.view(), k.view(), v.view(), s.hq, opt);
  }
  CHECK(test::mismatches(r.out, full_causal(q, k, v, s, 16)) == 0);
}

TEST_CASE("prefill_attention refuses a window other than the cache's") {
  attn::KvCache cache(1, 4, 3, 8);
  const attn::Matrix q = test::randn(1, 5, 4), k = test::randn(2, 5, 4), v = test::randn(3, 5, 3);
  attn::AttentionOptions opt;
  opt.window = 4;
  CHECK(test::code_of([&] { cache.prefill_attention(q.view(), k.view(), v.view(), 1, opt); }) == "BadArgument");
  CHECK(cache.appended() == 0);
  opt.window = 8;  // the cache's own window is accepted
  CHECK(cache.prefill_attention(q.view(), k.view(), v.view(), 1, opt).out.rows == 5);
}

TEST_CASE("windowed cache keeps w rows per head: length and bytes stop growing") {
  attn::KvCache cache(3, 4, 2, 5);
  const attn::Matrix q = test::randn(1, 3, 4);
  for (std::size_t t = 0; t < 12; ++t) {
    cache.decode_step(q.view(), test::randn(t + 2, 3, 4).view(), test::randn(t + 40, 3, 2).view(), {});
    CHECK(cache.length() == std::min<std::size_t>(t + 1, 5));
  }
  CHECK(cache.appended() == 12);
  CHECK(cache.bytes() == 5 * 3 * (4 + 2) * 4);
  CHECK(cache.k(0).rows == 5);
}

TEST_CASE("KvCache grows amortised: capacity doubles, so few reallocations") {
  attn::KvCache cache(2, 8, 8);
  const attn::Matrix q = test::randn(1, 2, 8), k = test::randn(2, 2, 8), v = test::randn(3, 2, 8);
  std::size_t changes = 0, last = cache.bytes();
  for (std::size_t t = 0; t < 1000; ++t) {
    cache.decode_step(q.view(), k.view(), v.view(), {});
    if (cache.bytes() != last) ++changes;
    last = cache.bytes();
    CHECK(cache.bytes() >= cache.length() * 2 * 16 * 4);
  }
  CHECK(changes <= 11);  // 1, 2, 4, ..., 1024
  CHECK(cache.length() == 1000);
}

TEST_CASE("KvCache: TooLarge past the budget, checked before allocating; the cache is unchanged") {
  // one row of 2 heads, d_k = d_v = 64: 1 KiB
  attn::KvCache cache(2, 64, 64);
  test::Budget budget(10 * 1024);
  CHECK(test::code_of([&] { cache.prefill(test::randn(1, 2 * 11, 64).view(), test::randn(2, 2 * 11, 64).view()); }) ==
        "TooLarge");
  CHECK(cache.bytes() == 0);
  CHECK(cache.length() == 0);
  cache.prefill(test::randn(3, 2 * 6, 64).view(), test::randn(4, 2 * 6, 64).view());
  CHECK(cache.length() == 6);
  // growth clamps to the budget (10 rows), not 12
  cache.prefill(test::randn(5, 2 * 1, 64).view(), test::randn(6, 2 * 1, 64).view());
  CHECK(cache.bytes() <= 10 * 1024);
  CHECK(cache.length() == 7);
  const std::size_t bytes = cache.bytes();
  CHECK(test::code_of([&] { cache.prefill(test::randn(7, 2 * 4, 64).view(), test::randn(8, 2 * 4, 64).view()); }) ==
        "TooLarge");
  CHECK(cache.length() == 7);
  CHECK(cache.bytes() == bytes);
  // decode steps fill up to the budget, then refuse
  const attn::Matrix q = test::randn(9, 2, 64), k = test::randn(10, 2, 64), v = test::randn(11, 2, 64);
  cache.decode_step(q.view(), k.view(), v.view(), {});
  cache.decode_step(q.view(), k.view(), v.view(), {});
  cache.decode_step(q.view(), k.view(), v.view(), {});
  CHECK(cache.length() == 10);
  CHECK(test::code_of([&] { cache.decode_step(q.view(), k.view(), v.view(), {}); }) == "TooLarge");
  CHECK(cache.length() == 10);
}

TEST_CASE("KvCache refuses bad shapes and values with typed errors and stays unchanged") {
  CHECK(test::code_of([] { attn::KvCache(0, 4, 4); }) == "ZeroDimension");
  CHECK(test::code_of([] { attn::KvCache(2, 0, 4); }) == "ZeroDimension");
  CHECK(test::code_of([] { attn::KvCache(2, 4, 0); }) == "ZeroDimension");
  attn::KvCache cache(2, 4, 3);
  cache.prefill(test::randn(1, 6, 4).view(), test::randn(2, 6, 3).view());
  REQUIRE(cache.length() == 3);
  const attn::Matrix q = test::randn(3, 4, 4), k = test::randn(4, 2, 4), v = test::randn(5, 2, 3);
  auto step = [&](const attn::Matrix& qq, const attn::Matrix& kk, const attn::Matrix& vv, attn::AttentionOptions o = {}) {
    const attn::MatrixView qv = qq.view(), kv = kk.view(), vv2 = vv.view();
    return [&cache, qv, kv, vv2, o] { cache.decode_step(qv, kv, vv2, o); };
  };
  const attn::Matrix q_cols = test::randn(6, 4, 5), q_rows = test::randn(7, 3, 4);
  const attn::Matrix k_rows = test::randn(8, 3, 4), v_cols = test::randn(9, 2, 4), k_nan(2, 4, NAN);
  const attn::Matrix q_inf(4, 4, INFINITY);
  CHECK(test::code_of(step(q_cols, k, v)) == "ShapeMismatch");
  CHECK(test::code_of(step(q_rows, k, v)) == "BadArgument");  // 3 query heads for 2 KV heads
  CHECK(test::code_of(step(q, k_rows, v)) == "ShapeMismatch");
  CHECK(test::code_of(step(q, k, v_cols)) == "ShapeMismatch");
  CHECK(test::code_of(step(q, k_nan, v)) == "NonFinite");
  CHECK(test::code_of(step(q_inf, k, v)) == "NonFinite");
  const std::uint8_t one = 1;
  attn::AttentionOptions masked;
  masked.mask = &one;
  CHECK(test::code_of(step(q, k, v, masked)) == "BadArgument");
  attn::AttentionOptions weights;
  weights.return_weights = true;
  CHECK(test::code_of(step(q, k, v, weights)) == "BadArgument");
  attn::AttentionOptions bad_scale;
  bad_scale.scale = -1.0f;
  CHECK(test::code_of(step(q, k, v, bad_scale)) == "BadArgument");
  CHECK(test::code_of([&] { cache.prefill(test::randn(1, 5, 4).view(), test::randn(2, 5, 3).view()); }) ==
        "ShapeMismatch");  // 5 rows for 2 heads
  CHECK(test::code_of([&] { cache.prefill(test::randn(1, 4, 4).view(), test::randn(2, 6, 3).view()); }) ==
        "ShapeMismatch");
  CHECK(test::code_of([&] {
          cache.prefill_attention(q.view(), test::randn(1, 4, 4).view(), test::randn(2, 4, 3).view(), 2, {});
        }) == "BadArgument");  // not empty
  CHECK(cache.length() == 3);
  CHECK(cache.appended() == 3);
  // and it still works
  CHECK(cache.decode_step(q.view(), k.view(), v.view(), {}).out.rows == 4);
  CHECK(cache.length() == 4);
}

TEST_CASE("decode step with entries near float32's limits takes the double path: finite and = reference") {
  const Seq s{2, 1, 6, 4, 3};
  attn::Matrix q = test::randn(1, s.hq * s.n, s.d_k), k = test::randn(2, s.hkv * s.n, s.d_k);
  attn::Matrix v = test::randn(3, s.hkv * s.n, s.d_v);
  for (float& x : v.data) x *= 1e37f;  // S·max|v| past FLT_MAX/4: float32 sums could overflow
  const attn::Matrix want = full_causal(q, k, v, s, 0);
  attn::KvCache cache(1, 4, 3);
  for (std::size_t t = 0; t < s.n; ++t) {
    const attn::AttentionResult r = cache.decode_step(test::head_slice(q, s.hq, s.n, t, t + 1).view(),
                                                      test::head_slice(k, s.hkv, s.n, t, t + 1).view(),
                                                      test::head_slice(v, s.hkv, s.n, t, t + 1).view(), {});
    const attn::Matrix row = test::head_slice(want, s.hq, s.n, t, t + 1);
    for (std::size_t i = 0; i < r.out.data.size(); ++i) {
      CHECK(std::isfinite(r.out.data[i]));
      CHECK(r.out.data[i] == doctest::Approx(row.data[i]).epsilon(1e-5));
    }
  }
}

// Every refusal of the cache is an attn::Error (the pages translate by code):
// no std::length_error or std::bad_alloc from the per-head storage, no
// std::out_of_range from a head past the last.
TEST_CASE("KvCache: a huge number of heads is TooLarge before allocating, under any budget") {
  {
    test::Budget budget(1024);  // 10^7 heads of bookkeeping are far past 1 KiB
    CHECK(test::code_of([] { attn::KvCache(10000000, 1, 1); }) == "TooLarge");
  }
  // past the default budget, and past what std::vector can hold
  CHECK(test::code_of([] { attn::KvCache(std::size_t(1) << 31, 1, 1); }) == "TooLarge");
  CHECK(test::code_of([] { attn::KvCache(SIZE_MAX / 2, 1, 1); }) == "TooLarge");
  CHECK(test::code_of([] { attn::KvCache(SIZE_MAX, 1, 1); }) == "TooLarge");
  attn::KvCache ok(1000, 1, 1);  // 1000 heads: a few tens of KB of bookkeeping
  CHECK(ok.heads_kv() == 1000);
}

TEST_CASE("KvCache::prefill_attention: q must hold heads_q rows per prompt row") {
  attn::KvCache cache(1, 4, 3);
  const attn::Matrix k = test::randn(1, 3, 4), v = test::randn(2, 3, 3);
  const attn::Matrix one_row = test::randn(3, 1, 4), two_heads = test::randn(4, 2 * 2, 4);
  CHECK(test::code_of([&] { cache.prefill_attention(one_row.view(), k.view(), v.view(), 1, {}); }) ==
        "ShapeMismatch");
  CHECK(test::code_of([&] { cache.prefill_attention(two_heads.view(), k.view(), v.view(), 2, {}); }) ==
        "ShapeMismatch");
  CHECK(cache.appended() == 0);
  const attn::Matrix q = test::randn(5, 2 * 3, 4);
  CHECK(cache.prefill_attention(q.view(), k.view(), v.view(), 2, {}).out.rows == 6);
}

TEST_CASE("KvCache::k(h) and v(h) past the last head are typed errors") {
  attn::KvCache cache(2, 4, 3);
  cache.prefill(test::randn(1, 2, 4).view(), test::randn(2, 2, 3).view());
  CHECK(cache.k(1).rows == 1);
  CHECK(test::code_of([&] { cache.k(2); }) == "BadArgument");
  CHECK(test::code_of([&] { cache.v(5); }) == "BadArgument");
}
