// AdamW, clipping by global norm and the learning-rate schedule, against
// values worked out by hand (the AdamW steps in double with the formulas of
// train.hpp).
#include <cmath>
#include <vector>

#include "attn/train.hpp"
#include "helpers.hpp"

TEST_CASE("AdamW: two steps by hand, decoupled weight decay") {
  float p = 1.0f, m = 0.0f, v = 0.0f;
  attn::AdamWConfig cfg;
  cfg.weight_decay = 0.01f;
  const float g1 = 0.5f, g2 = 0.25f;
  attn::adamw_step(&p, &m, &v, &g1, 1, 0.1f, 1, cfg);
  // m̂ = g, v̂ = g²: the step is g/|g| = 1 (less eps), plus the decay 0.01·p
  CHECK(p == doctest::Approx(0.899000002).epsilon(1e-7));
  attn::adamw_step(&p, &m, &v, &g2, 1, 0.1f, 2, cfg);
  CHECK(m == doctest::Approx(0.07).epsilon(1e-6));
  CHECK(v == doctest::Approx(0.00031225).epsilon(1e-6));
  CHECK(p == doctest::Approx(0.8048830404754623).epsilon(1e-6));
  // decoupled: with a zero gradient only the decay moves the weight, by lr·wd·p
  float q = 2.0f, mq = 0.0f, vq = 0.0f;
  const float zero = 0.0f;
  attn::adamw_step(&q, &mq, &vq, &zero, 1, 0.5f, 1, cfg);
  CHECK(q == doctest::Approx(2.0 - 0.5 * 0.01 * 2.0).epsilon(1e-7));
  CHECK_THROWS_AS(attn::adamw_step(&q, &mq, &vq, &zero, 1, 0.5f, 0, cfg), attn::Error);
  CHECK_THROWS_AS(attn::adamw_step(&q, &mq, &vq, &zero, 1, NAN, 1, cfg), attn::Error);
}

TEST_CASE("clipping by global norm") {
  std::vector<float> g = {3.0f, 0.0f, 4.0f};
  CHECK(attn::clip_grad_norm(g.data(), g.size(), 10.0) == doctest::Approx(5.0));
  CHECK(g[2] == 4.0f);  // under the limit: unchanged
  CHECK(attn::clip_grad_norm(g.data(), g.size(), 1.0) == doctest::Approx(5.0));
  CHECK(g[0] == doctest::Approx(0.6));
  CHECK(g[2] == doctest::Approx(0.8));
  CHECK_THROWS_AS(attn::clip_grad_norm(g.data(), g.size(), 0.0), attn::Error);
}

TEST_CASE("warm-up then cosine learning rate") {
  // warm-up 10 steps to 1e-3, cosine down to 1e-4 at step 110 (u = (s − 10)/100)
  auto lr = [](std::size_t s) { return attn::learning_rate(s, 10, 111, 1e-3, 1e-4); };
  CHECK(lr(0) == doctest::Approx(1e-4));
  CHECK(lr(4) == doctest::Approx(5e-4));
  CHECK(lr(9) == doctest::Approx(1e-3));
  CHECK(lr(10) == doctest::Approx(1e-3));
  CHECK(lr(35) == doctest::Approx(8.681980515339464e-4));  // u = 1/4: 1e-4 + 9e-4·(1 + cos(π/4))/2
  CHECK(lr(60) == doctest::Approx(5.5e-4));                // u = 1/2: halfway
  CHECK(lr(110) == doctest::Approx(1e-4));
  CHECK(lr(500) == doctest::Approx(1e-4));
  CHECK(attn::learning_rate(3, 0, 1, 1.0, 0.5) == doctest::Approx(0.5));  // no room for a cosine
}
