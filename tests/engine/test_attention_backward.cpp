// Attention's backward: the double reference against central finite
// differences, then the chunked (FlashAttention-2) and materialized float
// kernels against the reference, on edge shapes (n = 1, d = 1, L ≠ S, sizes
// that are not multiples of the tile, causal, windows with rows that see no
// key, a mask, grouped-query heads); and the chunked one's memory.
#include <cmath>
#include <string>
#include <vector>

#include "attn/train.hpp"
#include "helpers.hpp"
#include "train_helpers.hpp"

namespace {

struct Shape {
  const char* name;
  std::size_t L, S, d_k, d_v;
  bool causal;
  std::size_t window, row_offset;
};

// n = 1 and d = 1; L != S; causal with the queries at the end; a causal
// window where the last two rows are past every key (they see nothing); a
// symmetric band; a window over rows that start before the keys.
const Shape shapes[] = {
    {"n=1 d=1", 1, 1, 1, 1, false, 0, 0},
    {"L!=S", 5, 7, 3, 2, false, 0, 0},
    {"causal", 6, 6, 4, 3, true, 0, 0},
    {"causal L<S offset", 4, 9, 2, 5, true, 0, 5},
    {"causal window, rows past the keys", 7, 4, 3, 2, true, 2, 0},
    {"band window", 7, 5, 2, 3, false, 2, 0},
};

attn::AttentionOptions rule_of(const Shape& s) {
  attn::AttentionOptions opt;
  opt.causal = s.causal;
  opt.window = s.window;
  opt.row_offset = s.row_offset;
  return opt;
}

}  // namespace

// Tolerance: the reference's analytic gradient against central differences
// with h = 1e-5 in double is exact to about h² (truncation) plus 1e-16/h (rounding).
constexpr double fd_tolerance = 1e-7;

TEST_CASE("attention backward reference matches finite differences") {
  double worst = 0.0;
  for (const Shape& s : shapes) {
    CAPTURE(s.name);
    const attn::AttentionOptions rule = rule_of(s);
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.d_k));
    std::vector<double> q = test::doubles(test::randn(1, s.L, s.d_k));
    std::vector<double> k = test::doubles(test::randn(2, s.S, s.d_k));
    std::vector<double> v = test::doubles(test::randn(3, s.S, s.d_v));
    const std::vector<double> g = test::doubles(test::randn(4, s.L, s.d_v));  // d_out
    // loss = Σ g ∘ out, so ∂loss/∂out = g
    auto loss = [&] {
      std::vector<double> out(s.L * s.d_v), lse(s.L);
      attn::reference_attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), s.L,
                                        s.S, s.d_k, s.d_v, rule, scale);
      double sum = 0.0;
      for (std::size_t t = 0; t < out.size(); ++t) sum += g[t] * out[t];
      return sum;
    };
    std::vector<double> dq(q.size()), dk(k.size()), dv(v.size());
    attn::reference_attention_backward(dq.data(), dk.data(), dv.data(), g.data(), q.data(), k.data(),
                                       v.data(), s.L, s.S, s.d_k, s.d_v, rule, scale);
    const double eq = test::max_abs_diff(dq, test::central_differences(loss, q, 1e-5));
    const double ek = test::max_abs_diff(dk, test::central_differences(loss, k, 1e-5));
    const double ev = test::max_abs_diff(dv, test::central_differences(loss, v, 1e-5));
    CHECK(eq <= fd_tolerance);
    CHECK(ek <= fd_tolerance);
    CHECK(ev <= fd_tolerance);
    worst = std::max({worst, eq, ek, ev});
    REQUIRE(test::max_abs(dv) > 0.0);  // the check is not vacuous
  }
  MESSAGE("attention reference vs finite differences, max abs error: " << worst);
}

TEST_CASE("a row that sees no key has zero gradients and -inf log-sum-exp") {
  const Shape& s = shapes[4];
  const attn::Matrix q = test::randn(1, s.L, s.d_k), k = test::randn(2, s.S, s.d_k),
                     v = test::randn(3, s.S, s.d_v), g = test::randn(4, s.L, s.d_v);
  attn::AttentionOptions opt = rule_of(s);
  opt.variant = attn::Variant::Chunked;
  const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
  CHECK(f.masked_rows == std::vector<std::uint32_t>{5, 6});
  CHECK(std::isinf(f.lse[6]));
  CHECK(std::isfinite(f.lse[4]));
  const attn::AttentionGradients d =
      attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
  for (std::size_t t = 0; t < s.d_k; ++t) CHECK(d.dq.at(6, t) == 0.0f);
  CHECK(d.dq.at(3, 0) != 0.0f);
}

