// Validation of an attention request into a Problem (see problem.hpp):
// shapes agree, nothing is empty or null, the scale is usable and the inputs
// are finite. Runs before any allocation.
#include "detail.hpp"
#include "problem.hpp"

namespace attn::detail {

Problem make_problem(MatrixView q, MatrixView k, MatrixView v, bool causal,
                     std::optional<float> scale, const std::uint8_t* mask, std::size_t row_offset,
                     const char* fn, bool check_kv_finite) {
  require_matrix(q, fn, "q");
  require_matrix(k, fn, "k");
  require_matrix(v, fn, "v");
  const std::string shapes =
      " (q is " + shape(q) + ", k is " + shape(k) + ", v is " + shape(v) + ")";
  if (q.cols != k.cols)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q has " + std::to_string(q.cols) +
                                       " columns but k has " + std::to_string(k.cols) +
                                       "; both must be d_k" + shapes);
  if (k.rows != v.rows)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k has " + std::to_string(k.rows) +
                                       " rows but v has " + std::to_string(v.rows) +
                                       "; both must be S, one per key" + shapes);
  Problem p;
  p.q = q;
  p.k = k;
  p.v = v;
  p.L = q.rows;
  p.S = k.rows;
  p.d_k = q.cols;
  p.d_v = v.cols;
  p.scale = resolve_scale(scale, p.d_k, fn);
  p.causal = causal;
  p.row_offset = row_offset;
  p.mask = mask;
  require_finite(q, fn, "q");
  if (check_kv_finite) {
    require_finite(k, fn, "k");
    require_finite(v, fn, "v");
  }
  return p;
}

}  // namespace attn::detail
