// Native part of build-scripts/bench (engine/bench/bench.mjs drives the rest).
//
// 1. The FMA ceiling of this CPU with the xsimd architecture the engine was
//    compiled for (xsimd::default_arch, the same flags as the engine): K
//    independent chains acc = fma(acc, a, b) over full-width batches, K tried
//    in {8, 12, 16, 24, 32}, the best kept. 2 * lanes flops per FMA. One thread.
// 2. The engine through its public C++ API, L = S = n, d_k = d_v = d:
//    reference (scalar), materialized, causal (materialized kernel), chunked,
//    causal chunked; one thread, and T threads (std::thread) splitting the
//    query rows, each thread calling attn::attention on its slice (row_offset
//    keeps the causal mask global; for causal the split point equalises work,
//    not rows). Every result is compared with the scalar reference first.
//    FLOPs: 4*L*S*d, half of that when causal.
// Time: one thread: CPU time of the calling thread, best of repeated runs
// (the machine may be shared; wall time would count waiting for a core);
// T threads: wall time (steady_clock), best of repeated runs. Both include
// building the output (the engine copies into its result) and, with threads,
// copying each slice's rows into the full output.
// Memory: the engine's scratch_bytes, and the process's peak RSS (VmHWM,
// reset before each measurement through /proc/self/clear_refs; it includes
// the inputs, the reference outputs the bench keeps and the binary itself).
// 3. With --window N:W:NFULL: causal chunked attention with a sliding
//    window of W keys at n = N, and full causal chunked at n = NFULL, one
//    thread each; prints the measured time ratio over the work ratio
//    (N·W) / (NFULL²/2) (1.0 = time grows exactly as the visible pairs).
//    The windowed result is checked row by row against the reference.
// Usage: attn_bench [--sizes 512,2048,4096] [--d 64] [--min-time 0.3]
//                   [--threads 2] [--ceiling-only] [--json FILE]
//                   [--window 131072:4096:16384]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <time.h>

#include <xsimd/xsimd.hpp>

#include "attn/engine.hpp"

