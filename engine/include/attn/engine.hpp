// Public C++ API of the attention engine: scaled dot-product attention
// (materialized, chunked with online softmax, scalar reference), the lesson's
// statistics, seeded experiments and the memory-cost model.
// Shape letters, used everywhere in engine/:
//   L queries, S keys, d_k query/key width, d_v value width.
//   q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  scores, weights: (L, S)  out: (L, d_v)
// All matrices are row-major float32. Multiple heads (head-major) and the KV
// cache have their own section below (query heads sharing one K/V can also be
// stacked into one call with AttentionOptions::query_period); no training, no batching.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

// ---------------------------------------------------------------- errors
enum class ErrorCode {
  ShapeMismatch,  // e.g. q.cols != k.cols, v.rows != k.rows, mask not L×S
  ZeroDimension,  // a dimension is 0
  NonFinite,      // NaN or ±inf in an input matrix or option
  TooLarge,       // the request would need more memory than the budget
  BadArgument,    // scale <= 0, block size 0, unknown variant, ...
  Count           // not a code: how many there are. Each table of the codes (error_code_name,
                  // the pages' err.engine.<code> texts, checked by a node test) asserts this
                  // count, so a new code cannot be forgotten in one of them.
};

// Thrown by every entry point before anything large is allocated.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }
 private:
  ErrorCode code_;
};

const char* error_code_name(ErrorCode code);  // "ShapeMismatch", ...; "Unknown" for Count

// ---------------------------------------------------------------- matrices
// Non-owning view of a row-major matrix.
struct MatrixView {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
};

// Allocates on 64-byte (cache-line) boundaries: a matrix whose rows are a
// multiple of 16 floats then has every row start on a cache line, so the
// kernels' full-width SIMD loads never straddle two lines (with AVX-512
// loads, unaligned rows cost the native kernel about 10%).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::size_t alignment = 64;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignment)));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(alignment)); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const noexcept { return false; }
};
using AlignedFloatVector = std::vector<float, CacheLineAllocator<float>>;

