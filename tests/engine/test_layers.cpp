// The layers' backward passes (linear, LayerNorm, GELU, embedding, softmax
// cross-entropy): the double instantiation against central finite
// differences of its own forward, the float one against the double, and
// values worked out by hand.
#include <cmath>
#include <vector>

#include "attn/train.hpp"
#include "helpers.hpp"
#include "train_helpers.hpp"

namespace {

constexpr double h = 1e-5;
// analytic vs central differences in double: h² truncation plus 1e-16/h rounding
constexpr double fd_tolerance = 1e-7;

double weighted_sum(const std::vector<double>& g, const std::vector<double>& out) {
  double sum = 0.0;
  for (std::size_t t = 0; t < out.size(); ++t) sum += g[t] * out[t];
  return sum;
}

}  // namespace

TEST_CASE("linear backward matches finite differences, with and without bias") {
  const std::size_t N = 3, C_in = 5, C_out = 4;
  std::vector<double> x = test::doubles(test::randn(1, N, C_in));
  std::vector<double> w = test::doubles(test::randn(2, C_out, C_in));
  std::vector<double> b = test::doubles(test::randn(3, 1, C_out));
  const std::vector<double> g = test::doubles(test::randn(4, N, C_out));
  for (bool bias : {true, false}) {
    CAPTURE(bias);
    auto loss = [&] {
      std::vector<double> out(N * C_out);
      attn::linear_forward(out.data(), x.data(), w.data(), bias ? b.data() : nullptr, N, C_in, C_out);
      return weighted_sum(g, out);
    };
    std::vector<double> dx(x.size()), dw(w.size()), db(b.size());
    attn::linear_backward(dx.data(), dw.data(), bias ? db.data() : nullptr, g.data(), x.data(), w.data(),
                          N, C_in, C_out);
    CHECK(test::max_abs_diff(dx, test::central_differences(loss, x, h)) <= fd_tolerance);
    CHECK(test::max_abs_diff(dw, test::central_differences(loss, w, h)) <= fd_tolerance);
    if (bias) CHECK(test::max_abs_diff(db, test::central_differences(loss, b, h)) <= fd_tolerance);
  }
  // float (SIMD dot and axpy, 37 columns: a vector loop and leftovers) against double
  const std::size_t K = 37;
  const attn::Matrix xf = test::randn(5, N, K), wf = test::randn(6, C_out, K), gf = test::randn(7, N, C_out);
  std::vector<float> out_f(N * C_out), dx_f(N * K, 0.0f), dw_f(C_out * K, 0.0f);
  std::vector<double> out_d(N * C_out), dx_d(N * K, 0.0), dw_d(C_out * K, 0.0);
  const std::vector<double> xd = test::doubles(xf), wd = test::doubles(wf), gd = test::doubles(gf);
  attn::linear_forward(out_f.data(), xf.data.data(), wf.data.data(), static_cast<const float*>(nullptr), N, K, C_out);
  attn::linear_forward(out_d.data(), xd.data(), wd.data(), static_cast<const double*>(nullptr), N, K, C_out);
  attn::linear_backward(dx_f.data(), dw_f.data(), static_cast<float*>(nullptr), gf.data.data(), xf.data.data(),
                        wf.data.data(), N, K, C_out);
  attn::linear_backward(dx_d.data(), dw_d.data(), static_cast<double*>(nullptr), gd.data(), xd.data(), wd.data(),
                        N, K, C_out);
  CHECK(test::max_abs_diff(out_f, out_d) <= 1e-5);
  CHECK(test::max_abs_diff(dx_f, dx_d) <= 1e-5);
  CHECK(test::max_abs_diff(dw_f, dw_d) <= 1e-5);
}

TEST_CASE("LayerNorm backward matches finite differences") {
  for (std::size_t C : {1u, 2u, 7u}) {
    CAPTURE(C);
    const std::size_t N = 3;
    std::vector<double> x = test::doubles(test::randn(11, N, C));
    std::vector<double> w = test::doubles(test::randn(12, 1, C));
    std::vector<double> b = test::doubles(test::randn(13, 1, C));
    const std::vector<double> g = test::doubles(test::randn(14, N, C));
    auto loss = [&] {
      std::vector<double> out(N * C), mean(N), rstd(N);
      attn::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
      return weighted_sum(g, out);
    };
    std::vector<double> out(N * C), mean(N), rstd(N), dx(x.size()), dw(C), db(C);
    attn::layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C);
    attn::layernorm_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), mean.data(),
                             rstd.data(), N, C);
    CHECK(test::max_abs_diff(dx, test::central_differences(loss, x, h)) <= fd_tolerance);
    CHECK(test::max_abs_diff(dw, test::central_differences(loss, w, h)) <= fd_tolerance);
    CHECK(test::max_abs_diff(db, test::central_differences(loss, b, h)) <= fd_tolerance);
  }
  // by hand: x = (1, 3), w = 1, b = 0: mean 2, variance 1, out ≈ (−1, 1)
  const float x[2] = {1.0f, 3.0f}, w[2] = {1.0f, 1.0f}, b[2] = {0.0f, 0.0f};
  float out[2], mean, rstd;
  attn::layernorm_forward(out, &mean, &rstd, x, w, b, 1, 2);
  CHECK(mean == 2.0f);
  CHECK(out[0] == doctest::Approx(-1.0 / std::sqrt(1.0 + 1e-5)).epsilon(1e-6));
  CHECK(out[1] == doctest::Approx(1.0 / std::sqrt(1.0 + 1e-5)).epsilon(1e-6));
}

