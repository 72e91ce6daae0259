// The layers of a small transformer, forward and backward, after llm.c's
// train_gpt2.c: linear (matrix product with bias), LayerNorm, GELU (tanh
// approximation), token + learned position embedding, softmax cross-entropy.
// Each is one template instantiated for double (plain loops: the reference
// the tests differentiate numerically) and float (the same loops, with the
// SIMD dot and axpy where a row is long). Shapes are in train.hpp; backward
// kernels accumulate into their gradients. No batching beyond N rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "attn/train.hpp"
#include "checks.hpp"
#include "fast_exp.hpp"
#include "gemm_tile.hpp"
#include "simd_blocks.hpp"

namespace attn {
namespace {

template <class T>
T dot(const T* a, const T* b, std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    return simd::dot(a, b, n);
  } else {
    T sum = 0;
    for (std::size_t t = 0; t < n; ++t) sum += a[t] * b[t];
    return sum;
  }
}

// y += alpha·x
template <class T>
void axpy(T* y, T alpha, const T* x, std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    simd::axpy(y, alpha, x, n);
  } else {
    for (std::size_t t = 0; t < n; ++t) y[t] += alpha * x[t];
  }
}

// Below this many rows (the decoder's single token) the dot/axpy loops are used:
// transposing W for the product would cost as much as the product.
constexpr std::size_t kGemmRows = 8;

// C (M×N, row stride ldc) = A·B, or C += A·B when `accumulate`, with
// A[m][k] = a[m·a_m + k·a_k] (a row-major matrix or the transpose of one) and
// B row-major (K×N, stride ldb): gemm_tile.hpp's micro-kernel, the one the
// attention kernels use, in blocks of 256 rows (its row_scale of ones is
// what accumulates).
void product(float* c, std::size_t ldc, const float* a, std::size_t a_m, std::size_t a_k, const float* b,
             std::size_t ldb, std::size_t M, std::size_t N, std::size_t K, bool accumulate) {
  constexpr std::size_t rows = 256;
  static const std::vector<float> ones(rows, 1.0f);
  for (std::size_t m0 = 0; m0 < M; m0 += rows) {
    simd::gemm::Args g;
    g.K = K;
    g.a = a + m0 * a_m;
    g.a_m = a_m;
    g.a_k = a_k;
    g.b = b;
    g.ldb = ldb;
    g.c = c + m0 * ldc;
    g.ldc = ldc;
    g.row_scale = accumulate ? ones.data() : nullptr;
    simd::gemm::gemm_block(g, std::min(rows, M - m0), N);
  }
}

}  // namespace

// out: (N, C_out)  x: (N, C_in)  w: (C_out, C_in)  b: (C_out) or null
template <class T>
void linear_forward(T* out, const T* x, const T* w, const T* b, std::size_t N, std::size_t C_in,
                    std::size_t C_out) {
  if constexpr (std::is_same_v<T, float>) {
    if (N >= kGemmRows) {  // a batch: the register-blocked product, W transposed once
      std::vector<float> wt(C_in * C_out);
      for (std::size_t o = 0; o < C_out; ++o)
        for (std::size_t i = 0; i < C_in; ++i) wt[i * C_out + o] = w[o * C_in + i];
      product(out, C_out, x, C_in, 1, wt.data(), C_out, N, C_out, C_in, false);
      if (b)
        for (std::size_t n = 0; n < N; ++n) axpy(out + n * C_out, 1.0f, b, C_out);
      return;
    }
  }
  for (std::size_t n = 0; n < N; ++n) {
    const T* x_n = x + n * C_in;
    for (std::size_t o = 0; o < C_out; ++o)
      out[n * C_out + o] = (b ? b[o] : T(0)) + dot(x_n, w + o * C_in, C_in);
  }
}

// dx += d_out·W,  dw += d_outᵀ·x,  db += Σ_n d_out
template <class T>
void linear_backward(T* dx, T* dw, T* db, const T* d_out, const T* x, const T* w, std::size_t N,
                     std::size_t C_in, std::size_t C_out) {
  if constexpr (std::is_same_v<T, float>) {
    if (N >= kGemmRows) {
      if (dx) product(dx, C_in, d_out, C_out, 1, w, C_in, N, C_in, C_out, true);  // dx += d_out·W
      product(dw, C_in, d_out, 1, C_out, x, C_in, C_out, C_in, N, true);          // dw += d_outᵀ·x
      if (db)
        for (std::size_t n = 0; n < N; ++n) axpy(db, 1.0f, d_out + n * C_out, C_out);
      return;
    }
  }
  for (std::size_t n = 0; n < N; ++n) {
    const T* d_out_n = d_out + n * C_out;
    const T* x_n = x + n * C_in;
    for (std::size_t o = 0; o < C_out; ++o) {
      const T g = d_out_n[o];
      if (dx) axpy(dx + n * C_in, g, w + o * C_in, C_in);
      axpy(dw + o * C_in, g, x_n, C_in);
      if (db) db[o] += g;
    }
  }
}

