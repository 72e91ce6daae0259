// Block steps of the SIMD attention kernels (see attention_block.hpp).
#include "attention_block.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "detail.hpp"
#include "fast_exp.hpp"
#include "gemm_tile.hpp"

namespace attn::detail::block {
namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
using simd::batch;
using simd::width;

// The last real row of the block stands in for padding columns: their keys
// do not matter, and key_end is monotone in the row.
std::size_t key_end_of(const Problem& p, std::size_t i0, std::size_t rows, std::size_t r) {
  return p.vis.key_end(i0 + std::min(r, rows - 1));
}

// Keys of the tile j0 .. j0+keys-1 that rows up to `r` (a block-relative row,
// padding included) can see: a prefix, since key_end grows with the row.
std::size_t visible_prefix(const Problem& p, std::size_t i0, std::size_t rows, std::size_t r,
                           std::size_t j0, std::size_t keys) {
  const std::size_t end = key_end_of(p, i0, rows, r);
  return end <= j0 ? 0 : std::min(keys, end - j0);
}

void fill(float* st, std::size_t ld, std::size_t keys, std::size_t cols, float value) {
  for (std::size_t c = 0; c < keys; ++c) std::fill(st + c * ld, st + c * ld + cols, value);
}

// The max a column subtracts: 0 for a column that sees no key (m = -inf),
// so that its exponentials are exp(-inf) = 0 and not NaN.
batch shift_of(batch m) { return simd::zero_if_neg_inf(m); }

// The max of `start` and one batch of columns over keys c < keys. Four
// running maxima: with one, each key waited for the previous max (4 cycles
// of latency per key), and this walk cost a third of the softmax.
batch column_max(const float* col, std::size_t ld, std::size_t keys, batch start) {
  batch m1 = start, m2 = start, m3 = start;
  std::size_t c = 0;
  for (; c + 4 <= keys; c += 4) {
    start = simd::vmax(start, batch::load_unaligned(col + c * ld));
    m1 = simd::vmax(m1, batch::load_unaligned(col + (c + 1) * ld));
    m2 = simd::vmax(m2, batch::load_unaligned(col + (c + 2) * ld));
    m3 = simd::vmax(m3, batch::load_unaligned(col + (c + 3) * ld));
  }
  for (; c < keys; ++c) start = simd::vmax(start, batch::load_unaligned(col + c * ld));
  return simd::vmax(simd::vmax(start, m1), simd::vmax(m2, m3));
}

// col[c] = exp(col[c] − shift) down the keys; returns their sum per column.
batch exp_down_column(float* col, std::size_t ld, std::size_t keys, batch shift) {
  batch sum(0.0f);
  for (std::size_t c = 0; c < keys; ++c) {
    const batch e = simd::exp_softmax(batch::load_unaligned(col + c * ld) - shift);
    e.store_unaligned(col + c * ld);
    sum += e;
  }
  return sum;
}

}  // namespace

std::size_t padded_cols(std::size_t rows) { return (rows + width - 1) / width * width; }

void pack_query_panel(const Problem& p, std::size_t i0, std::size_t rows, std::size_t cols,
                      float* panel) {
  for (std::size_t t = 0; t < p.d_k; ++t) {
    float* dst = panel + t * cols;
    const float* src = p.q.data + i0 * p.d_k + t;
    for (std::size_t r = 0; r < rows; ++r) dst[r] = p.scale * src[r * p.d_k];
    std::fill(dst + rows, dst + cols, 0.0f);
  }
}

void score_tile(const Problem& p, const float* panel, std::size_t i0, std::size_t rows,
                std::size_t cols, std::size_t j0, std::size_t keys, float* st, std::size_t ld) {
  namespace g = simd::gemm;
  for (std::size_t n0 = 0; n0 < cols; n0 += g::nr) {
    const std::size_t batches = std::min(g::nv, (cols - n0) / width);
    const std::size_t n_cols = batches * width;
    // the panel's first and last real rows see the fewest and the most keys
    const std::size_t end_min = key_end_of(p, i0, rows, n0);
    const std::size_t end_max = key_end_of(p, i0, rows, n0 + n_cols - 1);
    // full tiles of keys every row of the panel sees: one strip, no fix-ups
    std::size_t m0 = 0;
    if (p.vis.mask == nullptr) {
      const std::size_t seen_by_all = end_min > j0 ? std::min(keys, end_min - j0) : 0;
      const std::size_t full = seen_by_all / g::mr;
      if (full > 0) {
        g::strip_any({p.d_k, p.k.data + j0 * p.d_k, p.d_k, 1, panel + n0, cols, st + n0, ld, nullptr},
                     full, batches);
        m0 = full * g::mr;
      }
    }
    for (; m0 < keys; m0 += g::mr) {
      const std::size_t m_rows = std::min(g::mr, keys - m0);
      const std::size_t j = j0 + m0;
      float* st_tile = st + m0 * ld + n0;
      if (j >= end_max) {  // hidden from every row of the panel: not computed
        fill(st_tile, ld, m_rows, n_cols, neg_inf);
        continue;
      }
      g::Args a{p.d_k, p.k.data + j * p.d_k, p.d_k, 1, panel + n0, cols, st_tile, ld, nullptr};
      g::tile_any(a, m_rows, batches);
      if (j + m_rows <= end_min && p.vis.mask == nullptr) continue;  // visible to every row
      const std::size_t r_end = std::min(n0 + n_cols, rows);
      if (p.vis.mask == nullptr) {
        // causal only: the rows that cannot see key j+c are a prefix of the
        // panel, and it grows with c; one fill per key, not a test per entry
        // (per entry, this loop cost a quarter of a causal call at n = 512)
        std::size_t hidden_to = n0;
        for (std::size_t c = 0; c < m_rows; ++c) {
          while (hidden_to < r_end && p.vis.key_end(i0 + hidden_to) <= j + c) ++hidden_to;
          std::fill(st + (m0 + c) * ld + n0, st + (m0 + c) * ld + hidden_to, neg_inf);
        }
        continue;
      }
      for (std::size_t c = 0; c < m_rows; ++c)
        for (std::size_t r = n0; r < r_end; ++r)
          if (!p.vis.visible(i0 + r, j + c)) st[(m0 + c) * ld + r] = neg_inf;
    }
  }
}

