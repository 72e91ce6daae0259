// Public C++ API for training: the backward passes of attention and of the
// layers a small transformer needs, the optimizer, and a tiny decoder-only
// character model built from them. Shape letters as in engine.hpp, plus
//   N rows of activations (tokens), C width, V vocabulary, B sequences, T tokens each.
// Flat kernels take raw row-major arrays, outputs first and sizes last, and
// come in float (the fast path) and double (the scalar reference the tests
// differentiate numerically). Backward kernels ACCUMULATE (+=) into their
// gradient arrays, so callers zero them once per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/engine.hpp"

namespace attn {

// ---------------------------------------------------------------- attention for training
// Forward that keeps what the chunked backward needs: the output and, per
// query row, the log-sum-exp of its visible scaled logits,
//   lse_i = log Σ_j exp(scale·q_i·k_j)   (over visible j; -inf for a row that sees no key).
// The weights are then exp(scale·q_i·k_j − lse_i), recomputable tile by tile.
// opt: scale, causal, window, row_offset, query_period, mask and block_k as
// attention(); variant Reference computes in double, every other the float kernel.
struct AttentionForwardLse {
  Matrix out;                      // (L, d_v)
  std::vector<float> lse;          // (L)
  std::size_t scratch_bytes = 0;   // working memory besides inputs, out and lse
  std::vector<std::uint32_t> masked_rows;  // rows with no visible key (out row 0, lse -inf)
};
AttentionForwardLse attention_forward_lse(MatrixView q, MatrixView k, MatrixView v,
                                          const AttentionOptions& opt);

// Gradients of a scalar loss through attention, given d_out = ∂loss/∂out.
// With P the weights, D_i = Σ_c d_out_ic·out_ic and dS = P ∘ (d_out·Vᵀ − D):
//   dV = Pᵀ·d_out,  dQ = scale·dS·K,  dK = scale·dSᵀ·Q.
// opt.variant:
//   Chunked       FlashAttention-2's backward (Dao 2023): uses only out and
//                 lse from the forward, recomputes each (block_q × block_k)
//                 tile of P from Q, K and lse, and never holds L×S; its
//                 scratch is D (L floats) and a few tiles, whatever S is.
//   Materialized  recomputes and holds P and dP (two L×S matrices).
//   Reference     plain loops in double (reference_attention_backward), from q, k, v alone.
// Rows that see no key get zero gradients. Errors as attention(), plus
// ShapeMismatch when out or d_out is not (L, d_v) or lse has not L entries,
// NonFinite for a NaN/inf in them, TooLarge past the memory budget.
struct AttentionGradients {
  Matrix dq;                       // (L, d_k)
  Matrix dk;                       // (S, d_k)
  Matrix dv;                       // (S, d_v)
  std::size_t scratch_bytes = 0;   // working memory besides inputs and the three gradients
};
AttentionGradients attention_backward(MatrixView q, MatrixView k, MatrixView v, MatrixView out,
                                      const std::vector<float>& lse, MatrixView d_out,
                                      const AttentionOptions& opt);

// Head-major multi-head / grouped-query versions (layout of multihead_attention):
// q, out, d_out (H_q·L, ·), k, v (H_kv·S, ·), lse (H_q·L). Query head h uses
// KV head h / (H_q / H_kv); dK and dV of a KV head sum over its query heads.
AttentionForwardLse multihead_forward_lse(MatrixView q, MatrixView k, MatrixView v, HeadCounts heads,
                                          const AttentionOptions& opt);
AttentionGradients multihead_attention_backward(MatrixView q, MatrixView k, MatrixView v,
                                                MatrixView out, const std::vector<float>& lse,
                                                MatrixView d_out, HeadCounts heads,
                                                const AttentionOptions& opt);

// The double reference, unchecked (callers pass consistent sizes); the rule
// is opt's causal, window, row_offset, query_period and mask.
// out: (L, d_v)  lse: (L)  q: (L, d_k)  k: (S, d_k)  v: (S, d_v)
void reference_attention_forward(double* out, double* lse, const double* q, const double* k,
                                 const double* v, std::size_t L, std::size_t S, std::size_t d_k,
                                 std::size_t d_v, const AttentionOptions& rule, double scale);
// dq: (L, d_k)  dk: (S, d_k)  dv: (S, d_v) (accumulated)  d_out: (L, d_v)
void reference_attention_backward(double* dq, double* dk, double* dv, const double* d_out,
                                  const double* q, const double* k, const double* v, std::size_t L,
                                  std::size_t S, std::size_t d_k, std::size_t d_v,
                                  const AttentionOptions& rule, double scale);

// ---------------------------------------------------------------- layers (T = float or double)
// Linear: out = x·Wᵀ + b.  out: (N, C_out)  x: (N, C_in)  w: (C_out, C_in)  b: (C_out) or null
template <class T>
void linear_forward(T* out, const T* x, const T* w, const T* b, std::size_t N, std::size_t C_in,
                    std::size_t C_out);
// dx: (N, C_in) or null  dw: (C_out, C_in)  db: (C_out) or null  d_out: (N, C_out)
template <class T>
void linear_backward(T* dx, T* dw, T* db, const T* d_out, const T* x, const T* w, std::size_t N,
                     std::size_t C_in, std::size_t C_out);

// LayerNorm over the last axis, eps = 1e-5, biased variance:
//   out = (x − mean)·rstd·w + b,  rstd = 1/sqrt(var + eps).
// out, x: (N, C)  mean, rstd: (N) (saved for the backward)  w, b: (C)
template <class T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, std::size_t N,
                       std::size_t C);
