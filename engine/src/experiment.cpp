// The seeded experiment behind the lesson's "why divide by sqrt(d_k)" chart:
// for each seed, Q and K (n, d_k) ~ N(0, 1), softmax(Q·Kᵀ·s) with s = 1/sqrt(d_k)
// or 1, and how peaked the rows are. No V: only the weights matter here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "checks.hpp"
#include "simd_blocks.hpp"
#include "stats.hpp"

namespace attn {
namespace {

// q, k: (n, d_k); one seed's row of the table
ExperimentRow run_seed(std::uint64_t seed, std::size_t n, std::size_t d_k, bool scale,
                       std::vector<float>& w_i) {
  NormalRng rng(seed);
  const Matrix q = random_normal(rng, n, d_k);  // Q first, then K
  const Matrix k = random_normal(rng, n, d_k);
  const float s = scale ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_k))) : 1.0f;

  ExperimentRow row;
  row.seed = seed;
  double sum_sq = 0.0, sum_sq_seen = 0.0, sum_entropy = 0.0, sum_jacobian = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* q_i = q.data.data() + i * d_k;
    // pass 1: logits of row i, unscaled and as softmax sees them
    for (std::size_t j = 0; j < n; ++j) {
      const float logit = simd::dot(q_i, k.data.data() + j * d_k, d_k);
      sum_sq += static_cast<double>(logit) * logit;
      w_i[j] = s * logit;
      sum_sq_seen += static_cast<double>(w_i[j]) * w_i[j];
    }
    // pass 2: softmax with the max subtracted
    const float m = simd::max(w_i.data(), n);
    const float l = simd::exp_sum(w_i.data(), n, m);
    if (!std::isfinite(m) || !std::isfinite(l)) detail::fail_logit_overflow("experiment", i);
    simd::scale(w_i.data(), 1.0f / l, n);
    // pass 3: statistics of the row
    row.max_weight = std::max(row.max_weight, static_cast<double>(simd::max(w_i.data(), n)));
    sum_entropy += detail::row_entropy(w_i.data(), n);
    sum_jacobian += detail::jacobian_norm(w_i.data(), n);
  }
  const double pairs = static_cast<double>(n) * static_cast<double>(n);
  row.mean_entropy = sum_entropy / static_cast<double>(n);
  // n = 1: the single weight is 1, both uniform and one-hot; report share 1
  row.entropy_share = n > 1 ? row.mean_entropy / std::log(static_cast<double>(n)) : 1.0;
  row.mean_sq_logit = sum_sq / pairs;
  row.rms_logit = std::sqrt(sum_sq_seen / pairs);
  row.jacobian_norm = sum_jacobian / static_cast<double>(n);
  return row;
}

}  // namespace

ExperimentResult experiment(std::size_t n, std::size_t d_k, const std::vector<std::uint64_t>& seeds,
                            bool scale) {
  const char* fn = "experiment";
  if (n == 0 || d_k == 0)
    detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": n is " + std::to_string(n) +
                                               " and d_k is " + std::to_string(d_k) +
                                               "; both must be at least 1");
  if (seeds.empty()) detail::fail(ErrorCode::BadArgument, std::string(fn) + ": no seeds given");
  const double nd = static_cast<double>(n), dk = static_cast<double>(d_k);
  // Q, K (n, d_k), one weights row (n), the per-seed table
  detail::require_budget(detail::f32_bytes(2.0 * nd * dk + nd) +
                             static_cast<double>(seeds.size()) * sizeof(ExperimentRow),
                         fn, "an experiment with n=" + std::to_string(n) + ", d_k=" +
                                 std::to_string(d_k));

  ExperimentResult r;
  std::vector<float> w_i(n);
  for (std::uint64_t seed : seeds) r.per_seed.push_back(run_seed(seed, n, d_k, scale, w_i));

  const double count = static_cast<double>(seeds.size());
  for (const ExperimentRow& row : r.per_seed) {
    r.mean.max_weight += row.max_weight / count;
    r.mean.mean_entropy += row.mean_entropy / count;
    r.mean.entropy_share += row.entropy_share / count;
    r.mean.mean_sq_logit += row.mean_sq_logit / count;
    r.mean.rms_logit += row.rms_logit / count;
    r.mean.jacobian_norm += row.jacobian_norm / count;
  }
  r.uniform_entropy = std::log(nd);
  return r;
}

}  // namespace attn
