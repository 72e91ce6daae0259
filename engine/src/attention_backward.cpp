// Attention for training in float32: the forward that keeps the per-row
// log-sum-exp, and two backwards, chunked (FlashAttention-2, Dao 2023) and
// materialized, behind attention_backward (train.hpp), plus their head-major
// versions. Shapes: q (L, d_k), k (S, d_k), v (S, d_v), out and d_out (L, d_v),
// lse (L). Rows are visited through the visibility rule (visibility.hpp), so
// causal, window, row_offset, query_period and mask mean what they mean in
// attention(). The kernels work row by row with the SIMD blocks (dot, axpy):
// they are written for the lesson's small widths (d ≤ 64), not tuned further.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/train.hpp"
#include "checks.hpp"
#include "problem.hpp"
#include "scratch.hpp"
#include "simd_blocks.hpp"

namespace attn {
namespace {

using detail::fail;
using detail::f32_bytes;
constexpr float neg_inf = -std::numeric_limits<float>::infinity();

double grads_bytes(const detail::Problem& p) {
  return f32_bytes(static_cast<double>(p.L * p.d_k + p.S * (p.d_k + p.d_v)));
}

// Row i's scaled logits against keys [j0, j0 + n): s[c], -inf where hidden.
void logits_row(const detail::Problem& p, std::size_t i, std::size_t j0, std::size_t n, float* s) {
  const float* q_i = p.q.data + i * p.d_k;
  const std::size_t begin = p.vis.key_begin(i), end = p.vis.key_end(i);
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t j = j0 + c;
    const bool seen = j >= begin && j < end && (p.vis.mask == nullptr || p.vis.mask[i * p.S + j] != 0);
    s[c] = seen ? p.scale * simd::dot(q_i, p.k.data + j * p.d_k, p.d_k) : neg_inf;
  }
}

// out: (L, d_v)  lse: (L)  s: (block_k) scratch  acc: (d_v) scratch
// Online softmax per row over tiles of block_k keys: m running max, l running
// sum, acc the unnormalised output, rescaled by exp(m_old − m_new) when m grows.
void forward_rows(const detail::Problem& p, std::size_t block_k, float* out, float* lse, float* s,
                  float* acc, std::vector<std::uint32_t>& masked_rows) {
  for (std::size_t i = 0; i < p.L; ++i) {
    float m = neg_inf, l = 0.0f;
    std::fill(acc, acc + p.d_v, 0.0f);
    const std::size_t begin = p.vis.key_begin(i), end = p.vis.key_end(i);
    for (std::size_t j0 = begin; j0 < end; j0 += block_k) {
      const std::size_t n = std::min(block_k, end - j0);
      logits_row(p, i, j0, n, s);
      const float m_new = std::max(m, simd::max(s, n));
      if (m_new == neg_inf) continue;  // every key of the tile is masked
      const float rescale = m == neg_inf ? 0.0f : std::exp(m - m_new);
      simd::scale(acc, rescale, p.d_v);
      l = l * rescale + simd::exp_sum(s, n, m_new);
      m = m_new;
      for (std::size_t c = 0; c < n; ++c)
        if (s[c] != 0.0f) simd::axpy(acc, s[c], p.v.data + (j0 + c) * p.d_v, p.d_v);
    }
    float* out_i = out + i * p.d_v;
    if (m == neg_inf) {  // no visible key: zero output, and the guard on 1/l
      std::fill(out_i, out_i + p.d_v, 0.0f);
      lse[i] = neg_inf;
      masked_rows.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    for (std::size_t c = 0; c < p.d_v; ++c) out_i[c] = acc[c] / l;
    lse[i] = m + std::log(l);
  }
}

// D_i = d_out_i·out_i, the row sum of P∘dP that the softmax's backward subtracts.
void row_dots(const detail::Problem& p, const float* out, const float* d_out, float* D) {
  for (std::size_t i = 0; i < p.L; ++i) D[i] = simd::dot(d_out + i * p.d_v, out + i * p.d_v, p.d_v);
}

// dq: (L, d_k)  dk: (S, d_k)  dv: (S, d_v), zeroed by the caller
// pt, dst: (bq, bk) tiles of P and dS; D: (L)
// Key tiles outside, query blocks inside: a tile's dK and dV rows stay in
// cache while every block that sees it adds to them (FlashAttention-2's order).
void chunked_backward(const detail::Problem& p, const float* out, const float* lse,
                      const float* d_out, std::size_t bq, std::size_t bk, float* pt, float* dst,
                      float* D, float* dq, float* dk, float* dv) {
  row_dots(p, out, d_out, D);
  for (std::size_t j0 = 0; j0 < p.S; j0 += bk) {
    const std::size_t nk = std::min(bk, p.S - j0);
    for (std::size_t i0 = 0; i0 < p.L; i0 += bq) {
      const std::size_t rows = std::min(bq, p.L - i0);
      const detail::Visibility::Span span = p.vis.span(i0, i0 + rows);
      if (!p.vis.any_visible(span, j0, j0 + nk)) continue;  // the rule hides the whole tile
      // pass 1: P = exp(logit − lse), recomputed; dS = P∘(d_out_i·v_j − D_i)
      for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t i = i0 + r;
        float* p_r = pt + r * bk;
        float* ds_r = dst + r * bk;
        if (lse[i] == neg_inf) {  // the row sees no key at all
          std::fill(p_r, p_r + nk, 0.0f);
          std::fill(ds_r, ds_r + nk, 0.0f);
          continue;
        }
        logits_row(p, i, j0, nk, p_r);
        simd::exp_sum(p_r, nk, lse[i]);
        const float* d_out_i = d_out + i * p.d_v;
        for (std::size_t c = 0; c < nk; ++c)
          ds_r[c] = p_r[c] == 0.0f
                        ? 0.0f
                        : p_r[c] * (simd::dot(d_out_i, p.v.data + (j0 + c) * p.d_v, p.d_v) - D[i]);
      }
      // pass 2: dQ rows of the block, dK and dV rows of the tile
      for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t i = i0 + r;
        const float* p_r = pt + r * bk;
        const float* ds_r = dst + r * bk;
        const float* q_i = p.q.data + i * p.d_k;
        const float* d_out_i = d_out + i * p.d_v;
        float* dq_i = dq + i * p.d_k;
        for (std::size_t c = 0; c < nk; ++c) {
          if (p_r[c] == 0.0f) continue;
          const std::size_t j = j0 + c;
          simd::axpy(dv + j * p.d_v, p_r[c], d_out_i, p.d_v);
          simd::axpy(dk + j * p.d_k, p.scale * ds_r[c], q_i, p.d_k);
          simd::axpy(dq_i, p.scale * ds_r[c], p.k.data + j * p.d_k, p.d_k);
        }
      }
    }
  }
}

