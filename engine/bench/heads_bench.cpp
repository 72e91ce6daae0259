// multihead_attention benchmark (issue 15): grouped-query (H_q / H_kv = 4)
// against multi-head attention with the same H_q, causal, chunked, one
// thread. It only uses API that existed before the per-group switch of
// heads.cpp, so the same file builds against an older library for a
// before/after comparison (build-scripts/heads-bench.sh runs both, rounds
// interleaved).
//   - time: thread CPU time of one multihead_attention call, best of runs;
//   - K/V bytes handed to the kernel: calls × S·(d_k + d_v)·4, where calls =
//     H_kv with the per-group switch (--calls-per-group, what this library
//     reports in MultiheadResult::kernel_calls) and H_q without it;
//   - K/V bytes the kernel's tiles read: every scored (query block, key tile)
//     reads block_k rows of K and V: tiles × block_k·(d_k + d_v)·4, tiles of
//     one head from attention() times H_q (a block never straddles two heads
//     when block_q divides L);
//   - before timing, head 0 of each run is compared with attention() on its
//     own rows (max |difference| printed).
// Usage: attn_heads_bench [--heads-q 8] [--n 2048] [--d 64] [--runs 5] [--label x] [--calls-per-group]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <time.h>

#include "attn/engine.hpp"

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t hq = 8, n = 2048, d = 64;
  int runs = 5;
  std::string label = "now";
  bool per_group = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto next = [&] { return a + 1 < argc ? std::string(argv[++a]) : std::string(); };
    if (arg == "--heads-q") hq = std::stoul(next());
    else if (arg == "--n") n = std::stoul(next());
    else if (arg == "--d") d = std::stoul(next());
    else if (arg == "--runs") runs = std::stoi(next());
    else if (arg == "--label") label = next();
    else if (arg == "--calls-per-group") per_group = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  attn::NormalRng rq(42), rk(43), rv(44);
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.variant = attn::Variant::Chunked;
  const attn::Matrix q = attn::random_normal(rq, hq * n, d);
  for (std::size_t hkv : {hq, hq / 4}) {
    const attn::Matrix k = attn::random_normal(rk, hkv * n, d), v = attn::random_normal(rv, hkv * n, d);
    // head 0 alone, for the check and the tile count
    const attn::AttentionResult one =
        attn::attention({q.data.data(), n, d}, {k.data.data(), n, d}, {v.data.data(), n, d}, opt);
    double best = 1e300, diff = 0;
    for (int r = 0; r < runs; ++r) {
      const double t0 = thread_cpu_seconds();
      const attn::MultiheadResult m = attn::multihead_attention(q.view(), k.view(), v.view(), {hq, hkv}, opt);
      best = std::min(best, thread_cpu_seconds() - t0);
      if (r == 0)
        for (std::size_t t = 0; t < n * d; ++t)
          diff = std::max(diff, static_cast<double>(std::fabs(m.out.data[t] - one.out.data[t])));
    }
    const double row = static_cast<double>(n) * 2.0 * static_cast<double>(d) * 4.0;  // S·(d_k+d_v)·4
    const double calls = static_cast<double>(per_group ? hkv : hq);
    const double tile_bytes = static_cast<double>(one.tiles_scored) * static_cast<double>(hq) *
                              static_cast<double>(opt.block_k) * 2.0 * static_cast<double>(d) * 4.0;
    std::printf("%-7s H_q=%zu H_kv=%-2zu L=S=%zu d=%zu  kernel calls %2.0f  K/V to kernel %7.2f MiB  "
                "K/V tile reads %8.1f MiB  %8.2f ms  max|diff| head 0 %.1e\n",
                label.c_str(), hq, hkv, n, d, calls, calls * row / 1048576.0, tile_bytes / 1048576.0,
                best * 1e3, diff);
  }
  return 0;
}
