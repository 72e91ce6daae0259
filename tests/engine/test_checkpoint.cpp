// Checkpoints (checkpoint.hpp): exact F32 round trip, the stated error
// bounds of F16 and Int8, every truncation refused, a flipped byte refused
// (CRC-32), a wrong version or mismatched sizes refused with typed errors,
// and the optimizer state restored so that the next training step is identical.
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "attn/checkpoint.hpp"
#include "attn/train.hpp"
#include "helpers.hpp"

namespace {

attn::CharModelConfig cfg() {
  attn::CharModelConfig c;
  c.vocab = 6;
  c.context = 8;
  c.width = 8;
  c.layers = 1;
  c.heads = 2;
  c.kv_heads = 1;
  c.seed = 5;
  return c;
}
const std::vector<std::uint32_t> kVocab = {0x0a, 0x20, 0x627, 0x628, 0x6cc, 0x200c};

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return attn::error_code_name(e.code());
  }
  return "none";
}

void train(attn::CharModel& model, std::size_t steps, std::size_t from = 0) {
  for (std::size_t s = from; s < from + steps; ++s) {
    std::vector<std::uint32_t> in, out;
    for (std::size_t i = 0; i < 16; ++i) {
      in.push_back(static_cast<std::uint32_t>((i * 5 + s) % 6));
      out.push_back(static_cast<std::uint32_t>((i * 5 + s + 1) % 6));
    }
    model.train_step(in, out, 2);
  }
}

}  // namespace

TEST_CASE("checkpoint: F32 round trip is exact, F16 and Int8 within their stated bounds") {
  attn::CharModel model(cfg());
  train(model, 3);
  const std::vector<float>& P = model.parameters();
  const auto f32 = attn::save_checkpoint(model, kVocab, {attn::WeightFormat::F32, false});
  const attn::Checkpoint a = attn::load_checkpoint(f32.data(), f32.size());
  CHECK(a.model.parameters() == P);
  CHECK(a.vocabulary == kVocab);
  CHECK(a.format == attn::WeightFormat::F32);
  CHECK(!a.optimizer);
  CHECK(a.model.step() == 0);
  CHECK(a.model.config().kv_heads == 1);
  CHECK(a.model.config().seed == 5);

  const auto f16 = attn::save_checkpoint(model, kVocab, {});
  const attn::Checkpoint h = attn::load_checkpoint(f16.data(), f16.size());
  CHECK(h.format == attn::WeightFormat::F16);
  for (std::size_t i = 0; i < P.size(); ++i) {
    const double bound = std::fabs(P[i]) >= std::ldexp(1.0, -14) ? std::ldexp(std::fabs(P[i]), -11) : std::ldexp(1.0, -25);
    CHECK(std::fabs(static_cast<double>(h.model.parameters()[i]) - P[i]) <= bound);
  }
  const auto i8 = attn::save_checkpoint(model, kVocab, {attn::WeightFormat::Int8, false});
  const attn::Checkpoint q = attn::load_checkpoint(i8.data(), i8.size());
  // per row of width 8 (all rows here have 8 or 32 entries): error <= max|row|/254 (+ float rounding)
  double worst_ratio = 0.0;
  const std::vector<float>& Q = q.model.parameters();
  for (std::size_t start = 0; start < P.size();) {
    const std::size_t len = 8;  // every row of this layout is 8 or 32 entries long: chunks of 8 lie inside one
    const std::size_t n = std::min(len, P.size() - start);
    double top = 0;
    for (std::size_t i = 0; i < n; ++i) top = std::max(top, std::fabs(static_cast<double>(P[start + i])));
    for (std::size_t i = 0; i < n; ++i)
      if (top > 0) worst_ratio = std::max(worst_ratio, std::fabs(static_cast<double>(Q[start + i]) - P[start + i]) / top);
    start += n;
  }
  MESSAGE("sizes: F32 " << f32.size() << ", F16 " << f16.size() << ", Int8 " << i8.size()
                        << " bytes; Int8 worst |error|/max|8-entry chunk| " << worst_ratio);
  CHECK(f16.size() < f32.size());
  CHECK(i8.size() < f16.size());
  // chunks of 8 lie inside rows of 8 or 32, whose max is at least the chunk's: bound 4/254 loosely
  CHECK(worst_ratio <= 4.0 / 254.0 + 1e-6);
}