TEST_CASE("GELU is the tanh approximation and its backward matches finite differences") {
  const double x_hand[3] = {1.0, -2.0, 0.5};
  double y[3];
  attn::gelu_forward(y, x_hand, 3);
  // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), evaluated separately
  CHECK(y[0] == doctest::Approx(0.8411919906082768).epsilon(1e-14));
  CHECK(y[1] == doctest::Approx(-0.04540230591222494).epsilon(1e-12));
  CHECK(y[2] == doctest::Approx(0.34571400982514394).epsilon(1e-14));
  std::vector<double> x = {-4.0, -1.5, -0.3, 0.0, 0.2, 0.9, 2.5, 6.0};
  const std::vector<double> g = {0.3, -1.0, 2.0, 0.7, -0.4, 1.1, 0.9, -2.0};
  auto loss = [&] {
    std::vector<double> out(x.size());
    attn::gelu_forward(out.data(), x.data(), x.size());
    return weighted_sum(g, out);
  };
  std::vector<double> dx(x.size(), 0.0);
  attn::gelu_backward(dx.data(), x.data(), g.data(), x.size());
  CHECK(test::max_abs_diff(dx, test::central_differences(loss, x, h)) <= fd_tolerance);
}

TEST_CASE("float linear on a batch (the blocked product) equals the double one and accumulates") {
  // 300 rows: past one block of 256 and not a multiple of the tile's rows; 37 and 45
  // columns: vector tiles plus scalar leftovers. dx and dw start non-zero (+=).
  const std::size_t N = 300, C_in = 37, C_out = 45;
  const attn::Matrix xf = test::randn(31, N, C_in), wf = test::randn(32, C_out, C_in), gf = test::randn(33, N, C_out);
  const attn::Matrix bf = test::randn(34, 1, C_out), dx0 = test::randn(35, N, C_in), dw0 = test::randn(36, C_out, C_in);
  const std::vector<double> xd = test::doubles(xf), wd = test::doubles(wf), gd = test::doubles(gf), bd = test::doubles(bf);
  std::vector<float> out_f(N * C_out), dx_f(dx0.data.begin(), dx0.data.end()), dw_f(dw0.data.begin(), dw0.data.end()),
      db_f(C_out, 1.0f);
  std::vector<double> out_d(N * C_out), dx_d = test::doubles(dx0), dw_d = test::doubles(dw0), db_d(C_out, 1.0);
  attn::linear_forward(out_f.data(), xf.data.data(), wf.data.data(), bf.data.data(), N, C_in, C_out);
  attn::linear_forward(out_d.data(), xd.data(), wd.data(), bd.data(), N, C_in, C_out);
  attn::linear_backward(dx_f.data(), dw_f.data(), db_f.data(), gf.data.data(), xf.data.data(), wf.data.data(), N, C_in, C_out);
  attn::linear_backward(dx_d.data(), dw_d.data(), db_d.data(), gd.data(), xd.data(), wd.data(), N, C_in, C_out);
  CHECK(test::max_abs_diff(out_f, out_d) <= 1e-5);
  CHECK(test::max_abs_diff(dx_f, dx_d) <= 1e-5);
  CHECK(test::max_abs_diff(dw_f, dw_d) <= 1e-4);  // sums of 300 products
  CHECK(test::max_abs_diff(db_f, db_d) <= 1e-4);
}

