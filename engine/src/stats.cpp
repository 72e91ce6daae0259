// Statistics the lesson plots: row entropy and max weight of a weights
// matrix, mean squared logits of Q·Kᵀ, and the Frobenius norm of the softmax
// Jacobian. Scalar loops in double; they do not compute attention themselves.
#include <cmath>

#include "checks.hpp"
#include "stats.hpp"

namespace attn {
namespace detail {

double row_entropy(const float* p, std::size_t n) {
  double h = 0.0;
  for (std::size_t j = 0; j < n; ++j)
    if (p[j] > 0.0f) h -= static_cast<double>(p[j]) * std::log(static_cast<double>(p[j]));
  return h;
}

// ||J||_F² with J = diag(p) - p pᵀ splits into the diagonal Σ_i (p_i(1 - p_i))²
// and the off-diagonal Σ_i p_i² Σ_{j≠i} p_j². The inner sum for the largest p_i
// is summed directly: T - p_max² would cancel for a nearly one-hot row.
double jacobian_norm(const float* p, std::size_t n) {
  std::size_t top = 0;
  for (std::size_t j = 1; j < n; ++j)
    if (p[j] > p[top]) top = j;
  double total_sq = 0.0, others_sq = 0.0;  // Σ p_j², Σ_{j≠top} p_j²
  for (std::size_t j = 0; j < n; ++j) {
    const double pj = p[j];
    total_sq += pj * pj;
    if (j != top) others_sq += pj * pj;
  }
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double pi = p[i];
    const double diag = pi * (1.0 - pi);
    const double rest = i == top ? others_sq : total_sq - pi * pi;
    sum += diag * diag + pi * pi * rest;
  }
  return std::sqrt(sum);
}

}  // namespace detail

// weights: (L, S)  entropy, max_weight: (L)
RowStats row_stats(MatrixView weights) {
  const char* fn = "row_stats";
  detail::require_matrix(weights, fn, "weights");
  detail::require_finite(weights, fn, "weights");
  detail::require_budget(detail::f32_bytes(2.0 * static_cast<double>(weights.rows)), fn,
                         "statistics of " + std::to_string(weights.rows) + " rows");
  RowStats r;
  r.entropy.resize(weights.rows);
  r.max_weight.resize(weights.rows);
  for (std::size_t i = 0; i < weights.rows; ++i) {
    const float* w_i = weights.data + i * weights.cols;
    float top = w_i[0];
    for (std::size_t j = 1; j < weights.cols; ++j) top = w_i[j] > top ? w_i[j] : top;
    r.entropy[i] = static_cast<float>(detail::row_entropy(w_i, weights.cols));
    r.max_weight[i] = top;
  }
  return r;
}

// q: (L, d_k)  k: (S, d_k)
LogitStats logit_stats(MatrixView q, MatrixView k, std::optional<float> scale) {
  const char* fn = "logit_stats";
  detail::require_matrix(q, fn, "q");
  detail::require_matrix(k, fn, "k");
  if (q.cols != k.cols)
    detail::fail(ErrorCode::ShapeMismatch,
                 std::string(fn) + ": q is " + detail::shape(q) + " and k is " + detail::shape(k) +
                     "; both must have d_k columns");
  const double s = detail::resolve_scale(scale, q.cols, fn);
  detail::require_finite(q, fn, "q");
  detail::require_finite(k, fn, "k");

  double sum_sq = 0.0;
  for (std::size_t i = 0; i < q.rows; ++i) {
    const float* q_i = q.data + i * q.cols;
    for (std::size_t j = 0; j < k.rows; ++j) {
      const float* k_j = k.data + j * k.cols;
      double dot = 0.0;
      for (std::size_t t = 0; t < q.cols; ++t) dot += static_cast<double>(q_i[t]) * k_j[t];
      sum_sq += dot * dot;
    }
  }
  LogitStats r;
  r.mean_sq_unscaled = sum_sq / (static_cast<double>(q.rows) * static_cast<double>(k.rows));
  r.rms_unscaled = std::sqrt(r.mean_sq_unscaled);
  r.mean_sq_scaled = r.mean_sq_unscaled * s * s;
  r.rms_scaled = std::sqrt(r.mean_sq_scaled);
  return r;
}

// p: (n)
double softmax_jacobian_norm(const float* p, std::size_t n) {
  const char* fn = "softmax_jacobian_norm";
  if (n == 0) detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": the row is empty");
  if (p == nullptr) detail::fail(ErrorCode::BadArgument, std::string(fn) + ": p is null");
  detail::require_finite({p, 1, n}, fn, "p");
  return detail::jacobian_norm(p, n);
}

}  // namespace attn
