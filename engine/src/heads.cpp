// Multi-head, grouped-query and multi-query attention on top of attention():
// each KV group's query heads run as one call against a VIEW of its KV
// head's rows (head-major layout, see engine.hpp), so K and V of a shared
// head are never copied and are read once per group.
// Also the K/V byte count of a decode step, for the benchmark.
#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include "checks.hpp"

namespace attn {
namespace {

// Rows [head·rows, (head+1)·rows) of m.
MatrixView head_rows(MatrixView m, std::size_t head, std::size_t rows) {
  return {m.data + head * rows * m.cols, rows, m.cols};
}

void copy_rows(const Matrix& from, Matrix& to, std::size_t first_row) {
  std::copy(from.data.begin(), from.data.end(), to.data.begin() + first_row * to.cols);
}

}  // namespace

MultiheadResult multihead_attention(MatrixView q, MatrixView k, MatrixView v, HeadCounts heads,
                                    const AttentionOptions& opt) {
  using namespace detail;
  const char* fn = "multihead_attention";
  if (heads.q == 0 || heads.kv == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": " + std::to_string(heads.q) +
                                       " query heads and " + std::to_string(heads.kv) +
                                       " key/value heads; both must be at least 1");
  if (heads.q % heads.kv != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + std::to_string(heads.q) +
                                     " query heads is not a multiple of " +
                                     std::to_string(heads.kv) +
                                     " key/value heads; each key/value head serves the same "
                                     "number of query heads");
  require_matrix(q, fn, "q");
  require_matrix(k, fn, "k");
  require_matrix(v, fn, "v");
  const std::string shapes = " (q is " + shape(q) + ", k is " + shape(k) + ", v is " + shape(v) +
                             ", " + std::to_string(heads.q) + " query heads, " +
                             std::to_string(heads.kv) + " key/value heads)";
  if (q.rows % heads.q != 0)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q has " + std::to_string(q.rows) +
                                       " rows, not a multiple of the query heads; it must be H_q·L" +
                                       shapes);
  if (k.rows % heads.kv != 0)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k has " + std::to_string(k.rows) +
                                       " rows, not a multiple of the key/value heads; it must be "
                                       "H_kv·S" + shapes);
  if (k.rows != v.rows)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k has " + std::to_string(k.rows) +
                                       " rows but v has " + std::to_string(v.rows) +
                                       "; both must be H_kv·S" + shapes);
  if (q.cols != k.cols)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q has " + std::to_string(q.cols) +
                                       " columns but k has " + std::to_string(k.cols) +
                                       "; both must be d_k" + shapes);
  const std::size_t L = q.rows / heads.q, S = k.rows / heads.kv, G = heads.q / heads.kv;

  // One attention() call per KV group: its G query heads are the contiguous
  // rows [g·G·L, (g+1)·G·L) of q, and query_period = L gives row i the
  // position (i mod L) + row_offset, i.e. each head its own causal and window
  // rule, so K_g and V_g are read once per group, not G times. A caller's
  // own query_period P stacks too when P divides L ((i mod L) mod P = i mod P).
  // A shared L×S mask keeps one call per query head: stacking it would need a
  // G·L×S copy, G·L·S bytes, more than the (G−1)·S·(d_k+d_v)·4 bytes of K/V
  // it saves whenever L > 4·(d_k+d_v), i.e. for every prompt worth batching.
  const bool per_head =
      opt.mask != nullptr || (opt.query_period != 0 && L % opt.query_period != 0);
  const std::size_t rows_per_call = per_head ? L : G * L;
  AttentionOptions o = opt;
  if (!per_head && opt.query_period == 0) o.query_period = L;

  // Our own allocations: the output, the per-head weights and scores, and
  // one call's output while it is copied (attention() checks its own work;
  // a group's weights are copied out into per-head matrices).
  const double Hq = static_cast<double>(heads.q), Ld = static_cast<double>(L);
  const double Sd = static_cast<double>(S), dv = static_cast<double>(v.cols);
  const double weights = opt.return_weights ? 2.0 * Hq * Ld * Sd : 0.0;
  require_budget(f32_bytes(Hq * Ld * dv + weights + static_cast<double>(rows_per_call) * dv), fn,
                 std::to_string(heads.q) + " heads of attention with L=" + std::to_string(L) +
                     ", S=" + std::to_string(S) + ", d_v=" + std::to_string(v.cols));

  MultiheadResult r;
  try {
    r.out = Matrix(heads.q * L, v.cols);
    r.masked_rows.resize(heads.q);
    if (opt.return_weights) {
      r.scores.reserve(heads.q);
      r.weights.reserve(heads.q);
    }
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::TooLarge, std::string(fn) + ": out of memory for the output");
  }

  const std::size_t heads_per_call = rows_per_call / L, calls = heads.q / heads_per_call;
  for (std::size_t c = 0; c < calls; ++c) {
    const std::size_t g = c * heads_per_call / G;  // the KV group of the call's first head
    const MatrixView k_g = head_rows(k, g, S), v_g = head_rows(v, g, S);  // views: no copy
    AttentionResult one = attention(head_rows(q, c, rows_per_call), k_g, v_g, o);
    ++r.kernel_calls;
    copy_rows(one.out, r.out, c * rows_per_call);  // already head-major
    r.scratch_bytes = std::max(r.scratch_bytes, one.scratch_bytes);
    const std::size_t h0 = c * heads_per_call;
    for (std::uint32_t i : one.masked_rows)  // row i of the call is row i mod L of head h0 + i / L
      r.masked_rows[h0 + i / L].push_back(static_cast<std::uint32_t>(i % L));
    if (!opt.return_weights) continue;
    if (heads_per_call == 1) {
      r.scores.push_back(std::move(one.scores));
      r.weights.push_back(std::move(one.weights));
      continue;
    }
    try {
      for (std::size_t h = 0; h < heads_per_call; ++h) {  // (G·L, S) -> G blocks of (L, S)
        r.scores.push_back(Matrix(L, S));
        r.weights.push_back(Matrix(L, S));
        const std::size_t at = h * L * S;
        std::copy(one.scores.data.begin() + at, one.scores.data.begin() + at + L * S,
                  r.scores.back().data.begin());
        std::copy(one.weights.data.begin() + at, one.weights.data.begin() + at + L * S,
                  r.weights.back().data.begin());
      }
    } catch (const std::bad_alloc&) {
      fail(ErrorCode::TooLarge, std::string(fn) + ": out of memory for the heads' weights");
    }
  }
  return r;
}

