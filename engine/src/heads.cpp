// Multi-head, grouped-query and multi-query attention on top of attention():
// every query head runs against a VIEW of its KV head's rows (head-major
// layout, see engine.hpp), so K and V of a shared head are never copied.
// Also the K/V byte count of a decode step, for the benchmark.
#include <algorithm>
#include <new>
#include <string>

#include "detail.hpp"

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

  // Our own allocations: the output, the per-head weights and scores, and
  // one head's result while it is copied (attention() checks its own work).
  const double Hq = static_cast<double>(heads.q), Ld = static_cast<double>(L);
  const double Sd = static_cast<double>(S), dv = static_cast<double>(v.cols);
  const double weights = opt.return_weights ? 2.0 * Hq * Ld * Sd : 0.0;
  require_budget(f32_bytes(Hq * Ld * dv + weights + Ld * dv), fn,
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

  for (std::size_t g = 0; g < heads.kv; ++g) {
    const MatrixView k_g = head_rows(k, g, S), v_g = head_rows(v, g, S);  // views: no copy
    // ---- THE SWITCH (once AttentionOptions has query_period) ----------------
    // Today: one attention() call per query head of the group, so K_g and V_g
    // are read G times. With query_period, the group's G query heads are the
    // contiguous rows [g·G·L, (g+1)·G·L) of q, and ONE call
    //     AttentionOptions o = opt; o.query_period = L;
    //     attention(head_rows(q, g, G·L), k_g, v_g, o)
    // gives row i the position (i mod L) + row_offset, i.e. each head its own
    // causal rule, and reads K_g, V_g once per group. Its out rows are
    // already in head-major order (copy at row g·G·L); its (G·L, S) weights
    // split into G blocks of L rows; masked row i belongs to head g·G + i / L
    // as row i mod L. (A shared mask would then need G·L rows.)
    for (std::size_t h = g * G; h < (g + 1) * G; ++h) {
      AttentionResult one = attention(head_rows(q, h, L), k_g, v_g, opt);
      copy_rows(one.out, r.out, h * L);
      r.scratch_bytes = std::max(r.scratch_bytes, one.scratch_bytes);
      r.masked_rows[h] = std::move(one.masked_rows);
      if (opt.return_weights) {
        r.scores.push_back(std::move(one.scores));
        r.weights.push_back(std::move(one.weights));
      }
    }
    // ---- end of the switch --------------------------------------------------
  }
  return r;
}

double kv_bytes_read(HeadCounts heads, std::size_t S, std::size_t d_k, std::size_t d_v) {
  return 4.0 * static_cast<double>(heads.kv) * static_cast<double>(S) *
         (static_cast<double>(d_k) + static_cast<double>(d_v));
}

}  // namespace attn