namespace {

struct Options {
  std::vector<std::size_t> sizes{512, 2048, 4096};
  std::size_t d = 64;
  double min_time = 0.3;  // seconds of repetitions per measurement; at least min_runs runs
  int min_runs = 3;
  unsigned threads = 2;
  bool ceiling_only = false;
  std::string json;
  // --window N:W:NFULL: causal chunked with a sliding window of W keys at
  // n = N against full causal chunked at n = NFULL (0: not run)
  std::size_t window_n = 0, window = 0, window_full_n = 0;
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

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---------------------------------------------------------------- FMA ceiling
volatile float g_a = 0.99999994f, g_b = 1e-7f;  // volatile: the compiler cannot fold the chains
volatile float g_sink = 0;

template <int K>
double fma_chains_seconds(long iters) {
  using B = xsimd::batch<float>;
  const B a(g_a), b(g_b);
  B acc[K];
  for (int j = 0; j < K; ++j) acc[j] = B(1.0f + 0.001f * j);
  const double start = thread_cpu_seconds();
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (int j = 0; j < K; ++j) acc[j] = xsimd::fma(acc[j], a, b);
  }
  const double s = thread_cpu_seconds() - start;
  B total = acc[0];
  for (int j = 1; j < K; ++j) total += acc[j];
  g_sink = g_sink + xsimd::hadd(total);
  return s;
}

struct Ceiling {
  double gflops = 0;
  int chains = 0;
};

template <int K>
void try_chains(Ceiling& best, double min_time) {
  constexpr double lanes = xsimd::batch<float>::size;
  long iters = 1 << 16;
  while (fma_chains_seconds<K>(iters) < 0.02) iters *= 2;  // about 20 ms per run
  double total = 0, fastest = 1e300;
  for (int r = 0; r < 5 || total < min_time; ++r) {
    const double s = fma_chains_seconds<K>(iters);
    fastest = std::min(fastest, s);
    total += s;
  }
  const double gf = 2.0 * lanes * K * static_cast<double>(iters) / fastest / 1e9;
  if (gf > best.gflops) best = {gf, K};
}

Ceiling fma_ceiling(double min_time) {
  Ceiling best;
  try_chains<8>(best, min_time);
  try_chains<12>(best, min_time);
  try_chains<16>(best, min_time);
  try_chains<24>(best, min_time);
  try_chains<32>(best, min_time);
  return best;
}

// ---------------------------------------------------------------- engine
struct Kernel {
  const char* name;
  attn::Variant variant;
  bool causal;
};
const Kernel kKernels[] = {
    {"reference", attn::Variant::Reference, false},
    {"reference causal", attn::Variant::Reference, true},
    {"materialized", attn::Variant::Materialized, false},
    {"causal", attn::Variant::Materialized, true},
    {"chunked", attn::Variant::Chunked, false},
    {"causal chunked", attn::Variant::Chunked, true},
};

struct Timing {
  double seconds = 1e300;  // best run
  int runs = 0;
  std::size_t scratch_bytes = 0;
  double peak_rss = 0;
  attn::Matrix out;
};

// Query-row split points for T threads: equal rows, or for causal equal work
// (row i costs i + 1 keys), rounded to the engine's default block of 32 rows.
std::vector<std::size_t> split_rows(std::size_t n, unsigned T, bool causal) {
  std::vector<std::size_t> cut{0};
  for (unsigned t = 1; t < T; ++t) {
    const double frac = causal ? std::sqrt(double(t) / T) : double(t) / T;
    std::size_t c = static_cast<std::size_t>(std::lround(frac * n / 32.0)) * 32;
    c = std::min(std::max(c, cut.back()), n);
    cut.push_back(c);
  }
  cut.push_back(n);
  return cut;
}

attn::AttentionResult run_threads(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
                                  const attn::AttentionOptions& opt, unsigned T) {
  const std::size_t n = q.rows, d = q.cols;
  const std::vector<std::size_t> cut = split_rows(n, T, opt.causal);
  std::vector<attn::AttentionResult> parts(T);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < T; ++t) {
    pool.emplace_back([&, t] {
      const std::size_t r0 = cut[t], r1 = cut[t + 1];
      if (r1 <= r0) return;
      attn::AttentionOptions o = opt;
      o.row_offset = r0;
      const attn::MatrixView qs{q.data.data() + r0 * d, r1 - r0, d};
      parts[t] = attn::attention(qs, k.view(), v.view(), o);
    });
  }
  for (auto& th : pool) th.join();
  attn::AttentionResult all;
  all.out = attn::Matrix(n, v.cols);
  for (unsigned t = 0; t < T; ++t) {
    if (cut[t + 1] <= cut[t]) continue;
    std::copy(parts[t].out.data.begin(), parts[t].out.data.end(), all.out.data.begin() + cut[t] * v.cols);
    all.scratch_bytes += parts[t].scratch_bytes;  // both threads' scratch exists at once
  }
  return all;
}

Timing measure(const attn::Matrix& q, const attn::Matrix& k, const attn::Matrix& v,
               const attn::AttentionOptions& opt, unsigned threads, const Options& o, int min_runs) {
  Timing t;
  reset_peak_rss();
  double total = 0;
  while (t.runs < min_runs || total < o.min_time) {
    attn::AttentionResult r;
    double s;
    if (threads == 1) {
      const double start = thread_cpu_seconds();
      r = attn::attention(q.view(), k.view(), v.view(), opt);
      s = thread_cpu_seconds() - start;
    } else {
      const double start = wall_seconds();
      r = run_threads(q, k, v, opt, threads);
      s = wall_seconds() - start;
    }
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
  if (a.data.size() != b.data.size()) return INFINITY;
  double m = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double diff = std::fabs(double(a.data[i]) - b.data[i]);
    if (!(diff <= m)) m = std::isnan(diff) ? INFINITY : diff;
  }
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
    else if (a == "--window" && has_value) {
      const std::string spec = argv[++i];
      const std::size_t c1 = spec.find(':'), c2 = spec.rfind(':');
      if (c1 == std::string::npos || c2 == c1) {
        std::fprintf(stderr, "--window expects N:W:NFULL, e.g. 131072:4096:16384\n");
        std::exit(2);
      }
      o.window_n = std::stoul(spec.substr(0, c1));
      o.window = std::stoul(spec.substr(c1 + 1, c2 - c1 - 1));
      o.window_full_n = std::stoul(spec.substr(c2 + 1));
    } else if (a == "--threads" && has_value) o.threads = static_cast<unsigned>(std::stoul(argv[++i]));
    else if (a == "--ceiling-only") o.ceiling_only = true;
    else if (a == "--json" && has_value) o.json = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--sizes 512,2048,4096] [--d 64] [--min-time 0.3] [--threads 2] "
                   "[--ceiling-only] [--json FILE] [--window N:W:NFULL]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  return o;
}

