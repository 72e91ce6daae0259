// attn::KvCache (engine.hpp): K and V rows of one sequence per KV head,
// prefill and decode steps.
//
// The windowed cache is a ring buffer: appended row t of a head lives in
// slot t mod w, so once it has wrapped, the storage is not in time order.
// That is harmless for a decode step: the new query row sees EVERY cached
// row, and softmax attention is a sum over keys, Σ_j exp(q·k_j)·v_j /
// Σ_j exp(q·k_j), whose value does not depend on the order of the terms
// (only float rounding does, within the tests' tolerance) as long as each
// key stays paired with its own value row: K and V of row t always go to
// the same slot. So the kernel reads slots 0..length-1 in storage order.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <new>
#include <string>
#include <utility>

#include "decode.hpp"
#include "checks.hpp"
#include "scratch.hpp"

namespace attn {
namespace {

const char* kCache = "KvCache";

// Head h's rows of a head-major matrix with `rows` rows per head.
const float* head_data(MatrixView m, std::size_t head, std::size_t rows) {
  return m.data + head * rows * m.cols;
}

// attention()'s bound (detail::fast_path_safe in problem.cpp), restated for
// a decode step: scale·q, every partial sum of q·k, every logit and
// Σ exp(x − m)·v stay below FLT_MAX/4 in float32.
bool decode_fast_path_safe(float scale, float max_q, float max_k, float max_v, std::size_t d_k,
                           std::size_t S) {
  const double limit = static_cast<double>(FLT_MAX) / 4.0;
  const double s = scale, dot = static_cast<double>(d_k) * max_q * max_k;
  return s * max_q <= limit && dot <= limit && s * dot <= limit &&
         static_cast<double>(S) * max_v <= limit;
}

}  // namespace

KvCache::KvCache(std::size_t heads_kv, std::size_t d_k, std::size_t d_v, std::size_t window)
    : heads_kv_(heads_kv), d_k_(d_k), d_v_(d_v), window_(window) {
  if (heads_kv == 0 || d_k == 0 || d_v == 0)
    detail::fail(ErrorCode::ZeroDimension,
                 std::string(kCache) + ": " + std::to_string(heads_kv) + " key/value heads, d_k = " +
                     std::to_string(d_k) + ", d_v = " + std::to_string(d_v) +
                     "; each must be at least 1");
  // two (empty) vectors per head, before a row is stored: a huge heads_kv
  // is refused here, not by the allocator
  const double bookkeeping = 2.0 * static_cast<double>(heads_kv) * sizeof(AlignedFloatVector);
  detail::require_budget(bookkeeping, kCache, "the per-head storage of " + std::to_string(heads_kv) +
                                                  " key/value heads");
  try {
    k_.resize(heads_kv);
    v_.resize(heads_kv);
  } catch (const std::exception&) {  // bad_alloc, or length_error past vector's max_size
    detail::fail(ErrorCode::TooLarge, std::string(kCache) + ": out of memory for the per-head storage of " +
                                          std::to_string(heads_kv) + " key/value heads");
  }
}

std::size_t KvCache::length() const {
  return window_ != 0 ? std::min(appended_, window_) : appended_;
}

std::size_t KvCache::bytes() const { return capacity_ * heads_kv_ * (d_k_ + d_v_) * sizeof(float); }

namespace {
void require_head(std::size_t head, std::size_t heads_kv, const char* fn) {
  if (head >= heads_kv)
    detail::fail(ErrorCode::BadArgument, std::string(fn) + ": head " + std::to_string(head) +
                                             " of a cache with " + std::to_string(heads_kv) +
                                             " key/value heads (0 to " + std::to_string(heads_kv - 1) + ")");
}
}  // namespace

MatrixView KvCache::k(std::size_t head) const {
  require_head(head, heads_kv_, "KvCache::k");
  return {k_[head].data(), length(), d_k_};
}
MatrixView KvCache::v(std::size_t head) const {
  require_head(head, heads_kv_, "KvCache::v");
  return {v_[head].data(), length(), d_v_};
}

void KvCache::reserve_rows(std::size_t rows, const char* fn) {
  if (rows <= capacity_) return;
  // bytes per row of all heads, and the most rows the budget allows, in double
  const double row_bytes = 4.0 * static_cast<double>(heads_kv_) * static_cast<double>(d_k_ + d_v_);
  const double budget_rows = std::floor(static_cast<double>(memory_budget()) / row_bytes);
  detail::require_budget(row_bytes * static_cast<double>(rows), fn,
                         "a key/value cache of " + std::to_string(rows) + " rows for " +
                             std::to_string(heads_kv_) + " heads (d_k=" + std::to_string(d_k_) +
                             ", d_v=" + std::to_string(d_v_) + ")");
  // amortised growth: double, but never past the window or the budget
  double target = std::max(static_cast<double>(rows), 2.0 * static_cast<double>(capacity_));
  target = std::min(target, budget_rows);
  if (window_ != 0) target = std::min(target, static_cast<double>(window_));
  const std::size_t cap = std::max(rows, static_cast<std::size_t>(target));
  try {
    std::vector<AlignedFloatVector> k(heads_kv_), v(heads_kv_);
    const std::size_t used = length();  // before any wrap: slots 0..used-1 in time order
    for (std::size_t h = 0; h < heads_kv_; ++h) {
      k[h].resize(cap * d_k_);
      v[h].resize(cap * d_v_);
      std::copy(k_[h].begin(), k_[h].begin() + used * d_k_, k[h].begin());
      std::copy(v_[h].begin(), v_[h].begin() + used * d_v_, v[h].begin());
    }
    k_.swap(k);
    v_.swap(v);
    capacity_ = cap;
  } catch (const std::bad_alloc&) {
    detail::fail(ErrorCode::TooLarge, std::string(fn) + ": out of memory while growing the cache to " +
                                          detail::bytes_text(row_bytes * static_cast<double>(cap)));
  }
}

void KvCache::append(MatrixView k, MatrixView v, std::size_t n) {
  // with a window only the last w of the n rows survive; the others are skipped
  const std::size_t first = window_ != 0 && n > window_ ? n - window_ : 0;
  for (std::size_t h = 0; h < heads_kv_; ++h) {
    const float* kh = head_data(k, h, n);
    const float* vh = head_data(v, h, n);
    for (std::size_t t = first; t < n; ++t) {
      const std::size_t row = appended_ + t;
      const std::size_t slot = window_ != 0 ? row % window_ : row;
      std::copy(kh + t * d_k_, kh + (t + 1) * d_k_, k_[h].begin() + slot * d_k_);
      std::copy(vh + t * d_v_, vh + (t + 1) * d_v_, v_[h].begin() + slot * d_v_);
    }
  }
  appended_ += n;
}

namespace {

// Shapes of k (H_kv·n, d_k) and v (H_kv·n, d_v) for a cache; returns n and,
// when values is set, the largest |entry| of each (NonFinite otherwise).
// Shapes are checked before values, so a wrong shape always reads ShapeMismatch.
struct Rows {
  std::size_t n;
  float max_k = 0, max_v = 0;
};
Rows check_rows(const KvCache& c, MatrixView k, MatrixView v, const char* fn, std::size_t per_head,
                bool values = true) {
  using namespace detail;
  require_matrix(k, fn, "k");
  require_matrix(v, fn, "v");
  const std::string shapes = " (k is " + shape(k) + ", v is " + shape(v) + "; the cache has " +
                             std::to_string(c.heads_kv()) + " key/value heads, d_k=" +
                             std::to_string(c.d_k()) + ", d_v=" + std::to_string(c.d_v()) + ")";
  if (k.cols != c.d_k() || v.cols != c.d_v())
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k must have d_k columns and v d_v" + shapes);
  if (k.rows != v.rows)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k has " + std::to_string(k.rows) +
                                       " rows but v has " + std::to_string(v.rows) +
                                       "; one value row per key row" + shapes);
  if (per_head != 0 ? k.rows != per_head * c.heads_kv() : k.rows % c.heads_kv() != 0)
    fail(ErrorCode::ShapeMismatch,
         std::string(fn) + ": k has " + std::to_string(k.rows) + " rows; it must be " +
             (per_head != 0 ? std::to_string(per_head) + " per key/value head"
                            : std::string("the same number for each key/value head")) +
             ", head after head" + shapes);
  Rows r;
  r.n = k.rows / c.heads_kv();
  if (!values) return r;
  r.max_k = require_finite(k, fn, "k");
  r.max_v = require_finite(v, fn, "v");
  return r;
}

}  // namespace

