// The cost model: bytes of materialized attention's n×n score matrices for
// a given element size, heads, layers and batch, and the number of
// (query, key) pairs a visibility rule lets attention compute. Pure
// arithmetic in double (exact up to 2^53); it allocates nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "checks.hpp"
#include "visibility.hpp"

namespace attn {
namespace {

void require_count(double x, const char* name) {
  if (!std::isfinite(x) || x <= 0.0 || std::floor(x) != x)
    detail::fail(ErrorCode::BadArgument, std::string("score_matrix_bytes: ") + name + " is " +
                                             detail::num(x) + "; it must be a whole number >= 1");
}

}  // namespace

double score_matrix_bytes(double n, double bytes_per_element, double heads, double layers,
                          double batch) {
  require_count(n, "n");
  require_count(bytes_per_element, "bytes_per_element");
  require_count(heads, "heads");
  require_count(layers, "layers");
  require_count(batch, "batch");
  const double bytes = n * n * bytes_per_element * heads * layers * batch;
  if (!std::isfinite(bytes))  // each count finite, the product past 1.8e308
    detail::fail(ErrorCode::BadArgument, "score_matrix_bytes: the product of n*n, bytes_per_element, heads, layers and batch is beyond double's range");
  return bytes;
}

namespace {

using u128 = unsigned __int128;
constexpr std::uint64_t kMaxPosition = std::numeric_limits<std::uint64_t>::max();

// The keys a query at position p sees under `vis` (mask aside), as a 128-bit
// number: positions up to 2^64 (one past the largest, for range ends).
u128 keys_at(const detail::Visibility& vis, u128 p) {
  const std::uint64_t pos = p > kMaxPosition ? kMaxPosition : static_cast<std::uint64_t>(p);
  return vis.end_at(pos) - vis.begin_at(pos);
}

// n·(a + b)/2 for the sum of an arithmetic series of n terms from a to b with
// step -1, 0 or 1: a + b is odd only when n is even, so one division is exact,
// and done first the product stays below 2^128.
u128 series(u128 n, u128 a, u128 b) {
  const u128 s = a + b;
  return s % 2 == 0 ? n * (s / 2) : (n / 2) * s;
}

// Σ keys_at(p) over positions p in [lo, hi) (hi <= 2^64). Between the points
// where the rule's ends start or stop moving with p (end_at reaches S at
// S - e, begin_at leaves 0 at w, the interval empties at S + w - 1), the
// count moves by -1, 0 or +1 per position: each run is an arithmetic series.
u128 keys_in(const detail::Visibility& vis, u128 lo, u128 hi) {
  if (lo >= hi) return 0;
  const u128 S = vis.S, w = vis.window;
  const u128 e = vis.causal ? 1 : w;  // end_at(p) = min(p + e, S) when e > 0
  u128 cuts[5] = {lo, hi, hi, hi, hi};
  std::size_t n = 2;
  const auto cut = [&](u128 p) { if (p > lo && p < hi) cuts[n++] = p; };
  if (e > 0 && S > e) cut(S - e);
  if (w > 0) {
    cut(w);
    cut(S + w - 1);
  }
  for (std::size_t a = 1; a < n; ++a)  // insertion sort of at most 5 points
    for (std::size_t b = a; b > 0 && cuts[b] < cuts[b - 1]; --b) std::swap(cuts[b], cuts[b - 1]);
  u128 total = 0;
  for (std::size_t c = 0; c + 1 < n; ++c) {
    const u128 a = cuts[c], b = cuts[c + 1];
    if (a < b) total += series(b - a, keys_at(vis, a), keys_at(vis, b - 1));
  }
  return total;
}

// Σ keys over rows t in [0, rows) at positions t + row_offset, which stop at
// 2^64 - 1 (engine.hpp: a position past it counts as it).
u128 keys_of_rows(const detail::Visibility& vis, u128 rows) {
  const u128 off = vis.row_offset;
  const u128 unsaturated = std::min<u128>(rows, static_cast<u128>(kMaxPosition) - off + 1);
  return keys_in(vis, off, off + unsaturated) + (rows - unsaturated) * keys_at(vis, kMaxPosition);
}

}  // namespace

double visible_pairs(std::uint64_t L, std::uint64_t S, const AttentionOptions& rule) {
  const char* fn = "visible_pairs";
  if (L == 0 || S == 0)
    detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": L is " + std::to_string(L) + " and S is " +
                                               std::to_string(S) + "; both must be at least 1");
  if (rule.mask != nullptr)
    detail::fail(ErrorCode::BadArgument, std::string(fn) + ": a mask is given; its visible pairs depend on "
                                                           "its contents, so count them directly");
  const detail::Visibility vis = detail::visibility_of(rule, S);  // mask: null, refused above
  // with a period P < L, rows i and i + P see the same keys: the first P rows
  // count floor(L / P) times, the first L mod P of them once more
  const std::uint64_t P = rule.query_period;
  const u128 pairs = P == 0 || P >= L ? keys_of_rows(vis, L)
                                      : (L / P) * keys_of_rows(vis, P) + keys_of_rows(vis, L % P);
  constexpr u128 kExact = u128(1) << 53;
  if (pairs > kExact)
    detail::fail(ErrorCode::TooLarge, std::string(fn) + ": more than 2^53 pairs (L=" + std::to_string(L) +
                                          ", S=" + std::to_string(S) +
                                          "), past what a double counts exactly");
  return static_cast<double>(static_cast<std::uint64_t>(pairs));
}

}  // namespace attn