// Float kernels against the double reference: tolerance relative to the
// largest gradient entry, for float32 sums over at most a few hundred terms.
constexpr double float_tolerance = 2e-5;

TEST_CASE("chunked and materialized backward equal the reference") {
  std::vector<Shape> all(std::begin(shapes), std::end(shapes));
  all.push_back({"n=70 tiles 16x8", 70, 70, 16, 16, true, 0, 0});
  all.push_back({"L=37 S=53 window 9", 37, 53, 8, 5, true, 9, 16});
  all.push_back({"L=33 S=20 band", 33, 20, 5, 7, false, 4, 0});
  double worst_chunked = 0.0, worst_materialized = 0.0, worst_forward = 0.0;
  for (const Shape& s : all) {
    CAPTURE(s.name);
    const attn::Matrix q = test::randn(11, s.L, s.d_k), k = test::randn(12, s.S, s.d_k),
                       v = test::randn(13, s.S, s.d_v), g = test::randn(14, s.L, s.d_v);
    attn::AttentionOptions opt = rule_of(s);
    opt.block_q = 16;
    opt.block_k = 8;
    opt.variant = attn::Variant::Reference;
    const attn::AttentionForwardLse ref_f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
    const attn::AttentionGradients ref =
        attn::attention_backward(q.view(), k.view(), v.view(), ref_f.out.view(), ref_f.lse, g.view(), opt);
    const double top = std::max(1.0, std::max({test::max_abs(ref.dq.data), test::max_abs(ref.dk.data),
                                                test::max_abs(ref.dv.data)}));
    opt.variant = attn::Variant::Chunked;
    const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
    const double ef = std::max(test::max_abs_diff(f.out.data, ref_f.out.data),
                               test::max_abs_diff(f.lse, ref_f.lse));
    CHECK(ef <= float_tolerance);
    CHECK(f.masked_rows == ref_f.masked_rows);
    worst_forward = std::max(worst_forward, ef);
    for (attn::Variant variant : {attn::Variant::Chunked, attn::Variant::Materialized}) {
      opt.variant = variant;
      const attn::AttentionGradients d =
          attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
      const double e = std::max({test::max_abs_diff(d.dq.data, ref.dq.data),
                                 test::max_abs_diff(d.dk.data, ref.dk.data),
                                 test::max_abs_diff(d.dv.data, ref.dv.data)}) / top;
      CHECK(e <= float_tolerance);
      (variant == attn::Variant::Chunked ? worst_chunked : worst_materialized) =
          std::max(variant == attn::Variant::Chunked ? worst_chunked : worst_materialized, e);
    }
  }
  MESSAGE("forward (out, lse) max abs error " << worst_forward << "; backward max error / max|grad|: chunked "
                                              << worst_chunked << ", materialized " << worst_materialized);
}

// The training reference (reference_attention_forward / _backward) against the forward's
// own reference (attn::attention, Variant::Reference), one field of the rule at a time:
// each field changes the output (the check is not vacuous), and both read it alike.
TEST_CASE("the training reference sees every field of the rule that the forward sees") {
  const std::size_t L = 7, S = 9, d_k = 4, d_v = 3;
  const attn::Matrix q = test::randn(61, L, d_k), k = test::randn(62, S, d_k), v = test::randn(63, S, d_v),
                     g = test::randn(64, L, d_v);
  std::vector<std::uint8_t> mask(L * S, 1);
  for (std::size_t i = 0; i < L; ++i) mask[i * S + (i * 5) % S] = 0;
  struct Case {
    const char* field;
    attn::AttentionOptions without, with;  // the rule without the field, and with it
  };
  std::vector<Case> cases;
  attn::AttentionOptions none, causal;
  causal.causal = true;
  cases.push_back({"causal", none, causal});
  cases.push_back({"window", none, none});
  cases.back().with.window = 3;
  cases.push_back({"row_offset", causal, causal});
  cases.back().with.row_offset = 4;
  cases.push_back({"query_period", causal, causal});
  cases.back().with.query_period = 3;
  cases.push_back({"mask", none, none});
  cases.back().with.mask = mask.data();
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
  for (Case& c : cases) {
    const std::string field = c.field;
    CAPTURE(field);
    c.without.variant = c.with.variant = attn::Variant::Reference;
    const attn::AttentionResult fwd = attn::attention(q.view(), k.view(), v.view(), c.with);
    const attn::AttentionResult fwd_without = attn::attention(q.view(), k.view(), v.view(), c.without);
    REQUIRE(test::max_abs_diff(fwd.out.data, fwd_without.out.data) > 1e-2);  // the field matters here
    std::vector<double> out(L * d_v), lse(L);
    attn::reference_attention_forward(out.data(), lse.data(), test::doubles(q).data(), test::doubles(k).data(),
                                      test::doubles(v).data(), L, S, d_k, d_v, c.with, scale);
    CHECK(test::max_abs_diff(out, fwd.out.data) <= 1e-6);
    // the backward reference against the chunked float backward, which reads the rule
    // through make_problem
    const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), c.with);
    const attn::AttentionGradients ref =
        attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), c.with);
    attn::AttentionOptions chunked = c.with;
    chunked.variant = attn::Variant::Chunked;
    const attn::AttentionGradients d =
        attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), chunked);
    CHECK(test::max_abs_diff(d.dq.data, ref.dq.data) <= 1e-5);
    CHECK(test::max_abs_diff(d.dk.data, ref.dk.data) <= 1e-5);
    CHECK(test::max_abs_diff(d.dv.data, ref.dv.data) <= 1e-5);
  }
}

