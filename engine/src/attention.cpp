// attn::attention: validates a request, checks that the chosen kernel's
// allocations fit the memory budget, then runs the reference, materialized
// or chunked kernel. Nothing large is allocated before every check passes.
#include <algorithm>
#include <new>
#include <utility>

#include "kernels.hpp"

namespace attn {

namespace {

AttentionResult run(const detail::Problem& p, const AttentionOptions& opt, const char* fn) {
  using namespace detail;
  // Inputs whose float32 steps could overflow (see fast_path_safe) take the
  // double-precision reference path, whatever variant was asked for: the
  // same answer (within the fast paths' tolerance) or a NonFinite refusal.
  const bool float_path = opt.variant == Variant::Reference || fast_path_safe(p);

  require_variant(opt.variant, fn);
  double bytes = 0.0;
  switch (opt.variant) {
    case Variant::Reference:
      bytes = reference_bytes(p, opt.return_weights);
      break;
    case Variant::Materialized:
      bytes = materialized_bytes(p, opt.return_weights);
      break;
    case Variant::Chunked:
      if (opt.block_q == 0 || opt.block_k == 0)
        fail(ErrorCode::BadArgument, std::string(fn) + ": block_q is " +
                                         std::to_string(opt.block_q) + " and block_k is " +
                                         std::to_string(opt.block_k) +
                                         "; chunked tiles need at least 1 row each");
      if (opt.return_weights)
        fail(ErrorCode::BadArgument, std::string(fn) +
                                         ": return_weights is not available with the chunked "
                                         "variant, which never holds the " +
                                         std::to_string(p.L) + "x" + std::to_string(p.S) +
                                         " weight matrix");
      bytes = chunked_bytes(p, opt.block_q, opt.block_k);
      break;
    case Variant::Count:  // refused by require_variant above
      break;
  }
  if (!float_path) bytes = std::max(bytes, reference_bytes(p, opt.return_weights));
  require_budget(bytes, fn,
                 "attention with L=" + std::to_string(p.L) + ", S=" + std::to_string(p.S) +
                     ", d_k=" + std::to_string(p.d_k) + ", d_v=" + std::to_string(p.d_v));

  AttentionResult r;
  try {
    if (!float_path) {
      reference_attention(p, opt.return_weights, r, true);
      return r;
    }
    switch (opt.variant) {
      case Variant::Reference: reference_attention(p, opt.return_weights, r); break;
      case Variant::Materialized: materialized_attention(p, opt.return_weights, r); break;
      case Variant::Chunked: chunked_attention(p, opt.block_q, opt.block_k, r); break;
      case Variant::Count: break;
    }
  } catch (const std::bad_alloc&) {
    // within budget but the heap could not grow (e.g. wasm32 near 4 GiB)
    fail(ErrorCode::TooLarge, std::string(fn) + ": out of memory while allocating " +
                                  bytes_text(bytes));
  }
  return r;
}

}  // namespace

AttentionResult attention(MatrixView q, MatrixView k, MatrixView v, const AttentionOptions& opt) {
  const char* fn = "attention";
  return run(detail::make_problem(q, k, v, opt, fn), opt, fn);
}

KeyValues::KeyValues(Matrix k, Matrix v) : k_(std::move(k)), v_(std::move(v)) {
  using namespace detail;
  const char* fn = "keyValues";
  require_matrix(k_.view(), fn, "k");
  require_matrix(v_.view(), fn, "v");
  if (k_.rows != v_.rows)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": k has " + std::to_string(k_.rows) +
                                       " rows but v has " + std::to_string(v_.rows) +
                                       "; both must be S, one per key (k is " + shape(k_.view()) +
                                       ", v is " + shape(v_.view()) + ")");
  max_abs_k_ = require_finite(k_.view(), fn, "k");
  max_abs_v_ = require_finite(v_.view(), fn, "v");
}

AttentionResult attention(MatrixView q, const KeyValues& kv, const AttentionOptions& opt) {
  const char* fn = "attention";
  return run(detail::make_problem(q, kv.k(), kv.v(), opt, fn, false, kv.max_abs_k(), kv.max_abs_v()),
             opt, fn);
}

}  // namespace attn
