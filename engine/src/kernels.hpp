// The three attention kernels behind attn::attention and the bytes each one
// allocates (computed in double, checked against the budget before the call).
// Shapes: q (L, d_k), k (S, d_k), v (S, d_v), out (L, d_v), scores/weights (L, S).
#pragma once

#include <cstddef>

#include "attn/engine.hpp"
#include "checks.hpp"
#include "problem.hpp"

namespace attn::detail {

double reference_bytes(const Problem& p, bool return_weights);
// float32_logits: refuse (NonFinite) a visible logit beyond float32's range,
// as the fast paths must; it is how they run inputs that fail fast_path_safe.
void reference_attention(const Problem& p, bool return_weights, AttentionResult& r,
                         bool float32_logits = false);

double materialized_bytes(const Problem& p, bool return_weights);
void materialized_attention(const Problem& p, bool return_weights, AttentionResult& r);

double chunked_bytes(const Problem& p, std::size_t block_q, std::size_t block_k);
void chunked_attention(const Problem& p, std::size_t block_q, std::size_t block_k,
                       AttentionResult& r);

}  // namespace attn::detail