TEST_CASE("backward with a mask hiding a whole row") {
  const std::size_t L = 5, S = 6, d = 3;
  const attn::Matrix q = test::randn(21, L, d), k = test::randn(22, S, d), v = test::randn(23, S, d),
                     g = test::randn(24, L, d);
  std::vector<std::uint8_t> mask(L * S, 1);
  for (std::size_t j = 0; j < S; ++j) mask[2 * S + j] = 0;  // row 2 sees nothing
  mask[0 * S + 3] = 0;
  mask[4 * S + 0] = 0;
  attn::AttentionOptions opt;
  opt.mask = mask.data();
  opt.causal = true;
  opt.row_offset = 1;
  opt.block_q = 2;
  opt.block_k = 4;
  opt.variant = attn::Variant::Reference;
  const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
  const attn::AttentionGradients ref =
      attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
  CHECK(f.masked_rows == std::vector<std::uint32_t>{2});
  for (attn::Variant variant : {attn::Variant::Chunked, attn::Variant::Materialized}) {
    opt.variant = variant;
    const attn::AttentionGradients d =
        attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
    CHECK(test::max_abs_diff(d.dk.data, ref.dk.data) <= 1e-5);
    CHECK(test::max_abs_diff(d.dq.data, ref.dq.data) <= 1e-5);
    CHECK(test::max_abs_diff(d.dv.data, ref.dv.data) <= 1e-5);
  }
}

TEST_CASE("grouped-query backward: dK and dV sum over the query heads of a group") {
  const std::size_t Hq = 4, Hkv = 2, L = 3, S = 5, d_k = 2, d_v = 3;
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.row_offset = 2;
  const double scale = 1.0 / std::sqrt(2.0);
  std::vector<double> q = test::doubles(test::randn(31, Hq * L, d_k));
  std::vector<double> k = test::doubles(test::randn(32, Hkv * S, d_k));
  std::vector<double> v = test::doubles(test::randn(33, Hkv * S, d_v));
  const std::vector<double> g = test::doubles(test::randn(34, Hq * L, d_v));
  auto loss = [&] {  // every query head h reads KV head h / 2
    double sum = 0.0;
    std::vector<double> out(L * d_v), lse(L);
    for (std::size_t h = 0; h < Hq; ++h) {
      attn::reference_attention_forward(out.data(), lse.data(), q.data() + h * L * d_k,
                                        k.data() + h / 2 * S * d_k, v.data() + h / 2 * S * d_v, L, S,
                                        d_k, d_v, opt, scale);
      for (std::size_t t = 0; t < out.size(); ++t) sum += g[h * L * d_v + t] * out[t];
    }
    return sum;
  };
  const std::vector<double> fd_k = test::central_differences(loss, k, 1e-5);
  const std::vector<double> fd_v = test::central_differences(loss, v, 1e-5);
  const std::vector<double> fd_q = test::central_differences(loss, q, 1e-5);
  const attn::Matrix qf = test::randn(31, Hq * L, d_k), kf = test::randn(32, Hkv * S, d_k),
                     vf = test::randn(33, Hkv * S, d_v), gf = test::randn(34, Hq * L, d_v);
  for (attn::Variant variant :
       {attn::Variant::Reference, attn::Variant::Chunked, attn::Variant::Materialized}) {
    CAPTURE(static_cast<int>(variant));
    opt.variant = variant;
    const attn::AttentionForwardLse f =
        attn::multihead_forward_lse(qf.view(), kf.view(), vf.view(), {Hq, Hkv}, opt);
    const attn::AttentionGradients d = attn::multihead_attention_backward(
        qf.view(), kf.view(), vf.view(), f.out.view(), f.lse, gf.view(), {Hq, Hkv}, opt);
    CHECK(test::max_abs_diff(d.dk.data, fd_k) <= 1e-5);
    CHECK(test::max_abs_diff(d.dv.data, fd_v) <= 1e-5);
    CHECK(test::max_abs_diff(d.dq.data, fd_q) <= 1e-5);
  }
}

