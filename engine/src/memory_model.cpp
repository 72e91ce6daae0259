// The memory-cost model of materialized attention: bytes of the n×n score
// matrices for a given element size, heads, layers and batch. Pure
// arithmetic in double (exact up to 2^53); it allocates nothing.
#include <cmath>

#include "detail.hpp"

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

double visible_pairs(std::size_t, std::size_t, const AttentionOptions&) { return 0; }

}  // namespace attn
