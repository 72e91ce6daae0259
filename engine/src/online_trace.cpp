// Step-by-step trace of online softmax for one query row, for the lesson:
// the same online_update the chunked kernel uses, recorded tile by tile,
// next to the scalar reference row. Tiles the causal rule or the window
// hides (visibility.hpp) are skipped.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "online_softmax.hpp"
#include "simd_blocks.hpp"

namespace attn {

namespace {

using detail::Problem;
constexpr float neg_inf = -std::numeric_limits<float>::infinity();

// The tile holding the row's first visible key (none when it sees no key:
// the tile at `end`, so the loop below does not run).
std::size_t first_tile(std::size_t begin, std::size_t end, std::size_t bk) {
  return (begin < end ? begin : end + bk - 1) / bk;
}

// The lesson's trace: float32 throughout, the same online_update as the
// chunked kernel's step. Only for inputs that pass fast_path_safe.
void float32_steps(const Problem& p, std::size_t row, std::size_t bk, OnlineSoftmaxTrace& trace) {
  const float* q_i = p.q.data + row * p.d_k;
  const std::size_t begin = p.vis.key_begin(row), end = p.vis.key_end(row);
  std::vector<float> s(bk), acc(p.d_v, 0.0f);
  float m = neg_inf, l = 0.0f;
  // tiles wholly before the row's window are not traced
  for (std::size_t j0 = first_tile(begin, end, bk) * bk, tile = j0 / bk; j0 < end; j0 += bk, ++tile) {
    const std::size_t w = std::min(bk, p.S - j0);
    for (std::size_t c = 0; c < w; ++c) {
      const std::size_t j = j0 + c;
      s[c] = p.vis.visible(row, j) ? p.scale * simd::dot(q_i, p.k.data + j * p.d_k, p.d_k) : neg_inf;
    }
    OnlineSoftmaxStep step;
    step.tile = tile;
    step.key_begin = j0;
    step.key_end = j0 + w;
    step.m_old = m;
    step.l_old = l;
    const detail::OnlineUpdate u =
        detail::online_update(s.data(), w, p.v.data + j0 * p.d_v, p.d_v, m, l, acc.data());
    step.tile_max = u.tile_max;
    step.rescale = u.rescale;
    step.m_new = m;
    step.l_new = l;
    step.acc = acc;
    trace.steps.push_back(std::move(step));
  }

  trace.out.assign(p.d_v, 0.0f);
  if (l != 0.0f) {  // guard 1/l: with no visible key the row stays zero
    if (!std::isfinite(m) || !std::isfinite(l)) detail::fail_logit_overflow("online_softmax_trace", row);
    for (std::size_t c = 0; c < p.d_v; ++c) trace.out[c] = acc[c] * (1.0f / l);
  }
}

// The same steps in double, for inputs near float32's limits (see
// fast_path_safe): a float32 trace would turn inf·0 into NaN and drop a
// key, or sum values near FLT_MAX to +inf before dividing by l. The steps
// keep float32 copies of m, l and acc; acc, which is not normalised, can
// exceed float32 there and then reads ±inf, but out = acc / l is computed
// in double. A logit itself past float32 is refused (NonFinite).
void double_steps(const Problem& p, std::size_t row, std::size_t bk, const char* fn,
                  OnlineSoftmaxTrace& trace) {
  const double neg_inf_d = -std::numeric_limits<double>::infinity();
  const float* q_i = p.q.data + row * p.d_k;
  const std::size_t begin = p.vis.key_begin(row), end = p.vis.key_end(row);
  std::vector<double> s(bk), acc(p.d_v, 0.0);
  double m = neg_inf_d, l = 0.0;
  const auto floats = [](const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); };
  for (std::size_t j0 = first_tile(begin, end, bk) * bk, tile = j0 / bk; j0 < end; j0 += bk, ++tile) {
    const std::size_t w = std::min(bk, p.S - j0);
    double tile_max = neg_inf_d;
    for (std::size_t c = 0; c < w; ++c) {
      const std::size_t j = j0 + c;
      s[c] = neg_inf_d;
      if (!p.vis.visible(row, j)) continue;
      s[c] = detail::reference_logit(p, q_i, j);
      detail::require_float_logit(s[c], fn, row, j);
      tile_max = std::max(tile_max, s[c]);
    }
    OnlineSoftmaxStep step;
    step.tile = tile;
    step.key_begin = j0;
    step.key_end = j0 + w;
    step.m_old = static_cast<float>(m);
    step.l_old = static_cast<float>(l);
    step.tile_max = static_cast<float>(tile_max);
    step.rescale = 1.0f;  // as online_update: 1 when nothing in the tile is visible
    if (tile_max != neg_inf_d) {
      const double m_new = std::max(m, tile_max);
      const double rescale = m == neg_inf_d ? 0.0 : std::exp(m - m_new);
      l *= rescale;
      for (double& a : acc) a *= rescale;
      for (std::size_t c = 0; c < w; ++c) {
        if (s[c] == neg_inf_d) continue;
        const double e = std::exp(s[c] - m_new);
        l += e;
        const float* v_j = p.v.data + (j0 + c) * p.d_v;
        for (std::size_t t = 0; t < p.d_v; ++t) acc[t] += e * v_j[t];
      }
      m = m_new;
      step.rescale = static_cast<float>(rescale);
    }
    step.m_new = static_cast<float>(m);
    step.l_new = static_cast<float>(l);
    step.acc = floats(acc);
    trace.steps.push_back(std::move(step));
  }
  trace.out.assign(p.d_v, 0.0f);
  if (l != 0.0)
    for (std::size_t c = 0; c < p.d_v; ++c) trace.out[c] = static_cast<float>(acc[c] / l);
}

}  // namespace

// q: (L, d_k)  k: (S, d_k)  v: (S, d_v)  trace.out, trace.reference: (d_v)
OnlineSoftmaxTrace online_softmax_trace(MatrixView q, MatrixView k, MatrixView v, std::size_t row,
                                        std::size_t block_k, bool causal,
                                        std::optional<float> scale, std::size_t window) {
  using namespace detail;
  const char* fn = "online_softmax_trace";
  AttentionOptions rule;
  rule.causal = causal;
  rule.scale = scale;
  rule.window = window;
  const Problem p = make_problem(q, k, v, rule, fn);
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
  if (fast_path_safe(p)) {
    float32_steps(p, row, bk, trace);
  } else {
    double_steps(p, row, bk, fn, trace);
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