void KvCache::prefill(MatrixView k, MatrixView v) {
  const char* fn = "KvCache::prefill";
  const Rows r = check_rows(*this, k, v, fn, 0);
  const std::size_t after = window_ != 0 ? std::min(appended_ + r.n, window_) : appended_ + r.n;
  if (window_ == 0 && appended_ + r.n < appended_)
    detail::fail(ErrorCode::TooLarge, std::string(fn) + ": too many rows");
  reserve_rows(after, fn);
  append(k, v, r.n);
  max_abs_k_ = std::max(max_abs_k_, r.max_k);
  max_abs_v_ = std::max(max_abs_v_, r.max_v);
}

MultiheadResult KvCache::prefill_attention(MatrixView q, MatrixView k, MatrixView v,
                                           std::size_t heads_q, const AttentionOptions& opt) {
  using namespace detail;
  const char* fn = "KvCache::prefill_attention";
  if (appended_ != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": the cache already holds " +
                                     std::to_string(appended_) +
                                     " rows per head; a prompt's attention is computed on an empty cache");
  if (opt.mask != nullptr)
    fail(ErrorCode::BadArgument, std::string(fn) + ": a mask is not available here; the prompt "
                                                   "attends causally (and within the window)");
  if (opt.window != 0 && opt.window != window_)
    fail(ErrorCode::BadArgument,
         std::string(fn) + ": window " + std::to_string(opt.window) + " differs from the cache's " +
             (window_ != 0 ? "window of " + std::to_string(window_) + " rows" : std::string("(none)")) +
             "; decode steps see what the cache keeps, so the prompt uses the cache's window");
  require_matrix(q, fn, "q");
  // shapes against the cache's heads and d, before any work; values (finite)
  // are checked by multihead_attention and prefill, after every shape rule
  const std::size_t n = check_rows(*this, k, v, fn, 0, /*values=*/false).n;
  // one query per prompt row and head: q (heads_q·n, d_k); without this check
  // multihead_attention would take q.rows / heads_q rows per head, whatever n is
  if (heads_q != 0 && static_cast<double>(q.rows) != static_cast<double>(heads_q) * static_cast<double>(n))
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q has " + std::to_string(q.rows) + " rows for " +
                                       std::to_string(heads_q) + " query heads, but k and v have " +
                                       std::to_string(n) + " rows per head; q must be H_q·n rows, one " +
                                       "query per prompt row, head after head");
  AttentionOptions o = opt;  // everything else passes through whole
  o.causal = true;
  // the window rule itself (row i sees keys i-w+1 .. i): no n×n mask, and
  // the chunked kernel skips the tiles it hides; w >= n hides nothing
  o.window = window_;
  MultiheadResult result = multihead_attention(q, k, v, HeadCounts{heads_q, heads_kv_}, o);
  prefill(k, v);
  return result;
}

