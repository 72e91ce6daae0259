// The decode kernel (see decode.hpp). A decode step has one query row per
// head and S cached rows, so it does 2·S·(d_k + d_v) flops per query row
// against S·(d_k + d_v)·4 bytes of K and V: about half a flop per byte for
// one row, which no CPU or browser can feed from memory. The kernel is
// therefore built to read K and V ONCE per KV group, whatever G is:
//   pass 1, over K: for each key row, the G logits (scale·q_r)·k_j; the key
//           row is loaded once and reused from registers/L1 for all G rows;
//   pass 2, over the G·S logits (scratch, 4·G·S bytes, in cache for the
//           lesson's sizes): max, then exp(x − max) and the sum, in SIMD;
//   pass 3, over V: out_r += w_rj · v_j for all G rows per value row.
// That is "two passes over the logits, one over K, one over V". One-pass
// online softmax (the chunked kernel's way) reads K and V once too but
// rescales the accumulators whenever the running max moves; with every
// logit already in a small scratch buffer there is nothing to gain, and the
// softmax here is the exact two-pass one of the reference. Measured
// (engine/bench/decode_bench.cpp, S = 32768, d = 128, H_q = 32, native AVX2,
// one thread on a shared machine): this kernel 99 ms per MHA step and 33 ms
// per GQA 32/8 step; attention()'s chunked kernel (one-pass online softmax)
// on the same rows 334 ms and 103 ms. Keeping the pass-3 accumulators in
// registers across value rows (column strips) measured slower (143 / 42 ms).
#include "decode.hpp"

#include <algorithm>
#include <cmath>

#include "fast_exp.hpp"
#include "simd_blocks.hpp"

namespace attn::detail {
namespace {

using simd::batch;
constexpr std::size_t W = simd::width;

// logits[r·stride + j] = Σ_t qs[r·d_k + t]·k[j·d_k + t] for R rows (R ≤ 4,
// accumulators in registers) and keys j < S.
template <std::size_t R>
void logits_rows(const float* qs, const float* k, std::size_t S, std::size_t d_k, float* logits,
                 std::size_t stride) {
  const std::size_t vec_end = d_k - d_k % W;
  for (std::size_t j = 0; j < S; ++j) {
    const float* k_j = k + j * d_k;
    batch acc[R];
    for (std::size_t r = 0; r < R; ++r) acc[r] = batch(0.0f);
    std::size_t t = 0;
    for (; t < vec_end; t += W) {
      const batch kb = batch::load_unaligned(k_j + t);
      for (std::size_t r = 0; r < R; ++r)
        acc[r] = simd::madd(batch::load_unaligned(qs + r * d_k + t), kb, acc[r]);
    }
    for (std::size_t r = 0; r < R; ++r) {
      float sum = xsimd::hadd(acc[r]);
      for (std::size_t u = t; u < d_k; ++u) sum += qs[r * d_k + u] * k_j[u];  // leftovers
      logits[r * stride + j] = sum;
    }
  }
}

// x[j] = exp(x[j] − max) in place; returns Σ x[j]. No entry is hidden here.
float softmax_unnormalised(float* x, std::size_t S) {
  return simd::exp_sum_with(x, S, simd::max(x, S), [](batch b) { return simd::exp_softmax(b); });
}

// out[r] += Σ_j w[r·stride + j]·v_j for R rows (R ≤ 4) and j < S: each value
// row is loaded once for all R rows.
template <std::size_t R>
void weighted_values(const float* w, std::size_t stride, const float* v, std::size_t S,
                     std::size_t d_v, float* out) {
  const std::size_t vec_end = d_v - d_v % W;
  for (std::size_t j = 0; j < S; ++j) {
    const float* v_j = v + j * d_v;
    batch wr[R];
    for (std::size_t r = 0; r < R; ++r) wr[r] = batch(w[r * stride + j]);
    std::size_t c = 0;
    for (; c < vec_end; c += W) {
      const batch vb = batch::load_unaligned(v_j + c);
      for (std::size_t r = 0; r < R; ++r) {
        float* o = out + r * d_v + c;
        simd::madd(wr[r], vb, batch::load_unaligned(o)).store_unaligned(o);
      }
    }
    for (; c < d_v; ++c)  // leftovers
      for (std::size_t r = 0; r < R; ++r) out[r * d_v + c] += w[r * stride + j] * v_j[c];
  }
}

// The row count of a chunk as a template argument (registers, unrolled loops).
template <template <std::size_t> class Op, class... Args>
void by_rows(std::size_t rows, Args... args) {
  switch (rows) {
    case 1: Op<1>::run(args...); break;
    case 2: Op<2>::run(args...); break;
    case 3: Op<3>::run(args...); break;
    default: Op<4>::run(args...); break;
  }
}
template <std::size_t R>
struct Logits {
  static void run(const float* qs, const float* k, std::size_t S, std::size_t d_k, float* l,
                  std::size_t stride) {
    logits_rows<R>(qs, k, S, d_k, l, stride);
  }
};
template <std::size_t R>
struct Values {
  static void run(const float* w, std::size_t stride, const float* v, std::size_t S,
                  std::size_t d_v, float* out) {
    weighted_values<R>(w, stride, v, S, d_v, out);
  }
};

}  // namespace

void decode_rows(const float* q, std::size_t G, const float* k, const float* v, std::size_t S,
                 std::size_t d_k, std::size_t d_v, float scale, float* scratch, float* out) {
  float* logits = scratch;              // (G, S)
  float* qs = logits + G * S;           // (G, d_k): scale·q, so a logit is one dot product
  float* inv_sum = qs + G * d_k;        // (G): 1 / Σ exp(x − max) per row
  for (std::size_t t = 0; t < G * d_k; ++t) qs[t] = scale * q[t];

  // Keys in blocks (128 KiB of K at d_k = 128, well inside L2), each block
  // visited by every chunk of up to 4 query rows: with G > 4 the block is
  // read from memory by the first chunk and from cache by the others.
  constexpr std::size_t key_block = 256;
  for (std::size_t j0 = 0; j0 < S; j0 += key_block) {
    const std::size_t n = std::min(key_block, S - j0);
    for (std::size_t r0 = 0; r0 < G; r0 += 4)
      by_rows<Logits>(std::min<std::size_t>(4, G - r0), static_cast<const float*>(qs + r0 * d_k),
                      k + j0 * d_k, n, d_k, logits + r0 * S + j0, S);
  }
  for (std::size_t r = 0; r < G; ++r) inv_sum[r] = 1.0f / softmax_unnormalised(logits + r * S, S);
  std::fill(out, out + G * d_v, 0.0f);
  for (std::size_t j0 = 0; j0 < S; j0 += key_block) {
    const std::size_t n = std::min(key_block, S - j0);
    for (std::size_t r0 = 0; r0 < G; r0 += 4)
      by_rows<Values>(std::min<std::size_t>(4, G - r0), static_cast<const float*>(logits + r0 * S + j0),
                      S, v + j0 * d_v, n, d_v, out + r0 * d_v);
  }
  // normalise at the end: d_v multiplies per row instead of S
  for (std::size_t r = 0; r < G; ++r) simd::scale(out + r * d_v, inv_sum[r], d_v);
}

}  // namespace attn::detail