// Both softmax steps work on one batch of columns at a time, walking down
// the keys: the column max and sum stay in registers (the tile, a few
// dozen KiB, stays in L1 across the walks).
void softmax_columns(float* st, std::size_t ld, std::size_t keys, std::size_t cols, float* m,
                     float* l) {
  for (std::size_t r = 0; r < cols; r += width) {
    float* col = st + r;
    const batch mx = column_max(col, ld, keys, batch(neg_inf));
    const batch sum = exp_down_column(col, ld, keys, shift_of(mx));
    // normalize: st becomes the weights; 1/0 is avoided for empty columns
    const batch inv = xsimd::select(sum == batch(0.0f), batch(0.0f), batch(1.0f) / sum);
    for (std::size_t c = 0; c < keys; ++c)
      (batch::load_unaligned(col + c * ld) * inv).store_unaligned(col + c * ld);
    mx.store_unaligned(m + r);
    sum.store_unaligned(l + r);
  }
}

void online_softmax_tile(const Problem& p, std::size_t i0, std::size_t rows, std::size_t j0,
                         float* st, std::size_t ld, std::size_t keys, std::size_t cols, float* m,
                         float* l, float* alpha) {
  namespace g = simd::gemm;
  for (std::size_t r = 0; r < cols; r += width) {
    float* col = st + r;
    // a P·V strip starting in this batch may end up to mr - 1 rows past it
    const std::size_t seen = visible_prefix(p, i0, rows, r + width - 1 + g::mr - 1, j0, keys);
    const batch m_old = batch::load_unaligned(m + r);
    const batch m_new = column_max(col, ld, seen, m_old);
    const batch shift = shift_of(m_new);
    const batch sum = exp_down_column(col, ld, seen, shift);
    const batch a = simd::exp_softmax(m_old - shift);  // 0 while m_old is -inf
    (batch::load_unaligned(l + r) * a + sum).store_unaligned(l + r);
    m_new.store_unaligned(m + r);
    a.store_unaligned(alpha + r);
  }
}

void weighted_values(const Problem& p, std::size_t i0, std::size_t rows, std::size_t j0,
                     const float* st, std::size_t ld, std::size_t cols, const float* v_rows,
                     std::size_t ldv, std::size_t keys, const float* row_scale, float* o) {
  namespace g = simd::gemm;
  const g::Args a{keys, st, 1, ld, v_rows, ldv, o, p.d_v, row_scale};
  if (visible_prefix(p, i0, rows, 0, j0, keys) == keys) {  // every row sees every key
    g::gemm_block(a, cols, p.d_v);
    return;
  }
  for (std::size_t m0 = 0; m0 < cols; m0 += g::mr) {  // one strip of mr rows at a time
    const std::size_t m_rows = std::min(g::mr, cols - m0);
    g::Args strip = a;
    strip.K = visible_prefix(p, i0, rows, m0 + m_rows - 1, j0, keys);
    strip.a = st + m0;
    strip.c = o + m0 * p.d_v;
    if (row_scale != nullptr) strip.row_scale = row_scale + m0;
    g::gemm_block(strip, m_rows, p.d_v);
  }
}

void copy_value_rows(const Problem& p, std::size_t j0, std::size_t keys, float* v_tile) {
  const std::size_t ldv = padded_cols(p.d_v);
  const std::size_t full = p.d_v - p.d_v % width;
  for (std::size_t c = 0; c < keys; ++c) {  // batches, not std::copy: a memmove call per short row cost 5%
    const float* src = p.v.data + (j0 + c) * p.d_v;
    float* dst = v_tile + c * ldv;
    for (std::size_t t = 0; t < full; t += width) batch::load_unaligned(src + t).store_aligned(dst + t);
    for (std::size_t t = full; t < p.d_v; ++t) dst[t] = src[t];
  }
}

void store_rows(const Problem& p, std::size_t i0, std::size_t rows, const float* o, const float* m,
                const float* l, bool divide_by_l, AttentionResult& r) {
  for (std::size_t row = 0; row < rows; ++row) {
    const std::size_t i = i0 + row;
    float* out_i = r.out.data.data() + i * p.d_v;
    if (m[row] == neg_inf) {  // no visible key: zero output
      std::fill(out_i, out_i + p.d_v, 0.0f);
      r.masked_rows.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    // a +inf or NaN logit leaves m non-finite (and exp_softmax maps NaN to 0)
    if (!std::isfinite(m[row]) || !std::isfinite(l[row]) || l[row] == 0.0f)
      fail_logit_overflow("attention", i);
    const float s = divide_by_l ? 1.0f / l[row] : 1.0f;
    const float* o_row = o + row * p.d_v;
    bool finite = true;
    for (std::size_t t = 0; t < p.d_v; ++t) {
      out_i[t] = o_row[t] * s;
      finite &= std::isfinite(out_i[t]);
    }
    // fast_path_safe rules this out; checked anyway, once per entry of out,
    // so that a gap in that bound refuses instead of returning inf or NaN
    if (!finite) fail_logit_overflow("attention", i);
  }
}

}  // namespace attn::detail::block