TEST_CASE("checkpoint: Int8 rows meet max|row|/254 exactly on a one-row tensor layout") {
  attn::CharModel model(cfg());
  train(model, 2);
  const auto i8 = attn::save_checkpoint(model, kVocab, {attn::WeightFormat::Int8, false});
  const attn::Checkpoint q = attn::load_checkpoint(i8.data(), i8.size());
  // wte (6 rows of 8) is the first tensor
  for (std::size_t r = 0; r < 6; ++r) {
    double top = 0;
    for (std::size_t i = 0; i < 8; ++i) top = std::max(top, std::fabs(static_cast<double>(model.parameters()[r * 8 + i])));
    for (std::size_t i = 0; i < 8; ++i)
      CHECK(std::fabs(static_cast<double>(q.model.parameters()[r * 8 + i]) - model.parameters()[r * 8 + i]) <=
            top / 254.0 * (1 + 1e-5));
  }
}

TEST_CASE("checkpoint: every truncation, a flipped byte, a wrong version and extra bytes are refused") {
  attn::CharModel model(cfg());
  const auto bytes = attn::save_checkpoint(model, kVocab, {attn::WeightFormat::F16, true});
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_MESSAGE(code_of([&] { attn::load_checkpoint(bytes.data(), n); }) == "BadArgument", "length " << n);
  std::size_t refused = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 7) {
    auto bad = bytes;
    bad[i] ^= 0x10;
    refused += code_of([&] { attn::load_checkpoint(bad.data(), bad.size()); }) != "none";
  }
  CHECK(refused == (bytes.size() + 6) / 7);
  auto v2 = bytes;
  v2[8] = 2;
  CHECK(code_of([&] { attn::load_checkpoint(v2.data(), v2.size()); }) == "BadArgument");
  auto longer = bytes;
  longer.push_back(0);
  CHECK(code_of([&] { attn::load_checkpoint(longer.data(), longer.size()); }) == "ShapeMismatch");
  // a stated weight count that does not match the configuration, with a valid CRC
  auto count = bytes;
  count[108] ^= 1;
  const std::uint32_t crc = attn::crc32(count.data(), count.size() - 4);
  for (int k = 0; k < 4; ++k) count[count.size() - 4 + k] = static_cast<std::uint8_t>(crc >> (8 * k));
  CHECK(code_of([&] { attn::load_checkpoint(count.data(), count.size()); }) == "ShapeMismatch");
  CHECK(attn::crc32(reinterpret_cast<const std::uint8_t*>("123456789"), 9) == 0xcbf43926u);  // the check value
  // save refuses a vocabulary of the wrong size or a surrogate
  CHECK(code_of([&] { attn::save_checkpoint(model, {1, 2}, {}); }) == "BadArgument");
  auto vocab = kVocab;
  vocab[2] = 0xd800;
  CHECK(code_of([&] { attn::save_checkpoint(model, vocab, {}); }) == "BadArgument");
}

TEST_CASE("checkpoint: the optimizer state round trip gives the identical next training step") {
  attn::TrainingConfig t;
  t.total_steps = 20;
  t.warmup = 3;
  attn::CharModel model(cfg(), t);
  train(model, 5);
  const auto bytes = attn::save_checkpoint(model, kVocab, {attn::WeightFormat::F32, true});
  attn::Checkpoint loaded = attn::load_checkpoint(bytes.data(), bytes.size());
  CHECK(loaded.optimizer);
  CHECK(loaded.model.step() == 5);
  CHECK(loaded.model.adam_m() == model.adam_m());
  CHECK(loaded.model.adam_v() == model.adam_v());
  CHECK(loaded.model.training().total_steps == 20);
  train(model, 2, 5);
  train(loaded.model, 2, 5);
  CHECK(loaded.model.parameters() == model.parameters());
  CHECK(loaded.model.step() == 7);
}
