// NormalRng: golden first draws of seed 1 (computed natively and checked
// against an independent SplitMix64/xoshiro256** implementation), so the WASM
// run of this suite proves the stream is the same there.
#include <cmath>

#include "helpers.hpp"

TEST_CASE("NormalRng seed 1: golden integer and uniform draws") {
  attn::NormalRng rng(1);
  CHECK(rng.next_u64() == 0xb3f2af6d0fc710c5ull);
  CHECK(rng.next_u64() == 0x853b559647364ceaull);
  CHECK(rng.next_u64() == 0x92f89756082a4514ull);
  CHECK(rng.next_uniform() == 0.39132860204190445);  // exact: top 53 bits · 2^-53
}

TEST_CASE("NormalRng seed 1: golden normal draws") {
  const float golden[8] = {-1.54522288f, -0.199515313f, -1.01364768f, 0.824406862f,
                           0.958297133f, 1.21280229f,   -0.281809777f, 0.26071763f};
  attn::NormalRng rng(1);
  for (int t = 0; t < 8; ++t) {
    CAPTURE(t);
    CHECK(rng.next_normal() == doctest::Approx(golden[t]).epsilon(1e-6));
  }
}

TEST_CASE("NormalRng: same seed same stream, different seeds differ, moments of N(0,1)") {
  attn::NormalRng a(7), b(7), c(8);
  bool differ = false;
  for (int t = 0; t < 100; ++t) {
    const float x = a.next_normal();
    CHECK(x == b.next_normal());
    differ = differ || x != c.next_normal();
  }
  CHECK(differ);
  attn::NormalRng rng(3);
  double sum = 0, sum_sq = 0;
  const int n = 20000;
  for (int t = 0; t < n; ++t) {
    const double x = rng.next_normal();
    sum += x;
    sum_sq += x * x;
    if (t < 1000) CHECK(std::isfinite(x));
  }
  CHECK(std::fabs(sum / n) < 0.03);
  CHECK(sum_sq / n == doctest::Approx(1.0).epsilon(0.03));
  attn::NormalRng u(4);
  for (int t = 0; t < 1000; ++t) {
    const double x = u.next_uniform();
    CHECK((x >= 0.0 && x < 1.0));
  }
}

TEST_CASE("random_normal fills row by row from the stream") {
  attn::NormalRng a(1), b(1);
  const attn::Matrix m = attn::random_normal(a, 3, 5);
  REQUIRE(m.rows == 3);
  REQUIRE(m.cols == 5);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(m.at(i, j) == b.next_normal());
  CHECK(m.at(0, 0) == doctest::Approx(-1.54522288f).epsilon(1e-6));
}
