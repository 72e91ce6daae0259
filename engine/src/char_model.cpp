// The tiny decoder-only character model of train.hpp: its parameter layout
// (one flat array, as llm.c), initialization, and one templated pass that
// runs the forward and, when asked, the backward over B sequences of T
// characters. Instantiated for float (attention by the chunked kernels:
// the forward keeps out and the log-sum-exp, the backward recomputes the
// weights) and for double (the reference attention), which the whole-model
// gradient check differentiates numerically. The update (clipping, AdamW,
// the schedule) is adamw.cpp's; sampling with the KV cache is char_sampling.cpp's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attn/train.hpp"
#include "char_model_layout.hpp"
#include "checks.hpp"

namespace attn {
namespace detail {

Layout make_layout(const CharModelConfig& c) {
  const char* fn = "CharModel";
  if (c.vocab == 0 || c.context == 0 || c.width == 0 || c.layers == 0 || c.heads == 0 || c.kv_heads == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": vocab, context, width, layers, heads and "
                                                     "kv_heads must all be at least 1");
  if (c.width % c.heads != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": width " + std::to_string(c.width) +
                                     " is not a multiple of " + std::to_string(c.heads) + " heads");
  if (c.heads % c.kv_heads != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + std::to_string(c.heads) +
                                     " heads is not a multiple of " + std::to_string(c.kv_heads) +
                                     " key/value heads");
  const double C = static_cast<double>(c.width);
  const double count = (static_cast<double>(c.vocab) + static_cast<double>(c.context) + 2.0) * C +
                       static_cast<double>(c.layers) * (13.0 * C * C + 10.0 * C);  // at most, Ckv ≤ C
  detail::require_budget(detail::f32_bytes(4.0 * count), fn,
                         "the weights, gradients and AdamW moments of the model");
  Layout lo;
  lo.V = c.vocab, lo.T = c.context, lo.C = c.width, lo.H = c.heads, lo.Hkv = c.kv_heads;
  lo.hd = c.width / c.heads, lo.Ckv = lo.hd * c.kv_heads, lo.F = 4 * c.width;
  lo.wte = lo.add(lo.V * lo.C, Init::Normal, lo.C);
  lo.wpe = lo.add(lo.T * lo.C, Init::Normal, lo.C);
  for (std::size_t l = 0; l < c.layers; ++l) {
    Block b;
    b.ln1w = lo.add(lo.C, Init::Ones, lo.C);
    b.ln1b = lo.add(lo.C, Init::Zeros, lo.C);
    b.wq = lo.add(lo.C * lo.C, Init::Normal, lo.C);
    b.bq = lo.add(lo.C, Init::Zeros, lo.C);
    b.wk = lo.add(lo.Ckv * lo.C, Init::Normal, lo.C);
    b.bk = lo.add(lo.Ckv, Init::Zeros, lo.Ckv);
    b.wv = lo.add(lo.Ckv * lo.C, Init::Normal, lo.C);
    b.bv = lo.add(lo.Ckv, Init::Zeros, lo.Ckv);
    b.wo = lo.add(lo.C * lo.C, Init::Residual, lo.C);
    b.bo = lo.add(lo.C, Init::Zeros, lo.C);
    b.ln2w = lo.add(lo.C, Init::Ones, lo.C);
    b.ln2b = lo.add(lo.C, Init::Zeros, lo.C);
    b.wfc = lo.add(lo.F * lo.C, Init::Normal, lo.C);
    b.bfc = lo.add(lo.F, Init::Zeros, lo.F);
    b.wproj = lo.add(lo.C * lo.F, Init::Residual, lo.F);
    b.bproj = lo.add(lo.C, Init::Zeros, lo.C);
    lo.blocks.push_back(b);
  }
  lo.lnfw = lo.add(lo.C, Init::Ones, lo.C);
  lo.lnfb = lo.add(lo.C, Init::Zeros, lo.C);
  return lo;
}

}  // namespace detail

namespace {

using detail::Block;
using detail::fail;
using detail::Init;
using detail::Layout;
using detail::make_layout;
using detail::Tensor;


// T = inputs.size() / batch after the checks train_step documents.
std::size_t check_batch(const CharModelConfig& c, const std::vector<std::uint32_t>& inputs,
                        const std::vector<std::uint32_t>* targets, std::size_t batch, const char* fn) {
  if (batch == 0 || inputs.empty())
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": the batch is empty");
  if (targets && targets->size() != inputs.size())
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": " + std::to_string(inputs.size()) +
                                       " inputs but " + std::to_string(targets->size()) + " targets");
  if (inputs.size() % batch != 0)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": " + std::to_string(inputs.size()) +
                                       " characters do not split into " + std::to_string(batch) +
                                       " sequences of equal length");
  const std::size_t T = inputs.size() / batch;
  if (T > c.context)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": sequences of " + std::to_string(T) +
                                       " characters are longer than the context of " +
                                       std::to_string(c.context));
  auto check = [&](const std::vector<std::uint32_t>& xs, const char* what) {
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (xs[i] >= c.vocab)
        fail(ErrorCode::BadArgument, std::string(fn) + ": " + what + " " + std::to_string(i) + " is " +
                                         std::to_string(xs[i]) + ", not below the vocabulary size " +
                                         std::to_string(c.vocab));
  };
  check(inputs, "input");
  if (targets) check(*targets, "target");
  return T;
}

