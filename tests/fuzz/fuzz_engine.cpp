// libFuzzer target for every public entry point of engine.hpp (issue 13).
// It checks invariants, not just crashes:
//   - inputs with NaN/inf are refused with NonFinite, a scale <= 0 with BadArgument;
//   - every fast path (materialized with and without weights, chunked with the
//     decoded block sizes, both through attn::KeyValues too, the online softmax
//     trace), under the decoded visibility rule (causal, mask, row offset,
//     sliding window, query period), either refuses with NonFinite or agrees
//     with the scalar reference
//     (which works in double) within a tolerance scaled to the logits' size;
//     masked rows are the reference's, outputs finite; the reference hides
//     exactly the pairs the rule, written out here on its own, hides;
//   - weights are finite, >= 0, exactly 0 where hidden and sum to 1 per visible row;
//   - the helpers (softmax_row, row_stats, logit_stats, jacobian norm,
//     experiment, random_normal, score_matrix_bytes) give finite, in-range numbers;
//   - the attention backward (entry 6): chunked and materialized equal the double reference
//     within a per-entry tolerance, zero dQ for rows that see no key, NonFinite for NaN/inf;
//   - the character model (entry 7): typed refusals of bad shapes and characters, loss,
//     gradients, forward and a training step consistent with one another and finite;
//   - no other exception, no sanitizer report, no leak (LeakSanitizer).
// A failed invariant calls __builtin_trap(), which libFuzzer reports as a crash
// and saves the input. The input format (little-endian, read from the front,
// zeros past the end) is written out in tests/fuzz/make_seeds.py.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "attn/char_sampling.hpp"
#include "attn/checkpoint.hpp"
#include "attn/engine.hpp"
#include "attn/train.hpp"

namespace {

// Prints what failed and traps (libFuzzer then saves the input as crash-*).
#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "fuzz_engine: invariant failed at line %d: %s\n", __LINE__, #cond); \
      __builtin_trap();                                                            \
    }                                                                              \
  } while (0)

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t u8() { return pos_ < n_ ? p_[pos_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | (static_cast<std::uint32_t>(u16()) << 16); }
  float f32_bits() {
    const std::uint32_t bits = u32();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_, pos_ = 0;
};

// A matrix: one byte of mode, one of exponent, then the entries. Mode 0: raw
// float32 bits per entry (NaN, inf, denormals, anything). Otherwise each
// entry is an int8 / 8 times 2^(exponent - 128), so that a whole matrix
// shares one magnitude, from denormal to past FLT_MAX.
attn::Matrix read_matrix(Reader& in, std::size_t rows, std::size_t cols) {
  attn::Matrix m(rows, cols);
  const std::uint8_t mode = in.u8();
  const int exponent = static_cast<int>(in.u8()) - 128;
  for (float& x : m.data) {
    if (mode % 4 == 0) {
      x = in.f32_bits();
    } else {
      const auto small = static_cast<std::int8_t>(in.u8());
      x = std::ldexp(static_cast<float>(small) / 8.0f, exponent);
    }
  }
  return m;
}

bool all_finite(const attn::Matrix& m) {
  for (float x : m.data)
    if (!std::isfinite(x)) return false;
  return true;
}

float max_abs(const attn::Matrix& m) {
  float top = 0.0f;
  for (float x : m.data) top = std::fmax(top, std::fabs(x));
  return top;
}

template <class F>
std::optional<attn::ErrorCode> error_of(F&& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return e.code();
  }
  return std::nullopt;
}

// Largest error a float32 logit can carry: the dot product's rounding,
// (d_k + 3) units of 2^-24 of Σ|q_t·k_t|·|scale| at most (plus one for the scale).
double logit_error(std::size_t d_k, double scale, double q, double k) {
  return (static_cast<double>(d_k) + 3.0) * 0x1p-23 * scale * q * k * static_cast<double>(d_k);
}

struct Inputs {
  attn::Matrix q, k, v;
  attn::AttentionOptions opt;
  std::vector<std::uint8_t> mask;
};

// The scalar reference on one head's inputs, weights included: what each head of a fast
// multi-head, prefill or decode result is compared with.
attn::AttentionResult reference_of(const Inputs& one) {
  attn::AttentionOptions ro = one.opt;
  ro.variant = attn::Variant::Reference;
  ro.return_weights = true;
  return attn::attention(one.q.view(), one.k.view(), one.v.view(), ro);
}

// True when some float32 step could overflow, judged here on its own (in
// double, per pair, not with the engine's bound): scale·q, a partial sum of
// q·k scaled or not, or the un-normalised sum of up to S value rows. Float32
// would then lose the answer entirely (inf·0, inf − inf), not by a rounding
// error, so engine.hpp's rule applies in full: the reference's answer,
// tightly, or a NonFinite refusal (issue 13's first examples are caught here).
bool float_may_overflow(const Inputs& in, double scale) {
  const double half = static_cast<double>(FLT_MAX) / 2.0;
  if (static_cast<double>(in.k.rows) * max_abs(in.v) > half) return true;
  const std::size_t d_k = in.q.cols;
  for (std::size_t i = 0; i < in.q.rows; ++i)
    for (std::size_t j = 0; j < in.k.rows; ++j) {
      double scaled = 0.0, unscaled = 0.0;
      for (std::size_t t = 0; t < d_k; ++t) {
        const double q = in.q.at(i, t), k = in.k.at(j, t);
        if (std::fabs(scale * q) > half) return true;
        unscaled += std::fabs(q * k);
        scaled += std::fabs(scale * q * k);
      }
      if (unscaled > half || scaled > half) return true;
    }
  return false;
}

// engine.hpp's visibility rule for one pair, written out on its own in
// 128-bit arithmetic (row_offset and the window may be near 2^64 - 1):
// positions past 2^64 - 1 count as 2^64 - 1, as engine.hpp says.
bool sees(const attn::AttentionOptions& o, std::size_t i, std::size_t j) {
  using wide = unsigned __int128;
  const wide phase = o.query_period ? i % o.query_period : i;
  const wide pos = std::min<wide>(phase + o.row_offset, UINT64_MAX);
  const wide key = j, w = o.window;
  if (o.causal && key > pos) return false;
  if (w > 0) {
    const wide distance = key > pos ? key - pos : pos - key;
    if (distance >= w) return false;
  }
  return true;
}