// P, dS: (L, S) held whole; D: (L). The exact softmax of each row (its own
// max and sum, not the forward's lse), then the same products.
void materialized_backward(const detail::Problem& p, const float* out, const float* d_out,
                           float* P, float* dS, float* D, float* dq, float* dk, float* dv) {
  row_dots(p, out, d_out, D);
  // pass 1: P and dS, row by row
  for (std::size_t i = 0; i < p.L; ++i) {
    float* p_i = P + i * p.S;
    float* ds_i = dS + i * p.S;
    logits_row(p, i, 0, p.S, p_i);
    const float m = simd::max(p_i, p.S);
    if (m == neg_inf) {
      std::fill(p_i, p_i + p.S, 0.0f);
      std::fill(ds_i, ds_i + p.S, 0.0f);
      continue;
    }
    simd::scale(p_i, 1.0f / simd::exp_sum(p_i, p.S, m), p.S);
    const float* d_out_i = d_out + i * p.d_v;
    for (std::size_t j = 0; j < p.S; ++j)
      ds_i[j] = p_i[j] == 0.0f ? 0.0f
                               : p_i[j] * (simd::dot(d_out_i, p.v.data + j * p.d_v, p.d_v) - D[i]);
  }
  // pass 2: dV = Pᵀ·d_out, dK = scale·dSᵀ·Q, dQ = scale·dS·K
  for (std::size_t i = 0; i < p.L; ++i) {
    const float* q_i = p.q.data + i * p.d_k;
    const float* d_out_i = d_out + i * p.d_v;
    for (std::size_t j = 0; j < p.S; ++j) {
      const float w = P[i * p.S + j];
      if (w == 0.0f) continue;
      const float ds = p.scale * dS[i * p.S + j];
      simd::axpy(dv + j * p.d_v, w, d_out_i, p.d_v);
      simd::axpy(dk + j * p.d_k, ds, q_i, p.d_k);
      simd::axpy(dq + i * p.d_k, ds, p.k.data + j * p.d_k, p.d_k);
    }
  }
}

std::vector<double> to_double(MatrixView m) { return std::vector<double>(m.data, m.data + m.rows * m.cols); }

void to_float(const std::vector<double>& from, Matrix& to) {
  for (std::size_t t = 0; t < from.size(); ++t) to.data[t] = static_cast<float>(from[t]);
}

void require_rows_like(MatrixView m, std::size_t rows, std::size_t cols, const char* fn,
                       const char* name) {
  detail::require_matrix(m, fn, name);
  if (m.rows != rows || m.cols != cols)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": " + name + " is " + detail::shape(m) +
                                       " but must be " + std::to_string(rows) + "x" +
                                       std::to_string(cols) + " (L x d_v)");
  detail::require_finite(m, fn, name);
}