// ------------------------------------------------ attention over the heads of one sequence
// qh: (H·T, hd)  kh, vh: (Hkv·T, hd)  oh: (H·T, hd)  lse: (H·T), head-major, causal
void heads_forward(float* oh, float* lse, const float* qh, const float* kh, const float* vh,
                   const Layout& lo, std::size_t T) {
  AttentionOptions opt;
  opt.causal = true;
  opt.variant = Variant::Chunked;
  const AttentionForwardLse r = multihead_forward_lse({qh, lo.H * T, lo.hd}, {kh, lo.Hkv * T, lo.hd},
                                                      {vh, lo.Hkv * T, lo.hd}, {lo.H, lo.Hkv}, opt);
  std::copy(r.out.data.begin(), r.out.data.end(), oh);
  std::copy(r.lse.begin(), r.lse.end(), lse);
}

void heads_forward(double* oh, double* lse, const double* qh, const double* kh, const double* vh,
                   const Layout& lo, std::size_t T) {
  AttentionOptions rule;
  rule.causal = true;
  const std::size_t G = lo.H / lo.Hkv, rows = T * lo.hd;
  for (std::size_t h = 0; h < lo.H; ++h)
    reference_attention_forward(oh + h * rows, lse + h * T, qh + h * rows, kh + h / G * rows,
                                vh + h / G * rows, T, T, lo.hd, lo.hd, rule,
                                1.0 / std::sqrt(static_cast<double>(lo.hd)));
}

// dqh, doh: (H·T, hd)  dkh, dvh: (Hkv·T, hd), overwritten
void heads_backward(float* dqh, float* dkh, float* dvh, const float* doh, const float* qh,
                    const float* kh, const float* vh, const float* oh, const float* lse,
                    const Layout& lo, std::size_t T) {
  AttentionOptions opt;
  opt.causal = true;
  opt.variant = Variant::Chunked;
  const std::vector<float> lse_v(lse, lse + lo.H * T);
  const AttentionGradients g = multihead_attention_backward(
      {qh, lo.H * T, lo.hd}, {kh, lo.Hkv * T, lo.hd}, {vh, lo.Hkv * T, lo.hd}, {oh, lo.H * T, lo.hd},
      lse_v, {doh, lo.H * T, lo.hd}, {lo.H, lo.Hkv}, opt);
  std::copy(g.dq.data.begin(), g.dq.data.end(), dqh);
  std::copy(g.dk.data.begin(), g.dk.data.end(), dkh);
  std::copy(g.dv.data.begin(), g.dv.data.end(), dvh);
}

