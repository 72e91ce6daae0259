// The cost model: bytes of materialized attention's n×n score matrices for
// a given element size, heads, layers and batch, and the number of
// (query, key) pairs a visibility rule lets attention compute. Pure
// arithmetic in double (exact up to 2^53); it allocates nothing.
#include <cmath>

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

double visible_pairs(std::size_t L, std::size_t S, const AttentionOptions& rule) {
  const char* fn = "visible_pairs";
  if (L == 0 || S == 0)
    detail::fail(ErrorCode::ZeroDimension, std::string(fn) + ": L is " + std::to_string(L) + " and S is " +
                                               std::to_string(S) + "; both must be at least 1");
  if (rule.mask != nullptr)
    detail::fail(ErrorCode::BadArgument, std::string(fn) + ": a mask is given; its visible pairs depend on "
                                                           "its contents, so count them directly");
  detail::Visibility vis;
  vis.S = S;
  vis.causal = rule.causal;
  vis.window = rule.window;
  vis.row_offset = rule.row_offset;
  vis.query_period = rule.query_period;
  // with a period P, rows i and i + P see the same keys: row t < P stands
  // for floor(L / P) rows, plus one when t < L mod P
  const std::size_t P = rule.query_period, rows = P > 0 ? std::min(L, P) : L;
  double pairs = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const double times = P > 0 ? static_cast<double>(L / P + (i < L % P ? 1 : 0)) : 1.0;
    pairs += times * static_cast<double>(vis.key_end(i) - vis.key_begin(i));
  }
  return pairs;
}

}  // namespace attn
