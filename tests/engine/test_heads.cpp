// multihead_attention (MHA, GQA, MQA) against a loop of the scalar reference
// over heads, on edge shapes, with masks and weights; its errors; and the
// K/V byte count of a decode step.
#include <vector>

#include "heads_helpers.hpp"

namespace {

struct Shape {
  std::size_t hq, hkv, L, S, d_k, d_v;
  bool causal;
};

// Every head of r against reference_head: outputs, masked rows, weights.
void check_heads(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                 const Shape& s, const attn::AttentionOptions& opt, const attn::MultiheadResult& r) {
  REQUIRE(r.out.rows == s.hq * s.L);
  REQUIRE(r.out.cols == s.d_v);
  REQUIRE(r.masked_rows.size() == s.hq);
  for (std::size_t h = 0; h < s.hq; ++h) {
    CAPTURE(h);
    attn::AttentionOptions o = opt;
    const attn::AttentionResult want = test::reference_head(q, k, v, s.hq, s.hkv, h, o);
    attn::Matrix got_h(s.L, s.d_v);
    for (std::size_t i = 0; i < s.L; ++i)
      for (std::size_t c = 0; c < s.d_v; ++c) got_h.at(i, c) = r.out.at(h * s.L + i, c);
    CHECK(test::mismatches(got_h, want.out) == 0);
    CHECK(r.masked_rows[h] == want.masked_rows);
    if (opt.return_weights) {
      REQUIRE(r.weights.size() == s.hq);
      CHECK(test::mismatches(r.weights[h], want.weights) == 0);
      CHECK(test::mismatches(r.scores[h], want.scores) == 0);
    }
  }
}

}  // namespace

TEST_CASE("multihead_attention equals the reference head by head on edge shapes") {
  const Shape shapes[] = {
      {2, 2, 5, 5, 4, 3, false},    // MHA
      {3, 3, 4, 4, 8, 8, true},     // MHA, causal
      {4, 1, 3, 7, 5, 2, false},    // MQA, L != S
      {4, 1, 6, 6, 16, 16, true},   // MQA, causal
      {8, 2, 6, 9, 17, 3, true},    // GQA H_q/H_kv = 4, L != S, causal
      {8, 2, 9, 4, 3, 5, false},    // GQA, L > S
      {1, 1, 1, 1, 1, 1, false},    // n = 1, d = 1
      {4, 2, 7, 7, 1, 1, true},     // d = 1, causal
  };
  std::uint64_t seed = 100;
  for (const Shape& s : shapes) {
    CAPTURE(s.hq);
    CAPTURE(s.hkv);
    CAPTURE(s.L);
    CAPTURE(s.S);
    CAPTURE(s.d_k);
    const attn::Matrix q = test::randn(seed++, s.hq * s.L, s.d_k);
    const attn::Matrix k = test::randn(seed++, s.hkv * s.S, s.d_k);
    const attn::Matrix v = test::randn(seed++, s.hkv * s.S, s.d_v);
    for (attn::Variant variant : test::kAllVariants) {
      CAPTURE(static_cast<int>(variant));
      attn::AttentionOptions opt;
      opt.causal = s.causal;
      opt.variant = variant;
      opt.block_q = 2;
      opt.block_k = 3;
      opt.return_weights = test::has_weights(variant);
      check_heads(q, k, v, s, opt, attn::multihead_attention(q.view(), k.view(), v.view(), {s.hq, s.hkv}, opt));
    }
  }
}