TEST_CASE("chunked backward holds tiles, not L x S") {
  const std::size_t d = 16;
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.block_q = 32;
  opt.block_k = 32;
  std::size_t chunked_scratch[2] = {0, 0};
  const std::size_t ns[2] = {64, 256};
  for (int at = 0; at < 2; ++at) {
    const std::size_t n = ns[at];
    const attn::Matrix q = test::randn(41, n, d), k = test::randn(42, n, d), v = test::randn(43, n, d),
                       g = test::randn(44, n, d);
    opt.variant = attn::Variant::Chunked;
    const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
    const attn::AttentionGradients c =
        attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
    opt.variant = attn::Variant::Materialized;
    const attn::AttentionGradients m =
        attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
    CHECK(c.scratch_bytes == (2 * 32 * 32 + n) * 4);  // two tiles and D
    CHECK(m.scratch_bytes == (2 * n * n + n) * 4);    // P and dS
    chunked_scratch[at] = c.scratch_bytes;
  }
  CHECK(chunked_scratch[1] - chunked_scratch[0] == (256 - 64) * 4);  // grows as L, not L·S

  // under a budget too small for P, the chunked backward still runs
  const std::size_t n = 512;
  const attn::Matrix q = test::randn(45, n, d), g = test::randn(46, n, d);
  opt.variant = attn::Variant::Chunked;
  const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), q.view(), q.view(), opt);
  attn::set_memory_budget(200000);  // < 2·n²·4 = 2 MB, > the 98 KB of gradients + 12 KB of tiles
  CHECK_NOTHROW(attn::attention_backward(q.view(), q.view(), q.view(), f.out.view(), f.lse, g.view(), opt));
  opt.variant = attn::Variant::Materialized;
  try {
    attn::attention_backward(q.view(), q.view(), q.view(), f.out.view(), f.lse, g.view(), opt);
    FAIL("materialized backward should be over the budget");
  } catch (const attn::Error& e) {
    CHECK(e.code() == attn::ErrorCode::TooLarge);
  }
  attn::set_memory_budget(0);
}

TEST_CASE("attention backward refuses bad shapes and values") {
  const attn::Matrix q = test::randn(51, 4, 3), k = test::randn(52, 6, 3), v = test::randn(53, 6, 2);
  attn::AttentionOptions opt;
  opt.variant = attn::Variant::Chunked;
  const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
  const attn::Matrix g = test::randn(54, 4, 2), wrong = test::randn(55, 4, 3);
  auto code_of = [&](const attn::Matrix& out, const std::vector<float>& lse, const attn::Matrix& d_out) {
    try {
      attn::attention_backward(q.view(), k.view(), v.view(), out.view(), lse, d_out.view(), opt);
    } catch (const attn::Error& e) {
      return std::string(attn::error_code_name(e.code()));
    }
    return std::string("none");
  };
  CHECK(code_of(f.out, f.lse, g) == "none");
  CHECK(code_of(wrong, f.lse, g) == "ShapeMismatch");
  CHECK(code_of(f.out, f.lse, wrong) == "ShapeMismatch");
  CHECK(code_of(f.out, std::vector<float>(3, 0.0f), g) == "ShapeMismatch");
  std::vector<float> nan_lse = f.lse;
  nan_lse[1] = NAN;
  CHECK(code_of(f.out, nan_lse, g) == "NonFinite");
  attn::Matrix bad_g = g;
  bad_g.at(0, 0) = INFINITY;
  CHECK(code_of(f.out, f.lse, bad_g) == "NonFinite");
  opt.block_k = 0;
  CHECK(code_of(f.out, f.lse, g) == "BadArgument");
  opt.block_k = 64;
  try {
    attn::multihead_attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), {3, 2}, opt);
    FAIL("3 query heads over 2 KV heads");
  } catch (const attn::Error& e) {
    CHECK(e.code() == attn::ErrorCode::BadArgument);
  }
}