void heads_backward(double* dqh, double* dkh, double* dvh, const double* doh, const double* qh,
                    const double* kh, const double* vh, const double*, const double*,
                    const Layout& lo, std::size_t T) {
  AttentionOptions rule;
  rule.causal = true;
  const std::size_t G = lo.H / lo.Hkv, rows = T * lo.hd;
  std::fill(dqh, dqh + lo.H * rows, 0.0);
  std::fill(dkh, dkh + lo.Hkv * rows, 0.0);
  std::fill(dvh, dvh + lo.Hkv * rows, 0.0);
  for (std::size_t h = 0; h < lo.H; ++h)
    reference_attention_backward(dqh + h * rows, dkh + h / G * rows, dvh + h / G * rows, doh + h * rows,
                                 qh + h * rows, kh + h / G * rows, vh + h / G * rows, T, T, lo.hd,
                                 lo.hd, rule, 1.0 / std::sqrt(static_cast<double>(lo.hd)));
}

// Token-major (B·T, heads·hd) <-> head-major per sequence (B blocks of heads·T rows of hd).
template <class R>
void to_heads(R* dst, const R* src, std::size_t B, std::size_t T, std::size_t heads, std::size_t hd) {
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t t = 0; t < T; ++t)
        std::copy(src + ((b * T + t) * heads + h) * hd, src + ((b * T + t) * heads + h + 1) * hd,
                  dst + ((b * heads + h) * T + t) * hd);
}
template <class R>
void from_heads(R* dst, const R* src, std::size_t B, std::size_t T, std::size_t heads, std::size_t hd) {
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t t = 0; t < T; ++t)
        std::copy(src + ((b * heads + h) * T + t) * hd, src + ((b * heads + h) * T + t + 1) * hd,
                  dst + ((b * T + t) * heads + h) * hd);
}

template <class R>
struct LayerActs {
  std::vector<R> ln1, mean1, rstd1, q, k, v, qh, kh, vh, oh, lse, att, x1, ln2, mean2, rstd2, h, g, x2;
};

// The backward's temporaries (run() sizes them on first use and clears the two
// it accumulates into; the others are overwritten before they are read).
template <class R>
struct BackActs {
  std::vector<R> d_logits, dx, dln, dg, dh, datt, doh, dq, dk, dv, dqh, dkh, dvh;
};

// Everything the backward reads, for B sequences of T tokens (N = B·T rows).
// Every forward buffer is overwritten before it is read, so one Acts can serve
// step after step (cached_acts): no allocation, zeroing or page faults per step.
template <class R>
struct Acts {
  std::vector<R> x0, lnf, meanf, rstdf, logits;
  std::vector<LayerActs<R>> layer;
  BackActs<R> back;
  std::vector<std::size_t> shape;  // what it was sized for (cached_acts)
  Acts(const Layout& lo, std::size_t layers, std::size_t N)
      : layer(layers), shape{lo.V, lo.C, lo.Ckv, lo.F, lo.H, layers, N} {
    const std::size_t C = lo.C, Ckv = lo.Ckv;
    x0.resize(N * C), lnf.resize(N * C), meanf.resize(N), rstdf.resize(N), logits.resize(N * lo.V);
    for (LayerActs<R>& a : layer) {
      for (auto* m : {&a.ln1, &a.q, &a.qh, &a.oh, &a.att, &a.x1, &a.ln2, &a.x2}) m->resize(N * C);
      for (auto* m : {&a.k, &a.v, &a.kh, &a.vh}) m->resize(N * Ckv);
      for (auto* m : {&a.mean1, &a.rstd1, &a.mean2, &a.rstd2}) m->resize(N);
      a.lse.resize(N * lo.H);
      a.h.resize(N * lo.F), a.g.resize(N * lo.F);
    }
  }
};

// Bytes Acts and the backward's temporaries take, in double (budget check before allocating).
double pass_bytes(const Layout& lo, std::size_t layers, double N, double element) {
  const double C = lo.C, Ckv = lo.Ckv, F = lo.F, V = lo.V, H = lo.H;
  const double per_layer = 9 * C + 4 * Ckv + H + 4 + 2 * F;
  return element * N * (3 * C + 2 + 2 * V + layers * per_layer + 2 * F + 6 * C + 2 * Ckv);
}

