// Uninitialized float scratch aligned like attn::Matrix storage, for the
// kernels' tiles and score matrices and the KV cache's rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "attn/engine.hpp"

namespace attn::detail {

// Scratch floats aligned like attn::Matrix storage (CacheLineAllocator: a
// cache line), left uninitialized (the materialized score matrix is written
// before it is read, and zero-filling it would be one more pass over L×S).
constexpr std::size_t cache_line = CacheLineAllocator<float>::alignment;
struct AlignedDelete {
  std::size_t count;
  void operator()(float* p) const { CacheLineAllocator<float>().deallocate(p, count); }
};
using AlignedFloats = std::unique_ptr<float[], AlignedDelete>;
inline AlignedFloats aligned_floats(std::size_t count) {
  return AlignedFloats(CacheLineAllocator<float>().allocate(count), AlignedDelete{count});
}
inline bool is_aligned(const float* p) {
  return reinterpret_cast<std::uintptr_t>(p) % cache_line == 0;
}

}  // namespace attn::detail
