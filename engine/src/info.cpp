// Build information for the lesson's footer: the xsimd architecture the
// kernels were compiled for and the engine version.
#include <xsimd/xsimd.hpp>

#include "attn/engine.hpp"

namespace attn {

const char* simd_arch_name() { return xsimd::default_arch::name(); }

std::size_t simd_width() { return xsimd::batch<float>::size; }

const char* version() { return "0.1.0"; }

}  // namespace attn
