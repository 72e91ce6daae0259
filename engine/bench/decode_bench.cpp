// Decode-step benchmark (issue 15, Performance): one KvCache::decode_step
// against S cached rows per KV head, d_k = d_v = d, H_q query heads, for
// H_kv = H_q (multi-head) and H_kv = H_q / 4 (grouped-query), next to a
// memory-copy ceiling measured in the same run. Native, one thread.
//   - memcpy ceiling: std::memcpy of a buffer far larger than the caches
//     (256 MiB), best of runs; reported as bytes copied per second (each byte
//     is read once and written once, so the read stream alone could be up to
//     2x faster: this is a ceiling for a kernel that reads, not a tight bound);
//   - decode: the cache has a window of S rows and is filled to S, so every
//     step attends exactly S rows (the ring buffer overwrites the oldest row);
//     K/V bytes read per step = attn::kv_bytes_read({H_q, H_kv}, S, d, d);
//     bytes/s = that / the step's time (best of runs, thread CPU time);
//   - the same step through attention() with the chunked kernel (one-pass
//     online softmax) on the cache's rows, per KV group, for comparison with
//     the decode kernel's two passes over the logits;
//   - before timing, one step is compared with the double reference
//     (attention()'s, on the cache's rows: max |difference| in the table).
// Usage: attn_decode_bench [--rows 32768] [--d 128] [--heads-q 32] [--min-time 0.5]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>

#include "attn/engine.hpp"

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Best time of f() over at least 3 runs and min_time seconds in total.
template <class F>
double best_seconds(F&& f, double min_time) {
  double best = 1e300, total = 0;
  for (int r = 0; r < 3 || total < min_time; ++r) {
    const double start = thread_cpu_seconds();
    f();
    const double s = thread_cpu_seconds() - start;
    best = std::min(best, s);
    total += s;
  }
  return best;
}

// Cheap deterministic values in [-1, 1) (a 32-bit xorshift): filling 1 GiB
// with NormalRng would take longer than the whole benchmark.
void fill(std::vector<float>& x, std::uint32_t seed) {
  std::uint32_t s = seed * 2654435761u + 1;
  for (float& f : x) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    f = static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
  }
}

volatile float g_sink = 0;

double memcpy_ceiling(double min_time) {
  const std::size_t n = 64u << 20;  // floats: 256 MiB
  std::vector<float> a(n), b(n);
  fill(a, 1);
  std::fill(b.begin(), b.end(), 0.0f);  // touch every page before timing
  const double s = best_seconds([&] { std::memcpy(b.data(), a.data(), n * sizeof(float)); g_sink = g_sink + b[n / 2]; },
                                min_time);
  return static_cast<double>(n * sizeof(float)) / s;
}

struct Row {
  double seconds = 0, chunked_seconds = 0, bytes = 0, max_diff = 0;
};