// out, x: (N, C)  mean, rstd: (N)  w, b: (C)
template <class T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, std::size_t N,
                       std::size_t C) {
  const double eps = 1e-5;
  for (std::size_t n = 0; n < N; ++n) {
    const T* x_n = x + n * C;
    double m = 0.0;  // double sums in both instantiations: the float path's
    for (std::size_t c = 0; c < C; ++c) m += x_n[c];  // mean and variance are exact enough
    m /= static_cast<double>(C);
    double var = 0.0;
    for (std::size_t c = 0; c < C; ++c) var += (x_n[c] - m) * (x_n[c] - m);
    var /= static_cast<double>(C);
    const double s = 1.0 / std::sqrt(var + eps);
    for (std::size_t c = 0; c < C; ++c)
      out[n * C + c] = static_cast<T>((x_n[c] - m) * s) * w[c] + b[c];
    mean[n] = static_cast<T>(m);
    rstd[n] = static_cast<T>(s);
  }
}

// With x̂ = (x − mean)·rstd and g = d_out∘w:
//   dx += rstd·(g − mean(g) − x̂·mean(g∘x̂)),  dw += d_out∘x̂,  db += d_out
template <class T>
void layernorm_backward(T* dx, T* dw, T* db, const T* d_out, const T* x, const T* w, const T* mean,
                        const T* rstd, std::size_t N, std::size_t C) {
  for (std::size_t n = 0; n < N; ++n) {
    const T* x_n = x + n * C;
    const T* d_n = d_out + n * C;
    double g_mean = 0.0, gx_mean = 0.0;
    for (std::size_t c = 0; c < C; ++c) {
      const double xh = (x_n[c] - mean[n]) * rstd[n];
      const double g = static_cast<double>(d_n[c]) * w[c];
      g_mean += g;
      gx_mean += g * xh;
    }
    g_mean /= static_cast<double>(C);
    gx_mean /= static_cast<double>(C);
    for (std::size_t c = 0; c < C; ++c) {
      const double xh = (x_n[c] - mean[n]) * rstd[n];
      const double g = static_cast<double>(d_n[c]) * w[c];
      dx[n * C + c] += static_cast<T>(rstd[n] * (g - g_mean - xh * gx_mean));
      dw[c] += static_cast<T>(d_n[c] * xh);
      db[c] += d_n[c];
    }
  }
}

namespace {
constexpr double gelu_k = 0.7978845608028654;  // √(2/π)
constexpr double gelu_c = 0.044715;
}  // namespace

// out, x: (n)
// tanh(u) for a float batch: (1 − e)/(1 + e)·sign(u) with e = exp(−2|u|) ≤ 1 from
// the softmax's exp (fast_exp.hpp; its argument is ≤ 0 here, as there), so
// nothing overflows; the absolute error stays near float rounding (≈ 2e-7),
// which is what GELU's x/2·(1 + tanh) needs. The double path keeps std::tanh.
static inline simd::batch tanh_batch(simd::batch u) {
  const simd::batch e = simd::exp_softmax(simd::batch(-2.0f) * xsimd::abs(u));
  const simd::batch th = (simd::batch(1.0f) - e) / (simd::batch(1.0f) + e);
  return xsimd::select(u < simd::batch(0.0f), -th, th);
}

template <class T>
void gelu_forward(T* out, const T* x, std::size_t n) {
  std::size_t t0 = 0;
  if constexpr (std::is_same_v<T, float>) {  // one batch at a time, then the scalar loop
    const simd::batch k(static_cast<float>(gelu_k)), c(static_cast<float>(gelu_c)), half(0.5f), one(1.0f);
    for (; t0 + simd::width <= n; t0 += simd::width) {
      const simd::batch z = simd::batch::load_unaligned(x + t0);
      const simd::batch th = tanh_batch(k * (z + c * z * z * z));
      (half * z * (one + th)).store_unaligned(out + t0);
    }
  }
  for (std::size_t t = t0; t < n; ++t) {
    const double z = x[t];
    out[t] = static_cast<T>(0.5 * z * (1.0 + std::tanh(gelu_k * (z + gelu_c * z * z * z))));
  }
}

// dx += d_out·gelu'(x),  gelu'(x) = (1 + th)/2 + x/2·(1 − th²)·√(2/π)·(1 + 3·0.044715·x²)
template <class T>
void gelu_backward(T* dx, const T* x, const T* d_out, std::size_t n) {
  std::size_t t0 = 0;
  if constexpr (std::is_same_v<T, float>) {
    const simd::batch k(static_cast<float>(gelu_k)), c(static_cast<float>(gelu_c)), c3(static_cast<float>(3.0 * gelu_c));
    const simd::batch half(0.5f), one(1.0f);
    for (; t0 + simd::width <= n; t0 += simd::width) {
      const simd::batch z = simd::batch::load_unaligned(x + t0);
      const simd::batch th = tanh_batch(k * (z + c * z * z * z));
      const simd::batch grad = half * (one + th) + half * z * (one - th * th) * k * (one + c3 * z * z);
      (simd::batch::load_unaligned(dx + t0) + grad * simd::batch::load_unaligned(d_out + t0)).store_unaligned(dx + t0);
    }
  }
  for (std::size_t t = t0; t < n; ++t) {
    const double z = x[t];
    const double th = std::tanh(gelu_k * (z + gelu_c * z * z * z));
    const double grad =
        0.5 * (1.0 + th) + 0.5 * z * (1.0 - th * th) * gelu_k * (1.0 + 3.0 * gelu_c * z * z);
    dx[t] += static_cast<T>(grad * d_out[t]);
  }
}