TEST_CASE("multihead_attention: a shared mask hides the same keys in every head; masked rows per head") {
  const Shape s{4, 2, 3, 4, 6, 5, true};
  const attn::Matrix q = test::randn(7, s.hq * s.L, s.d_k), k = test::randn(8, s.hkv * s.S, s.d_k),
                     v = test::randn(9, s.hkv * s.S, s.d_v);
  // row 1 sees nothing; row 2 only keys 0 and 3 (causal hides 3 with row_offset 0)
  const std::vector<std::uint8_t> mask = {1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1};
  for (attn::Variant variant : test::kAllVariants) {
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.mask = mask.data();
    opt.variant = variant;
    opt.return_weights = test::has_weights(variant);
    const attn::MultiheadResult r = attn::multihead_attention(q.view(), k.view(), v.view(), {4, 2}, opt);
    check_heads(q, k, v, s, opt, r);
    for (std::size_t h = 0; h < 4; ++h) CHECK(r.masked_rows[h] == std::vector<std::uint32_t>{1});
    for (std::size_t c = 0; c < s.d_v; ++c) CHECK(r.out.at(3 * s.L + 1, c) == 0.0f);
  }
}

TEST_CASE("multihead_attention passes row_offset and scale through to every head") {
  const Shape s{6, 3, 4, 10, 4, 4, true};
  const attn::Matrix q = test::randn(11, s.hq * s.L, s.d_k), k = test::randn(12, s.hkv * s.S, s.d_k),
                     v = test::randn(13, s.hkv * s.S, s.d_v);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.row_offset = 5;
  opt.scale = 0.7f;
  check_heads(q, k, v, s, opt, attn::multihead_attention(q.view(), k.view(), v.view(), {6, 3}, opt));
}

TEST_CASE("multihead_attention: one kernel call per KV group (K/V read once per group), per head with a mask") {
  struct Case {
    std::size_t hq, hkv;
  };
  const std::vector<std::uint8_t> mask(5 * 7, 1);
  std::uint64_t seed = 300;
  for (const Case c : {Case{8, 2}, Case{4, 1}, Case{3, 3}, Case{6, 3}}) {
    const Shape s{c.hq, c.hkv, 5, 7, 4, 3, true};
    CAPTURE(c.hq);
    CAPTURE(c.hkv);
    const attn::Matrix q = test::randn(seed++, s.hq * s.L, s.d_k), k = test::randn(seed++, s.hkv * s.S, s.d_k),
                       v = test::randn(seed++, s.hkv * s.S, s.d_v);
    for (attn::Variant variant : test::kAllVariants) {
      attn::AttentionOptions opt;
      opt.causal = true;
      opt.variant = variant;
      opt.block_q = 3;  // blocks straddle the heads' boundaries (L = 5)
      opt.block_k = 2;
      opt.return_weights = test::has_weights(variant);
      const attn::MultiheadResult r = attn::multihead_attention(q.view(), k.view(), v.view(), {s.hq, s.hkv}, opt);
      CHECK(r.kernel_calls == c.hkv);
      check_heads(q, k, v, s, opt, r);
      opt.mask = mask.data();  // a shared L x S mask keeps one call per head (see heads.cpp)
      const attn::MultiheadResult m = attn::multihead_attention(q.view(), k.view(), v.view(), {s.hq, s.hkv}, opt);
      CHECK(m.kernel_calls == c.hq);
      check_heads(q, k, v, s, opt, m);
    }
  }
}

TEST_CASE("multihead_attention: window and the caller's query_period per head, stacked or not") {
  const Shape s{8, 2, 6, 11, 5, 4, true};
  const attn::Matrix q = test::randn(31, s.hq * s.L, s.d_k), k = test::randn(32, s.hkv * s.S, s.d_k),
                     v = test::randn(33, s.hkv * s.S, s.d_v);
  for (bool causal : {true, false})
    for (std::size_t window : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(20)})
      for (std::size_t period : {std::size_t(0), std::size_t(3), std::size_t(4)})  // 3 divides L, 4 does not
        for (attn::Variant variant : test::kFastVariants) {
          CAPTURE(causal);
          CAPTURE(window);
          CAPTURE(period);
          CAPTURE(static_cast<int>(variant));
          attn::AttentionOptions opt;
          opt.causal = causal;
          opt.window = window;
          opt.query_period = period;
          opt.row_offset = 2;
          opt.variant = variant;
          opt.block_q = 4;
          opt.block_k = 3;
          opt.return_weights = test::has_weights(variant);
          const attn::MultiheadResult r = attn::multihead_attention(q.view(), k.view(), v.view(), {8, 2}, opt);
          CHECK(r.kernel_calls == (period == 4 ? 8u : 2u));
          check_heads(q, k, v, s, opt, r);
        }
}

