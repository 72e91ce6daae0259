// Helpers of the multi-head and KV-cache tests: head-major slicing, the
// per-head reference, the error-code check and a budget that restores itself.
#pragma once

#include <string>

#include "helpers.hpp"

namespace test {

// Rows [a, b) of every head of a head-major matrix with `rows` rows per head.
inline attn::Matrix head_slice(const attn::Matrix& m, std::size_t heads, std::size_t rows,
                               std::size_t a, std::size_t b) {
  attn::Matrix out(heads * (b - a), m.cols);
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = a; i < b; ++i)
      for (std::size_t c = 0; c < m.cols; ++c) out.at(h * (b - a) + i - a, c) = m.at(h * rows + i, c);
  return out;
}

// The scalar reference of attention() for one head: a copy of its rows.
inline attn::AttentionResult reference_head(const attn::Matrix& q, const attn::Matrix& k,
                                            const attn::Matrix& v, std::size_t hq, std::size_t hkv,
                                            std::size_t head, attn::AttentionOptions opt) {
  const std::size_t L = q.rows / hq, S = k.rows / hkv, g = head / (hq / hkv);
  opt.variant = attn::Variant::Reference;
  attn::Matrix one(L, q.cols), kh(S, k.cols), vh(S, v.cols);
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t c = 0; c < q.cols; ++c) one.at(i, c) = q.at(head * L + i, c);
  for (std::size_t j = 0; j < S; ++j) {
    for (std::size_t c = 0; c < k.cols; ++c) kh.at(j, c) = k.at(g * S + j, c);
    for (std::size_t c = 0; c < v.cols; ++c) vh.at(j, c) = v.at(g * S + j, c);
  }
  return attn::attention(one.view(), kh.view(), vh.view(), opt);
}

// The ErrorCode f throws (FAIL if none).
template <class F>
std::string code_of(F f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return attn::error_code_name(e.code());
  }
  FAIL("no attn::Error thrown");
  return "";
}

struct Budget {  // sets the budget, restores the default even if a check fails
  explicit Budget(std::size_t bytes) { attn::set_memory_budget(bytes); }
  ~Budget() { attn::set_memory_budget(0); }
};

}  // namespace test