// Owning row-major matrix.
struct Matrix {
  AlignedFloatVector data;
  std::size_t rows = 0;
  std::size_t cols = 0;
  Matrix() = default;
  Matrix(std::size_t r, std::size_t c, float fill = 0.0f) : data(r * c, fill), rows(r), cols(c) {}
  float& at(std::size_t i, std::size_t j) { return data[i * cols + j]; }
  float at(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
  MatrixView view() const { return {data.data(), rows, cols}; }
};

// ---------------------------------------------------------------- memory budget
// Largest number of bytes one call may allocate for its own work (scores,
// weights, tiles, outputs). Defaults: 4 GiB minus what the wasm heap already
// uses under Emscripten (wasm32 cannot address more), 8 GiB natively.
std::size_t memory_budget();
void set_memory_budget(std::size_t bytes);  // 0 restores the default

// ---------------------------------------------------------------- attention
enum class Variant {
  Materialized,
  Chunked,
  Reference,
  Count  // not a variant: how many there are. Every table of the variants
         // (variant_name, the tests' kAllVariants) static_asserts this count,
         // so a new variant fails to compile until each table lists it.
};
// "materialized", "chunked", "reference" (the JavaScript API's names); null for
// anything else. engine.mjs takes its list of variants from this table.
const char* variant_name(Variant variant);

// Which keys query row i may see (the visibility rule), with
//   pos(i) = (query_period > 0 ? i mod query_period : i) + row_offset
// the query's position in the key sequence:
//   causal:            keys j <= pos(i)
//   window w > 0:      with causal, the last w keys up to and including pos(i):
//                      pos(i) - w < j <= pos(i) (Mistral / Gemma sliding windows);
//                      without causal, a symmetric band |pos(i) - j| < w
//                      (2w - 1 keys, as Longformer's local attention)
//   mask:              and mask[i·S + j] != 0
// Rows with no visible key give a zero output row and are listed in
// masked_rows. With neither causal nor a window, row_offset and query_period
// change nothing. query_period lets a caller stack the query heads of one
// grouped-query group (H blocks of P rows, one per head) against one shared
// K and V: every block gets the same positions. Any window size is valid
// (one of at least S + pos(i) keys hides nothing from row i).
// The engine reads the rule's fields in one place, detail::visibility_of
// (src/visibility.hpp), which also names every field of this struct: a field
// added here fails to compile there until it is sorted into the rule or out of it.
struct AttentionOptions {
  bool causal = false;             // PyTorch is_causal: query i sees keys j <= pos(i)
  std::optional<float> scale;      // nullopt: 1/sqrt(d_k). "No scaling" is scale = 1.
  Variant variant = Variant::Materialized;
  std::size_t block_q = 64;        // chunked only: query rows per tile (any positive size)
  std::size_t block_k = 64;        // chunked only: key rows per tile (any positive size)
  const std::uint8_t* mask = nullptr;  // optional L×S, 1 = visible, 0 = hidden
  bool return_weights = false;     // also return scores and weights (not with Chunked)
  // Positions are 64-bit in every build (wasm32 too), so the rule gives the
  // same answer natively and in WebAssembly; a position past 2^64 - 1 counts
  // as 2^64 - 1.
  std::uint64_t row_offset = 0;    // position of q's first row, for causal and window rules,
                                   // when a caller splits Q into slices (progress bars) or
                                   // its queries are the last L of S positions
  std::uint64_t window = 0;        // sliding window in keys (see above); 0 = none
  std::uint64_t query_period = 0;  // 0 = off; else row i has position (i mod query_period) + row_offset
};

struct AttentionResult {
  Matrix out;                      // (L, d_v)
  Matrix scores;                   // (L, S) scaled logits, hidden entries = -inf; empty unless return_weights
  Matrix weights;                  // (L, S); empty unless return_weights
  std::size_t scratch_bytes = 0;   // bytes of working memory the kernel used (excluding inputs and out)
  std::vector<std::uint32_t> masked_rows;  // rows with no visible key: out row = 0, weights row = 0
  // Chunked only: (query block, key tile) pairs the kernel scored. Tiles the
  // causal rule or window hides from a whole block are skipped, so with a
  // window w this grows as L·w / (block_q·block_k), not L·S.
  std::size_t tiles_scored = 0;
};

// The fast variants work in float32. Inputs whose float32 steps could
// overflow (scale·q, a partial sum of q·k, a logit or Σ exp(x − m)·v past
// FLT_MAX/4, bounded from the inputs' largest magnitudes) run the
// double-precision reference path instead, whatever the variant: its answer,
// or NonFinite when a logit itself is beyond float32's range. A key is never
// dropped and a row never zeroed because a float32 intermediate overflowed.
AttentionResult attention(MatrixView q, MatrixView k, MatrixView v, const AttentionOptions& opt);

// Keys and values checked once (non-empty, one value row per key, finite)
// and kept, for many attention calls on slices of the queries: the
// browser's worker pool gives each worker K and V once per job rather than
// copying and re-checking them for every task. Throws attn::Error.
class KeyValues {
 public:
  KeyValues(Matrix k, Matrix v);
  MatrixView k() const { return k_.view(); }
  MatrixView v() const { return v_.view(); }
  // Largest |entry| of k and of v, found by the same check (the kernels'
  // float32 overflow guard needs them on every call).
  float max_abs_k() const { return max_abs_k_; }
  float max_abs_v() const { return max_abs_v_; }

