// The scalar reference and the Arabic worked example (the/cat/sat/down):
// every variant must reproduce the hand-computed scores, weights and output.
#include <cmath>

#include "helpers.hpp"

namespace {

// x: (4, 3) one row per word; Q = x·Wq, K = x·Wk, V = x·Wv, all (4, 2)
struct Example {
  attn::Matrix q, k, v;
  Example() {
    const attn::Matrix x = test::from_bits({"100", "010", "011", "001"});  // the, cat, sat, down
    const attn::Matrix wq = test::from_bits({"01", "10", "01"});
    const attn::Matrix wk = test::from_bits({"10", "11", "01"});
    const attn::Matrix wv = test::from_bits({"10", "01", "11"});
    q = mul(x, wq);
    k = mul(x, wk);
    v = mul(x, wv);
  }
  static attn::Matrix mul(const attn::Matrix& a, const attn::Matrix& b) {
    attn::Matrix c(a.rows, b.cols);
    for (std::size_t i = 0; i < a.rows; ++i)
      for (std::size_t j = 0; j < b.cols; ++j)
        for (std::size_t t = 0; t < a.cols; ++t) c.at(i, j) += a.at(i, t) * b.at(t, j);
    return c;
  }
};

// Computed by hand in double (scores = Q·Kᵀ/√2, softmax per row, W·V).
const double kWeights[4][4] = {{0.109057434, 0.221181016, 0.448580533, 0.221181016},
                               {0.286281230, 0.286281230, 0.286281230, 0.141156311},
                               {0.122829520, 0.249112390, 0.505228570, 0.122829520},
                               {0.109057434, 0.221181016, 0.448580533, 0.221181016}};
const double kOut[4][2] = {{0.778818984, 1.339523099},
                           {0.713718770, 1.000000000},
                           {0.750887610, 1.382399050},
                           {0.778818984, 1.339523099}};
const double kCausalWeights[4][4] = {{1, 0, 0, 0},
                                     {0.5, 0.5, 0, 0},
                                     {0.140029245, 0.283995410, 0.575975345, 0},
                                     {0.109057434, 0.221181016, 0.448580533, 0.221181016}};
const double kCausalOut[4][2] = {
    {1, 0}, {0.5, 0.5}, {0.716004590, 1.435946100}, {0.778818984, 1.339523099}};

}  // namespace

TEST_CASE("worked example: projections of the/cat/sat/down") {
  const Example ex;
  CHECK(ex.q.at(2, 0) == 1.0f);  // sat: q = [1, 1]
  CHECK(ex.q.at(2, 1) == 1.0f);
  CHECK(ex.k.at(2, 0) == 1.0f);  // sat: k = [1, 2]
  CHECK(ex.k.at(2, 1) == 2.0f);
  CHECK(ex.v.at(3, 0) == 1.0f);  // down: v = [1, 1]
  CHECK(ex.v.at(3, 1) == 1.0f);
}

TEST_CASE("worked example: sat attends 51% to itself with score 3/sqrt(2)") {
  const Example ex;
  attn::AttentionOptions opt;
  opt.return_weights = true;
  for (attn::Variant variant : test::variants_with_weights()) {
    CAPTURE(static_cast<int>(variant));
    const attn::AttentionResult r = test::run(ex.q, ex.k, ex.v, opt, variant);
    CHECK(r.scores.at(2, 2) == doctest::Approx(3.0 / std::sqrt(2.0)).epsilon(1e-6));
    CHECK(r.scores.at(2, 2) == doctest::Approx(2.1213).epsilon(1e-4));
    CHECK(r.weights.at(2, 2) == doctest::Approx(0.505).epsilon(1e-3));
    CHECK(std::lround(100.0 * r.weights.at(2, 2)) == 51);
    CHECK(r.masked_rows.empty());
  }
}

TEST_CASE("worked example: whole weights and output match hand values") {
  const Example ex;
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const auto& want_w = causal ? kCausalWeights : kWeights;
    const auto& want_o = causal ? kCausalOut : kOut;
    attn::AttentionOptions opt;
    opt.causal = causal;
    for (attn::Variant variant :
         test::kAllVariants) {
      CAPTURE(static_cast<int>(variant));
      opt.return_weights = test::has_weights(variant);
      opt.block_q = 3;
      opt.block_k = 3;
      const attn::AttentionResult r = test::run(ex.q, ex.k, ex.v, opt, variant);
      for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        for (std::size_t c = 0; c < 2; ++c)
          CHECK(r.out.at(i, c) == doctest::Approx(want_o[i][c]).epsilon(1e-6));
        if (!opt.return_weights) continue;
        for (std::size_t j = 0; j < 4; ++j) {
          CHECK(r.weights.at(i, j) == doctest::Approx(want_w[i][j]).epsilon(1e-6));
          if (causal && j > i) CHECK(r.scores.at(i, j) == -INFINITY);
        }
      }
    }
  }
}

TEST_CASE("reference rows sum to 1 and scores equal scale * q.k") {
  const attn::Matrix q = test::randn(11, 5, 7), k = test::randn(12, 6, 7), v = test::randn(13, 6, 3);
  attn::AttentionOptions opt;
  opt.return_weights = true;
  opt.scale = 0.25f;
  const attn::AttentionResult r = test::run(q, k, v, opt, attn::Variant::Reference);
  REQUIRE(r.weights.rows == 5);
  REQUIRE(r.weights.cols == 6);
  for (std::size_t i = 0; i < 5; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < 6; ++j) {
      sum += r.weights.at(i, j);
      double dot = 0;
      for (std::size_t t = 0; t < 7; ++t) dot += double(q.at(i, t)) * k.at(j, t);
      CHECK(r.scores.at(i, j) == doctest::Approx(0.25 * dot).epsilon(1e-6));
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
  CHECK(r.out.rows == 5);
  CHECK(r.out.cols == 3);
  CHECK(r.scratch_bytes > 0);
}