void require_lse(const std::vector<float>& lse, std::size_t L, const char* fn) {
  if (lse.size() != L)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": lse has " + std::to_string(lse.size()) +
                                       " entries but q has " + std::to_string(L) + " rows");
  for (std::size_t i = 0; i < L; ++i)
    if (std::isnan(lse[i]) || lse[i] == std::numeric_limits<float>::infinity())
      fail(ErrorCode::NonFinite, std::string(fn) + ": lse[" + std::to_string(i) + "] is " +
                                     detail::num(lse[i]) + "; it must be finite or -inf");
}

std::size_t block_size(std::size_t b, const char* fn, const char* name) {
  if (b == 0) fail(ErrorCode::BadArgument, std::string(fn) + ": " + name + " must be at least 1");
  return b;
}

MatrixView head_rows(MatrixView m, std::size_t h, std::size_t rows) {
  return {m.data + h * rows * m.cols, rows, m.cols};
}

void check_heads(MatrixView q, MatrixView k, MatrixView v, HeadCounts heads, const char* fn) {
  if (heads.q == 0 || heads.kv == 0)
    fail(ErrorCode::ZeroDimension, std::string(fn) + ": head counts must be at least 1");
  if (heads.q % heads.kv != 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": " + std::to_string(heads.q) +
                                     " query heads is not a multiple of " + std::to_string(heads.kv) +
                                     " key/value heads");
  if (q.rows % heads.q != 0 || k.rows % heads.kv != 0 || v.rows != k.rows)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": q is " + detail::shape(q) + ", k " +
                                       detail::shape(k) + ", v " + detail::shape(v) +
                                       "; they must be (H_q·L, d_k), (H_kv·S, d_k), (H_kv·S, d_v)");
}

}  // namespace

AttentionForwardLse attention_forward_lse(MatrixView q, MatrixView k, MatrixView v,
                                          const AttentionOptions& opt) {
  const char* fn = "attention_forward_lse";
  const detail::Problem p = detail::make_problem(q, k, v, opt, fn);
  const std::size_t bk = std::min(block_size(opt.block_k, fn, "block_k"), p.S);
  detail::require_budget(f32_bytes(static_cast<double>(p.L) * static_cast<double>(p.d_v + 2) +
                                   static_cast<double>(bk + p.d_v)),
                         fn, "the output and log-sum-exp");
  AttentionForwardLse r;
  r.out = Matrix(p.L, p.d_v);
  r.lse.assign(p.L, 0.0f);
  if (opt.variant == Variant::Reference) {
    std::vector<double> out(p.L * p.d_v), lse(p.L);
    reference_attention_forward(out.data(), lse.data(), to_double(q).data(), to_double(k).data(),
                                to_double(v).data(), p.L, p.S, p.d_k, p.d_v, opt, p.scale);
    to_float(out, r.out);
    for (std::size_t i = 0; i < p.L; ++i) {
      r.lse[i] = static_cast<float>(lse[i]);
      if (std::isinf(lse[i])) r.masked_rows.push_back(static_cast<std::uint32_t>(i));
    }
    r.scratch_bytes = 8 * (p.L * p.d_v + p.L + p.S);
    return r;
  }
  std::vector<float> s(bk), acc(p.d_v);
  r.scratch_bytes = (bk + p.d_v) * sizeof(float);
  forward_rows(p, bk, r.out.data.data(), r.lse.data(), s.data(), acc.data(), r.masked_rows);
  return r;
}

