// The engine's checks, shared by its .cpp files: typed errors with readable
// messages, input checks, and the memory-budget check done before any large
// allocation. Not part of the public API; shapes as in engine.hpp. (Aligned
// scratch memory is scratch.hpp; the validated request is problem.hpp.)
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/engine.hpp"

namespace attn::detail {

[[noreturn]] void fail(ErrorCode code, const std::string& message);

// NonFinite: a float32 logit of query row i became +inf or NaN although the
// inputs were finite (entries around 1e19 or more).
[[noreturn]] void fail_logit_overflow(const char* fn, std::size_t i);

std::string shape(MatrixView m);   // "4x3"
std::string num(double x);         // compact decimal, e.g. "0.125", "1e+20"
std::string bytes_text(double bytes);  // "134217728 bytes (134.2 MB)"

// ZeroDimension if rows or cols is 0; BadArgument if data is null.
void require_matrix(MatrixView m, const char* fn, const char* name);
// NonFinite naming the first NaN/inf entry as (row, col); else returns the
// largest |entry| (same pass).
float require_finite(MatrixView m, const char* fn, const char* name);
// BadArgument naming the variants (variant_name's table) unless `variant` is one.
void require_variant(Variant variant, const char* fn);
// nullopt -> 1/sqrt(d_k); NonFinite for NaN/inf, BadArgument for <= 0.
float resolve_scale(std::optional<float> scale, std::size_t d_k, const char* fn);

// Bytes of `count` float32 values, in double so that it cannot overflow
// size_t (32 bits on wasm32).
inline double f32_bytes(double count) { return count * 4.0; }
// TooLarge when `bytes` exceeds memory_budget(); call before allocating.
void require_budget(double bytes, const char* fn, const std::string& what);

}  // namespace attn::detail
