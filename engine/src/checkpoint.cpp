// save_checkpoint / load_checkpoint of checkpoint.hpp. The byte layout is
// written out in engine/README.md ("Checkpoints"); the tensor order is the
// parameter layout (char_model_layout.hpp). Loading checks everything
// (sizes from the header, CRC-32, every value) before it builds the model,
// so a bad file never yields a half-loaded one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "attn/checkpoint.hpp"
#include "char_model_layout.hpp"
#include "checks.hpp"

namespace attn {
namespace {

using detail::fail;

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 116;
// Largest |weight| in every format (float16's largest finite value). It also
// bounds what a loaded model can compute: LayerNorm caps each layer's input,
// so the forward of any loadable file stays finite (the fuzz target checks it).
constexpr float kMaxWeight = 65504.0f;

// ------------------------------------------------ float16 (IEEE binary16)
std::uint16_t to_half(float f) {  // round to nearest even; the caller has checked |f| <= 65504
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax < 0x33000001u) return sign;  // below half the smallest subnormal (2^-25): ±0
  const int e = static_cast<int>(ax >> 23) - 127;
  std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;  // 24 bits with the hidden one
  if (e < -14) {  // subnormal half: value = m·2^-24
    const int shift = -e - 14 + 13;  // 14..24
    const std::uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    std::uint32_t r = half + ((rest > mid || (rest == mid && (half & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | r);  // r may carry into the smallest normal: still right
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e + 15) << 10) | ((mant >> 13) & 0x3ffu);
  const std::uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: right too
  return static_cast<std::uint16_t>(sign | h);
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float f;
  if (e == 0) {
    f = std::ldexp(static_cast<float>(m), -24);
    return sign ? -f : f;
  }
  if (e == 31) return sign ? -INFINITY : INFINITY;  // (NaN too: refused as non-finite by the loader)
  const std::uint32_t x = sign | ((e - 15 + 127) << 23) | (m << 13);
  std::memcpy(&f, &x, 4);
  return f;
}

// ------------------------------------------------ little-endian writer and reader
struct Writer {
  std::vector<std::uint8_t> out;
  void u8(std::uint8_t x) { out.push_back(x); }
  void u16(std::uint16_t x) { u8(static_cast<std::uint8_t>(x)), u8(static_cast<std::uint8_t>(x >> 8)); }
  void u32(std::uint32_t x) { u16(static_cast<std::uint16_t>(x)), u16(static_cast<std::uint16_t>(x >> 16)); }
  void u64(std::uint64_t x) { u32(static_cast<std::uint32_t>(x)), u32(static_cast<std::uint32_t>(x >> 32)); }
  void f32(float f) { std::uint32_t x; std::memcpy(&x, &f, 4); u32(x); }
  void f64(double f) { std::uint64_t x; std::memcpy(&x, &f, 8); u64(x); }
};

struct Reader {  // bounds were checked against the sizes the header states
  const std::uint8_t* p;
  std::size_t at = 0;
  std::uint8_t u8() { return p[at++]; }
  std::uint16_t u16() { const std::uint16_t lo = u8(); return static_cast<std::uint16_t>(lo | (u8() << 8)); }
  std::uint32_t u32() { const std::uint32_t lo = u16(); return lo | (static_cast<std::uint32_t>(u16()) << 16); }
  std::uint64_t u64() { const std::uint64_t lo = u32(); return lo | (static_cast<std::uint64_t>(u32()) << 32); }
  float f32() { const std::uint32_t x = u32(); float f; std::memcpy(&f, &x, 4); return f; }
  double f64() { const std::uint64_t x = u64(); double f; std::memcpy(&f, &x, 8); return f; }
};

bool scalar_value(std::uint32_t cp) { return cp <= 0x10ffffu && !(cp >= 0xd800u && cp <= 0xdfffu); }

// Bytes of the weights in `format` for this layout (double: no overflow on wasm32).
double weight_bytes(const detail::Layout& lo, WeightFormat format) {
  double bytes = 0;
  for (const detail::Tensor& t : lo.tensors) {
    const double n = static_cast<double>(t.size), rows = n / static_cast<double>(t.cols);
    bytes += format == WeightFormat::F32 ? 4 * n : format == WeightFormat::F16 ? 2 * n : 4 * rows + n;
  }
  return bytes;
}

[[noreturn]] void refuse(ErrorCode code, const std::string& why) {
  fail(code, "load_checkpoint: " + why);
}

}  // namespace

std::uint32_t crc32(const std::uint8_t* bytes, std::size_t size) {
  static const auto table = [] {
    std::vector<std::uint32_t> t(256);
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < size; ++i) c = table[(c ^ bytes[i]) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::vector<std::uint8_t> save_checkpoint(const CharModel& model, const std::vector<std::uint32_t>& vocabulary,
                                          const CheckpointOptions& options) {
  const char* fn = "save_checkpoint";
  const CharModelConfig& c = model.config();
  const detail::Layout lo = detail::make_layout(c);
  if (vocabulary.size() != c.vocab)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + std::to_string(vocabulary.size()) +
                                     " code points for a vocabulary of " + std::to_string(c.vocab));
  for (std::size_t i = 0; i < vocabulary.size(); ++i)
    if (!scalar_value(vocabulary[i]))
      fail(ErrorCode::BadArgument, std::string(fn) + ": code point " + std::to_string(vocabulary[i]) +
                                       " of token " + std::to_string(i) + " is not a Unicode scalar value");
  if (options.format != WeightFormat::F32 && options.format != WeightFormat::F16 &&
      options.format != WeightFormat::Int8)
    fail(ErrorCode::BadArgument, std::string(fn) + ": unknown weight format");
  const std::vector<float>& P = model.parameters();
  for (std::size_t i = 0; i < P.size(); ++i) {
    if (!std::isfinite(P[i]))
      fail(ErrorCode::NonFinite, std::string(fn) + ": weight " + std::to_string(i) + " is not finite");
    if (std::fabs(P[i]) > kMaxWeight)
      fail(ErrorCode::BadArgument, std::string(fn) + ": weight " + std::to_string(i) + " = " +
                                       detail::num(P[i]) + " is beyond ±65504");
  }
  const TrainingConfig& t = model.training();
  Writer w;
  for (char ch : kMagic) w.u8(static_cast<std::uint8_t>(ch));
  w.u32(kVersion);
  w.u32(static_cast<std::uint32_t>(options.format));
  w.u32(options.optimizer ? 1u : 0u);
  for (std::size_t x : {c.vocab, c.context, c.width, c.layers, c.heads, c.kv_heads})
    w.u32(static_cast<std::uint32_t>(x));
  w.u64(c.seed);
  w.f64(t.lr_max), w.f64(t.lr_min);
  w.u32(static_cast<std::uint32_t>(t.warmup)), w.u32(static_cast<std::uint32_t>(t.total_steps));
  w.f64(t.clip_norm);
  w.f32(t.adam.beta1), w.f32(t.adam.beta2), w.f32(t.adam.eps), w.f32(t.adam.weight_decay);
  w.u64(model.step());
  w.u64(lo.total);
  for (std::uint32_t cp : vocabulary) w.u32(cp);
  for (const detail::Tensor& tensor : lo.tensors) {
    const float* x = P.data() + tensor.offset;
    if (options.format == WeightFormat::F32) {
      for (std::size_t i = 0; i < tensor.size; ++i) w.f32(x[i]);
    } else if (options.format == WeightFormat::F16) {
      for (std::size_t i = 0; i < tensor.size; ++i) w.u16(to_half(x[i]));
    } else {
      for (std::size_t r = 0; r < tensor.size / tensor.cols; ++r) {
        const float* row = x + r * tensor.cols;
        float top = 0.0f;
        for (std::size_t i = 0; i < tensor.cols; ++i) top = std::max(top, std::fabs(row[i]));
        const float s = top / 127.0f;
        w.f32(s);
        for (std::size_t i = 0; i < tensor.cols; ++i)
          w.u8(static_cast<std::uint8_t>(static_cast<std::int8_t>(s > 0 ? std::lround(row[i] / s) : 0)));
      }
    }
  }
  if (options.optimizer) {
    for (float x : model.adam_m()) w.f32(x);
    for (float x : model.adam_v()) w.f32(x);
  }
  w.u32(crc32(w.out.data(), w.out.size()));
  return std::move(w.out);
}

Checkpoint load_checkpoint(const std::uint8_t* bytes, std::size_t size) {
  if (bytes == nullptr && size > 0) refuse(ErrorCode::BadArgument, "no bytes");
  if (size < sizeof kMagic || std::memcmp(bytes, kMagic, sizeof kMagic) != 0)
    refuse(ErrorCode::BadArgument, "not a checkpoint (the file does not start with ATTNCKPT)");
  Reader r{bytes, sizeof kMagic};
  if (size < 12) refuse(ErrorCode::BadArgument, "truncated: " + std::to_string(size) + " bytes, no version");
  const std::uint32_t version = r.u32();
  if (version != kVersion)
    refuse(ErrorCode::BadArgument, "version " + std::to_string(version) + " (this engine reads version " +
                                       std::to_string(kVersion) + ")");
  if (size < kHeaderBytes)
    refuse(ErrorCode::BadArgument, "truncated: " + std::to_string(size) + " bytes, shorter than the " +
                                       std::to_string(kHeaderBytes) + "-byte header");
  const std::uint32_t format_code = r.u32(), flags = r.u32();
  if (format_code > 2) refuse(ErrorCode::BadArgument, "unknown weight format " + std::to_string(format_code));
  if (flags > 1) refuse(ErrorCode::BadArgument, "unknown flags " + std::to_string(flags));
  const auto format = static_cast<WeightFormat>(format_code);
  const bool optimizer = flags == 1;
  CharModelConfig c;
  c.vocab = r.u32(), c.context = r.u32(), c.width = r.u32(), c.layers = r.u32(), c.heads = r.u32(),
  c.kv_heads = r.u32();
  c.seed = r.u64();
  TrainingConfig t;
  t.lr_max = r.f64(), t.lr_min = r.f64();
  t.warmup = r.u32(), t.total_steps = r.u32();
  t.clip_norm = r.f64();
  t.adam.beta1 = r.f32(), t.adam.beta2 = r.f32(), t.adam.eps = r.f32(), t.adam.weight_decay = r.f32();
  const std::uint64_t step = r.u64(), count = r.u64();
  if (step > static_cast<std::uint64_t>(SIZE_MAX)) refuse(ErrorCode::BadArgument, "step count out of range");
  // The stated count against the configuration's, by arithmetic, before make_layout builds a list
  // of every tensor: a header claiming millions of layers is refused at once, not after that list.
  if (c.vocab == 0 || c.context == 0 || c.width == 0 || c.layers == 0 || c.heads == 0 || c.kv_heads == 0)
    refuse(ErrorCode::ZeroDimension, "a dimension of the configuration is 0");
  if (c.width % c.heads != 0 || c.heads % c.kv_heads != 0)
    refuse(ErrorCode::BadArgument, "width, heads and key/value heads do not divide");
  {
    const double C = static_cast<double>(c.width), Ckv = C / static_cast<double>(c.heads) * static_cast<double>(c.kv_heads);
    const double per_layer = 2 * C + (C * C + C) + 2 * (Ckv * C + Ckv) + (C * C + C) + 2 * C + (4 * C * C + 4 * C) + (4 * C * C + C);
    const double total = (static_cast<double>(c.vocab) + static_cast<double>(c.context)) * C +
                         static_cast<double>(c.layers) * per_layer + 2 * C;
    if (total != static_cast<double>(count))
      refuse(ErrorCode::ShapeMismatch, std::to_string(count) + " weights stated for a configuration of " + detail::num(total));
    if (static_cast<double>(count) > static_cast<double>(size))  // every format takes at least a byte per weight
      refuse(ErrorCode::BadArgument, "truncated: " + std::to_string(size) + " bytes cannot hold " +
                                         std::to_string(count) + " weights");
  }
  const detail::Layout lo = detail::make_layout(c);  // CharModel's checks, budget included
  if (count != lo.total)
    refuse(ErrorCode::ShapeMismatch, std::to_string(count) + " weights stated for a configuration of " +
                                         std::to_string(lo.total));
  const double expected = static_cast<double>(kHeaderBytes) + 4.0 * static_cast<double>(c.vocab) +
                          weight_bytes(lo, format) + (optimizer ? 8.0 * static_cast<double>(lo.total) : 0.0) + 4.0;
  if (static_cast<double>(size) < expected)
    refuse(ErrorCode::BadArgument, "truncated: " + std::to_string(size) + " bytes of the " +
                                       detail::num(expected) + " its header states");
  if (static_cast<double>(size) > expected)
    refuse(ErrorCode::ShapeMismatch, std::to_string(size) + " bytes, more than the " + detail::num(expected) +
                                         " its header states");
  Reader tail{bytes, size - 4};
  if (tail.u32() != crc32(bytes, size - 4))
    refuse(ErrorCode::BadArgument, "CRC-32 mismatch: the file is corrupted");
  auto finite_nonneg = [](double x) { return std::isfinite(x) && x >= 0; };
  if (!finite_nonneg(t.lr_max) || !finite_nonneg(t.lr_min) || !(t.clip_norm > 0) || !std::isfinite(t.clip_norm) ||
      !(t.adam.beta1 >= 0 && t.adam.beta1 < 1) || !(t.adam.beta2 >= 0 && t.adam.beta2 < 1) ||
      !(t.adam.eps > 0) || !std::isfinite(t.adam.eps) || !finite_nonneg(t.adam.weight_decay))
    refuse(ErrorCode::BadArgument, "a training setting is out of range");
  std::vector<std::uint32_t> vocabulary(c.vocab);
  for (std::size_t i = 0; i < c.vocab; ++i) {
    vocabulary[i] = r.u32();
    if (!scalar_value(vocabulary[i]))
      refuse(ErrorCode::BadArgument, "code point " + std::to_string(vocabulary[i]) + " of token " +
                                         std::to_string(i) + " is not a Unicode scalar value");
  }
  std::vector<float> P(lo.total);
  for (const detail::Tensor& tensor : lo.tensors) {
    float* x = P.data() + tensor.offset;
    if (format == WeightFormat::F32) {
      for (std::size_t i = 0; i < tensor.size; ++i) x[i] = r.f32();
    } else if (format == WeightFormat::F16) {
      for (std::size_t i = 0; i < tensor.size; ++i) x[i] = from_half(r.u16());
    } else {
      for (std::size_t row = 0; row < tensor.size / tensor.cols; ++row) {
        const float s = r.f32();
        if (!std::isfinite(s) || s < 0) refuse(ErrorCode::NonFinite, "an int8 row scale is negative or not finite");
        for (std::size_t i = 0; i < tensor.cols; ++i)
          x[row * tensor.cols + i] = s * static_cast<float>(static_cast<std::int8_t>(r.u8()));
      }
    }
  }
  for (std::size_t i = 0; i < P.size(); ++i) {
    if (!std::isfinite(P[i])) refuse(ErrorCode::NonFinite, "weight " + std::to_string(i) + " is not finite");
    if (std::fabs(P[i]) > kMaxWeight) refuse(ErrorCode::BadArgument, "weight " + std::to_string(i) + " is beyond ±65504");
  }
  std::vector<float> m, v;
  if (optimizer) {
    m.resize(lo.total), v.resize(lo.total);
    for (float& x : m) x = r.f32();
    for (float& x : v) x = r.f32();
    for (std::size_t i = 0; i < lo.total; ++i)
      if (!std::isfinite(m[i]) || !std::isfinite(v[i]) || v[i] < 0)
        refuse(ErrorCode::NonFinite, "AdamW moment " + std::to_string(i) + " is not finite (or v < 0)");
  }
  CharModel model(c, t);
  model.parameters() = std::move(P);
  if (optimizer) model.set_optimizer_state(std::move(m), std::move(v), static_cast<std::size_t>(step));
  return Checkpoint{std::move(model), std::move(vocabulary), format, optimizer};
}

}  // namespace attn