 private:
  Matrix k_, v_;
  float max_abs_k_ = 0, max_abs_v_ = 0;
};

// attention(q, kv.k(), kv.v(), opt) without checking k and v again.
AttentionResult attention(MatrixView q, const KeyValues& kv, const AttentionOptions& opt);

// ---------------------------------------------------------------- heads and the KV cache
// Multi-head, grouped-query and multi-query attention, built on attention()
// above (heads.cpp), and a KV cache with decode steps (kv_cache.cpp,
// decode.cpp). Layout is HEAD-MAJOR everywhere: a matrix holding H heads of
// R rows each keeps head h in rows [h·R, (h+1)·R).
//   q: (H_q·L, d_k)   k: (H_kv·S, d_k)   v: (H_kv·S, d_v)   out: (H_q·L, d_v)
// H_q must be a multiple of H_kv; G = H_q / H_kv query heads share one KV
// head, and query head h uses KV head h / G (H_kv = H_q: multi-head, MHA;
// H_kv = 1: multi-query, MQA; between: grouped-query, GQA).
struct HeadCounts {  // 64-bit so that kv_bytes_read counts the same in every build
  std::uint64_t q = 1;   // H_q, query heads
  std::uint64_t kv = 1;  // H_kv, key/value heads; divides q
};

struct MultiheadResult {
  Matrix out;                      // (H_q·L, d_v), head-major
  std::vector<Matrix> scores;      // H_q matrices (L, S); empty unless return_weights
  std::vector<Matrix> weights;     // H_q matrices (L, S); empty unless return_weights
  std::size_t scratch_bytes = 0;   // the largest scratch_bytes of one kernel call
  std::vector<std::vector<std::uint32_t>> masked_rows;  // per query head: rows (0..L-1) with no visible key
  // attention() calls made: one per KV group (its G query heads stacked
  // with query_period), so K and V of a group are read once; one per query
  // head when opt.mask is set or opt.query_period does not divide L.
  std::size_t kernel_calls = 0;
};

// attention() for every query head against its KV head's rows, which are
// read through views, never copied. opt applies to every head as it is
// (causal, window, row_offset, query_period, scale, variant, blocks);
// opt.mask, if set, is one L×S mask shared by all heads. The G query heads
// of a group run as ONE attention() call on their G·L contiguous rows with
// query_period = L (see heads.cpp for the exceptions).
// Errors: heads.q or heads.kv = 0 -> ZeroDimension; heads.q not a multiple
// of heads.kv -> BadArgument; q.rows not a multiple of H_q, k.rows not a
// multiple of H_kv, k.rows != v.rows, q.cols != k.cols -> ShapeMismatch;
// the output (and weights) past the budget -> TooLarge, before allocating;
// then whatever attention() throws for one head.
MultiheadResult multihead_attention(MatrixView q, MatrixView k, MatrixView v, HeadCounts heads,
                                    const AttentionOptions& opt);

// K/V bytes one decode step (KvCache::decode_step) reads for S cached rows:
// each KV head's K and V rows are streamed ONCE for all G query heads of
// its group, so this is H_kv·S·(d_k + d_v)·4, whatever H_q is. Grouped-query
// attention with H_q / H_kv = 4 thus reads 4x fewer bytes than multi-head
// attention with the same H_q. multihead_attention reads a KV head's K/V
// once per group (one attention() call per group; see heads.cpp). Exact
// in every build (64-bit counts, a 128-bit product): ZeroDimension for a 0,
// BadArgument if heads.q is not a multiple of heads.kv, TooLarge past 2^53
// (beyond it a double, and a JavaScript Number, is no longer exact).
double kv_bytes_read(HeadCounts heads, std::uint64_t S, std::uint64_t d_k, std::uint64_t d_v);

// K and V rows of one sequence for H_kv heads, for generation: prefill()
// appends a prompt's rows, decode_step() appends one new row per KV head and
// attends one new query row per query head to every cached row.
// Without a window the cache grows (capacity doubles, as std::vector) up to
// the memory budget: the cache's whole K and V storage must fit
// memory_budget(), checked before allocating (TooLarge otherwise). With a
// window w > 0 it keeps only the last w rows per head (a ring buffer of w
// rows, allocated once, up to w rows as needed).
class KvCache {
 public:
  // heads_kv, d_k, d_v >= 1 (ZeroDimension otherwise); window 0 = keep everything.
  // The per-head bookkeeping (two vectors per head) must fit the memory
  // budget: TooLarge before allocating it otherwise.
  KvCache(std::size_t heads_kv, std::size_t d_k, std::size_t d_v, std::size_t window = 0);

  // Appends n rows per head: k (H_kv·n, d_k), v (H_kv·n, d_v), head-major.
  // Checks shapes and finiteness first; nothing changes when it throws.
  void prefill(MatrixView k, MatrixView v);

  // prefill(k, v) on an EMPTY cache, then causal attention of the prompt's
  // queries q (H_q·n, d_k) against it: multihead_attention(q, k, v, {H_q,
  // H_kv}, opt) with opt.causal = true (row i sees keys 0..i) and, with a
  // window w < n, each row restricted to its last w keys (opt.window = w:
  // no mask is built, and the chunked kernel skips tiles the window hides).
  // Other options pass through.
  // BadArgument if the cache is not empty or opt.mask is set; ShapeMismatch
  // unless q holds heads_q·n rows (n rows per head, as k and v).
  MultiheadResult prefill_attention(MatrixView q, MatrixView k, MatrixView v, std::size_t heads_q,
                                    const AttentionOptions& opt);

