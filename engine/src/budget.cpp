// The per-call memory budget: how many bytes one call may allocate for its
// own work. Default: 4 GiB minus the wasm heap already in use under
// Emscripten (wasm32 addresses at most 4 GiB), 8 GiB natively.
#include <atomic>
#include <cstdint>
#include <limits>

#include "checks.hpp"

#ifdef __EMSCRIPTEN__
#include <unistd.h>  // sbrk
#endif

namespace attn {
namespace {

std::atomic<std::size_t> g_override{0};  // 0: use the default

std::size_t default_budget() {
  constexpr std::uint64_t gib = 1024ull * 1024ull * 1024ull;
#ifdef __EMSCRIPTEN__
  // sbrk(0) is the top of the heap in use; everything above it, up to 4 GiB,
  // is what memory growth can still give us.
  const std::uint64_t used = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uint64_t total = 4 * gib;
  const std::uint64_t left = used < total ? total - used : 0;
#else
  const std::uint64_t left = 8 * gib;
#endif
  const std::uint64_t cap = std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(left < cap ? left : cap);
}

}  // namespace

std::size_t memory_budget() {
  const std::size_t b = g_override.load();
  return b != 0 ? b : default_budget();
}

void set_memory_budget(std::size_t bytes) { g_override.store(bytes); }

namespace detail {

void require_budget(double bytes, const char* fn, const std::string& what) {
  const double budget = static_cast<double>(memory_budget());
  if (!(bytes <= budget))
    fail(ErrorCode::TooLarge, std::string(fn) + ": " + what + " needs " + bytes_text(bytes) +
                                  ", more than the memory budget of " + bytes_text(budget));
}

}  // namespace detail
}  // namespace attn