// The reference's result, and whether the fast path's matches it.
void compare(const Inputs& in, const attn::AttentionResult& ref, const attn::AttentionResult& r,
             bool weights, double scale) {
  const std::size_t L = in.q.rows, S = in.k.rows, d_v = in.v.cols;
  CHECK(r.out.rows == L && r.out.cols == d_v);
  CHECK(r.masked_rows == ref.masked_rows);
  const double v_max = max_abs(in.v);
  const bool exact = float_may_overflow(in, scale);
  const double e = exact ? 0.0 : logit_error(in.q.cols, scale, max_abs(in.q), max_abs(in.k));
  // weights move by about 2e relative when the logits move by e; the fast
  // exp adds about 6e-6 relative (engine/src/fast_exp.hpp), each sum a few ulps per key
  const bool comparable = e < 0.05;
  const double tol = v_max * (2e-5 + 8.0 * e + 1e-6 * static_cast<double>(S)) + 1e-44 * static_cast<double>(S);
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t c = 0; c < d_v; ++c) {
      const float got = r.out.at(i, c), want = ref.out.at(i, c);
      CHECK(std::isfinite(got));
      // a convex combination of v: with subnormal values the float32 steps
      // round by absolute steps of 2^-149, not relative ones, so the same
      // absolute slack as tol (one such step lifted two equal subnormals
      // 0x3f3f to 0x3f40 in the materialized kernel)
      CHECK(std::fabs(static_cast<double>(got)) <= v_max * (1.0 + 1e-5) + 1e-44 * static_cast<double>(S));
      if (comparable) CHECK(std::fabs(static_cast<double>(got) - want) <= tol);
    }
  if (!weights) return;
  CHECK(r.weights.rows == L && r.weights.cols == S && r.scores.rows == L && r.scores.cols == S);
  std::vector<bool> masked(L, false);
  for (std::uint32_t i : r.masked_rows) masked[i] = true;
  for (std::size_t i = 0; i < L; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < S; ++j) {
      const float w = r.weights.at(i, j);
      CHECK(std::isfinite(w) && w >= 0.0f);
      // hidden: weight 0 and score -inf (the reference marks them -inf too)
      if (ref.scores.at(i, j) == -std::numeric_limits<float>::infinity()) {
        CHECK(w == 0.0f);
        CHECK(r.scores.at(i, j) == -std::numeric_limits<float>::infinity());
      } else {
        CHECK(std::isfinite(r.scores.at(i, j)));
      }
      if (comparable) CHECK(std::fabs(static_cast<double>(w) - ref.weights.at(i, j)) <= 2e-5 + 8.0 * e);
      sum += w;
    }
    if (masked[i]) {
      CHECK(sum == 0.0);
    } else {
      CHECK(std::fabs(sum - 1.0) <= 1e-5 + 1e-6 * static_cast<double>(S));
    }
  }
}

// A fast path: either NonFinite, or the reference's answer.
template <class F>
void fast_path(const Inputs& in, const attn::AttentionResult& ref, bool weights, double scale, F&& run) {
  try {
    const attn::AttentionResult r = run();
    compare(in, ref, r, weights, scale);
  } catch (const attn::Error& e) {
    CHECK(e.code() == attn::ErrorCode::NonFinite);
  }
}

