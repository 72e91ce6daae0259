// Inputs at the edges of float32 (issue 13): logits near ±FLT_MAX, values
// near FLT_MAX, denormals and ±0, through every kernel. The rule for every
// fast path: the scalar reference's answer (which works in double) or a
// NonFinite refusal, never a dropped key, a silently zeroed row or inf/NaN.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {

using attn::ErrorCode;
using attn::Variant;

// One fast-path configuration: a variant plus the options that change its code path.
struct Config {
  Variant variant;
  bool causal;
  std::size_t block_q, block_k;
  bool weights;
  bool stored;  // through attn::KeyValues (the worker pool's path)
  std::string name() const {
    return std::string(variant == Variant::Chunked ? "chunked" : "materialized") +
           (causal ? " causal" : "") + " bq=" + std::to_string(block_q) +
           " bk=" + std::to_string(block_k) + (weights ? " weights" : "") + (stored ? " stored" : "");
  }
};

std::vector<Config> fast_configs() {
  std::vector<Config> out;
  for (bool causal : {false, true})
    for (bool stored : {false, true}) {
      out.push_back({Variant::Materialized, causal, 64, 64, false, stored});
      out.push_back({Variant::Materialized, causal, 64, 64, true, stored});
      for (std::size_t b : {1, 2, 64}) out.push_back({Variant::Chunked, causal, b, b, false, stored});
    }
  return out;
}

attn::AttentionResult run_config(const Config& c, const attn::Matrix& q, const attn::Matrix& k,
                                 const attn::Matrix& v, std::optional<float> scale,
                                 const std::uint8_t* mask = nullptr) {
  attn::AttentionOptions opt;
  opt.variant = c.variant;
  opt.causal = c.causal;
  opt.block_q = c.block_q;
  opt.block_k = c.block_k;
  opt.return_weights = c.weights;
  opt.scale = scale;
  opt.mask = mask;
  if (!c.stored) return attn::attention(q.view(), k.view(), v.view(), opt);
  const attn::KeyValues kv(k, v);
  return attn::attention(q.view(), kv, opt);
}

// Every fast configuration gives the reference's output (within `tol`
// relative to the largest |v|), its masked rows and finite weights that sum
// to 1 per visible row, or refuses with NonFinite. Returns how many refused.
int agrees_or_refuses(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                      std::optional<float> scale, float tol = 1e-5f,
                      const std::uint8_t* mask = nullptr) {
  int refused = 0;
  float v_max = 0.0f;
  for (float x : v.data) v_max = std::fmax(v_max, std::fabs(x));
  for (bool causal : {false, true}) {
    attn::AttentionOptions ro;
    ro.variant = Variant::Reference;
    ro.causal = causal;
    ro.scale = scale;
    ro.mask = mask;
    const attn::AttentionResult ref = attn::attention(q.view(), k.view(), v.view(), ro);
    for (const Config& c : fast_configs()) {
      if (c.causal != causal) continue;
      CAPTURE(c.name());
      try {
        const attn::AttentionResult r = run_config(c, q, k, v, scale, mask);
        CHECK(r.masked_rows == ref.masked_rows);
        REQUIRE(r.out.data.size() == ref.out.data.size());
        for (std::size_t t = 0; t < r.out.data.size(); ++t) {
          CAPTURE(t);
          CAPTURE(r.out.data[t]);
          CAPTURE(ref.out.data[t]);
          CHECK(std::isfinite(r.out.data[t]));
          CHECK(std::fabs(r.out.data[t] - ref.out.data[t]) <= tol * v_max);
        }
        if (c.weights) {
          for (std::size_t i = 0; i < r.weights.rows; ++i) {
            double sum = 0.0;
            for (std::size_t j = 0; j < r.weights.cols; ++j) {
              const float w = r.weights.at(i, j);
              CHECK((std::isfinite(w) && w >= 0.0f));
              sum += w;
            }
            const bool masked = std::find(r.masked_rows.begin(), r.masked_rows.end(), i) != r.masked_rows.end();
            CHECK(sum == doctest::Approx(masked ? 0.0 : 1.0).epsilon(1e-5));
          }
        }
      } catch (const attn::Error& e) {
        CAPTURE(e.what());
        CHECK(e.code() == ErrorCode::NonFinite);
        ++refused;
      }
    }
  }
  return refused;
}

}  // namespace