constexpr double MiB = 1024.0 * 1024.0;
// Results within this distance of the scalar reference are accepted (float32
// kernels against a double-accumulating reference, |out| <= max|v| ~ 4).
constexpr double kTolerance = 1e-3;

// Section 3 (see the top). Returns the number of wrong results (0 or 1).
int window_rows(const Options& o) {
  const std::size_t n = o.window_n, w = o.window, nf = o.window_full_n, d = o.d;
  attn::AttentionOptions opt;
  opt.causal = true;
  opt.variant = attn::Variant::Chunked;
  attn::NormalRng rq(42), rk(43), rv(44);
  attn::Matrix q = attn::random_normal(rq, nf, d), k = attn::random_normal(rk, nf, d),
               v = attn::random_normal(rv, nf, d);
  const Timing full = measure(q, k, v, opt, 1, o, o.min_runs);
  const attn::AttentionResult full_r = attn::attention(q.view(), k.view(), v.view(), opt);
  attn::NormalRng wq(42), wk(43), wv(44);
  q = attn::random_normal(wq, n, d), k = attn::random_normal(wk, n, d), v = attn::random_normal(wv, n, d);
  opt.window = w;
  const Timing win = measure(q, k, v, opt, 1, o, 2);
  const attn::AttentionResult win_r = attn::attention(q.view(), k.view(), v.view(), opt);
  // rows spread over the sequence, each against the reference (one row, row_offset = its index)
  double diff = 0;
  for (std::size_t i : {std::size_t(0), w - 1, w, n / 2 + 7, n - 1}) {
    if (i >= n) continue;
    attn::AttentionOptions ref = opt;
    ref.variant = attn::Variant::Reference;
    ref.row_offset = i;
    const attn::AttentionResult r = attn::attention({q.data.data() + i * d, 1, d}, k.view(), v.view(), ref);
    for (std::size_t c = 0; c < v.cols; ++c)
      diff = std::max(diff, std::fabs(double(r.out.at(0, c)) - win_r.out.at(i, c)));
  }
  const double work = (double(n) * double(w)) / (double(nf) * double(nf) / 2.0);
  const double pairs = attn::visible_pairs(n, n, opt);
  opt.window = 0;
  const double pairs_full = attn::visible_pairs(nf, nf, opt);
  std::printf("\nsliding window, causal chunked, d = %zu, 1 thread (CPU time, best of %d / %d runs):\n", d, full.runs,
              win.runs);
  std::printf("  full causal n = %zu: %.1f ms, %zu tiles scored, scratch %.2f MiB\n", nf, full.seconds * 1e3,
              full_r.tiles_scored, full.scratch_bytes / MiB);
  std::printf("  window w = %zu, n = %zu: %.1f ms, %zu tiles scored, scratch %.2f MiB, max|diff| %.1e (5 rows)\n", w, n,
              win.seconds * 1e3, win_r.tiles_scored, win.scratch_bytes / MiB, diff);
  std::printf("  time ratio %.3f; (n·w)/(n_full²/2) = %.3f; measured / predicted = %.2f"
              " (visible pairs ratio %.3f, tiles ratio %.3f)\n",
              win.seconds / full.seconds, work, win.seconds / full.seconds / work, pairs / pairs_full,
              double(win_r.tiles_scored) / double(full_r.tiles_scored));
  return diff <= kTolerance ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const bool rss_ok = reset_peak_rss();

  const Ceiling ceil = fma_ceiling(o.min_time);
  std::printf("native FMA ceiling: %.1f GFLOP/s (xsimd %s, %zu float lanes, %d independent fma chains, 1 thread)\n",
              ceil.gflops, xsimd::default_arch::name(), std::size_t(xsimd::batch<float>::size), ceil.chains);
  std::fflush(stdout);

  std::ostringstream json;
  json << "{\"simd\":\"" << attn::simd_arch_name() << "\",\"d\":" << o.d << ",\"threads\":" << o.threads
       << ",\"peakRssResettable\":" << (rss_ok ? "true" : "false") << ",\"ceiling\":{\"gflops\":" << ceil.gflops
       << ",\"arch\":\"" << xsimd::default_arch::name() << "\",\"lanes\":" << xsimd::batch<float>::size
       << ",\"chains\":" << ceil.chains << "},\"rows\":[";
  bool first = true;
  int wrong = 0;
  if (!o.ceiling_only) {
    std::printf("%6s %-17s %3s %10s %9s %7s %12s %10s %9s %5s\n", "n", "kernel", "thr", "ms", "GFLOP/s", "%ceil",
                "scratch MiB", "peak MiB", "max|diff|", "runs");
    for (std::size_t n : o.sizes) {
      attn::NormalRng rq(42), rk(43), rv(44);  // the same inputs as the browser run
      const attn::Matrix q = attn::random_normal(rq, n, o.d);
      const attn::Matrix k = attn::random_normal(rk, n, o.d);
      const attn::Matrix v = attn::random_normal(rv, n, o.d);
      attn::Matrix ref[2];  // [causal]
      for (const Kernel& kern : kKernels) {
        const bool is_ref = kern.variant == attn::Variant::Reference;
        for (unsigned threads : {1u, o.threads}) {
          if (threads < 1 || (threads != 1 && (is_ref || o.threads == 1))) continue;
          attn::AttentionOptions opt;
          opt.causal = kern.causal;
          opt.variant = kern.variant;
          // Correctness first: one untimed run compared with the reference.
          double diff = 0;
          if (!is_ref) {
            const attn::Matrix out = threads == 1 ? attn::attention(q.view(), k.view(), v.view(), opt).out
                                                  : run_threads(q, k, v, opt, threads).out;
            diff = max_abs_diff(out, ref[kern.causal]);
          }
          const bool ok = diff <= kTolerance;
          Timing t;
          if (ok) t = measure(q, k, v, opt, threads, o, is_ref ? 1 : o.min_runs);
          if (is_ref) ref[kern.causal] = t.out;
          const double flops = 4.0 * n * n * o.d * (kern.causal ? 0.5 : 1.0);
          const double gf = flops / t.seconds / 1e9;
          if (ok) {
            std::printf("%6zu %-17s %3u %10.3f %9.2f %6.1f%% %12.2f %10.1f %9.1e %5d\n", n, kern.name, threads,
                        t.seconds * 1e3, gf, 100.0 * gf / ceil.gflops, t.scratch_bytes / MiB, t.peak_rss / MiB, diff,
                        t.runs);
          } else {
            ++wrong;
            std::printf("%6zu %-17s %3u   WRONG RESULT: max|diff| %.3e > %.0e against the reference; not timed\n", n,
                        kern.name, threads, diff, kTolerance);
          }
          std::fflush(stdout);
          json << (first ? "" : ",") << "{\"n\":" << n << ",\"kernel\":\"" << kern.name << "\",\"threads\":" << threads
               << ",\"ok\":" << (ok ? "true" : "false") << ",\"maxAbsDiff\":" << (std::isfinite(diff) ? diff : -1);
          if (ok)
            json << ",\"seconds\":" << t.seconds << ",\"gflops\":" << gf << ",\"timing\":\""
                 << (threads == 1 ? "thread-cpu" : "wall") << "\",\"runs\":" << t.runs
                 << ",\"scratchBytes\":" << t.scratch_bytes << ",\"peakRssBytes\":" << t.peak_rss;
          json << "}";
          first = false;
        }
      }
    }
  }
  json << "]}\n";
  if (o.window_n > 0) wrong += window_rows(o);
  if (!o.json.empty()) std::ofstream(o.json) << json.str();
  return wrong ? 1 : 0;
}
