// The visibility rule: which keys query row i may see (engine.hpp's
// AttentionOptions: causal, window, row_offset, query_period, mask). The
// reference, both SIMD kernels, the online-softmax trace, the training
// reference and the cost model (visible_pairs) ask this type and nothing
// else, built by visibility_of (below) and nothing else; a new rule goes
// here, plus the tile tests the kernels use to skip work.
//
// Without the mask, row i sees one interval of keys [key_begin(i),
// key_end(i)), and both ends grow with the row's position pos(i). Positions
// of a range of rows are contiguous except where query_period wraps them,
// so the per-block tests below bound a block by its lowest and highest
// position, in O(1).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "attn/engine.hpp"

namespace attn::detail {

// Positions and the key count are 64-bit in every build, wasm32 included, so
// that a rule gives the same answer natively and in WebAssembly (visible_pairs
// counts keys no wasm32 heap could hold); the kernels' key indices are size_t.
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

struct Visibility {
  std::uint64_t S = 0;                // keys
  bool causal = false;
  std::uint64_t window = 0;           // 0 = none
  std::uint64_t row_offset = 0;
  std::uint64_t query_period = 0;     // 0 = off
  const std::uint8_t* mask = nullptr; // (L, S) or null

  std::uint64_t position(std::size_t i) const {
    return saturating_add(query_period ? i % query_period : i, row_offset);
  }
  // The keys a query at position `pos` sees (mask aside): [begin_at, end_at),
  // begin_at <= end_at <= S; both non-decreasing in pos.
  std::uint64_t end_at(std::uint64_t pos) const {
    if (causal) return std::min(saturating_add(pos, 1), S);        // j <= pos
    if (window > 0) return std::min(saturating_add(pos, window), S);  // j < pos + w
    return S;
  }
  std::uint64_t begin_at(std::uint64_t pos) const {
    const std::uint64_t begin = window > 0 && pos >= window ? pos - window + 1 : 0;  // j > pos - w
    return std::min(begin, end_at(pos));
  }

  // For the kernels, whose S (a matrix's rows) fits size_t: so do these.
  std::size_t key_begin(std::size_t i) const { return static_cast<std::size_t>(begin_at(position(i))); }
  std::size_t key_end(std::size_t i) const { return static_cast<std::size_t>(end_at(position(i))); }
  bool visible(std::size_t i, std::size_t j) const {
    const std::uint64_t pos = position(i);
    return j >= begin_at(pos) && j < end_at(pos) && (mask == nullptr || mask[i * S + j] != 0);
  }

  // Bounds of the key intervals of rows [i0, i1) (i1 > i0), mask aside:
  // every row's interval lies inside [begin_min, end_max) and contains
  // [begin_max, end_min) (that one may be empty).
  struct Span {
    std::size_t begin_min, begin_max, end_min, end_max;
    bool monotone;  // the rows' positions grow with the row (no wrap of query_period)
  };
  Span span(std::size_t i0, std::size_t i1) const {
    std::uint64_t lo = position(i0), hi = position(i1 - 1);
    bool monotone = true;
    if (query_period > 0 && (i1 - i0 >= query_period || i0 % query_period > (i1 - 1) % query_period)) {
      lo = row_offset;  // the rows wrap: phases 0 and query_period - 1 both occur
      hi = saturating_add(query_period - 1, row_offset);
      monotone = false;
    }
    return {static_cast<std::size_t>(begin_at(lo)), static_cast<std::size_t>(begin_at(hi)),
            static_cast<std::size_t>(end_at(lo)), static_cast<std::size_t>(end_at(hi)), monotone};
  }
  // Can some row of [i0, i1) see some key of [j0, j1)? False only when
  // none can (the kernels then skip the tile); may be true for a tile that
  // a gap in wrapped positions, or the mask, hides.
  bool any_visible(const Span& s, std::size_t j0, std::size_t j1) const {
    return s.begin_min < s.end_max && j0 < s.end_max && j1 > s.begin_min;
  }
  // Does every row of [i0, i1) see every key of [j0, j1)? Then no entry of
  // the tile needs a per-element test.
  bool all_visible(const Span& s, std::size_t j0, std::size_t j1) const {
    return mask == nullptr && j0 >= s.begin_max && j1 <= s.end_min;
  }
};

// The rule of a request with S keys: the one place that reads the rule's fields of
// AttentionOptions (make_problem for the forward and the float backward, the
// training reference, visible_pairs).
inline Visibility visibility_of(const AttentionOptions& opt, std::uint64_t S) {
  Visibility vis;
  vis.S = S;
  vis.causal = opt.causal;
  vis.window = opt.window;
  vis.row_offset = opt.row_offset;
  vis.query_period = opt.query_period;
  vis.mask = opt.mask;
  return vis;
}

// Tripwire (as errors.cpp's static_asserts on the enums): AttentionOptions has exactly
// these 10 fields, so a field added there stops this compiling until it is sorted into
// the rule (visibility_of and Visibility) or out of it (kernel choice, tiles, scale, outputs).
// Names are for the reader: a structured binding goes by position, so the copy above goes by name.
inline void attention_options_fields(const AttentionOptions& opt) {
  [[maybe_unused]] const auto& [causal, scale, variant, block_q, block_k, mask, return_weights, row_offset,
                                window, query_period] = opt;
}

}  // namespace attn::detail
