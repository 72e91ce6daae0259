// The tiny character model: its parameter count, a whole-model gradient
// check (the double model against central differences on a sample of
// weights, the float model against the double one), determinism, the
// forward's probabilities and attention weights, bad input, and a short
// fixed-seed training run whose loss must fall below a stated value.
#include <ctime>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "attn/train.hpp"
#include "helpers.hpp"
#include "train_helpers.hpp"

namespace {

attn::CharModelConfig tiny_config() {
  attn::CharModelConfig c;
  c.vocab = 5;
  c.context = 4;
  c.width = 8;
  c.layers = 2;
  c.heads = 2;
  c.kv_heads = 1;  // grouped-query: both heads read one key/value head
  return c;
}

// A text of a few distinct characters repeated, as token ids, and windows of it.
struct Text {
  std::vector<std::uint32_t> ids;
  std::size_t vocab = 0;
  explicit Text(const std::string& s) {
    std::string chars;
    for (char ch : s)
      if (chars.find(ch) == std::string::npos) chars += ch;
    vocab = chars.size();
    for (char ch : s) ids.push_back(static_cast<std::uint32_t>(chars.find(ch)));
  }
  // batch windows of T tokens starting at deterministic offsets for this step
  void batch(std::size_t step, std::size_t B, std::size_t T, std::vector<std::uint32_t>& in,
             std::vector<std::uint32_t>& out) const {
    in.clear();
    out.clear();
    for (std::size_t b = 0; b < B; ++b) {
      const std::size_t at = (step * 7 + b * 13) % (ids.size() - T - 1);
      in.insert(in.end(), ids.begin() + at, ids.begin() + at + T);
      out.insert(out.end(), ids.begin() + at + 1, ids.begin() + at + T + 1);
    }
  }
};

}  // namespace

TEST_CASE("char model parameter count") {
  attn::CharModelConfig c;  // defaults: vocab 64, context 64, width 64, 2 layers, 4 heads
  const std::size_t C = 64;
  const std::size_t block = 2 * C + (C * C + C) * 4 + 2 * C + (4 * C * C + 4 * C) + (4 * C * C + C);
  CHECK(attn::char_model_parameter_count(c) == 64 * C + 64 * C + 2 * block + 2 * C);
  c.kv_heads = 1;  // K and V shrink to one head of 16
  CHECK(attn::char_model_parameter_count(c) ==
        64 * C + 64 * C + 2 * (block - 2 * (C * C + C) + 2 * (16 * C + 16)) + 2 * C);
}

TEST_CASE("whole-model gradient check on a tiny config") {
  const attn::CharModelConfig c = tiny_config();
  attn::CharModel model(c);
  // weights large enough that attention is far from uniform
  attn::NormalRng rng(7);
  for (float& p : model.parameters()) p = 0.4f * rng.next_normal();
  const std::vector<std::uint32_t> in = {0, 3, 1, 4, 4, 2}, out = {3, 1, 2, 4, 2, 0};  // B = 2, T = 3
  std::vector<double> params(model.parameters().begin(), model.parameters().end());
  std::vector<double> exact;
  const double loss = attn::char_model_reference_gradients(c, params, in, out, 2, &exact);
  std::vector<std::size_t> sample;
  for (std::size_t t = 0; t < params.size(); t += 5) sample.push_back(t);
  auto f = [&] { return attn::char_model_reference_gradients(c, params, in, out, 2, nullptr); };
  const std::vector<double> fd = test::central_differences(f, params, 1e-5, sample);
  double worst = 0.0;
  for (std::size_t t : sample) worst = std::max(worst, std::fabs(fd[t] - exact[t]));
  CHECK(worst <= 1e-7);  // double model vs central differences (h = 1e-5)
  REQUIRE(test::max_abs(exact) > 1e-2);

  // the float model (chunked attention, SIMD layers) against the double one
  std::vector<float> grads;
  const double loss_f = model.gradients(in, out, 2, grads);
  CHECK(loss_f == doctest::Approx(loss).epsilon(1e-5));
  const double float_err = test::max_abs_diff(grads, exact) / test::max_abs(exact);
  CHECK(float_err <= 1e-4);
  MESSAGE("model gradient: double vs finite differences " << worst << " (over " << sample.size()
                                                          << " of " << params.size()
                                                          << " weights); float vs double, relative to max |grad| "
                                                          << float_err);
}

TEST_CASE("same seed, same data: bit-identical weights") {
  const Text text("abcab cabba cab ");
  attn::CharModelConfig c;
  c.vocab = text.vocab;
  c.context = 8;
  c.width = 16;
  c.heads = 2;
  c.kv_heads = 2;
  c.seed = 42;
  attn::CharModel a(c), b(c);
  c.seed = 43;
  attn::CharModel other(c);
  std::vector<std::uint32_t> in, out;
  for (std::size_t s = 0; s < 3; ++s) {
    text.batch(s, 2, 8, in, out);
    const double la = a.train_step(in, out, 2);
    CHECK(la == b.train_step(in, out, 2));
    other.train_step(in, out, 2);
  }
  REQUIRE(a.parameters().size() == b.parameters().size());
  CHECK(std::memcmp(a.parameters().data(), b.parameters().data(), a.parameters().size() * sizeof(float)) == 0);
  CHECK(a.parameters() != other.parameters());
  CHECK(a.step() == 3);
}