TEST_CASE("float GELU (SIMD tanh from exp) equals the double one, forward and backward") {
  // 1001 points from -12 to 12 (saturated tails, zero, a leftover after the last batch)
  const std::size_t n = 1001;
  std::vector<float> xf(n), gf(n), out_f(n), dx_f(n, 0.5f);
  std::vector<double> xd(n), gd(n), out_d(n), dx_d(n, 0.5);
  for (std::size_t t = 0; t < n; ++t) {
    xf[t] = static_cast<float>(-12.0 + 24.0 * static_cast<double>(t) / (n - 1));
    gf[t] = static_cast<float>(std::sin(0.37 * static_cast<double>(t)));
    xd[t] = xf[t], gd[t] = gf[t];
  }
  attn::gelu_forward(out_f.data(), xf.data(), n);
  attn::gelu_forward(out_d.data(), xd.data(), n);
  attn::gelu_backward(dx_f.data(), xf.data(), gf.data(), n);
  attn::gelu_backward(dx_d.data(), xd.data(), gd.data(), n);
  for (std::size_t t = 0; t < n; ++t) {
    CAPTURE(xd[t]);
    CHECK(std::fabs(out_f[t] - out_d[t]) <= 1e-6 * (1.0 + std::fabs(xd[t])));
    CHECK(std::fabs(dx_f[t] - dx_d[t]) <= 2e-6);
  }
}

TEST_CASE("embedding backward accumulates repeated tokens and positions") {
  const std::size_t B = 2, T = 3, C = 2, V = 4;
  const std::uint32_t tokens[B * T] = {1, 3, 1, 0, 1, 2};
  std::vector<double> wte = test::doubles(test::randn(21, V, C));
  std::vector<double> wpe = test::doubles(test::randn(22, T, C));
  const std::vector<double> g = test::doubles(test::randn(23, B * T, C));
  auto loss = [&] {
    std::vector<double> out(B * T * C);
    attn::embedding_forward(out.data(), tokens, wte.data(), wpe.data(), B, T, C, V);
    return weighted_sum(g, out);
  };
  std::vector<double> dwte(wte.size()), dwpe(wpe.size());
  attn::embedding_backward(dwte.data(), dwpe.data(), g.data(), tokens, B, T, C);
  CHECK(test::max_abs_diff(dwte, test::central_differences(loss, wte, h)) <= fd_tolerance);
  CHECK(test::max_abs_diff(dwpe, test::central_differences(loss, wpe, h)) <= fd_tolerance);
  // token 1 appears three times: its gradient is the sum of those rows
  CHECK(dwte[1 * C] == doctest::Approx(g[0] + g[2 * C] + g[4 * C]));
  const std::uint32_t bad[B * T] = {1, 3, 4, 0, 1, 2};
  std::vector<double> out(B * T * C, 7.0);
  CHECK_THROWS_AS(attn::embedding_forward(out.data(), bad, wte.data(), wpe.data(), B, T, C, V), attn::Error);
  CHECK(out[0] == 7.0);  // refused before writing
}

TEST_CASE("cross-entropy: gradient p - y, finite differences, huge logits") {
  const std::size_t N = 3, V = 5;
  std::vector<double> z = test::doubles(test::randn(31, N, V));
  const std::uint32_t targets[N] = {4, 0, 2};
  auto loss = [&] { return attn::cross_entropy<double>(nullptr, nullptr, z.data(), targets, N, V); };
  std::vector<double> dz(N * V, 0.0), probs(N * V);
  attn::cross_entropy(dz.data(), probs.data(), z.data(), targets, N, V);
  CHECK(test::max_abs_diff(dz, test::central_differences(loss, z, h)) <= fd_tolerance);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t c = 0; c < V; ++c)
      CHECK(dz[n * V + c] == doctest::Approx((probs[n * V + c] - (c == targets[n])) / N).epsilon(1e-12));

  // by hand: equal logits give ln V; a row that puts 1e30 (float) on another class costs 1e30
  const float flat[4] = {2.5f, 2.5f, 2.5f, 2.5f};
  const std::uint32_t t1 = 3;
  CHECK(attn::cross_entropy<float>(nullptr, nullptr, flat, &t1, 1, 4) == doctest::Approx(std::log(4.0)));
  const float huge[3] = {1e30f, 0.0f, -1e30f};
  float d_huge[3] = {0, 0, 0}, p_huge[3];
  const std::uint32_t t0 = 0, t2 = 1;
  CHECK(attn::cross_entropy(d_huge, p_huge, huge, &t0, 1, 3) == 0.0);
  CHECK(d_huge[0] == 0.0f);
  CHECK(attn::cross_entropy<float>(nullptr, nullptr, huge, &t2, 1, 3) == doctest::Approx(1e30));
  float d2[3] = {0, 0, 0};
  attn::cross_entropy<float>(d2, nullptr, huge, &t2, 1, 3);
  CHECK(d2[0] == 1.0f);
  CHECK(d2[1] == -1.0f);
  CHECK(d2[2] == 0.0f);

  const float nan_row[2] = {NAN, 0.0f};
  const std::uint32_t big = 5;
  CHECK_THROWS_AS(attn::cross_entropy<float>(nullptr, nullptr, nan_row, &t0, 1, 2), attn::Error);
  CHECK_THROWS_AS(attn::cross_entropy<float>(nullptr, nullptr, flat, &big, 1, 4), attn::Error);
}
