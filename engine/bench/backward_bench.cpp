// Chunked (FlashAttention-2) against materialized attention backward, one
// thread, float32, causal, d = 64, at the lengths given on the command line
// (default 64, 128, ..., 4096): median thread CPU time of a few calls (the
// machine is shared; wall time would count waiting for a core), the time
// ratio materialized / chunked, and the scratch bytes each call reports
// (AttentionGradients::scratch_bytes: the chunked backward's tiles and row
// terms, the materialized one's n×n weights and their gradient). Both are
// checked against each other first (max |dQ|, |dK|, |dV| difference).
// Usage: attn_backward_bench [--json FILE] [n ...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <time.h>

#include "attn/train.hpp"

namespace {

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double median_ms(const std::function<void()>& call, int reps) {
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const double t0 = thread_cpu_ms();
    call();
    ms.push_back(thread_cpu_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double max_diff(const attn::Matrix& a, const attn::Matrix& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(static_cast<double>(a.data[i]) - b.data[i]));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> lengths;
  std::string json;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--json" && a + 1 < argc) json = argv[++a];
    else lengths.push_back(std::strtoul(argv[a], nullptr, 10));
  }
  if (lengths.empty()) lengths = {64, 128, 256, 512, 1024, 2048, 4096};
  const std::size_t d = 64;
  std::string rows;
  std::printf("n\tchunked_ms\tmaterialized_ms\tratio_mat/chunked\tchunked_scratch_bytes\tmaterialized_scratch_bytes\tmax_diff\n");
  for (std::size_t n : lengths) {
    attn::NormalRng rng(n);
    const attn::Matrix q = attn::random_normal(rng, n, d), k = attn::random_normal(rng, n, d),
                       v = attn::random_normal(rng, n, d), g = attn::random_normal(rng, n, d);
    attn::AttentionOptions opt;
    opt.causal = true;
    opt.variant = attn::Variant::Chunked;
    const attn::AttentionForwardLse f = attn::attention_forward_lse(q.view(), k.view(), v.view(), opt);
    auto run = [&](attn::Variant variant) {
      opt.variant = variant;
      return attn::attention_backward(q.view(), k.view(), v.view(), f.out.view(), f.lse, g.view(), opt);
    };
    const attn::AttentionGradients gc = run(attn::Variant::Chunked), gm = run(attn::Variant::Materialized);
    const double diff = std::max({max_diff(gc.dq, gm.dq), max_diff(gc.dk, gm.dk), max_diff(gc.dv, gm.dv)});
    const int reps = n >= 2048 ? 5 : n >= 512 ? 9 : 31;
    const double ms_c = median_ms([&] { run(attn::Variant::Chunked); }, reps);
    const double ms_m = median_ms([&] { run(attn::Variant::Materialized); }, reps);
    std::printf("%zu\t%.3f\t%.3f\t%.2f\t%zu\t%zu\t%.2g\n", n, ms_c, ms_m, ms_m / ms_c, gc.scratch_bytes,
                gm.scratch_bytes, diff);
    std::fflush(stdout);
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s{\"n\":%zu,\"chunkedMs\":%.4f,\"materializedMs\":%.4f,\"chunkedScratchBytes\":%zu,"
                  "\"materializedScratchBytes\":%zu,\"maxDiff\":%.3g}",
                  rows.empty() ? "" : ",", n, ms_c, ms_m, gc.scratch_bytes, gm.scratch_bytes, diff);
    rows += buf;
  }
  if (!json.empty()) std::ofstream(json) << "{\"d\":" << d << ",\"causal\":true,\"rows\":[" << rows << "]}\n";
  return 0;
}
