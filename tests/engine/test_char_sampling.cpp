// Incremental decoding and sampling of char_sampling.hpp: the KV-cached
// decoder gives the full forward's probabilities at every position, sampling
// is reproducible from its seed, top_k = 1 is the argmax, and bad options or
// a full context are refused with typed errors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "attn/char_sampling.hpp"
#include "attn/train.hpp"
#include "helpers.hpp"
#include "train_helpers.hpp"

namespace {

attn::CharModelConfig small_config() {
  attn::CharModelConfig c;
  c.vocab = 7;
  c.context = 12;
  c.width = 16;
  c.layers = 2;
  c.heads = 4;
  c.kv_heads = 2;  // grouped-query, so the decoder's head mapping is exercised
  c.seed = 3;
  return c;
}

// Weights far from the near-uniform initialization: N(0, 0.5²), so the
// probabilities and attention rows are peaked and a wrong position or head shows.
attn::CharModel peaked_model(const attn::CharModelConfig& c) {
  attn::CharModel model(c);
  attn::NormalRng rng(11);
  for (float& p : model.parameters()) p = 0.5f * rng.next_normal();
  return model;
}

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return attn::error_code_name(e.code());
  }
  return "none";
}

}  // namespace

TEST_CASE("decoder: cached probabilities equal the full forward at every position") {
  const attn::CharModelConfig c = small_config();
  const attn::CharModel model = peaked_model(c);
  const std::vector<std::uint32_t> text = {0, 3, 1, 4, 1, 5, 6, 2, 6, 5, 3, 5};  // 12 = context
  const attn::CharModelForward full = model.forward(text);
  attn::CharModelDecoder decoder(model);
  CHECK(decoder.cache_bytes() == 0);
  const std::size_t row_bytes = c.layers * c.kv_heads * 2 * (c.width / c.heads) * sizeof(float);
  CHECK(decoder.cache_capacity_bytes() == row_bytes * c.context);
  double worst = 0.0, spread = 0.0;
  for (std::size_t t = 0; t < text.size(); ++t) {
    const std::vector<float> p = decoder.feed(text[t]);
    REQUIRE(p.size() == c.vocab);
    double sum = 0.0;
    for (std::size_t v = 0; v < c.vocab; ++v) {
      worst = std::max(worst, std::fabs(static_cast<double>(p[v]) - full.probs.at(t, v)));
      spread = std::max(spread, static_cast<double>(p[v]));
      sum += p[v];
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(decoder.length() == t + 1);
    CHECK(decoder.cache_bytes() == row_bytes * (t + 1));
  }
  MESSAGE("largest |cached − full| probability: " << worst << " (largest probability " << spread << ")");
  CHECK(spread > 0.25);  // far from uniform (1/7): a position or head error would move them
  CHECK(worst < 1e-6);
  // context full: typed refusal, and the decoder is unchanged
  CHECK(code_of([&] { decoder.feed(0); }) == "ShapeMismatch");
  CHECK(decoder.length() == c.context);
  attn::CharModelDecoder other(model);
  CHECK(code_of([&] { other.feed(7); }) == "BadArgument");
  CHECK(other.length() == 0);
}

TEST_CASE("sample: same seed, same text; another seed, another text; only new tokens") {
  const attn::CharModel model = peaked_model(small_config());
  attn::SampleOptions o;
  o.seed = 42;
  const std::vector<std::uint32_t> a = attn::sample(model, {1, 2}, 40, o);  // 40 > context: slides
  const std::vector<std::uint32_t> b = attn::sample(model, {1, 2}, 40, o);
  CHECK(a.size() == 40);
  CHECK(a == b);
  for (std::uint32_t t : a) CHECK(t < 7);
  o.seed = 43;
  CHECK(attn::sample(model, {1, 2}, 40, o) != a);
  CHECK(attn::sample(model, {1, 2}, 0, o).empty());
  // an empty prompt is the prompt {0}
  CHECK(attn::sample(model, {}, 10, o) == attn::sample(model, {0}, 10, o));
}

TEST_CASE("sample: top_k = 1 is the argmax of the decoder's probabilities") {
  const attn::CharModel model = peaked_model(small_config());
  attn::SampleOptions o;
  o.top_k = 1;
  o.temperature = 2.5;  // irrelevant with one candidate
  const std::vector<std::uint32_t> got = attn::sample(model, {4}, 11, o);  // 1 + 11 fills the context
  attn::CharModelDecoder decoder(model);
  std::uint32_t prev = 4;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::vector<float> p = decoder.feed(prev);
    const auto arg = static_cast<std::uint32_t>(std::max_element(p.begin(), p.end()) - p.begin());
    CHECK(got[i] == arg);
    prev = got[i];
  }
  // a lower temperature concentrates the draws on the argmax
  attn::SampleOptions cold;
  cold.temperature = 1e-3;
  cold.seed = 9;
  CHECK(attn::sample(model, {4}, 11, cold) == got);
}

TEST_CASE("sample: refuses bad temperatures, top_k and prompt characters") {
  const attn::CharModel model = peaked_model(small_config());
  attn::SampleOptions o;
  for (double t : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    o.temperature = t;
    CHECK(code_of([&] { attn::sample(model, {1}, 3, o); }) == "BadArgument");
  }
  o = {};
  o.top_k = 8;  // vocab 7
  CHECK(code_of([&] { attn::sample(model, {1}, 3, o); }) == "BadArgument");
  o.top_k = 7;
  CHECK(attn::sample(model, {1}, 3, o).size() == 3);
  CHECK(code_of([&] { attn::sample(model, {1, 9}, 3, {}); }) == "BadArgument");
}