void fuzz_attention(Reader& r) {
  Inputs in;
  // mostly up to 24 rows and keys (more inputs per second), now and then
  // 41 to 72: past one 64-row block of the materialized kernel
  const auto length = [&r] { const std::size_t x = r.u8(); return x < 224 ? x % 24 + 1 : x - 224 + 41; };
  const std::size_t L = length(), S = length();
  const std::size_t d_k = r.u8() % 12 + 1, d_v = r.u8() % 12 + 1;
  const std::uint8_t flags = r.u8();
  const bool has_scale = flags & 4;
  const float scale_in = r.f32_bits();
  const std::size_t block_q = (flags & 64) ? SIZE_MAX : r.u8() % 80 + 1;
  const std::size_t block_k = r.u8() % 80 + 1;
  const std::size_t row_offset = (flags & 32) ? SIZE_MAX - r.u8() : r.u16() % 160;
  in.q = read_matrix(r, L, d_k);
  in.k = read_matrix(r, S, d_k);
  in.v = read_matrix(r, S, d_v);
  if (flags & 2) {
    in.mask.resize(L * S);
    std::uint8_t bits = 0;
    for (std::size_t t = 0; t < L * S; ++t) {
      if (t % 8 == 0) bits = r.u8();
      in.mask[t] = (bits >> (t % 8)) & 1;
    }
    in.opt.mask = in.mask.data();
  }
  // read last, so that inputs written before these options existed decode as
  // before (no window, no period: zeros past the end)
  const std::uint8_t window_byte = r.u8();
  in.opt.window = (flags & 16) ? SIZE_MAX - window_byte : window_byte;
  in.opt.query_period = r.u8() % 80;
  in.opt.causal = flags & 1;
  if (has_scale) in.opt.scale = scale_in;
  in.opt.row_offset = row_offset;
  in.opt.block_q = block_q;
  in.opt.block_k = block_k;

  const bool finite = all_finite(in.q) && all_finite(in.k) && all_finite(in.v);
  const bool scale_ok = !has_scale || (std::isfinite(scale_in) && scale_in > 0.0f);

  attn::AttentionOptions ro = in.opt;
  ro.variant = attn::Variant::Reference;
  ro.return_weights = true;
  std::optional<attn::AttentionResult> ref;
  const auto code = error_of([&] { ref = attn::attention(in.q.view(), in.k.view(), in.v.view(), ro); });
  if (!finite || !scale_ok) {
    // refused by every path, with the right code
    CHECK(code.has_value());
    if (!scale_ok && !(has_scale && !std::isfinite(scale_in)))
      CHECK(*code == attn::ErrorCode::BadArgument || *code == attn::ErrorCode::NonFinite);
    else
      CHECK(*code == attn::ErrorCode::NonFinite);
    for (std::size_t vi = 0; vi < static_cast<std::size_t>(attn::Variant::Count); ++vi) {  // every variant
      attn::AttentionOptions o = in.opt;
      o.variant = static_cast<attn::Variant>(vi);
      CHECK(error_of([&] { attn::attention(in.q.view(), in.k.view(), in.v.view(), o); }) == *code);
    }
    if (!all_finite(in.q) || !all_finite(in.k))  // logit_stats takes no v
      CHECK(error_of([&] { attn::logit_stats(in.q.view(), in.k.view(), in.opt.scale); }).has_value());
    return;
  }
  CHECK(!code.has_value());
  const double scale = has_scale ? scale_in : 1.0 / std::sqrt(static_cast<double>(d_k));

  // the reference itself: finite output, rows of weights that sum to 1, hidden = -inf
  for (float x : ref->out.data) CHECK(std::isfinite(x));
  {
    std::vector<bool> masked(L, false);
    for (std::uint32_t i : ref->masked_rows) masked[i] = true;
    for (std::size_t i = 0; i < L; ++i) {
      double sum = 0.0;
      bool any_visible = false;
      for (std::size_t j = 0; j < S; ++j) {
        const bool visible = sees(in.opt, i, j) && (in.mask.empty() || in.mask[i * S + j]);
        any_visible |= visible;
        if (!visible) CHECK(ref->weights.at(i, j) == 0.0f && ref->scores.at(i, j) == -std::numeric_limits<float>::infinity());
        sum += ref->weights.at(i, j);
      }
      CHECK(masked[i] == !any_visible);
      if (any_visible) CHECK(std::fabs(sum - 1.0) <= 1e-5);
    }
  }

  attn::AttentionOptions mo = in.opt;
  mo.variant = attn::Variant::Materialized;
  fast_path(in, *ref, false, scale, [&] { return attn::attention(in.q.view(), in.k.view(), in.v.view(), mo); });
  mo.return_weights = true;
  fast_path(in, *ref, true, scale, [&] { return attn::attention(in.q.view(), in.k.view(), in.v.view(), mo); });
  attn::AttentionOptions co = in.opt;
  co.variant = attn::Variant::Chunked;
  fast_path(in, *ref, false, scale, [&] { return attn::attention(in.q.view(), in.k.view(), in.v.view(), co); });
  // the worker pool's path: K and V kept, the queries as they come
  const attn::KeyValues kv(in.k, in.v);
  fast_path(in, *ref, false, scale, [&] { return attn::attention(in.q.view(), kv, co); });
  fast_path(in, *ref, true, scale, [&] { return attn::attention(in.q.view(), kv, mo); });
  CHECK(error_of([&] {
          attn::AttentionOptions bad = co;
          bad.return_weights = true;
          attn::attention(in.q.view(), kv, bad);
        }) == attn::ErrorCode::BadArgument);

  // statistics of the reference's weights and of the logits
  const attn::RowStats st = attn::row_stats(ref->weights.view());
  for (std::size_t i = 0; i < L; ++i) {
    CHECK(std::isfinite(st.entropy[i]) && st.entropy[i] >= 0.0f);
    CHECK(st.entropy[i] <= std::log(static_cast<float>(S)) + 1e-4f);
    CHECK(st.max_weight[i] >= 0.0f && st.max_weight[i] <= 1.0f + 1e-6f);
    const double j = attn::softmax_jacobian_norm(ref->weights.data.data() + i * S, S);
    CHECK(std::isfinite(j) && j >= 0.0 && j <= 1.0);
  }
  const attn::LogitStats ls = attn::logit_stats(in.q.view(), in.k.view(), in.opt.scale);
  CHECK(std::isfinite(ls.mean_sq_unscaled) && ls.mean_sq_unscaled >= 0.0);
  CHECK(std::isfinite(ls.rms_scaled) && ls.rms_scaled >= 0.0);

  // the trace of one row (no mask, no row offset, no period: its own API)
  const std::size_t row = row_offset % L, trace_k = block_k;
  try {
    const attn::OnlineSoftmaxTrace t = attn::online_softmax_trace(in.q.view(), in.k.view(), in.v.view(), row, trace_k,
                                                                  in.opt.causal, in.opt.scale, in.opt.window);
    CHECK(t.out.size() == d_v && t.reference.size() == d_v);
    const double v_max = max_abs(in.v);
    const double e = float_may_overflow(in, scale) ? 0.0 : logit_error(d_k, scale, max_abs(in.q), max_abs(in.k));
    for (std::size_t c = 0; c < d_v; ++c) {
      CHECK(std::isfinite(t.out[c]) && std::isfinite(t.reference[c]));
      if (e < 0.05)
        CHECK(std::fabs(static_cast<double>(t.out[c]) - t.reference[c]) <=
              v_max * (2e-5 + 8.0 * e + 1e-6 * static_cast<double>(S)) + 1e-44 * static_cast<double>(S));
    }
    // tiles from the one holding the row's first visible key to its last
    attn::AttentionOptions trace_rule;
    trace_rule.causal = in.opt.causal;
    trace_rule.window = in.opt.window;
    std::size_t first = S, end = 0;
    for (std::size_t j = 0; j < S; ++j)
      if (sees(trace_rule, row, j)) first = std::min(first, j), end = j + 1;
    const std::size_t bk = std::min(trace_k, S);
    CHECK(t.steps.size() == (end > 0 ? (end + bk - 1) / bk - first / bk : 0));
    for (const attn::OnlineSoftmaxStep& s : t.steps) {
      CHECK(std::isfinite(s.l_new) && s.l_new >= 0.999f);
      CHECK(s.rescale >= 0.0f && s.rescale <= 1.0f);
    }
  } catch (const attn::Error& e) {
    CHECK(e.code() == attn::ErrorCode::NonFinite);
  }
}