TEST_CASE("forward: next-character probabilities and every head's attention weights") {
  const attn::CharModelConfig c = tiny_config();
  attn::CharModel model(c);
  attn::NormalRng rng(9);
  for (float& p : model.parameters()) p = 0.4f * rng.next_normal();
  const std::vector<std::uint32_t> text = {2, 0, 4, 1};
  const attn::CharModelForward f = model.forward(text);
  REQUIRE(f.probs.rows == 4);
  REQUIRE(f.probs.cols == 5);
  REQUIRE(f.attention.size() == 2);
  double nll = 0.0;
  for (std::size_t i = 0; i < 4; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < 5; ++j) sum += f.probs.at(i, j);
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    if (i < 3) nll -= std::log(f.probs.at(i, text[i + 1]));
  }
  // the same probabilities as the loss the training step sees
  CHECK(nll / 3 == doctest::Approx(model.loss({2, 0, 4}, {0, 4, 1}, 1)).epsilon(1e-5));
  for (const auto& layer : f.attention) {
    REQUIRE(layer.size() == 2);
    for (const attn::Matrix& w : layer)
      for (std::size_t i = 0; i < 4; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < 4; ++j) {
          if (j > i) CHECK(w.at(i, j) == 0.0f);  // causal
          sum += w.at(i, j);
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
      }
  }
  CHECK(f.attention[0][0].at(0, 0) == doctest::Approx(1.0));
  CHECK(f.attention[1][0].at(3, 1) != f.attention[1][1].at(3, 1));  // the heads differ
}

TEST_CASE("char model refuses bad configurations and batches, leaving the weights") {
  attn::CharModelConfig c = tiny_config();
  c.width = 9;
  CHECK_THROWS_AS(attn::CharModel{c}, attn::Error);
  c = tiny_config();
  c.kv_heads = 3;
  CHECK_THROWS_AS(attn::CharModel{c}, attn::Error);
  c = tiny_config();
  attn::CharModel model(c);
  const std::vector<float> before = model.parameters();
  auto code = [&](const std::vector<std::uint32_t>& in, const std::vector<std::uint32_t>& out, std::size_t B) {
    try {
      model.train_step(in, out, B);
    } catch (const attn::Error& e) {
      return std::string(attn::error_code_name(e.code()));
    }
    return std::string("none");
  };
  CHECK(code({0, 1, 2, 3, 4}, {1, 2, 3, 4, 0}, 1) == "ShapeMismatch");  // 5 > context 4
  CHECK(code({0, 1, 2}, {1, 2, 3}, 2) == "ShapeMismatch");              // 3 does not split in 2
  CHECK(code({0, 1}, {1}, 1) == "ShapeMismatch");
  CHECK(code({0, 5}, {1, 2}, 1) == "BadArgument");                      // 5 ≥ vocab
  CHECK(code({0, 1}, {1, 7}, 1) == "BadArgument");
  CHECK(code({}, {}, 1) == "ZeroDimension");
  CHECK(model.parameters() == before);
  CHECK(model.step() == 0);
  CHECK_THROWS_AS(model.forward({}), attn::Error);
}

TEST_CASE("a fixed-seed training run learns a repeated text") {
  // 16 distinct characters; every character is determined by the few before it
  const Text text("the cat sat on the mat; a dog ran far. the cat sat on the mat; a dog ran far. "
                  "the cat sat on the mat; a dog ran far. the cat sat on the mat; a dog ran far. ");
  attn::CharModelConfig c;
  c.vocab = text.vocab;
  c.context = 32;
  c.width = 32;
  c.layers = 2;
  c.heads = 4;
  c.kv_heads = 2;
  c.seed = 1;
  attn::TrainingConfig t;
  t.lr_max = 1e-2;
  t.lr_min = 1e-3;
  t.warmup = 10;
  t.total_steps = 100;
  attn::CharModel model(c, t);
  std::vector<std::uint32_t> in, out;
  const std::clock_t start = std::clock();
  double first = 0.0, last = 0.0;
  for (std::size_t s = 0; s < t.total_steps; ++s) {
    text.batch(s, 4, 32, in, out);
    last = model.train_step(in, out, 4);
    if (s == 0) first = last;
  }
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  text.batch(1000, 4, 32, in, out);
  const double held = model.loss(in, out, 4);
  MESSAGE("vocab " << text.vocab << ", " << attn::char_model_parameter_count(c) << " weights: loss "
                   << first << " at step 0, " << last << " at step " << t.total_steps - 1
                   << ", " << held << " on other windows; " << seconds << " s of CPU");
  CHECK(first == doctest::Approx(std::log(static_cast<double>(text.vocab))).epsilon(0.05));
  CHECK(last < 0.5);
  CHECK(held < 0.5);
}