// out: (B·T, C)  tokens: (B·T)  wte: (V, C)  wpe: (T, C)
template <class T>
void embedding_forward(T* out, const std::uint32_t* tokens, const T* wte, const T* wpe,
                       std::size_t B, std::size_t T_len, std::size_t C, std::size_t V) {
  for (std::size_t n = 0; n < B * T_len; ++n)
    if (tokens[n] >= V)
      detail::fail(ErrorCode::BadArgument, "embedding: token " + std::to_string(tokens[n]) +
                                               " at position " + std::to_string(n) +
                                               " is not below the vocabulary size " + std::to_string(V));
  for (std::size_t n = 0; n < B * T_len; ++n) {
    const T* e = wte + static_cast<std::size_t>(tokens[n]) * C;
    const T* p = wpe + (n % T_len) * C;
    for (std::size_t c = 0; c < C; ++c) out[n * C + c] = e[c] + p[c];
  }
}

template <class T>
void embedding_backward(T* dwte, T* dwpe, const T* d_out, const std::uint32_t* tokens,
                        std::size_t B, std::size_t T_len, std::size_t C) {
  for (std::size_t n = 0; n < B * T_len; ++n) {
    axpy(dwte + static_cast<std::size_t>(tokens[n]) * C, T(1), d_out + n * C, C);
    axpy(dwpe + (n % T_len) * C, T(1), d_out + n * C, C);
  }
}

// d_logits, probs, logits: (N, V)  targets: (N)
template <class T>
double cross_entropy(T* d_logits, T* probs, const T* logits, const std::uint32_t* targets,
                     std::size_t N, std::size_t V) {
  const char* fn = "cross_entropy";
  if (N == 0 || V == 0)
    detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": N and V must be at least 1");
  for (std::size_t n = 0; n < N; ++n) {
    if (targets[n] >= V)
      detail::fail(ErrorCode::BadArgument, std::string(fn) + ": target " +
                                               std::to_string(targets[n]) + " of row " +
                                               std::to_string(n) + " is not below V = " +
                                               std::to_string(V));
    for (std::size_t c = 0; c < V; ++c)
      if (!std::isfinite(logits[n * V + c]))
        detail::fail(ErrorCode::NonFinite, std::string(fn) + ": logit (" + std::to_string(n) +
                                               ", " + std::to_string(c) + ") is " +
                                               detail::num(logits[n * V + c]));
  }
  double loss = 0.0;
  for (std::size_t n = 0; n < N; ++n) {
    const T* z = logits + n * V;
    double m = z[0];
    for (std::size_t c = 1; c < V; ++c) m = std::fmax(m, static_cast<double>(z[c]));
    double l = 0.0;
    for (std::size_t c = 0; c < V; ++c) l += std::exp(z[c] - m);
    // the loss from the log-sum-exp, not from log(p): p can round to 0
    loss += m + std::log(l) - static_cast<double>(z[targets[n]]);
    for (std::size_t c = 0; c < V; ++c) {
      const double p = std::exp(z[c] - m) / l;
      if (probs) probs[n * V + c] = static_cast<T>(p);
      if (d_logits)
        d_logits[n * V + c] += static_cast<T>((p - (c == targets[n] ? 1.0 : 0.0)) / static_cast<double>(N));
    }
  }
  return loss / static_cast<double>(N);
}

#define ATTN_LAYERS_FOR(T)                                                                        \
  template void linear_forward<T>(T*, const T*, const T*, const T*, std::size_t, std::size_t,     \
                                  std::size_t);                                                   \
  template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t,         \
                                   std::size_t, std::size_t);                                     \
  template void layernorm_forward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t,       \
                                     std::size_t);                                                \
  template void layernorm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*,         \
                                      const T*, std::size_t, std::size_t);                        \
  template void gelu_forward<T>(T*, const T*, std::size_t);                                       \
  template void gelu_backward<T>(T*, const T*, const T*, std::size_t);                            \
  template void embedding_forward<T>(T*, const std::uint32_t*, const T*, const T*, std::size_t,   \
                                     std::size_t, std::size_t, std::size_t);                      \
  template void embedding_backward<T>(T*, T*, const T*, const std::uint32_t*, std::size_t,        \
                                      std::size_t, std::size_t);                                  \
  template double cross_entropy<T>(T*, T*, const T*, const std::uint32_t*, std::size_t, std::size_t);

ATTN_LAYERS_FOR(float)
ATTN_LAYERS_FOR(double)
#undef ATTN_LAYERS_FOR

}  // namespace attn