void fuzz_softmax_row(Reader& r) {
  const std::size_t n = r.u8() % 40 + 1;
  const bool subtract = r.u8() & 1;
  std::vector<float> logits(n);
  bool bad = false, any = false;
  for (float& x : logits) {
    x = r.f32_bits();
    bad |= std::isnan(x) || x == std::numeric_limits<float>::infinity();
    any |= x != -std::numeric_limits<float>::infinity();
  }
  // read last (older seeds decode as before): up to 65280 more copies of the
  // last logit, so that a float32 running sum would stall (after a weight
  // near 1, terms under half its ulp were lost) and the sum checks below see it
  logits.resize(n + 256 * static_cast<std::size_t>(r.u8()), logits.back());
  std::optional<attn::SoftmaxRowResult> res;
  const auto code = error_of([&] { res = attn::softmax_row(logits, subtract); });
  if (bad) {
    CHECK(code == attn::ErrorCode::NonFinite);
    return;
  }
  CHECK(!code.has_value());
  CHECK(res->weights.size() == logits.size());
  if (!any) {
    for (float w : res->weights) CHECK(w == 0.0f);
    return;
  }
  if (!subtract) {
    if (res->overflowed) return;
  } else {
    CHECK(!res->overflowed);
  }
  // against softmax in double
  double m = -INFINITY;
  for (float x : logits) m = std::fmax(m, static_cast<double>(x));
  double l = 0.0;
  for (float x : logits) l += std::exp(static_cast<double>(x) - m);
  double sum = 0.0;
  for (std::size_t j = 0; j < logits.size(); ++j) {
    const float w = res->weights[j];
    CHECK(std::isfinite(w) && w >= 0.0f);
    if (subtract) CHECK(std::fabs(w - std::exp(static_cast<double>(logits[j]) - m) / l) <= 1e-5);
    sum += w;
  }
  if (subtract) CHECK(std::fabs(sum - 1.0) <= 1e-5);
}

void fuzz_experiment(Reader& r) {
  const std::size_t n = r.u8() % 12 + 1, d_k = r.u8() % 12 + 1;
  const std::size_t count = r.u8() % 3 + 1;
  std::vector<std::uint64_t> seeds;
  for (std::size_t s = 0; s < count; ++s) seeds.push_back(static_cast<std::uint64_t>(r.u32()) << (r.u8() % 33));
  const bool scale = r.u8() & 1;
  const attn::ExperimentResult e = attn::experiment(n, d_k, seeds, scale);
  CHECK(e.per_seed.size() == count);
  for (const attn::ExperimentRow& row : e.per_seed) {
    CHECK(row.max_weight > 0.0 && row.max_weight <= 1.0 + 1e-6);
    CHECK(std::isfinite(row.mean_entropy) && row.mean_entropy >= -1e-9);
    CHECK(row.entropy_share >= -1e-9 && row.entropy_share <= 1.0 + 1e-4);
    CHECK(std::isfinite(row.mean_sq_logit) && std::isfinite(row.rms_logit) && std::isfinite(row.jacobian_norm));
  }
  attn::NormalRng rng(seeds[0]);
  const attn::Matrix m = attn::random_normal(rng, n, d_k);
  for (float x : m.data) CHECK(std::isfinite(x) && std::fabs(x) < 12.0f);
  CHECK(error_of([&] { attn::experiment(0, d_k, seeds, scale); }) == attn::ErrorCode::ZeroDimension);
  CHECK(error_of([&] { attn::experiment(n, d_k, {}, scale); }) == attn::ErrorCode::BadArgument);
}

void fuzz_memory_model(Reader& r) {
  double x[5];
  for (double& d : x) {
    const std::uint8_t mode = r.u8();
    if (mode % 2 == 0) {
      d = static_cast<double>(r.u32() >> (mode % 32));
    } else {
      std::uint64_t bits = static_cast<std::uint64_t>(r.u32()) | (static_cast<std::uint64_t>(r.u32()) << 32);
      std::memcpy(&d, &bits, sizeof d);
    }
  }
  std::optional<double> bytes;
  const auto code = error_of([&] { bytes = attn::score_matrix_bytes(x[0], x[1], x[2], x[3], x[4]); });
  bool valid = true;
  for (double d : x) valid &= std::isfinite(d) && d >= 1.0 && d == std::floor(d);
  if (!code) {
    CHECK(valid);
    CHECK(std::isfinite(*bytes) && *bytes >= 1.0);
  } else {
    CHECK(*code == attn::ErrorCode::BadArgument || *code == attn::ErrorCode::TooLarge);
  }

  // visible_pairs (read after the bytes above: older seeds decode as before).
  // L = m·P + rest rows with a period P <= 64: rows i and i + P see the same
  // keys, so the count is m·C(P) + C(rest), C counted pair by pair with sees()
  // (positions and the window up to 2^64 - 1, m up to 2^40): the closed form
  // must give it exactly, or TooLarge exactly when it passes 2^53.
  attn::AttentionOptions rule;
  const std::uint8_t flags = r.u8();
  rule.causal = flags & 1;
  const std::uint64_t P = r.u8() % 64 + 1, rest = r.u8() % P;
  const std::uint64_t m = (flags & 2) ? static_cast<std::uint64_t>(r.u32()) << (r.u8() % 9) : r.u8() % 3;
  const std::size_t S = r.u16() % 300 + 1;
  rule.window = (flags & 4) ? std::numeric_limits<std::uint64_t>::max() - r.u32() : r.u16() % 400;
  rule.row_offset = (flags & 8) ? std::numeric_limits<std::uint64_t>::max() - r.u32() : (flags & 16) ? static_cast<std::uint64_t>(r.u32()) << 21 : r.u16() % 400;
  rule.query_period = (flags & 32) || m > 0 ? P : 0;
  const std::uint64_t L = m * P + rest;
  if (L > 0) {
    const auto count_rows = [&](std::uint64_t rows) {
      unsigned __int128 c = 0;
      for (std::uint64_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < S; ++j) c += sees(rule, static_cast<std::size_t>(i), j) ? 1 : 0;
      return c;
    };
    const unsigned __int128 want = (rule.query_period ? m : 0) * count_rows(rule.query_period ? P : 0) +
                                   count_rows(rule.query_period ? rest : L);
    std::optional<double> pairs;
    const auto c = error_of([&] { pairs = attn::visible_pairs(L, S, rule); });
    if (want > (static_cast<unsigned __int128>(1) << 53)) {
      CHECK(c == attn::ErrorCode::TooLarge);
    } else {
      CHECK(!c.has_value());
      CHECK(*pairs == static_cast<double>(static_cast<std::uint64_t>(want)));
    }
  }

  // kv_bytes_read: H_kv·S·(d_k + d_v)·4 exactly, or TooLarge past 2^53
  std::uint64_t f[4];
  for (std::uint64_t& x : f) x = (static_cast<std::uint64_t>(r.u32()) << (r.u8() % 33)) + 1;
  // H_q a multiple of H_kv = f[0]; a multiple past 2^64 would wrap (and no longer be
  // one), so then H_q = H_kv
  const std::uint64_t group = r.u8() % 4 + 1;
  const std::uint64_t hq = f[0] <= std::numeric_limits<std::uint64_t>::max() / group ? f[0] * group : f[0];
  unsigned __int128 want = 4;
  bool over = false;
  for (const unsigned __int128 factor : {static_cast<unsigned __int128>(f[0]), static_cast<unsigned __int128>(f[1]),
                                         static_cast<unsigned __int128>(f[2]) + f[3]}) {
    want *= factor;
    over |= want > (static_cast<unsigned __int128>(1) << 53);
    if (over) break;
  }
  std::optional<double> bytes_read;
  const auto kc = error_of([&] { bytes_read = attn::kv_bytes_read({hq, f[0]}, f[1], f[2], f[3]); });
  if (over) {
    CHECK(kc == attn::ErrorCode::TooLarge);
  } else {
    CHECK(!kc.has_value());
    CHECK(*bytes_read == static_cast<double>(static_cast<std::uint64_t>(want)));
  }
}

