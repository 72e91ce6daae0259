// Step-by-step trace of online softmax for one query row, for the lesson:
// the same online_update the chunked kernel uses, recorded tile by tile,
// next to the scalar reference row. Tiles the causal mask hides are skipped.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "online_softmax.hpp"
#include "simd_blocks.hpp"

namespace attn {

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  trace.out, trace.reference: (d_v)
OnlineSoftmaxTrace online_softmax_trace(MatrixView q, MatrixView k, MatrixView v, std::size_t row,
                                        std::size_t block_k, bool causal,
                                        std::optional<float> scale) {
  using namespace detail;
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  const char* fn = "online_softmax_trace";
  const Problem p = make_problem(q, k, v, causal, scale, nullptr, 0, fn);
  if (row >= p.L)
    fail(ErrorCode::BadArgument, std::string(fn) + ": row is " + std::to_string(row) +
                                     " but q has only " + std::to_string(p.L) + " rows");
  if (block_k == 0)
    fail(ErrorCode::BadArgument, std::string(fn) + ": block_k is 0; a tile needs at least 1 key");
  const std::size_t bk = std::min(block_k, p.S);
  const double tiles = std::ceil(static_cast<double>(p.S) / static_cast<double>(bk));
  const double d_v = static_cast<double>(p.d_v), S = static_cast<double>(p.S);
  // steps (each with acc) + logits tile + reference buffers in double
  require_budget(tiles * (static_cast<double>(sizeof(OnlineSoftmaxStep)) + f32_bytes(d_v)) +
                     f32_bytes(bk + 3.0 * d_v) + 8.0 * (2.0 * S + d_v),
                 fn, "a trace with S=" + std::to_string(p.S) + ", block_k=" +
                         std::to_string(block_k) + ", d_v=" + std::to_string(p.d_v));

  OnlineSoftmaxTrace trace;
  const float* q_i = p.q.data + row * p.d_k;
  const std::size_t end = p.key_end(row);
  std::vector<float> s(bk), acc(p.d_v, 0.0f);
  float m = neg_inf, l = 0.0f;
  for (std::size_t j0 = 0, tile = 0; j0 < end; j0 += bk, ++tile) {
    const std::size_t w = std::min(bk, p.S - j0);
    for (std::size_t c = 0; c < w; ++c) {
      const std::size_t j = j0 + c;
      s[c] = j < end ? p.scale * simd::dot(q_i, p.k.data + j * p.d_k, p.d_k) : neg_inf;
    }
    OnlineSoftmaxStep step;
    step.tile = tile;
    step.key_begin = j0;
    step.key_end = j0 + w;
    step.m_old = m;
    step.l_old = l;
    const OnlineUpdate u = online_update(s.data(), w, p.v.data + j0 * p.d_v, p.d_v, m, l, acc.data());
    step.tile_max = u.tile_max;
    step.rescale = u.rescale;
    step.m_new = m;
    step.l_new = l;
    step.acc = acc;
    trace.steps.push_back(std::move(step));
  }

  trace.out.assign(p.d_v, 0.0f);
  if (l != 0.0f) {  // guard 1/l: with no visible key the row stays zero
    if (!std::isfinite(m) || !std::isfinite(l)) fail_logit_overflow(fn, row);
    for (std::size_t c = 0; c < p.d_v; ++c) trace.out[c] = acc[c] * (1.0f / l);
  }

  std::vector<double> logits(p.S), w(p.S), ref(p.d_v);
  reference_row(p, row, logits.data(), w.data(), ref.data());
  trace.reference.resize(p.d_v);
  for (std::size_t c = 0; c < p.d_v; ++c) {
    trace.reference[c] = static_cast<float>(ref[c]);
    trace.max_abs_diff = std::max(trace.max_abs_diff, std::fabs(trace.out[c] - trace.reference[c]));
  }
  return trace;
}

}  // namespace attn
