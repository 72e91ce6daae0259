// Chunked (FlashAttention-2) against materialized attention backward, one
// thread, float32: median time of a few calls and the scratch bytes each
// reports, causal, d = 64, at the lengths given on the command line
// (default 256 and 1024). Usage: attn_backward_bench [n ...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "attn/train.hpp"

namespace {

double median_ms(const std::function<void()>& call, int reps) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> lengths;
  for (int a = 1; a < argc; ++a) lengths.push_back(std::strtoul(argv[a], nullptr, 10));
  if (lengths.empty()) lengths = {256, 1024};
  const std::size_t d = 64;
  std::printf("n\tvariant\tms\tscratch_bytes\n");
  for (std::size_t n : lengths) {
    attn::NormalRng rng(n);
    const attn::Matrix q = attn::random_normal(rng, n, d), k = attn::random_normal(rng, n, d),
                       v = attn::random_normal(rng, n, d), g = attn::random_normal(rng, n, d);
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.variant = attn::Variant::Chunked;
    const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
    for (attn::Variant variant : {attn::Variant::Chunked, attn::Variant::Materialized}) {
      opt.variant = variant;
      std::size_t scratch = 0;
      const double ms = median_ms(
          [&] {
            scratch = attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse,
                                               g.view(), opt)
                          .scratch_bytes;
          },
          n >= 1024 ? 5 : 15);
      std::printf("%zu\t%s\t%.3f\t%zu\n", n, variant == attn::Variant::Chunked ? "chunked" : "materialized",
                  ms, scratch);
    }
  }
  return 0;
}
