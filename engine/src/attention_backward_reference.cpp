// The double reference of attention for training: the forward with the
// per-row log-sum-exp, and the backward from q, k, v alone (it recomputes
// the weights with an exact softmax and holds one row at a time). Plain
// loops, double throughout, no checks: the tests differentiate it
// numerically, and the float kernels are compared with it.
#include <cmath>
#include <limits>
#include <vector>

#include "attn/train.hpp"
#include "visibility.hpp"

namespace attn {
namespace {

// w: (S) = softmax of row i's visible scaled logits (0 where hidden); returns
// the row's log-sum-exp, -inf when it sees no key (w all zero).
double weights_row(double* w, const double* q_i, const double* k, std::size_t i, std::size_t S,
                   std::size_t d_k, const detail::Visibility& vis, double scale) {
  const double neg_inf = -std::numeric_limits<double>::infinity();
  double m = neg_inf;
  for (std::size_t j = 0; j < S; ++j) {
    w[j] = neg_inf;
    if (!vis.visible(i, j)) continue;
    double dot = 0.0;
    for (std::size_t t = 0; t < d_k; ++t) dot += q_i[t] * k[j * d_k + t];
    w[j] = scale * dot;
    if (w[j] > m) m = w[j];
  }
  if (m == neg_inf) {
    for (std::size_t j = 0; j < S; ++j) w[j] = 0.0;
    return neg_inf;
  }
  double l = 0.0;
  for (std::size_t j = 0; j < S; ++j) {
    w[j] = std::exp(w[j] - m);
    l += w[j];
  }
  for (std::size_t j = 0; j < S; ++j) w[j] /= l;
  return m + std::log(l);
}

}  // namespace

void reference_attention_forward(double* out, double* lse, const double* q, const double* k,
                                 const double* v, std::size_t L, std::size_t S, std::size_t d_k,
                                 std::size_t d_v, const AttentionOptions& rule, double scale) {
  const detail::Visibility vis = detail::visibility_of(rule, S);
  std::vector<double> w(S);
  for (std::size_t i = 0; i < L; ++i) {
    lse[i] = weights_row(w.data(), q + i * d_k, k, i, S, d_k, vis, scale);
    for (std::size_t c = 0; c < d_v; ++c) {
      double acc = 0.0;
      for (std::size_t j = 0; j < S; ++j) acc += w[j] * v[j * d_v + c];
      out[i * d_v + c] = acc;
    }
  }
}

void reference_attention_backward(double* dq, double* dk, double* dv, const double* d_out,
                                  const double* q, const double* k, const double* v, std::size_t L,
                                  std::size_t S, std::size_t d_k, std::size_t d_v,
                                  const AttentionOptions& rule, double scale) {
  const detail::Visibility vis = detail::visibility_of(rule, S);
  std::vector<double> w(S), dp(S);
  for (std::size_t i = 0; i < L; ++i) {
    const double* q_i = q + i * d_k;
    const double* d_out_i = d_out + i * d_v;
    weights_row(w.data(), q_i, k, i, S, d_k, vis, scale);
    // pass 1: dP_ij = d_out_i·v_j, and D_i = Σ_j P_ij·dP_ij (= d_out_i·out_i)
    double D = 0.0;
    for (std::size_t j = 0; j < S; ++j) {
      double dot = 0.0;
      for (std::size_t c = 0; c < d_v; ++c) dot += d_out_i[c] * v[j * d_v + c];
      dp[j] = dot;
      D += w[j] * dot;
    }
    // pass 2: dS_ij = P_ij·(dP_ij − D_i) through the softmax, then the three products
    for (std::size_t j = 0; j < S; ++j) {
      if (w[j] == 0.0) continue;
      const double ds = w[j] * (dp[j] - D);
      for (std::size_t c = 0; c < d_v; ++c) dv[j * d_v + c] += w[j] * d_out_i[c];
      for (std::size_t t = 0; t < d_k; ++t) {
        dq[i * d_k + t] += scale * ds * k[j * d_k + t];
        dk[j * d_k + t] += scale * ds * q_i[t];
      }
    }
  }
}

}  // namespace attn
