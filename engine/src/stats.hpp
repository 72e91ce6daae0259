// Per-row statistics of attention weights, shared by row_stats and the
// experiment: entropy in nats and the Frobenius norm of the softmax Jacobian.
// p: (n), a weights row (sums to 1, or all zero for a masked row).
#pragma once

#include <cstddef>

namespace attn::detail {

double row_entropy(const float* p, std::size_t n);    // -Σ p ln p, 0 for an all-zero row
double jacobian_norm(const float* p, std::size_t n);  // ||diag(p) - p pᵀ||_F, no checks

}  // namespace attn::detail