// Issue 13, first example: scale·q overflows nothing (2.1e38) but
// (scale·q)·k does: inf − inf = NaN for key 0, whose weight became 0, so
// the fast kernels returned v_1 = 7 instead of the mean of 5 and 7.
TEST_CASE("q near FLT_MAX: an overflowing partial sum does not drop a key") {
  const attn::Matrix q = test::from_rows({{3e38f, 3e38f}});
  const attn::Matrix k = test::from_rows({{2.0f, -2.0f}, {0.0f, 0.0f}});
  const attn::Matrix v = test::from_rows({{5.0f}, {7.0f}});
  attn::AttentionOptions ro;
  ro.variant = Variant::Reference;
  CHECK(attn::attention(q.view(), k.view(), v.view(), ro).out.at(0, 0) == doctest::Approx(6.0));
  CHECK(agrees_or_refuses(q, k, v, std::nullopt) == 0);  // these logits (both 0) are computable
}

// Issue 13, second example: scale·q = inf, then inf·(−1e−38) = −inf and
// inf·0 = NaN: both keys vanished and the row was reported fully masked.
TEST_CASE("scale·q past FLT_MAX: the row is not declared fully masked") {
  const attn::Matrix q = test::from_rows({{3e38f}});
  const attn::Matrix k = test::from_rows({{-1e-38f}, {0.0f}});
  const attn::Matrix v = test::from_rows({{5.0f}, {7.0f}});
  attn::AttentionOptions ro;
  ro.variant = Variant::Reference;
  ro.scale = 2.0f;
  const attn::AttentionResult ref = attn::attention(q.view(), k.view(), v.view(), ro);
  CHECK(ref.out.at(0, 0) == doctest::Approx(6.995).epsilon(1e-3));
  CHECK(ref.masked_rows.empty());
  CHECK(agrees_or_refuses(q, k, v, 2.0f) == 0);
}

// Issue 13, item 2: the chunked kernel and the trace summed un-normalised
// values (3e38 + 3e38 = inf) before dividing by l = 2.
TEST_CASE("values near FLT_MAX: chunked and the trace return them, not +inf") {
  const attn::Matrix q = test::from_rows({{1.0f}});
  const attn::Matrix k = test::from_rows({{0.0f}, {0.0f}});
  const attn::Matrix v = test::from_rows({{3e38f}, {3e38f}});
  CHECK(agrees_or_refuses(q, k, v, std::nullopt) == 0);
  for (std::size_t block_k : {1, 2, 64}) {
    CAPTURE(block_k);
    const attn::OnlineSoftmaxTrace t =
        attn::online_softmax_trace(q.view(), k.view(), v.view(), 0, block_k, false, std::nullopt);
    CHECK(t.out[0] == doctest::Approx(3e38));
    CHECK(t.reference[0] == doctest::Approx(3e38));
    CHECK(t.max_abs_diff <= 3e38f * 1e-6f);
  }
  // ±FLT_MAX in one column: the mean is 0, no inf − inf on the way
  const attn::Matrix v2 = test::from_rows({{FLT_MAX, 1.0f}, {-FLT_MAX, -FLT_MAX}});
  CHECK(agrees_or_refuses(q, k, v2, std::nullopt) == 0);
}