template <class T>
void layernorm_backward(T* dx, T* dw, T* db, const T* d_out, const T* x, const T* w, const T* mean,
                        const T* rstd, std::size_t N, std::size_t C);

// GELU, tanh approximation (GPT-2's):
//   gelu(x) = x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))).  out, x, dx, d_out: (n)
template <class T>
void gelu_forward(T* out, const T* x, std::size_t n);
template <class T>
void gelu_backward(T* dx, const T* x, const T* d_out, std::size_t n);

// Token embedding plus learned positions: out[b·T + t] = wte[tokens[b·T + t]] + wpe[t].
// out: (B·T, C)  tokens: (B·T) each < V  wte: (V, C)  wpe: (≥ T, C)
// BadArgument for a token ≥ V (checked before writing anything).
template <class T>
void embedding_forward(T* out, const std::uint32_t* tokens, const T* wte, const T* wpe,
                       std::size_t B, std::size_t T_len, std::size_t C, std::size_t V);
template <class T>
void embedding_backward(T* dwte, T* dwpe, const T* d_out, const std::uint32_t* tokens,
                        std::size_t B, std::size_t T_len, std::size_t C);

// Softmax cross-entropy averaged over N rows: returns mean_i (lse_i − logit_i,target_i)
// (in double; with the row max subtracted, so huge logits neither overflow nor
// lose the loss), and, if d_logits is not null, d_logits += (softmax − onehot)/N.
// If probs is not null it receives the softmax. logits, d_logits, probs: (N, V)
// BadArgument for a target ≥ V, NonFinite for a NaN/inf logit (before writing anything).
template <class T>
double cross_entropy(T* d_logits, T* probs, const T* logits, const std::uint32_t* targets,
                     std::size_t N, std::size_t V);

// ---------------------------------------------------------------- optimizer
struct AdamWConfig {
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float weight_decay = 0.0f;       // decoupled: p −= lr·weight_decay·p (Loshchilov & Hutter 2019)
};
// One AdamW step t (1-based) over n parameters; m, v are the moment buffers (zero at t = 1):
//   m = β1·m + (1−β1)·g,  v = β2·v + (1−β2)·g²,  m̂ = m/(1−β1^t),  v̂ = v/(1−β2^t),
//   p −= lr·(m̂/(√v̂ + eps) + weight_decay·p).
// BadArgument for t = 0 or a negative/NaN lr.
void adamw_step(float* params, float* m, float* v, const float* grads, std::size_t n, float lr,
                std::size_t t, const AdamWConfig& cfg);

// Scales grads by max_norm/‖grads‖ when the global L2 norm exceeds max_norm
// (max_norm > 0, else BadArgument); returns the norm before clipping (in double).
double clip_grad_norm(float* grads, std::size_t n, double max_norm);

// Learning rate at step s (0-based): linear warm-up lr_max·(s+1)/warmup for
// s < warmup, then a half cosine from lr_max down to lr_min reached at step
// total − 1 (and kept after): lr_min + (lr_max − lr_min)·(1 + cos(π·u))/2,
// u = (s − warmup)/(total − 1 − warmup) clamped to [0, 1] (u = 1 when total − 1 ≤ warmup).
double learning_rate(std::size_t step, std::size_t warmup, std::size_t total, double lr_max,
                     double lr_min);

}  // namespace attn