double kv_bytes_read(HeadCounts heads, std::uint64_t S, std::uint64_t d_k, std::uint64_t d_v) {
  using namespace detail;
  const char* fn = "kv_bytes_read";
  if (heads.q == 0 || heads.kv == 0 || S == 0 || d_k == 0 || d_v == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": H_q=" + std::to_string(heads.q) + ", H_kv=" +
                                       std::to_string(heads.kv) + ", S=" + std::to_string(S) + ", d_k=" +
                                       std::to_string(d_k) + ", d_v=" + std::to_string(d_v) +
                                       "; each must be at least 1");
  if (heads.q % heads.kv != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + std::to_string(heads.q) +
                                     " query heads is not a multiple of " + std::to_string(heads.kv) +
                                     " key/value heads");
  // H_kv·S·(d_k + d_v)·4 in 128 bits, stopping as soon as it passes 2^53
  // (each factor is at least 1, so the product only grows)
  using u128 = unsigned __int128;
  constexpr u128 kExact = u128(1) << 53;
  u128 bytes = 4;
  for (const u128 factor : {u128(heads.kv), u128(S), u128(d_k) + d_v}) {
    bytes *= factor;  // < 2^55 · 2^65: no wrap
    if (bytes > kExact)
      fail(ErrorCode::TooLarge, std::string(fn) + ": " + std::to_string(heads.kv) + " key/value heads x " +
                                    std::to_string(S) + " rows x (" + std::to_string(d_k) + " + " +
                                    std::to_string(d_v) + ") x 4 bytes is past 2^53, what a double counts exactly");
  }
  return static_cast<double>(static_cast<std::uint64_t>(bytes));
}

}  // namespace attn