// Rows [first, first + rows) of m, copied.
attn::Matrix rows_of(const attn::Matrix& m, std::size_t first, std::size_t rows) {
  attn::Matrix out(rows, m.cols);
  std::copy(m.data.begin() + first * m.cols, m.data.begin() + (first + rows) * m.cols, out.data.begin());
  return out;
}

// multihead_attention and KvCache (entry 4): every query head equals the
// reference of its own head (copied out, so views and copies agree); every
// decode step equals the reference of its one row over the keys it may see
// (the last w with a window); non-finite inputs are refused with NonFinite
// and leave the cache as it was.
void fuzz_heads(Reader& r) {
  const std::size_t hkv = r.u8() % 3 + 1, G = r.u8() % 4 + 1, hq = hkv * G;
  const std::size_t L = r.u8() % 8 + 1, S = r.u8() % 10 + 1;
  const std::size_t d_k = r.u8() % 9 + 1, d_v = r.u8() % 9 + 1;
  const std::uint8_t flags = r.u8();
  const std::size_t window = (flags & 8) ? r.u8() % (S + 2) : 0;
  const std::size_t prompt = r.u8() % (S + 1);
  Inputs in;
  in.q = read_matrix(r, hq * L, d_k);
  in.k = read_matrix(r, hkv * S, d_k);
  in.v = read_matrix(r, hkv * S, d_v);
  in.opt.causal = flags & 1;
  in.opt.variant = (flags & 2) ? attn::Variant::Chunked : (flags & 4) ? attn::Variant::Reference : attn::Variant::Materialized;
  in.opt.return_weights = in.opt.variant != attn::Variant::Chunked;
  in.opt.block_q = r.u8() % 9 + 1;
  in.opt.block_k = r.u8() % 9 + 1;
  // flags 16 and 32 read no bytes (older seeds decode the same): 16 gives
  // multihead_attention the cache's window and prefills through
  // prefill_attention; 32 a query_period of (flags >> 6) % L + 1, which may
  // or may not divide L (stacked per group, or one call per head)
  if (flags & 16) in.opt.window = window;
  if (flags & 32) in.opt.query_period = (flags >> 6) % L + 1;
  const bool finite = all_finite(in.q) && all_finite(in.k) && all_finite(in.v);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));

  std::optional<attn::MultiheadResult> mh;
  const auto code = error_of([&] { mh = attn::multihead_attention(in.q.view(), in.k.view(), in.v.view(), {hq, hkv}, in.opt); });
  if (!finite) {
    CHECK(code == attn::ErrorCode::NonFinite);
  } else if (code) {
    CHECK(*code == attn::ErrorCode::NonFinite);  // a logit past float32 in a fast path
  } else {
    CHECK(mh->out.rows == hq * L && mh->masked_rows.size() == hq);
    CHECK(mh->weights.size() == (in.opt.return_weights ? hq : 0));
    for (std::size_t h = 0; h < hq; ++h) {
      Inputs one;
      one.q = rows_of(in.q, h * L, L);
      one.k = rows_of(in.k, (h / G) * S, S);
      one.v = rows_of(in.v, (h / G) * S, S);
      one.opt = in.opt;
      const attn::AttentionResult ref = reference_of(one);
      attn::AttentionResult got;
      got.out = rows_of(mh->out, h * L, L);
      got.masked_rows = mh->masked_rows[h];
      if (in.opt.return_weights) {
        got.weights = mh->weights[h];
        got.scores = mh->scores[h];
      }
      // the reference variant's float32 scores may read ±inf where its double logits
      // pass float32's range (it never refuses): its weights are checked through out only
      compare(one, ref, got, in.opt.return_weights && in.opt.variant != attn::Variant::Reference, scale);
    }
  }

  // every refusal of the cache is an attn::Error: heads past the budget
  // (before allocating), a head index past the last
  CHECK(error_of([&] { attn::KvCache(SIZE_MAX / (hkv * G), d_k, d_v, window); }) == attn::ErrorCode::TooLarge);

  // the same sequence through a cache: prompt rows prefilled, the rest decoded
  attn::KvCache cache(hkv, d_k, d_v, window);
  CHECK(error_of([&] { cache.k(hkv + L); }) == attn::ErrorCode::BadArgument);
  CHECK(error_of([&] { cache.v(hkv); }) == attn::ErrorCode::BadArgument);
  attn::AttentionOptions step_opt;
  step_opt.variant = in.opt.variant == attn::Variant::Reference ? attn::Variant::Reference : attn::Variant::Materialized;
  if (prompt > 0) {
    attn::Matrix kp(hkv * prompt, d_k), vp(hkv * prompt, d_v);
    for (std::size_t g = 0; g < hkv; ++g) {
      std::copy_n(in.k.data.begin() + g * S * d_k, prompt * d_k, kp.data.begin() + g * prompt * d_k);
      std::copy_n(in.v.data.begin() + g * S * d_v, prompt * d_v, vp.data.begin() + g * prompt * d_v);
    }
    if (flags & 16) {
      // the prompt's causal (windowed) attention: head h's query rows t % L, t < prompt
      attn::Matrix qp(hq * prompt, d_k);
      for (std::size_t h = 0; h < hq; ++h)
        for (std::size_t t = 0; t < prompt; ++t)
          std::copy_n(in.q.data.begin() + (h * L + t % L) * d_k, d_k, qp.data.begin() + (h * prompt + t) * d_k);
      attn::AttentionOptions po = in.opt;
      po.query_period = 0;
      // q must hold one row per prompt row and query head: one row more is refused
      {
        const attn::Matrix longer(hq * (prompt + 1), d_k);
        CHECK(error_of([&] { cache.prefill_attention(longer.view(), kp.view(), vp.view(), hq, po); }) ==
              attn::ErrorCode::ShapeMismatch);
        CHECK(cache.appended() == 0);
      }
      std::optional<attn::MultiheadResult> pre;
      const auto c = error_of([&] { pre = cache.prefill_attention(qp.view(), kp.view(), vp.view(), hq, po); });
      if (c) {  // NonFinite only (a logit past float32 in a fast path); the cache stays empty
        CHECK(*c == attn::ErrorCode::NonFinite);
        CHECK(cache.length() == 0 && cache.appended() == 0);
        return;
      }
      CHECK(pre->out.rows == hq * prompt && cache.appended() == prompt);
      for (std::size_t h = 0; h < hq; ++h) {
        Inputs one;
        one.q = rows_of(qp, h * prompt, prompt);
        one.k = rows_of(kp, (h / G) * prompt, prompt);
        one.v = rows_of(vp, (h / G) * prompt, prompt);
        one.opt = po;
        one.opt.causal = true;
        const attn::AttentionResult ref = reference_of(one);
        attn::AttentionResult got;
        got.out = rows_of(pre->out, h * prompt, prompt);
        got.masked_rows = pre->masked_rows[h];
        compare(one, ref, got, false, scale);
      }
    } else {
      const auto c = error_of([&] { cache.prefill(kp.view(), vp.view()); });
      if (c) {
        CHECK(*c == attn::ErrorCode::NonFinite && !finite);
        CHECK(cache.length() == 0 && cache.appended() == 0);
        return;
      }
    }
  }
  for (std::size_t t = prompt; t < S; ++t) {
    attn::Matrix q(hq, d_k), k(hkv, d_k), v(hkv, d_v);
    for (std::size_t h = 0; h < hq; ++h) std::copy_n(in.q.data.begin() + (h * L + t % L) * d_k, d_k, q.data.begin() + h * d_k);
    for (std::size_t g = 0; g < hkv; ++g) {
      std::copy_n(in.k.data.begin() + (g * S + t) * d_k, d_k, k.data.begin() + g * d_k);
      std::copy_n(in.v.data.begin() + (g * S + t) * d_v, d_v, v.data.begin() + g * d_v);
    }
    const std::size_t before = cache.appended();
    std::optional<attn::AttentionResult> out;
    const auto c = error_of([&] { out = cache.decode_step(q.view(), k.view(), v.view(), step_opt); });
    if (c) {  // only non-finite inputs are refused: the double path takes what float32 cannot
      CHECK(*c == attn::ErrorCode::NonFinite && !finite);
      CHECK(cache.appended() == before);
      return;
    }
    CHECK(out->out.rows == hq && out->masked_rows.empty());
    const std::size_t first = window != 0 && t + 1 > window ? t + 1 - window : 0;
    for (std::size_t h = 0; h < hq; ++h) {
      Inputs one;
      one.q = rows_of(q, h, 1);
      one.k = rows_of(in.k, (h / G) * S + first, t + 1 - first);
      one.v = rows_of(in.v, (h / G) * S + first, t + 1 - first);
      const attn::AttentionResult ref = reference_of(one);
      attn::AttentionResult got;
      got.out = rows_of(out->out, h, 1);
      compare(one, ref, got, false, scale);
    }
  }
}