AttentionResult KvCache::decode_step(MatrixView q, MatrixView k_new, MatrixView v_new,
                                     const AttentionOptions& opt) {
  using namespace detail;
  const char* fn = "KvCache::decode_step";
  if (opt.mask != nullptr)
    fail(ErrorCode::BadArgument, std::string(fn) + ": a mask is not available for a decode step; "
                                                   "the new row sees every cached row");
  if (opt.return_weights)
    fail(ErrorCode::BadArgument, std::string(fn) + ": return_weights is not available for a decode step");
  require_variant(opt.variant, fn);
  require_matrix(q, fn, "q");
  if (q.cols != d_k_)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q has " + std::to_string(q.cols) +
                                       " columns but the cache's keys have d_k = " +
                                       std::to_string(d_k_));
  if (q.rows % heads_kv_ != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": q has " + std::to_string(q.rows) +
                                     " rows (one per query head), not a multiple of the cache's " +
                                     std::to_string(heads_kv_) + " key/value heads");
  const Rows r = check_rows(*this, k_new, v_new, fn, 1);
  const float max_q = require_finite(q, fn, "q");
  const float scale = resolve_scale(opt.scale, d_k_, fn);

  const std::size_t H_q = q.rows, G = H_q / heads_kv_;
  const std::size_t S = window_ != 0 ? std::min(appended_ + 1, window_) : appended_ + 1;
  const float max_k = std::max(max_abs_k_, r.max_k), max_v = std::max(max_abs_v_, r.max_v);
  const bool fast = opt.variant != Variant::Reference &&
                    decode_fast_path_safe(scale, max_q, max_k, max_v, d_k_, S);
  // scratch of the kernel, or of attention()'s reference (per group), and the output
  const double scratch = fast ? f32_bytes(decode_scratch_floats(G, S, d_k_))
                              : 8.0 * (2.0 * S + d_v_) + f32_bytes(static_cast<double>(G) * d_v_);
  require_budget(scratch + f32_bytes(static_cast<double>(H_q) * d_v_), fn,
                 "a decode step of " + std::to_string(H_q) + " query heads over " +
                     std::to_string(S) + " cached rows");
  if (appended_ + 1 < appended_) fail(ErrorCode::TooLarge, std::string(fn) + ": too many rows");

  AttentionResult out;
  AlignedFloats work(nullptr, AlignedDelete{0});
  try {
    out.out = Matrix(H_q, d_v_);
    if (fast) work = aligned_floats(static_cast<std::size_t>(decode_scratch_floats(G, S, d_k_)));
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::TooLarge, std::string(fn) + ": out of memory for the output");
  }
  reserve_rows(S, fn);  // TooLarge before allocating; the last check that can throw
  append(k_new, v_new, 1);
  max_abs_k_ = max_k;
  max_abs_v_ = max_v;

  for (std::size_t g = 0; g < heads_kv_; ++g) {
    const MatrixView q_g{q.data + g * G * d_k_, G, d_k_};
    float* out_g = out.out.data.data() + g * G * d_v_;
    if (fast) {
      decode_rows(q_g.data, G, k_[g].data(), v_[g].data(), S, d_k_, d_v_, scale, work.get(), out_g);
    } else {
      // the double reference over the cached rows (order does not matter, see top)
      AttentionOptions o;
      o.scale = scale;
      o.variant = Variant::Reference;
      const AttentionResult one = attention(q_g, k(g), v(g), o);
      std::copy(one.out.data.begin(), one.out.data.end(), out_g);
      out.scratch_bytes = std::max(out.scratch_bytes, one.scratch_bytes);
    }
  }
  if (fast) out.scratch_bytes = static_cast<std::size_t>(f32_bytes(decode_scratch_floats(G, S, d_k_)));
  return out;
}

}  // namespace attn