Row run(std::size_t hq, std::size_t hkv, std::size_t S, std::size_t d, double min_time) {
  attn::KvCache cache(hkv, d, d, S);
  {  // prefill S rows per head, in pieces of 4096 rows (bounded temporary memory)
    const std::size_t piece = std::min<std::size_t>(4096, S);
    std::vector<float> k(hkv * piece * d), v(hkv * piece * d);
    for (std::size_t done = 0; done < S; done += piece) {
      fill(k, static_cast<std::uint32_t>(done + 7));
      fill(v, static_cast<std::uint32_t>(done + 11));
      cache.prefill({k.data(), hkv * piece, d}, {v.data(), hkv * piece, d});
    }
  }
  std::vector<float> q(hq * d), k_new(hkv * d), v_new(hkv * d);
  fill(q, 3);
  fill(k_new, 5);
  fill(v_new, 9);
  const attn::MatrixView qv{q.data(), hq, d}, kv{k_new.data(), hkv, d}, vv{v_new.data(), hkv, d};

  Row row;
  row.bytes = attn::kv_bytes_read({hq, hkv}, S, d, d);
  {  // correctness first: one fast step against the double reference on the state it saw
    const attn::AttentionResult a = cache.decode_step(qv, kv, vv, {});
    attn::AttentionOptions ref;
    ref.variant = attn::Variant::Reference;
    const std::size_t G = hq / hkv;
    for (std::size_t g = 0; g < hkv; ++g) {
      const attn::MatrixView qg{q.data() + g * G * d, G, d};
      const attn::AttentionResult b = attn::attention(qg, cache.k(g), cache.v(g), ref);
      for (std::size_t i = 0; i < b.out.data.size(); ++i)
        row.max_diff = std::max(row.max_diff, static_cast<double>(std::fabs(b.out.data[i] - a.out.data[g * G * d + i])));
    }
  }
  row.seconds = best_seconds([&] { g_sink = g_sink + cache.decode_step(qv, kv, vv, {}).out.data[0]; }, min_time);

  // the chunked kernel (online softmax) on the same rows, one attention() per KV group
  attn::AttentionOptions chunked;
  chunked.variant = attn::Variant::Chunked;
  chunked.block_q = hq / hkv;
  chunked.block_k = 256;
  row.chunked_seconds = best_seconds(
      [&] {
        for (std::size_t g = 0; g < hkv; ++g) {
          const attn::MatrixView qg{q.data() + g * (hq / hkv) * d, hq / hkv, d};
          g_sink = g_sink + attn::attention(qg, cache.k(g), cache.v(g), chunked).out.data[0];
        }
      },
      min_time);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t S = 32768, d = 128, hq = 32;
  double min_time = 0.5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const double x = std::atof(argv[i + 1]);
    if (a == "--rows") S = static_cast<std::size_t>(x);
    else if (a == "--d") d = static_cast<std::size_t>(x);
    else if (a == "--heads-q") hq = static_cast<std::size_t>(x);
    else if (a == "--min-time") min_time = x;
    else {
      std::fprintf(stderr, "usage: attn_decode_bench [--rows 32768] [--d 128] [--heads-q 32] [--min-time 0.5]\n");
      return 2;
    }
  }
  const double ceiling = memcpy_ceiling(min_time);
  std::printf("memcpy ceiling: %.2f GB/s (256 MiB copied, best of runs, 1 thread; xsimd %s)\n", ceiling / 1e9,
              attn::simd_arch_name());
  std::printf("decode step, S = %zu cached rows, d_k = d_v = %zu, H_q = %zu:\n", S, d, hq);
  std::printf("%-16s %14s %10s %10s %9s %12s %10s\n", "heads", "K/V bytes", "ms/step", "GB/s", "% memcpy",
              "chunked ms", "max diff");
  double mha_ms = 0, mha_bytes = 0;
  for (std::size_t hkv : {hq, hq / 4}) {
    if (hkv == 0 || hq % hkv != 0) continue;
    const Row r = run(hq, hkv, S, d, min_time);
    const double bps = r.bytes / r.seconds;
    char label[32];
    std::snprintf(label, sizeof label, "%zu/%zu %s", hq, hkv, hkv == hq ? "MHA" : "GQA");
    std::printf("%-16s %14.0f %10.3f %10.2f %8.1f%% %12.3f %10.2e\n", label, r.bytes, r.seconds * 1e3, bps / 1e9,
                100.0 * bps / ceiling, r.chunked_seconds * 1e3, r.max_diff);
    if (hkv == hq) {
      mha_ms = r.seconds * 1e3;
      mha_bytes = r.bytes;
    } else if (mha_ms > 0) {
      std::printf("GQA %zu/%zu vs MHA: %.2fx fewer K/V bytes, %.2fx the time per step\n", hq, hkv, mha_bytes / r.bytes,
                  r.seconds * 1e3 / mha_ms);
    }
  }
  return 0;
}