// Entry 5: load_checkpoint on the rest of the input (mode bit 0 set: with its
// last 4 bytes replaced by the right CRC-32, so that mutations reach the
// checks after the checksum). It either throws a typed attn::Error (caught
// here) or returns a model whose forward and KV-cached decoder give finite
// probabilities (the decoder's summing to 1; they agree only to rounding of
// logits that may be huge, so the doctests, not this, compare them), and an F32 file
// saves back to the same bytes.
void fuzz_checkpoint(Reader& r, const std::uint8_t* data, std::size_t size) {
  const std::uint8_t mode = r.u8();
  std::vector<std::uint8_t> bytes(data + std::min<std::size_t>(size, 2), data + size);
  if ((mode & 1) && bytes.size() >= 4) {
    const std::uint32_t crc = attn::crc32(bytes.data(), bytes.size() - 4);
    for (int k = 0; k < 4; ++k) bytes[bytes.size() - 4 + k] = static_cast<std::uint8_t>(crc >> (8 * k));
  }
  const attn::Checkpoint ck = attn::load_checkpoint(bytes.data(), bytes.size());  // or a typed error
  const attn::CharModelConfig& c = ck.model.config();
  CHECK(ck.vocabulary.size() == c.vocab);
  std::vector<std::uint32_t> text;
  for (std::size_t t = 0; t < std::min<std::size_t>(c.context, 3); ++t)
    text.push_back(static_cast<std::uint32_t>((t * 7 + mode) % c.vocab));
  const attn::CharModelForward f = ck.model.forward(text);
  attn::CharModelDecoder decoder(ck.model);
  for (std::size_t t = 0; t < text.size(); ++t) {
    const std::vector<float> p = decoder.feed(text[t]);
    double sum = 0;
    for (std::size_t v = 0; v < c.vocab; ++v) {
      CHECK(std::isfinite(f.probs.at(t, v)) && f.probs.at(t, v) >= 0);
      CHECK(std::isfinite(p[v]) && p[v] >= 0);
      sum += p[v];
    }
    CHECK(std::fabs(sum - 1.0) <= 1e-4);
  }
  if (ck.format == attn::WeightFormat::F32) {
    const std::vector<std::uint8_t> again =
        attn::save_checkpoint(ck.model, ck.vocabulary, {attn::WeightFormat::F32, ck.optimizer});
    CHECK(again == bytes);
  }
}