  // One generation step: appends k_new (H_kv, d_k) and v_new (H_kv, d_v),
  // one row per KV head, then attends q (H_q, d_k), one row per query head,
  // to every cached row of its KV head (the new one included). Returns
  // {out (H_q, d_v), scratch_bytes}. opt.scale as attention's; opt.variant
  // Reference computes in double (attention()'s reference), the others run
  // the SIMD decode kernel (decode.cpp), which reads each KV head's rows once
  // for its G query rows; inputs whose float32 steps could overflow (the
  // bound of attention()) take the double reference instead, which never
  // refuses. causal, row_offset and blocks do not apply (the new row sees
  // everything cached); opt.mask or return_weights -> BadArgument. q.rows =
  // H_q must be a multiple of H_kv (BadArgument). Everything is checked,
  // and the output allocated, before appending: when it throws, the cache
  // is unchanged.
  AttentionResult decode_step(MatrixView q, MatrixView k_new, MatrixView v_new,
                              const AttentionOptions& opt);

  std::size_t heads_kv() const { return heads_kv_; }
  std::size_t d_k() const { return d_k_; }
  std::size_t d_v() const { return d_v_; }
  std::size_t window() const { return window_; }
  std::size_t length() const;        // rows held per head: min(appended, window) (all without a window)
  std::size_t appended() const { return appended_; }  // rows appended per head since creation
  std::size_t bytes() const;         // bytes of K and V storage reserved (capacity)
  // Head h's cached rows, in storage order (a ring buffer: not time order
  // once a window has wrapped). (length(), d_k) and (length(), d_v).
  // BadArgument when head >= heads_kv().
  MatrixView k(std::size_t head) const;
  MatrixView v(std::size_t head) const;

