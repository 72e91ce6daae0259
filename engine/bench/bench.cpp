// Native benchmark of the attention kernels: GFLOP/s and memory of the
// materialized, causal (materialized kernel) and chunked variants against the
// scalar reference, L = S = n for n in {128, 512, 2048, 4096}, d_k = d_v = 64.
// FLOPs: 4*L*S*d (q.k and the weighted sum of v), half of that when causal.
// Time: CPU time of the calling thread, best of repeated runs (the machine is
// shared; wall time would count the time spent waiting for a core).
// Memory: the engine's scratch_bytes, and the process's peak RSS (VmHWM,
// reset before each kernel through /proc/self/clear_refs). Not a test.
// Usage: attn_bench [--sizes 128,512] [--d 64] [--min-time 0.3] [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "attn/engine.hpp"

namespace {

struct Options {
  std::vector<std::size_t> sizes{128, 512, 2048, 4096};
  std::size_t d = 64;
  double min_time = 0.3;  // seconds of repetitions per measurement; at least one run
  std::string json;
};

struct Timing {
  double seconds = 0;  // best run
  int runs = 0;
  std::size_t scratch_bytes = 0;
  double peak_rss = 0;  // bytes, VmHWM during the runs
  attn::Matrix out;
};

// VmHWM / VmRSS from /proc/self/status, in bytes (0 if unavailable).
double proc_status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::atof(line.c_str() + prefix.size()) * 1024.0;
  return 0;
}

// Resets the peak-RSS counter (VmHWM) to the current RSS. Linux >= 4.0.
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

Timing measure(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
               const attn::AttentionOptions& opt, double min_time) {
  Timing t;
  reset_peak_rss();
  double total = 0;
  t.seconds = 1e300;
  while (t.runs == 0 || total < min_time) {
    const double start = thread_cpu_seconds();
    attn::AttentionResult r = attn::attention(q.view(), k.view(), v.view(), opt);
    const double s = thread_cpu_seconds() - start;
    t.seconds = std::min(t.seconds, s);
    total += s;
    ++t.runs;
    t.scratch_bytes = r.scratch_bytes;
    t.out = std::move(r.out);
  }
  t.peak_rss = proc_status_bytes("VmHWM");
  return t;
}

double max_abs_diff(const attn::Matrix& a, const attn::Matrix& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(double(a.data[i]) - b.data[i]));
  return m;
}

std::vector<std::size_t> parse_sizes(const std::string& s) {
  std::vector<std::size_t> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::stoul(item));
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--sizes" && has_value) o.sizes = parse_sizes(argv[++i]);
    else if (a == "--d" && has_value) o.d = std::stoul(argv[++i]);
    else if (a == "--min-time" && has_value) o.min_time = std::atof(argv[++i]);
    else if (a == "--json" && has_value) o.json = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--sizes 128,512,2048,4096] [--d 64] [--min-time 0.3] [--json FILE]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

constexpr double MiB = 1024.0 * 1024.0;

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const bool rss_ok = reset_peak_rss();
  std::printf("native attention benchmark: simd=%s, d=%zu, thread CPU time, best of >= %.2f s per cell%s\n",
              attn::simd_arch_name(), o.d, o.min_time, rss_ok ? "" : " (peak RSS not resettable: cumulative)");
  std::printf("%6s %-13s %10s %9s %10s %9s %8s %12s %10s %9s\n", "n", "kernel", "simd ms", "GFLOP/s",
              "ref ms", "GFLOP/s", "speedup", "scratch MiB", "peak MiB", "max|diff|");

  struct Kernel { const char* name; attn::Variant variant; bool causal; };
  const Kernel kernels[] = {{"materialized", attn::Variant::Materialized, false},
                            {"causal", attn::Variant::Materialized, true},
                            {"chunked", attn::Variant::Chunked, false}};

  std::ostringstream json;
  json << "{\"simd\":\"" << attn::simd_arch_name() << "\",\"d\":" << o.d << ",\"rows\":[";
  bool first = true;
  for (std::size_t n : o.sizes) {
    // Same inputs as bench.mjs: seeds 42, 43, 44 for q, k, v.
    attn::NormalRng rq(42), rk(43), rv(44);
    const attn::Matrix q = attn::random_normal(rq, n, o.d);
    const attn::Matrix k = attn::random_normal(rk, n, o.d);
    const attn::Matrix v = attn::random_normal(rv, n, o.d);
    Timing ref_full, ref_causal;  // the reference is measured once per mask and shared
    bool have_full = false, have_causal = false;
    for (const Kernel& kern : kernels) {
      attn::AttentionOptions opt;
      opt.causal = kern.causal;
      opt.variant = kern.variant;
      const Timing simd = measure(q, k, v, opt, o.min_time);
      bool& have = kern.causal ? have_causal : have_full;
      Timing& ref = kern.causal ? ref_causal : ref_full;
      if (!have) {
        opt.variant = attn::Variant::Reference;
        ref = measure(q, k, v, opt, o.min_time);
        have = true;
      }
      const double flops = 4.0 * n * n * o.d * (kern.causal ? 0.5 : 1.0);
      const double gf = flops / simd.seconds / 1e9, gf_ref = flops / ref.seconds / 1e9;
      const double diff = max_abs_diff(simd.out, ref.out);
      std::printf("%6zu %-13s %10.3f %9.2f %10.3f %9.2f %7.1fx %12.2f %10.1f %9.1e\n", n, kern.name,
                  simd.seconds * 1e3, gf, ref.seconds * 1e3, gf_ref, gf / gf_ref, simd.scratch_bytes / MiB,
                  simd.peak_rss / MiB, diff);
      std::fflush(stdout);
      json << (first ? "" : ",") << "{\"n\":" << n << ",\"kernel\":\"" << kern.name << "\",\"simdSeconds\":"
           << simd.seconds << ",\"simdGflops\":" << gf << ",\"refSeconds\":" << ref.seconds
           << ",\"refGflops\":" << gf_ref << ",\"scratchBytes\":" << simd.scratch_bytes
           << ",\"refScratchBytes\":" << ref.scratch_bytes << ",\"peakRssBytes\":" << simd.peak_rss
           << ",\"maxAbsDiff\":" << diff << "}";
      first = false;
    }
  }
  json << "]}\n";
  if (!o.json.empty()) {
    std::ofstream(o.json) << json.str();
  }
  return 0;
}
