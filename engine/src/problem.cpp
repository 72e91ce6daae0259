// Validation of an attention request into a Problem (see problem.hpp):
// shapes agree, nothing is empty or null, the scale is usable and the inputs
// are finite. Runs before any allocation.
#include <cmath>
#include <limits>

#include "checks.hpp"
#include "problem.hpp"

namespace attn::detail {

Problem make_problem(MatrixView q, MatrixView k, MatrixView v, const AttentionOptions& opt,
                     const char* fn, bool check_kv_finite, float max_abs_k, float max_abs_v) {
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
  p.scale = resolve_scale(opt.scale, p.d_k, fn);
  p.vis = visibility_of(opt, p.S);
  p.max_abs_q = require_finite(q, fn, "q");
  if (check_kv_finite) {
    max_abs_k = require_finite(k, fn, "k");
    max_abs_v = require_finite(v, fn, "v");
  }
  p.max_abs_k = max_abs_k;
  p.max_abs_v = max_abs_v;
  return p;
}

bool fast_path_safe(const Problem& p) {
  // in double, where none of these products can overflow (each factor < 3.5e38
  // and d_k, S < 2^64: at most about 1e97)
  const double limit = static_cast<double>(std::numeric_limits<float>::max()) / 4.0;
  const double s = p.scale, q = p.max_abs_q, k = p.max_abs_k;
  const double d_k = static_cast<double>(p.d_k), S = static_cast<double>(p.S);
  const double dot = d_k * q * k;  // bounds every partial sum of q·k, the trace's unscaled dot
  return s * q <= limit &&         // the packed panel scale·q
         dot <= limit && s * dot <= limit &&  // the kernels' (scale·q)·k and the logits
         S * static_cast<double>(p.max_abs_v) <= limit;  // Σ exp(x − m)·v, each weight ≤ 1
}

void require_float_logit(double logit, const char* fn, std::size_t i, std::size_t j) {
  if (std::fabs(logit) <= static_cast<double>(std::numeric_limits<float>::max())) return;
  fail(ErrorCode::NonFinite, std::string(fn) + ": the logit of query row " + std::to_string(i) +
                                 " and key " + std::to_string(j) + " is " + num(logit) +
                                 ", beyond float32's range (about 3.4e38); the inputs are too "
                                 "large (the 'reference' variant computes in double)");
}

}  // namespace attn::detail