TEST_CASE("logits near +-FLT_MAX: one-hot rows, or the refusal of a logit past float32") {
  // logits +1e38 and -1e38 (scale 1): the row is one-hot on key 0
  const attn::Matrix q = test::from_rows({{1e19f}, {-1e19f}});
  const attn::Matrix k = test::from_rows({{1e19f}, {-1e19f}, {0.0f}});
  const attn::Matrix v = test::from_rows({{1.0f, -2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}});
  CHECK(agrees_or_refuses(q, k, v, 1.0f) == 0);
  attn::AttentionOptions opt;
  opt.scale = 1.0f;
  opt.return_weights = true;
  const attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
  CHECK(r.weights.at(0, 0) == 1.0f);
  CHECK(r.weights.at(1, 1) == 1.0f);
  CHECK(r.scores.at(0, 0) == doctest::Approx(1e38));
  CHECK(r.scores.at(0, 1) == doctest::Approx(-1e38));
  // logits of exactly ±FLT_MAX (q = FLT_MAX, k = ±1, scale 1)
  const attn::Matrix q2 = test::from_rows({{FLT_MAX}});
  const attn::Matrix k2 = test::from_rows({{1.0f}, {-1.0f}});
  const attn::Matrix v2 = test::from_rows({{2.0f}, {9.0f}});
  CHECK(agrees_or_refuses(q2, k2, v2, 1.0f) == 0);
  // a true logit of 2·FLT_MAX cannot be a float32 score: refused (reference works in double)
  const attn::Matrix k3 = test::from_rows({{2.0f}, {-1.0f}});
  CHECK(agrees_or_refuses(q2, k3, v2, 1.0f) > 0);
  opt.scale = 1.0f;
  for (Variant variant : test::kFastVariants) {
    opt.variant = variant;
    opt.return_weights = variant == Variant::Materialized;
    try {
      attn::attention(q2.view(), k3.view(), v2.view(), opt);
      FAIL("expected NonFinite");
    } catch (const attn::Error& e) {
      CHECK(e.code() == ErrorCode::NonFinite);
      CHECK(std::string(e.what()).find("float32") != std::string::npos);
    }
  }
}

TEST_CASE("denormals and signed zeros behave like ordinary small numbers") {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float sub = 1e-40f;  // subnormal
  // q·k underflows to ±0 or a subnormal: every logit is ~0, rows are uniform
  const attn::Matrix q = test::from_rows({{sub, -0.0f}, {-sub, tiny}, {0.0f, -0.0f}});
  const attn::Matrix k = test::from_rows({{sub, tiny}, {-0.0f, 0.0f}, {tiny, -sub}});
  const attn::Matrix v = test::from_rows({{sub, 1.0f}, {-0.0f, 2.0f}, {tiny, 3.0f}});
  CHECK(agrees_or_refuses(q, k, v, std::nullopt) == 0);
  attn::AttentionOptions opt;
  opt.return_weights = true;
  const attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
  for (float w : r.weights.data) CHECK(w == doctest::Approx(1.0 / 3.0));
  CHECK(r.out.at(0, 1) == doctest::Approx(2.0));
  // all-zero q and k: logits are +0 or -0, the row is the mean of v
  const attn::Matrix z = test::from_rows({{-0.0f, 0.0f}, {0.0f, -0.0f}});
  CHECK(agrees_or_refuses(z, z, test::from_rows({{-1.0f}, {1.0f}}), std::nullopt) == 0);
  // a subnormal scale
  CHECK(agrees_or_refuses(test::randn(3, 5, 4), test::randn(4, 6, 4), test::randn(5, 6, 3), sub) == 0);
  // denormal logits of both signs with a mask that hides a key
  const std::uint8_t mask[] = {1, 0, 1, 1, 1, 0, 0, 1, 1};
  CHECK(agrees_or_refuses(q, k, v, 1e30f, 1e-5f, mask) == 0);
}

