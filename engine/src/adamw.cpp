// The optimizer side of a training step: AdamW with decoupled weight decay
// (Loshchilov & Hutter 2019), clipping by the global L2 norm of all
// gradients, and a linear warm-up followed by a half-cosine learning rate.
// Plain loops over flat float arrays; formulas in train.hpp.
#include <cmath>
#include <string>

#include "attn/train.hpp"
#include "checks.hpp"

namespace attn {

// params, m, v, grads: (n)
void adamw_step(float* params, float* m, float* v, const float* grads, std::size_t n, float lr,
                std::size_t t, const AdamWConfig& cfg) {
  const char* fn = "adamw_step";
  if (t == 0) detail::fail(ErrorCode::BadArgument, std::string(fn) + ": the step t starts at 1");
  if (!(lr >= 0.0f) || !std::isfinite(lr))
    detail::fail(ErrorCode::BadArgument, std::string(fn) + ": lr is " + detail::num(lr) +
                                             "; it must be finite and at least 0");
  // bias corrections in double: 1 − β^t for large t is not a float subtraction to trust
  const double c1 = 1.0 - std::pow(static_cast<double>(cfg.beta1), static_cast<double>(t));
  const double c2 = 1.0 - std::pow(static_cast<double>(cfg.beta2), static_cast<double>(t));
  const float b1 = cfg.beta1, b2 = cfg.beta2;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = b1 * m[i] + (1.0f - b1) * g;
    v[i] = b2 * v[i] + (1.0f - b2) * g * g;
    const double m_hat = m[i] / c1, v_hat = v[i] / c2;
    const double step = m_hat / (std::sqrt(v_hat) + cfg.eps) + cfg.weight_decay * static_cast<double>(params[i]);
    params[i] = static_cast<float>(params[i] - lr * step);
  }
}

// grads: (n)
double clip_grad_norm(float* grads, std::size_t n, double max_norm) {
  if (!(max_norm > 0.0) || !std::isfinite(max_norm))
    detail::fail(ErrorCode::BadArgument, "clip_grad_norm: max_norm is " + detail::num(max_norm) +
                                             "; it must be finite and greater than 0");
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(grads[i]) * grads[i];
  const double norm = std::sqrt(sum);
  if (norm > max_norm) {
    const float s = static_cast<float>(max_norm / norm);
    for (std::size_t i = 0; i < n; ++i) grads[i] *= s;
  }
  return norm;
}

double learning_rate(std::size_t step, std::size_t warmup, std::size_t total, double lr_max,
                     double lr_min) {
  if (step < warmup) return lr_max * static_cast<double>(step + 1) / static_cast<double>(warmup);
  double u = 1.0;
  if (total > warmup + 1)
    u = std::fmin(1.0, static_cast<double>(step - warmup) / static_cast<double>(total - 1 - warmup));
  const double pi = 3.14159265358979323846;
  return lr_min + (lr_max - lr_min) * 0.5 * (1.0 + std::cos(pi * u));
}

}  // namespace attn
