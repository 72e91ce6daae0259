// Build information: version string and the xsimd architecture in use.
#include <string>

#include "helpers.hpp"

TEST_CASE("version and SIMD architecture") {
  CHECK(std::string(attn::version()) == "0.1.0");
  const std::string arch = attn::simd_arch_name();
#ifdef __EMSCRIPTEN__
  CHECK(arch == "wasm-simd128");  // not xsimd's "sse4.1": -msse4.1 maps onto SIMD128
#else
  CHECK((arch.rfind("sse", 0) == 0 || arch.rfind("avx", 0) == 0 || arch.rfind("fma", 0) == 0));
#endif
}