TEST_CASE("the online softmax trace at the edges: reference or NonFinite") {
  struct Case {
    attn::Matrix q, k, v;
    std::optional<float> scale;
  };
  const std::vector<Case> cases = {
      {test::from_rows({{3e38f, 3e38f}}), test::from_rows({{2.0f, -2.0f}, {0.0f, 0.0f}}),
       test::from_rows({{5.0f}, {7.0f}}), std::nullopt},
      {test::from_rows({{3e38f}}), test::from_rows({{-1e-38f}, {0.0f}}), test::from_rows({{5.0f}, {7.0f}}),
       2.0f},
      {test::from_rows({{1e19f}}), test::from_rows({{1e19f}, {-1e19f}, {0.0f}}),
       test::from_rows({{FLT_MAX}, {-FLT_MAX}, {1.0f}}), 1.0f},
      {test::from_rows({{1e-40f}}), test::from_rows({{-0.0f}, {1e-45f}}), test::from_rows({{1e-40f}, {-0.0f}}),
       std::nullopt},
  };
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    for (std::size_t block_k : {1, 2, 3}) {
      CAPTURE(n);
      CAPTURE(block_k);
      const attn::OnlineSoftmaxTrace t =
          attn::online_softmax_trace(c.q.view(), c.k.view(), c.v.view(), 0, block_k, false, c.scale);
      float v_max = 0.0f;
      for (float x : c.v.data) v_max = std::fmax(v_max, std::fabs(x));
      for (std::size_t col = 0; col < t.out.size(); ++col) {
        CHECK(std::isfinite(t.out[col]));
        CHECK(std::fabs(t.out[col] - t.reference[col]) <= 1e-5f * v_max);
      }
      for (const attn::OnlineSoftmaxStep& s : t.steps) {
        CHECK(std::isfinite(s.l_new));
        CHECK(s.l_new >= 1.0f);  // the max key contributes exp(0) = 1
      }
    }
  }
  // a logit past float32 (1e20·1e20) cannot be traced in float32
  const attn::Matrix q = test::from_rows({{1e20f}}), k = test::from_rows({{1e20f}, {0.0f}});
  try {
    attn::online_softmax_trace(q.view(), k.view(), k.view(), 0, 1, false, 1.0f);
    FAIL("expected NonFinite");
  } catch (const attn::Error& e) {
    CHECK(e.code() == ErrorCode::NonFinite);
  }
}

TEST_CASE("the helpers at the edges: softmax_row, row_stats, logit_stats, jacobian norm") {
  // logits ±FLT_MAX with the max subtracted: one-hot, no NaN (−FLT_MAX − FLT_MAX = −inf → 0)
  const attn::SoftmaxRowResult s = attn::softmax_row({FLT_MAX, -FLT_MAX, 0.0f}, true);
  CHECK(s.weights == std::vector<float>{1.0f, 0.0f, 0.0f});
  CHECK_FALSE(s.overflowed);
  const attn::SoftmaxRowResult z = attn::softmax_row({-0.0f, 0.0f, 1e-45f}, true);
  for (float w : z.weights) CHECK(w == doctest::Approx(1.0 / 3.0));
  // denormal weights: entropy finite and non-negative
  const attn::Matrix w = test::from_rows({{1.0f, 1e-45f, 0.0f}, {0.5f, 0.5f, -0.0f}});
  const attn::RowStats st = attn::row_stats(w.view());
  for (float h : st.entropy) CHECK((std::isfinite(h) && h >= 0.0f));
  CHECK(st.max_weight[0] == 1.0f);
  // logit statistics of values near FLT_MAX are computed in double
  const attn::Matrix big = test::from_rows({{FLT_MAX, FLT_MAX}});
  const attn::LogitStats ls = attn::logit_stats(big.view(), big.view(), 1.0f);
  CHECK(std::isfinite(ls.rms_unscaled));
  CHECK(ls.rms_unscaled == doctest::Approx(2.0 * FLT_MAX * static_cast<double>(FLT_MAX)));
  const float p[] = {1.0f, 1e-45f, 0.0f};
  CHECK(std::isfinite(attn::softmax_jacobian_norm(p, 3)));
}