 private:
  void reserve_rows(std::size_t rows, const char* fn);  // TooLarge before allocating
  void append(MatrixView k, MatrixView v, std::size_t n);  // n rows per head, already checked
  std::size_t heads_kv_, d_k_, d_v_, window_;
  std::size_t capacity_ = 0;  // rows per head allocated
  std::size_t appended_ = 0;
  std::vector<AlignedFloatVector> k_, v_;  // one per head: (capacity_, d_k), (capacity_, d_v)
  float max_abs_k_ = 0, max_abs_v_ = 0;    // largest |entry| ever appended (the overflow guard)
};

// Step-by-step trace of online softmax for ONE query row, for the lesson.
struct OnlineSoftmaxStep {
  std::size_t tile = 0;            // tile index
  std::size_t key_begin = 0;       // keys [key_begin, key_end) of this tile
  std::size_t key_end = 0;
  float tile_max = 0;              // max scaled logit inside the tile (-inf if all hidden)
  float m_old = 0, m_new = 0;      // running max before / after the tile
  float rescale = 0;               // exp(m_old - m_new); 0 on the first visible tile
  float l_old = 0, l_new = 0;      // running sum before / after the tile
  std::vector<float> acc;          // unnormalised output accumulator after the tile (d_v)
};
// Inputs near float32's limits (see attention) are traced in double and the
// steps hold float32 copies: acc, not normalised, may then read ±inf (values
// near FLT_MAX), while out is computed in double; a logit past float32 is
// refused with NonFinite.
struct OnlineSoftmaxTrace {
  std::vector<OnlineSoftmaxStep> steps;
  std::vector<float> out;          // acc / l at the end (d_v); zeros when fully masked
  std::vector<float> reference;    // the same row computed by the scalar reference
  float max_abs_diff = 0;          // max |out - reference|
};
// window as in AttentionOptions (0 = none); tiles wholly before the row's
// window are not traced.
OnlineSoftmaxTrace online_softmax_trace(MatrixView q, MatrixView k, MatrixView v, std::size_t row,
                                        std::size_t block_k, bool causal, std::optional<float> scale,
                                        std::size_t window = 0);

// Softmax of one row, with or without subtracting the row max first (the
// lesson shows the overflow the subtraction prevents). exps and weights in
// float32, their sum accumulated in double and rounded once, so rows of any
// length sum to 1. TooLarge when the weights pass the memory budget.
struct SoftmaxRowResult {
  std::vector<float> weights;
  bool overflowed = false;         // some exp() was inf or the result has NaN
};
SoftmaxRowResult softmax_row(const std::vector<float>& logits, bool subtract_max);

// ---------------------------------------------------------------- statistics
struct RowStats {
  std::vector<float> entropy;      // nats, per row (0 for a masked all-zero row)
  std::vector<float> max_weight;   // per row
};
RowStats row_stats(MatrixView weights);

struct LogitStats {
  double mean_sq_unscaled = 0;     // mean over all L×S pairs of (q·k)^2
  double rms_unscaled = 0;         // sqrt of the above
  double mean_sq_scaled = 0;       // same after multiplying by scale
  double rms_scaled = 0;
};
LogitStats logit_stats(MatrixView q, MatrixView k, std::optional<float> scale);

// Frobenius norm of the softmax Jacobian diag(p) - p pᵀ for one weights row;
// it goes to 0 as the row becomes one-hot (the vanishing gradient).
double softmax_jacobian_norm(const float* p, std::size_t n);

// ---------------------------------------------------------------- experiments
// Deterministic normal generator: SplitMix64 seeds xoshiro256**, Box–Muller
// in double, cast to float. The same stream natively and in WebAssembly.
class NormalRng {
 public:
  explicit NormalRng(std::uint64_t seed);
  std::uint64_t next_u64();
  double next_uniform();           // [0, 1) from the top 53 bits
  float next_normal();             // N(0, 1)
 private:
  std::uint64_t s_[4];
  bool has_spare_ = false;
  double spare_ = 0;
};

// Fills a rows×cols matrix with N(0,1) draws, row by row, from rng.
Matrix random_normal(NormalRng& rng, std::size_t rows, std::size_t cols);

struct ExperimentRow {
  std::uint64_t seed = 0;
  double max_weight = 0;           // largest weight anywhere in the n×n matrix
  double mean_entropy = 0;         // mean row entropy, nats
  double entropy_share = 0;        // mean_entropy / ln n
  double mean_sq_logit = 0;        // mean (q·k)^2, unscaled
  double rms_logit = 0;            // rms of the logits softmax actually saw (scaled if scale)
  double jacobian_norm = 0;        // mean over rows of softmax_jacobian_norm
};
struct ExperimentResult {
  std::vector<ExperimentRow> per_seed;
  ExperimentRow mean;              // field-wise mean over seeds (seed = 0)
  double uniform_entropy = 0;      // ln n
};
// For each seed: Q, K (n×d_k) drawn from NormalRng(seed), Q first, then K.
// scale=true divides logits by sqrt(d_k); false leaves them as they are.
ExperimentResult experiment(std::size_t n, std::size_t d_k, const std::vector<std::uint64_t>& seeds,
                            bool scale);

// ---------------------------------------------------------------- memory model
// Bytes of the score matrices: n*n*bytes_per_element*heads*layers*batch.
// Exact in double up to 2^53; throws BadArgument on 0 or non-integral input.
double score_matrix_bytes(double n, double bytes_per_element, double heads = 1, double layers = 1,
                          double batch = 1);

// Number of (query, key) pairs the rule of `rule` (causal, window,
// row_offset, query_period; nothing else of it is read) lets L queries
// see among S keys: the work of attention under that rule is proportional
// to it (about 2·(d_k + d_v) flops per pair), and a chunked call's to it
// plus the edges of its tiles. In closed form (O(1): a few runs of rows
// whose counts are arithmetic series), exact in 128-bit integers, the same
// in every build. TooLarge when the count is past 2^53 (beyond it a double,
// and a JavaScript Number, is no longer exact). ZeroDimension if L or S is
// 0, BadArgument if a mask is given (a mask's pairs depend on its contents).
double visible_pairs(std::uint64_t L, std::uint64_t S, const AttentionOptions& rule);

// ---------------------------------------------------------------- info
const char* simd_arch_name();      // xsimd's name for the architecture in use, e.g. "sse4.1", "avx2"
// float32 lanes per SIMD batch; the fast kernels pad query blocks to a multiple of it.
std::size_t simd_width();
const char* version();

}  // namespace attn