// Forward over tokens (B·T), then, when targets is set, the mean
// cross-entropy, and when grads is set too, its gradient added to grads.
// With probs set (N, V) the next-token probabilities are written there.
template <class R>
double run(const Layout& lo, const R* P, R* grads, const std::uint32_t* tokens,
           const std::uint32_t* targets, std::size_t B, std::size_t T, Acts<R>& a, R* probs) {
  const std::size_t N = B * T, C = lo.C, Ckv = lo.Ckv, F = lo.F, V = lo.V;
  const std::size_t layers = lo.blocks.size();
  embedding_forward(a.x0.data(), tokens, P + lo.wte, P + lo.wpe, B, T, C, V);
  for (std::size_t l = 0; l < layers; ++l) {
    const Block& w = lo.blocks[l];
    LayerActs<R>& A = a.layer[l];
    const R* x = l == 0 ? a.x0.data() : a.layer[l - 1].x2.data();
    // attention sublayer: x1 = x + Wo·attention(LN1(x)) + bo
    layernorm_forward(A.ln1.data(), A.mean1.data(), A.rstd1.data(), x, P + w.ln1w, P + w.ln1b, N, C);
    linear_forward(A.q.data(), A.ln1.data(), P + w.wq, P + w.bq, N, C, C);
    linear_forward(A.k.data(), A.ln1.data(), P + w.wk, P + w.bk, N, C, Ckv);
    linear_forward(A.v.data(), A.ln1.data(), P + w.wv, P + w.bv, N, C, Ckv);
    to_heads(A.qh.data(), A.q.data(), B, T, lo.H, lo.hd);
    to_heads(A.kh.data(), A.k.data(), B, T, lo.Hkv, lo.hd);
    to_heads(A.vh.data(), A.v.data(), B, T, lo.Hkv, lo.hd);
    for (std::size_t b = 0; b < B; ++b)
      heads_forward(A.oh.data() + b * T * C, A.lse.data() + b * lo.H * T, A.qh.data() + b * T * C,
                    A.kh.data() + b * T * Ckv, A.vh.data() + b * T * Ckv, lo, T);
    from_heads(A.att.data(), A.oh.data(), B, T, lo.H, lo.hd);
    linear_forward(A.x1.data(), A.att.data(), P + w.wo, P + w.bo, N, C, C);
    for (std::size_t t = 0; t < N * C; ++t) A.x1[t] += x[t];
    // MLP sublayer: x2 = x1 + W2·gelu(W1·LN2(x1) + b1) + b2
    layernorm_forward(A.ln2.data(), A.mean2.data(), A.rstd2.data(), A.x1.data(), P + w.ln2w, P + w.ln2b, N, C);
    linear_forward(A.h.data(), A.ln2.data(), P + w.wfc, P + w.bfc, N, C, F);
    gelu_forward(A.g.data(), A.h.data(), N * F);
    linear_forward(A.x2.data(), A.g.data(), P + w.wproj, P + w.bproj, N, F, C);
    for (std::size_t t = 0; t < N * C; ++t) A.x2[t] += A.x1[t];
  }
  const R* x_last = a.layer[layers - 1].x2.data();
  layernorm_forward(a.lnf.data(), a.meanf.data(), a.rstdf.data(), x_last, P + lo.lnfw, P + lo.lnfb, N, C);
  linear_forward(a.logits.data(), a.lnf.data(), P + lo.wte, static_cast<const R*>(nullptr), N, C, V);
  if (!targets) {  // probabilities only
    for (std::size_t n = 0; n < N; ++n) {
      const R* z = a.logits.data() + n * V;
      const double m = *std::max_element(z, z + V);
      double l = 0.0;
      for (std::size_t c = 0; c < V; ++c) l += std::exp(z[c] - m);
      for (std::size_t c = 0; c < V; ++c) probs[n * V + c] = static_cast<R>(std::exp(z[c] - m) / l);
    }
    return 0.0;
  }
  BackActs<R>& bk = a.back;
  std::vector<R>& d_logits = bk.d_logits;
  if (grads) d_logits.assign(N * V, R(0));  // cross_entropy adds into it
  const double loss = cross_entropy(grads ? d_logits.data() : nullptr, probs, a.logits.data(), targets, N, V);
  if (!grads) return loss;

  // backward, in reverse; dx is the gradient of the residual stream
  R* G = grads;
  bk.dx.assign(N * C, R(0));
  for (auto* m : {&bk.dln, &bk.datt, &bk.doh, &bk.dq, &bk.dqh}) m->resize(N * C);
  for (auto* m : {&bk.dg, &bk.dh}) m->resize(N * F);
  for (auto* m : {&bk.dk, &bk.dv, &bk.dkh, &bk.dvh}) m->resize(N * Ckv);
  std::vector<R>&dx = bk.dx, &dln = bk.dln, &dg = bk.dg, &dh = bk.dh, &datt = bk.datt, &doh = bk.doh;
  std::vector<R>&dq = bk.dq, &dk = bk.dk, &dv = bk.dv, &dqh = bk.dqh, &dkh = bk.dkh, &dvh = bk.dvh;
  std::fill(dln.begin(), dln.end(), R(0));
  linear_backward(dln.data(), G + lo.wte, static_cast<R*>(nullptr), d_logits.data(), a.lnf.data(),
                  P + lo.wte, N, C, V);
  layernorm_backward(dx.data(), G + lo.lnfw, G + lo.lnfb, dln.data(), x_last, P + lo.lnfw,
                     a.meanf.data(), a.rstdf.data(), N, C);
  for (std::size_t l = layers; l-- > 0;) {
    const Block& w = lo.blocks[l];
    const LayerActs<R>& A = a.layer[l];
    const R* x = l == 0 ? a.x0.data() : a.layer[l - 1].x2.data();
    // MLP: dx holds ∂/∂x2 = ∂/∂x1 through the residual; LN2's backward adds its part
    std::fill(dg.begin(), dg.end(), R(0));
    linear_backward(dg.data(), G + w.wproj, G + w.bproj, dx.data(), A.g.data(), P + w.wproj, N, F, C);
    std::fill(dh.begin(), dh.end(), R(0));
    gelu_backward(dh.data(), A.h.data(), dg.data(), N * F);
    std::fill(dln.begin(), dln.end(), R(0));
    linear_backward(dln.data(), G + w.wfc, G + w.bfc, dh.data(), A.ln2.data(), P + w.wfc, N, C, F);
    layernorm_backward(dx.data(), G + w.ln2w, G + w.ln2b, dln.data(), A.x1.data(), P + w.ln2w,
                       A.mean2.data(), A.rstd2.data(), N, C);
    // attention: dx now holds ∂/∂x1
    std::fill(datt.begin(), datt.end(), R(0));
    linear_backward(datt.data(), G + w.wo, G + w.bo, dx.data(), A.att.data(), P + w.wo, N, C, C);
    to_heads(doh.data(), datt.data(), B, T, lo.H, lo.hd);
    for (std::size_t b = 0; b < B; ++b)
      heads_backward(dqh.data() + b * T * C, dkh.data() + b * T * Ckv, dvh.data() + b * T * Ckv,
                     doh.data() + b * T * C, A.qh.data() + b * T * C, A.kh.data() + b * T * Ckv,
                     A.vh.data() + b * T * Ckv, A.oh.data() + b * T * C, A.lse.data() + b * lo.H * T,
                     lo, T);
    from_heads(dq.data(), dqh.data(), B, T, lo.H, lo.hd);
    from_heads(dk.data(), dkh.data(), B, T, lo.Hkv, lo.hd);
    from_heads(dv.data(), dvh.data(), B, T, lo.Hkv, lo.hd);
    std::fill(dln.begin(), dln.end(), R(0));
    linear_backward(dln.data(), G + w.wq, G + w.bq, dq.data(), A.ln1.data(), P + w.wq, N, C, C);
    linear_backward(dln.data(), G + w.wk, G + w.bk, dk.data(), A.ln1.data(), P + w.wk, N, C, Ckv);
    linear_backward(dln.data(), G + w.wv, G + w.bv, dv.data(), A.ln1.data(), P + w.wv, N, C, Ckv);
    layernorm_backward(dx.data(), G + w.ln1w, G + w.ln1b, dln.data(), x, P + w.ln1w, A.mean1.data(),
                       A.rstd1.data(), N, C);
  }
  embedding_backward(G + lo.wte, G + lo.wpe, dx.data(), tokens, B, T, C);
  return loss;
}