// ---------------------------------------------------------------- a tiny character model
namespace attn {

// A decoder-only transformer over characters (GPT-2's layout, smaller):
// token + learned position embedding, `layers` pre-LayerNorm blocks
//   x += Wo·attention(LN1(x)) (causal, `heads` query heads over `kv_heads` key/value heads)
//   x += W2·gelu(W1·LN2(x))   (hidden width 4·width)
// a final LayerNorm, and logits = LN(x)·wteᵀ (the output layer shares the
// token embedding). width must be a multiple of heads, heads of kv_heads.
struct CharModelConfig {
  std::size_t vocab = 64;
  std::size_t context = 64;        // longest sequence (learned positions)
  std::size_t width = 64;          // C
  std::size_t layers = 2;
  std::size_t heads = 4;           // query heads; head width C / heads
  std::size_t kv_heads = 4;        // key/value heads (grouped-query when fewer than heads)
  std::uint64_t seed = 1;          // initial weights: N(0, 0.02²) from NormalRng(seed), the two
                                   // output projections of a block 0.02/√(2·layers), LN gains 1, biases 0
};

struct TrainingConfig {
  double lr_max = 3e-3, lr_min = 3e-4;   // learning_rate(): warm-up, then cosine
  std::size_t warmup = 10, total_steps = 1000;
  double clip_norm = 1.0;                // clip_grad_norm before every update
  AdamWConfig adam{0.9f, 0.95f, 1e-8f, 0.01f};  // weight decay on the weight matrices only
};

struct CharModelForward {
  Matrix probs;                              // (T, V): next-character probabilities after each position
  std::vector<std::vector<Matrix>> attention;  // [layer][query head] (T, T), causal weights
};

class CharModel {
 public:
  // ZeroDimension for a zero size; BadArgument when width % heads or heads % kv_heads ≠ 0;
  // TooLarge past the memory budget.
  explicit CharModel(const CharModelConfig& config, const TrainingConfig& training = {});

  // One training step on B = batch sequences of T = inputs.size() / batch
  // tokens (1 ≤ T ≤ context): forward, backward, clipping, AdamW at the
  // schedule's rate for step(); returns the mean cross-entropy before the
  // update (nats per character). targets[i] is the character after inputs[i].
  // ShapeMismatch for sizes that do not divide or T > context, BadArgument
  // for a character ≥ vocab; the weights are unchanged when it throws.
  double train_step(const std::vector<std::uint32_t>& inputs,
                    const std::vector<std::uint32_t>& targets, std::size_t batch);

  // Mean loss and its gradient with respect to parameters() (same layout),
  // without updating anything.
  double gradients(const std::vector<std::uint32_t>& inputs, const std::vector<std::uint32_t>& targets,
                   std::size_t batch, std::vector<float>& grads) const;
  double loss(const std::vector<std::uint32_t>& inputs, const std::vector<std::uint32_t>& targets,
              std::size_t batch) const;

  // Forward on one text of 1..context characters: probabilities of the next
  // character after each position, and every layer's and head's attention weights.
  CharModelForward forward(const std::vector<std::uint32_t>& tokens) const;

  const CharModelConfig& config() const { return config_; }
  const std::vector<float>& parameters() const { return params_; }
  std::vector<float>& parameters() { return params_; }
  std::size_t step() const { return step_; }           // updates done
  double last_grad_norm() const { return grad_norm_; }  // before clipping, at the last step

  // The optimizer's state, for checkpoints (checkpoint.hpp): the training
  // configuration and AdamW's moment buffers m and v (parameters() layout).
  const TrainingConfig& training() const { return training_; }
  const std::vector<float>& adam_m() const { return m_; }
  const std::vector<float>& adam_v() const { return v_; }
  // Replaces m, v and step() (the next train_step is step + 1 of AdamW and
  // of the schedule). ShapeMismatch unless m and v have parameters().size()
  // entries; nothing changes when it throws.
  void set_optimizer_state(std::vector<float> m, std::vector<float> v, std::size_t step);

 private:
  CharModelConfig config_;
  TrainingConfig training_;
  std::vector<float> params_, grads_, m_, v_;
  std::size_t step_ = 0;
  double grad_norm_ = 0;
};

// Number of parameters of a configuration (after the same checks as CharModel).
std::size_t char_model_parameter_count(const CharModelConfig& config);

// The same model's loss and gradients in double, attention by the double
// reference: what the whole-model gradient check differentiates numerically.
double char_model_reference_gradients(const CharModelConfig& config, const std::vector<double>& params,
                                      const std::vector<std::uint32_t>& inputs,
                                      const std::vector<std::uint32_t>& targets, std::size_t batch,
                                      std::vector<double>* grads);

}  // namespace attn