AttentionGradients attention_backward(MatrixView q, MatrixView k, MatrixView v, MatrixView out,
                                      const std::vector<float>& lse, MatrixView d_out,
                                      const AttentionOptions& opt) {
  const char* fn = "attention_backward";
  const detail::Problem p = detail::make_problem(q, k, v, opt, fn);
  require_rows_like(out, p.L, p.d_v, fn, "out");
  require_rows_like(d_out, p.L, p.d_v, fn, "d_out");
  require_lse(lse, p.L, fn);
  const double L = static_cast<double>(p.L), S = static_cast<double>(p.S);
  const std::size_t bq = std::min(block_size(opt.block_q, fn, "block_q"), p.L);
  const std::size_t bk = std::min(block_size(opt.block_k, fn, "block_k"), p.S);
  double scratch = 0;
  switch (opt.variant) {
    case Variant::Chunked: scratch = f32_bytes(2.0 * bq * bk + L); break;
    case Variant::Materialized: scratch = f32_bytes(2.0 * L * S + L); break;
    case Variant::Reference: scratch = 8.0 * (2.0 * L * (p.d_k + p.d_v) + 2.0 * S * (p.d_k + p.d_v)); break;
  }
  detail::require_budget(scratch + grads_bytes(p), fn,
                         "the gradients and working memory for L=" + std::to_string(p.L) +
                             ", S=" + std::to_string(p.S));
  AttentionGradients g;
  g.dq = Matrix(p.L, p.d_k);
  g.dk = Matrix(p.S, p.d_k);
  g.dv = Matrix(p.S, p.d_v);
  g.scratch_bytes = static_cast<std::size_t>(scratch);
  if (opt.variant == Variant::Reference) {
    std::vector<double> dq(p.L * p.d_k), dk(p.S * p.d_k), dv(p.S * p.d_v);
    reference_attention_backward(dq.data(), dk.data(), dv.data(), to_double(d_out).data(),
                                 to_double(q).data(), to_double(k).data(), to_double(v).data(), p.L,
                                 p.S, p.d_k, p.d_v, opt, p.scale);
    to_float(dq, g.dq);
    to_float(dk, g.dk);
    to_float(dv, g.dv);
    return g;
  }
  if (opt.variant == Variant::Chunked) {
    const detail::AlignedFloats work = detail::aligned_floats(2 * bq * bk + p.L);
    float* pt = work.get();
    chunked_backward(p, out.data, lse.data(), d_out.data, bq, bk, pt, pt + bq * bk,
                     pt + 2 * bq * bk, g.dq.data.data(), g.dk.data.data(), g.dv.data.data());
    return g;
  }
  const detail::AlignedFloats work = detail::aligned_floats(2 * p.L * p.S + p.L);
  float* P = work.get();
  materialized_backward(p, out.data, d_out.data, P, P + p.L * p.S, P + 2 * p.L * p.S,
                        g.dq.data.data(), g.dk.data.data(), g.dv.data.data());
  return g;
}

AttentionForwardLse multihead_forward_lse(MatrixView q, MatrixView k, MatrixView v, HeadCounts heads,
                                          const AttentionOptions& opt) {
  const char* fn = "multihead_forward_lse";
  check_heads(q, k, v, heads, fn);
  const std::size_t L = q.rows / heads.q, S = k.rows / heads.kv, G = heads.q / heads.kv;
  AttentionForwardLse r;
  r.out = Matrix(q.rows, v.cols);
  r.lse.resize(q.rows);
  for (std::size_t h = 0; h < heads.q; ++h) {
    AttentionForwardLse one = attention_forward_lse(head_rows(q, h, L), head_rows(k, h / G, S),
                                                    head_rows(v, h / G, S), opt);
    std::copy(one.out.data.begin(), one.out.data.end(), r.out.data.begin() + h * L * v.cols);
    std::copy(one.lse.begin(), one.lse.end(), r.lse.begin() + h * L);
    for (std::uint32_t i : one.masked_rows) r.masked_rows.push_back(static_cast<std::uint32_t>(h * L + i));
    r.scratch_bytes = std::max(r.scratch_bytes, one.scratch_bytes);
  }
  return r;
}

AttentionGradients multihead_attention_backward(MatrixView q, MatrixView k, MatrixView v,
                                                MatrixView out, const std::vector<float>& lse,
                                                MatrixView d_out, HeadCounts heads,
                                                const AttentionOptions& opt) {
  const char* fn = "multihead_attention_backward";
  check_heads(q, k, v, heads, fn);
  const std::size_t L = q.rows / heads.q, S = k.rows / heads.kv, G = heads.q / heads.kv;
  require_rows_like(out, q.rows, v.cols, fn, "out");
  require_rows_like(d_out, q.rows, v.cols, fn, "d_out");
  require_lse(lse, q.rows, fn);
  AttentionGradients g;
  g.dq = Matrix(q.rows, q.cols);
  g.dk = Matrix(k.rows, k.cols);
  g.dv = Matrix(v.rows, v.cols);
  for (std::size_t h = 0; h < heads.q; ++h) {
    const std::vector<float> lse_h(lse.begin() + h * L, lse.begin() + (h + 1) * L);
    const AttentionGradients one =
        attention_backward(head_rows(q, h, L), head_rows(k, h / G, S), head_rows(v, h / G, S),
                           head_rows(out, h, L), lse_h, head_rows(d_out, h, L), opt);
    std::copy(one.dq.data.begin(), one.dq.data.end(), g.dq.data.begin() + h * L * q.cols);
    // a KV head's gradient sums over the G query heads that read it
    float* dk_g = g.dk.data.data() + (h / G) * S * k.cols;
    float* dv_g = g.dv.data.data() + (h / G) * S * v.cols;
    for (std::size_t t = 0; t < one.dk.data.size(); ++t) dk_g[t] += one.dk.data[t];
    for (std::size_t t = 0; t < one.dv.data.size(); ++t) dv_g[t] += one.dv.data[t];
    g.scratch_bytes = std::max(g.scratch_bytes, one.scratch_bytes);
  }
  return g;
}

}  // namespace attn