// Entry 6: the attention backward (train.hpp). Entries are int8 / 16 (|x| <= 8), so the
// logits stay within ±8·8·sqrt(d_k) and nothing overflows; the fuzzer picks the shapes
// (n = 1, sizes past one tile, L != S), the tiles, causal, window and row offset (rows that
// see no key among them). The chunked and the materialized backward, each from the float
// forward's out and lse (attention_forward_lse), agree with the double reference backward
// within a tolerance scaled per entry to the terms it sums (written out here in double);
// rows that see no key get zero dQ; a NaN or inf planted in d_out is refused with NonFinite.
void fuzz_backward(Reader& r) {
  const auto length = [&r] { const std::size_t x = r.u8(); return x < 224 ? x % 20 + 1 : x - 224 + 41; };
  const std::size_t L = length(), S = length();
  const std::size_t d_k = r.u8() % 12 + 1, d_v = r.u8() % 12 + 1;
  const std::uint8_t flags = r.u8();
  attn::AttentionOptions opt;
  opt.causal = flags & 1;
  opt.window = (flags & 2) ? r.u8() % 24 : 0;
  opt.row_offset = r.u8() % 48;
  opt.block_q = r.u8() % 80 + 1;
  opt.block_k = r.u8() % 80 + 1;
  const auto bounded = [&r](std::size_t rows, std::size_t cols) {
    attn::Matrix m(rows, cols);
    for (float& x : m.data) x = static_cast<float>(static_cast<std::int8_t>(r.u8())) / 16.0f;
    return m;
  };
  const attn::Matrix q = bounded(L, d_k), k = bounded(S, d_k), v = bounded(S, d_v);
  attn::Matrix d_out = bounded(L, d_v);
  const bool plant = flags & 4;
  if (plant) d_out.data[r.u8() % d_out.data.size()] = (flags & 8) ? std::numeric_limits<float>::quiet_NaN()
                                                                  : std::numeric_limits<float>::infinity();

  attn::AttentionOptions fo = opt;
  fo.variant = attn::Variant::Chunked;
  const attn::AttentionForwardLse fwd = attn::attention_forward_lse(q.view(), k.view(), v.view(), fo);
  const auto backward = [&](attn::Variant variant) {
    attn::AttentionOptions o = opt;
    o.variant = variant;
    return attn::attention_backward(q.view(), k.view(), v.view(), fwd.out.view(), fwd.lse, d_out.view(), o);
  };
  if (plant) {
    for (attn::Variant variant : {attn::Variant::Chunked, attn::Variant::Materialized}) {
      const auto code = error_of([&] { backward(variant); });
      CHECK(code && *code == attn::ErrorCode::NonFinite);
    }
    return;
  }
  const attn::AttentionGradients ref = backward(attn::Variant::Reference);

  // The size of what each gradient entry sums, in double: with P the weights,
  // a_ij = P_ij · Σ_c |d_out_ic| (|v_jc| + max|v|) bounds |dS_ij| and the float error of
  // dP_ij and of D_i (whose out carries the forward's own error, at most about max|v|·2e-5).
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
  const double v_max = max_abs(v);
  std::vector<double> a(L * S, 0.0), mag_v(S * d_v, 0.0), mag_q(L * d_k, 0.0), mag_k(S * d_k, 0.0);
  std::vector<bool> row_sees(L, false);
  for (std::size_t i = 0; i < L; ++i) {
    std::vector<double> s(S, -INFINITY);
    double top = -INFINITY;
    for (std::size_t j = 0; j < S; ++j) {
      if (!sees(opt, i, j)) continue;
      double dot = 0.0;
      for (std::size_t t = 0; t < d_k; ++t) dot += static_cast<double>(q.at(i, t)) * k.at(j, t);
      s[j] = scale * dot;
      top = std::max(top, s[j]);
      row_sees[i] = true;
    }
    if (!row_sees[i]) continue;
    double sum = 0.0;
    for (std::size_t j = 0; j < S; ++j) sum += std::exp(s[j] - top);
    for (std::size_t j = 0; j < S; ++j) {
      const double p = std::exp(s[j] - top) / sum;
      double terms = 0.0;
      for (std::size_t c = 0; c < d_v; ++c) {
        terms += std::fabs(d_out.at(i, c)) * (std::fabs(v.at(j, c)) + v_max);
        mag_v[j * d_v + c] += p * std::fabs(d_out.at(i, c));
      }
      a[i * S + j] = p * terms;
    }
  }
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < S; ++j)
      for (std::size_t t = 0; t < d_k; ++t) {
        mag_q[i * d_k + t] += scale * a[i * S + j] * std::fabs(k.at(j, t));
        mag_k[j * d_k + t] += scale * a[i * S + j] * std::fabs(q.at(i, t));
      }
  // float rounding over at most 72 terms and the fast exp (6e-6) well inside 2e-4. The dot
  // products of these sixteenths are exact in float32 (at most 12 terms of |x| <= 64 on a grid
  // of 1/256: 18 bits), so a logit carries only the scale's rounding, e relative to its size,
  // which moves each weight by about 2e relative
  const double e = 0x1p-23 * scale * static_cast<double>(d_k) * max_abs(q) * max_abs(k);
  const double coeff = 2e-4 + 16.0 * e;
  const auto close = [coeff](const attn::Matrix& got, const attn::Matrix& want, const std::vector<double>& mag) {
    CHECK(got.rows == want.rows && got.cols == want.cols);
    for (std::size_t x = 0; x < got.data.size(); ++x) {
      CHECK(std::isfinite(got.data[x]));
      CHECK(std::fabs(static_cast<double>(got.data[x]) - want.data[x]) <= coeff * mag[x] + 1e-30);
    }
  };
  for (attn::Variant variant : {attn::Variant::Chunked, attn::Variant::Materialized}) {
    const attn::AttentionGradients g = backward(variant);
    close(g.dq, ref.dq, mag_q);
    close(g.dk, ref.dk, mag_k);
    close(g.dv, ref.dv, mag_v);
    for (std::size_t i = 0; i < L; ++i)
      if (!row_sees[i])
        for (std::size_t t = 0; t < d_k; ++t) CHECK(g.dq.at(i, t) == 0.0f);
  }
}