// This thread's Acts for one shape, kept from the last call with that shape (a
// training loop calls with the same batch shape every step). It holds one
// batch's activations (about 16 KiB per character for the default model) until
// the thread ends or a call with another shape replaces it.
template <class R>
Acts<R>& cached_acts(const Layout& lo, std::size_t layers, std::size_t N) {
  thread_local std::unique_ptr<Acts<R>> cache;
  const std::vector<std::size_t> shape{lo.V, lo.C, lo.Ckv, lo.F, lo.H, layers, N};
  if (!cache || cache->shape != shape) {
    cache.reset();  // the old one freed before the new one is allocated
    cache = std::make_unique<Acts<R>>(lo, layers, N);
  }
  return *cache;
}

template <class R>
double run_checked(const CharModelConfig& c, const Layout& lo, const R* P, R* grads,
                   const std::vector<std::uint32_t>& inputs, const std::vector<std::uint32_t>* targets,
                   std::size_t batch, R* probs, const char* fn, Acts<R>* keep = nullptr) {
  const std::size_t T = check_batch(c, inputs, targets, batch, fn);
  detail::require_budget(pass_bytes(lo, c.layers, static_cast<double>(inputs.size()), sizeof(R)), fn,
                         "the activations of " + std::to_string(inputs.size()) + " characters");
  if (keep) {
    *keep = Acts<R>(lo, c.layers, inputs.size());
    return run(lo, P, grads, inputs.data(), targets ? targets->data() : nullptr, batch, T, *keep, probs);
  }
  return run(lo, P, grads, inputs.data(), targets ? targets->data() : nullptr, batch, T,
             cached_acts<R>(lo, c.layers, inputs.size()), probs);
}

}  // namespace

