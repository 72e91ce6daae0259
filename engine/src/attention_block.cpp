// Block steps of the SIMD attention kernels (see attention_block.hpp).
#include "attention_block.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "checks.hpp"
#include "fast_exp.hpp"
#include "gemm_tile.hpp"

namespace attn::detail::block {
namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
using simd::batch;
using simd::width;

// Key bounds of the block-relative rows r_lo ..= r_hi: padding columns
// stand in for the block's last real row (their keys do not matter).
Visibility::Span span_of(const Problem& p, std::size_t i0, std::size_t rows, std::size_t r_lo,
                         std::size_t r_hi) {
  const std::size_t last = rows - 1;
  return p.vis.span(i0 + std::min(r_lo, last), i0 + std::min(r_hi, last) + 1);
}

// Keys of the tile j0 .. j0+keys-1 that some row of the span may see, from
// the tile's start: the softmax and P·V need not look past them.
std::size_t keys_until_end(const Visibility::Span& s, std::size_t j0, std::size_t keys) {
  return s.end_max <= j0 ? 0 : std::min(keys, s.end_max - j0);
}

// Named builders for the micro-kernel's arguments (gemm_tile.hpp).
// Q·Kᵀ: A = K rows from key j (row-major, d_k long), B = panel columns, C = st.
simd::gemm::Args scores_args(const Problem& p, std::size_t j, const float* panel, std::size_t ldp,
                             float* st, std::size_t ld) {
  simd::gemm::Args a;
  a.K = p.d_k;
  a.a = p.k.data + j * p.d_k;
  a.a_m = p.d_k;
  a.a_k = 1;
  a.b = panel;
  a.ldb = ldp;
  a.c = st;
  a.ldc = ld;
  a.row_scale = nullptr;
  return a;
}
// P·V: A = the score tile read transposed (keys down its rows), B = value rows, C = o.
simd::gemm::Args values_args(std::size_t keys, const float* st, std::size_t ld, const float* v_rows,
                             std::size_t ldv, float* o, std::size_t d_v, const float* row_scale) {
  simd::gemm::Args a;
  a.K = keys;
  a.a = st;
  a.a_m = 1;
  a.a_k = ld;
  a.b = v_rows;
  a.ldb = ldv;
  a.c = o;
  a.ldc = d_v;
  a.row_scale = row_scale;
  return a;
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

namespace {

// Entries of keys j .. j+m_rows-1 (rows of st_rows) that block-relative
// rows r0 .. r1-1 cannot see become -inf.
void hide_entries(const Problem& p, std::size_t i0, std::size_t r0, std::size_t r1, std::size_t j,
                  std::size_t m_rows, bool monotone, float* st_rows, std::size_t ld) {
  if (p.vis.mask == nullptr && monotone) {
    // The rows that cannot see key j+c are a prefix (their keys end at or
    // before it) and a suffix (their window starts after it), and both
    // boundaries move right as c grows: two fills per key, not a test per
    // entry (per entry, this loop cost a quarter of a causal call at n = 512).
    // (without a window every row's keys start at 0: no suffix)
    const bool suffix = p.vis.window > 0;
    std::size_t lo = r0, hi = suffix ? r0 : r1;
    for (std::size_t c = 0; c < m_rows; ++c) {
      const std::size_t key = j + c;
      while (lo < r1 && p.vis.key_end(i0 + lo) <= key) ++lo;
      hi = std::max(hi, lo);
      while (suffix && hi < r1 && p.vis.key_begin(i0 + hi) <= key) ++hi;
      float* row = st_rows + c * ld;
      std::fill(row + r0, row + lo, neg_inf);
      std::fill(row + hi, row + r1, neg_inf);
    }
    return;
  }
  for (std::size_t c = 0; c < m_rows; ++c)
    for (std::size_t r = r0; r < r1; ++r)
      if (!p.vis.visible(i0 + r, j + c)) st_rows[c * ld + r] = neg_inf;
}

}  // namespace

void score_tile(const Problem& p, const float* panel, std::size_t i0, std::size_t rows,
                std::size_t cols, std::size_t j0, std::size_t keys, float* st, std::size_t ld) {
  namespace g = simd::gemm;
  const Visibility& vis = p.vis;
  for (std::size_t n0 = 0; n0 < cols; n0 += g::nr) {
    const std::size_t batches = std::min(g::nv, (cols - n0) / width);
    const std::size_t n_cols = batches * width;
    const std::size_t r_end = std::min(n0 + n_cols, rows);  // real rows of the panel: n0 .. r_end-1
    const Visibility::Span sp = span_of(p, i0, rows, n0, n0 + n_cols - 1);
    std::size_t m0 = 0;
    while (m0 < keys) {
      const std::size_t j = j0 + m0;
      // whole tiles of keys every row of the panel sees: one strip, no fix-ups
      if (vis.all_visible(sp, j, j + g::mr)) {
        const std::size_t full = (std::min(sp.end_min, j0 + keys) - j) / g::mr;
        if (full > 0) {
          g::strip_any(scores_args(p, j, panel + n0, cols, st + m0 * ld + n0, ld), full, batches);
          m0 += full * g::mr;
          continue;
        }
      }
      const std::size_t m_rows = std::min(g::mr, keys - m0);
      float* st_tile = st + m0 * ld + n0;
      if (!vis.any_visible(sp, j, j + m_rows)) {
        fill(st_tile, ld, m_rows, n_cols, neg_inf);  // hidden from every row: not computed
      } else {
        g::tile_any(scores_args(p, j, panel + n0, cols, st_tile, ld), m_rows, batches);
        if (!vis.all_visible(sp, j, j + m_rows))
          hide_entries(p, i0, n0, std::max(n0, r_end), j, m_rows, sp.monotone, st + m0 * ld, ld);
      }
      m0 += m_rows;
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
    // P·V strips holding a column of this batch reach up to mr - 1 rows
    // before and after it: walk every key one of their rows may see
    const std::size_t seen = keys_until_end(
        span_of(p, i0, rows, r >= g::mr ? r - (g::mr - 1) : 0, r + width - 1 + g::mr - 1), j0, keys);
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
  const g::Args a = values_args(keys, st, ld, v_rows, ldv, o, p.d_v, row_scale);
  // keys before a row's window have weight 0 and are multiplied like the
  // rest; keys past the last one a strip of rows sees are not
  if (span_of(p, i0, rows, 0, cols - 1).end_min >= j0 + keys) {  // every row sees to the tile's end
    g::gemm_block(a, cols, p.d_v);
    return;
  }
  for (std::size_t m0 = 0; m0 < cols; m0 += g::mr) {  // one strip of mr rows at a time
    const std::size_t m_rows = std::min(g::mr, cols - m0);
    g::Args strip = a;
    strip.K = keys_until_end(span_of(p, i0, rows, m0, m0 + m_rows - 1), j0, keys);
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
