// Build information for the lesson's footer: the xsimd architecture the
// kernels were compiled for and the engine version.
#include <xsimd/xsimd.hpp>

#include "attn/engine.hpp"

namespace attn {

// In WebAssembly xsimd is built for SSE4.1 (-msse4.1), which Emscripten maps onto SIMD128;
// xsimd's own name for that target ("sse4.1") read as a wrong answer to a developer asking
// what the browser runs, so the WebAssembly build names what actually executes.
const char* simd_arch_name() {
#ifdef __EMSCRIPTEN__
  return "wasm-simd128";
#else
  return xsimd::default_arch::name();
#endif
}

std::size_t simd_width() { return xsimd::batch<float>::size; }

const char* version() { return "0.1.0"; }

}  // namespace attn