TEST_CASE("multihead_attention refuses bad head counts and shapes with typed errors") {
  const attn::Matrix q = test::randn(1, 8, 4), k = test::randn(2, 6, 4), v = test::randn(3, 6, 2);
  const attn::AttentionOptions opt;
  auto run = [&](attn::MatrixView qv, attn::MatrixView kv, attn::MatrixView vv, attn::HeadCounts h) {
    return [=] { attn::multihead_attention(qv, kv, vv, h, opt); };
  };
  CHECK(test::code_of(run(q.view(), k.view(), v.view(), {4, 3})) == "BadArgument");   // 4 % 3
  CHECK(test::code_of(run(q.view(), k.view(), v.view(), {0, 1})) == "ZeroDimension");
  CHECK(test::code_of(run(q.view(), k.view(), v.view(), {2, 0})) == "ZeroDimension");
  CHECK(test::code_of(run(q.view(), k.view(), v.view(), {8, 4})) == "ShapeMismatch");  // k: 6 rows, 4 heads
  CHECK(test::code_of(run(q.view(), k.view(), v.view(), {3, 3})) == "ShapeMismatch");  // q: 8 rows, 3 heads
  const attn::Matrix v5 = test::randn(4, 5, 2), k3 = test::randn(5, 6, 3), qnan(8, 4, NAN);
  CHECK(test::code_of(run(q.view(), k.view(), v5.view(), {2, 2})) == "ShapeMismatch");
  CHECK(test::code_of(run(q.view(), k3.view(), v.view(), {2, 2})) == "ShapeMismatch");
  CHECK(test::code_of(run(qnan.view(), k.view(), v.view(), {2, 2})) == "NonFinite");
  CHECK(test::code_of(run({nullptr, 0, 4}, k.view(), v.view(), {2, 2})) == "ZeroDimension");
}

TEST_CASE("multihead_attention: TooLarge for the heads' output and weights before allocating") {
  const attn::Matrix q = test::randn(1, 32 * 64, 8), k = test::randn(2, 8 * 64, 8), v = test::randn(3, 8 * 64, 8);
  attn::AttentionOptions opt;
  opt.return_weights = true;
  {
    // one head fits (64x64 weights and scores: 32 KiB + its scratch), 32 heads' weights (1 MiB) do not
    test::Budget budget(200000);
    CHECK(test::code_of([&] { attn::multihead_attention(q.view(), k.view(), v.view(), {32, 8}, opt); }) == "TooLarge");
    const attn::Matrix q1 = test::randn(1, 64, 8), k1 = test::randn(2, 64, 8), v1 = test::randn(3, 64, 8);
    CHECK(attn::multihead_attention(q1.view(), k1.view(), v1.view(), {1, 1}, opt).weights.size() == 1);
  }
}

TEST_CASE("kv_bytes_read: each KV head's rows once per step, so GQA 32/8 reads 4x less than MHA 32/32") {
  const double mha = attn::kv_bytes_read({32, 32}, 32768, 128, 128);
  const double gqa = attn::kv_bytes_read({32, 8}, 32768, 128, 128);
  CHECK(mha == 32.0 * 32768 * 256 * 4);
  CHECK(gqa * 4 == mha);
  CHECK(attn::kv_bytes_read({8, 1}, 3, 2, 5) == 1.0 * 3 * 7 * 4);
  // no 32-bit wrap
  CHECK(attn::kv_bytes_read({64, 64}, 1u << 20, 1024, 1024) == 64.0 * 1048576.0 * 2048.0 * 4.0);
}