// Entry 7: the character model (train.hpp), on tiny models whose shape the fuzzer picks
// (vocabulary 1..24, context 1..12, 1..3 layers, 1..4 heads of width 1..6, grouped-query
// KV heads, any seed) and batches of 1..3 sequences of 1..context characters. A size of 0 or
// a width that the heads do not divide is refused with a typed error; a character past the
// vocabulary with BadArgument and the weights unchanged. Otherwise:
//   - loss() is finite and >= 0; gradients() returns the same loss and finite gradients;
//   - forward() gives rows of probabilities summing to 1 and causal attention rows summing
//     to 1, and -mean log p[target] of its first sequence equals loss() of that sequence;
//   - train_step() returns loss() before the update and leaves finite weights, step() = 1.
void fuzz_char_model(Reader& r) {
  attn::CharModelConfig c;
  const std::uint8_t shape = r.u8();
  c.vocab = r.u8() % 25;                 // 0: ZeroDimension
  c.context = r.u8() % 12 + 1;
  c.layers = r.u8() % 4;                 // 0: ZeroDimension
  c.heads = r.u8() % 4 + 1;
  const std::size_t head_width = r.u8() % 6 + 1;
  const std::size_t groups[] = {1, 2, 4};
  c.kv_heads = c.heads;
  for (std::size_t g : groups)
    if ((shape & 3) && c.heads % g == 0 && g <= c.heads) c.kv_heads = c.heads / g;
  c.width = c.heads * head_width + ((shape & 4) && c.heads > 1 ? 1 : 0);   // +1: not divisible
  c.seed = r.u32();
  const bool bad_config = c.vocab == 0 || c.layers == 0 || c.width % c.heads != 0;
  std::optional<attn::CharModel> model;
  const auto made = error_of([&] { model.emplace(c); });
  if (bad_config) {
    CHECK(made == attn::ErrorCode::ZeroDimension || made == attn::ErrorCode::BadArgument);
    return;
  }
  CHECK(!made);
  const std::size_t batch = r.u8() % 3 + 1, T = r.u8() % c.context + 1;
  std::vector<std::uint32_t> inputs(batch * T), targets(batch * T);
  for (auto& x : inputs) x = r.u8() % c.vocab;
  for (auto& x : targets) x = r.u8() % c.vocab;

  if (shape & 8) {   // one character past the vocabulary: refused, nothing changes
    std::vector<std::uint32_t> bad = inputs;
    bad[r.u8() % bad.size()] = static_cast<std::uint32_t>(c.vocab + r.u8());
    const std::vector<float> before = model->parameters();
    CHECK(error_of([&] { model->train_step(bad, targets, batch); }) == attn::ErrorCode::BadArgument);
    CHECK(model->parameters() == before && model->step() == 0);
  }

  const double loss = model->loss(inputs, targets, batch);
  CHECK(std::isfinite(loss) && loss >= 0);
  std::vector<float> grads;
  const double loss_g = model->gradients(inputs, targets, batch, grads);
  CHECK(std::fabs(loss_g - loss) <= 1e-5 * (1 + loss));
  CHECK(grads.size() == model->parameters().size());
  for (float g : grads) CHECK(std::isfinite(g));

  const std::vector<std::uint32_t> first(inputs.begin(), inputs.begin() + T);
  const attn::CharModelForward f = model->forward(first);
  CHECK(f.probs.rows == T && f.probs.cols == c.vocab);
  double nll = 0;
  for (std::size_t t = 0; t < T; ++t) {
    double sum = 0;
    for (std::size_t v = 0; v < c.vocab; ++v) {
      const float p = f.probs.at(t, v);
      CHECK(std::isfinite(p) && p >= 0 && p <= 1);
      sum += p;
    }
    CHECK(std::fabs(sum - 1.0) <= 1e-4);
    nll -= std::log(std::max(static_cast<double>(f.probs.at(t, targets[t])), 1e-38));
  }
  const std::vector<std::uint32_t> first_targets(targets.begin(), targets.begin() + T);
  const double loss_1 = model->loss(first, first_targets, 1);
  CHECK(std::fabs(nll / static_cast<double>(T) - loss_1) <= 1e-3 * (1 + loss_1));
  CHECK(f.attention.size() == c.layers);
  for (const auto& layer : f.attention) {
    CHECK(layer.size() == c.heads);
    for (const attn::Matrix& a : layer)
      for (std::size_t i = 0; i < T; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < T; ++j) {
          const float w = a.at(i, j);
          CHECK(std::isfinite(w) && w >= 0 && (j <= i || w == 0.0f));
          sum += w;
        }
        CHECK(std::fabs(sum - 1.0) <= 1e-4);
      }
  }

  const double stepped = model->train_step(inputs, targets, batch);
  CHECK(std::fabs(stepped - loss) <= 1e-5 * (1 + loss));
  CHECK(model->step() == 1);
  for (float w : model->parameters()) CHECK(std::isfinite(w));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader r(data, size);
  try {
    const std::uint8_t op = r.u8();
    if (op == 6) {  // the attention backward: bounded inputs, so no refusal but a planted NaN/inf
      fuzz_backward(r);
      return 0;
    }
    if (op == 7) {  // the character model: typed refusals are checked inside
      fuzz_char_model(r);
      return 0;
    }
    if (op == 5) {  // load_checkpoint: typed refusals are expected here
      try {
        fuzz_checkpoint(r, data, size);
      } catch (const attn::Error&) {
      }
      return 0;
    }
    switch (op % 5) {  // seeds written before entry 4 start with 0..3: unchanged; 5 and 6 are the checkpoint and backward entries
      case 0: fuzz_attention(r); break;
      case 1: fuzz_softmax_row(r); break;
      case 2: fuzz_experiment(r); break;
      case 3: fuzz_memory_model(r); break;
      case 4: fuzz_heads(r); break;
    }
  } catch (const attn::Error& e) {
    std::fprintf(stderr, "fuzz_engine: unexpected attn::Error %s: %s\n", attn::error_code_name(e.code()), e.what());
    __builtin_trap();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_engine: unexpected exception: %s\n", e.what());
    __builtin_trap();
  }
  return 0;
}