std::size_t char_model_parameter_count(const CharModelConfig& config) {
  return make_layout(config).total;
}

CharModel::CharModel(const CharModelConfig& config, const TrainingConfig& training)
    : config_(config), training_(training) {
  const Layout lo = make_layout(config);
  params_.assign(lo.total, 0.0f);
  grads_.assign(lo.total, 0.0f);
  m_.assign(lo.total, 0.0f);
  v_.assign(lo.total, 0.0f);
  NormalRng rng(config.seed);
  const float residual = 0.02f / std::sqrt(2.0f * static_cast<float>(config.layers));
  for (const Tensor& t : lo.tensors) {
    float* p = params_.data() + t.offset;
    for (std::size_t i = 0; i < t.size; ++i) {
      switch (t.init) {
        case Init::Normal: p[i] = 0.02f * rng.next_normal(); break;
        case Init::Residual: p[i] = residual * rng.next_normal(); break;
        case Init::Ones: p[i] = 1.0f; break;
        case Init::Zeros: p[i] = 0.0f; break;
      }
    }
  }
}

double CharModel::gradients(const std::vector<std::uint32_t>& inputs,
                            const std::vector<std::uint32_t>& targets, std::size_t batch,
                            std::vector<float>& grads) const {
  const Layout lo = make_layout(config_);
  grads.assign(lo.total, 0.0f);
  return run_checked<float>(config_, lo, params_.data(), grads.data(), inputs, &targets, batch,
                            nullptr, "CharModel::gradients");
}

double CharModel::loss(const std::vector<std::uint32_t>& inputs, const std::vector<std::uint32_t>& targets,
                       std::size_t batch) const {
  const Layout lo = make_layout(config_);
  return run_checked<float>(config_, lo, params_.data(), nullptr, inputs, &targets, batch, nullptr,
                            "CharModel::loss");
}

double CharModel::train_step(const std::vector<std::uint32_t>& inputs,
                             const std::vector<std::uint32_t>& targets, std::size_t batch) {
  const Layout lo = make_layout(config_);
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  const double loss = run_checked<float>(config_, lo, params_.data(), grads_.data(), inputs, &targets,
                                         batch, nullptr, "CharModel::train_step");
  grad_norm_ = clip_grad_norm(grads_.data(), grads_.size(), training_.clip_norm);
  const float lr = static_cast<float>(learning_rate(step_, training_.warmup, training_.total_steps,
                                                    training_.lr_max, training_.lr_min));
  ++step_;
  for (const Tensor& t : lo.tensors) {  // weight decay on the weight matrices, not gains or biases
    AdamWConfig cfg = training_.adam;
    if (t.init != Init::Normal && t.init != Init::Residual) cfg.weight_decay = 0.0f;
    adamw_step(params_.data() + t.offset, m_.data() + t.offset, v_.data() + t.offset,
               grads_.data() + t.offset, t.size, lr, step_, cfg);
  }
  return loss;
}

void CharModel::set_optimizer_state(std::vector<float> m, std::vector<float> v, std::size_t step) {
  if (m.size() != params_.size() || v.size() != params_.size())
    fail(ErrorCode::ShapeMismatch, "CharModel::set_optimizer_state: " + std::to_string(m.size()) +
                                       " and " + std::to_string(v.size()) + " moments for " +
                                       std::to_string(params_.size()) + " parameters");
  m_ = std::move(m);
  v_ = std::move(v);
  step_ = step;
}

CharModelForward CharModel::forward(const std::vector<std::uint32_t>& tokens) const {
  const char* fn = "CharModel::forward";
  const Layout lo = make_layout(config_);
  const std::size_t T = tokens.size();
  detail::require_budget(detail::f32_bytes(static_cast<double>(T) * (lo.V + config_.layers * lo.H * T)),
                         fn, "the probabilities and attention weights");
  CharModelForward r;
  r.probs = Matrix(T == 0 ? 1 : T, lo.V);
  Acts<float> a(lo, config_.layers, 0);
  run_checked<float>(config_, lo, params_.data(), nullptr, tokens, nullptr, 1, r.probs.data.data(),
                     fn, &a);
  // the weights from the saved q, k and log-sum-exp: P_ij = exp(scale·q_i·k_j − lse_i), j ≤ i
  const double scale = 1.0 / std::sqrt(static_cast<double>(lo.hd));
  const std::size_t G = lo.H / lo.Hkv;
  r.attention.resize(config_.layers);
  for (std::size_t l = 0; l < config_.layers; ++l) {
    const LayerActs<float>& A = a.layer[l];
    for (std::size_t h = 0; h < lo.H; ++h) {
      Matrix w(T, T);
      const float* qh = A.qh.data() + h * T * lo.hd;
      const float* kh = A.kh.data() + h / G * T * lo.hd;
      for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (std::size_t c = 0; c < lo.hd; ++c) dot += static_cast<double>(qh[i * lo.hd + c]) * kh[j * lo.hd + c];
          w.at(i, j) = static_cast<float>(std::exp(scale * dot - A.lse[h * T + i]));
        }
      r.attention[l].push_back(std::move(w));
    }
  }
  return r;
}

double char_model_reference_gradients(const CharModelConfig& config, const std::vector<double>& params,
                                      const std::vector<std::uint32_t>& inputs,
                                      const std::vector<std::uint32_t>& targets, std::size_t batch,
                                      std::vector<double>* grads) {
  const char* fn = "char_model_reference_gradients";
  const Layout lo = make_layout(config);
  if (params.size() != lo.total)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": " + std::to_string(params.size()) +
                                       " parameters for a model of " + std::to_string(lo.total));
  if (grads) grads->assign(lo.total, 0.0);
  return run_checked<double>(config, lo, params.data(), grads ? grads->data() : nullptr, inputs,
                             &targets, batch, nullptr, fn);
}

}  // namespace attn
