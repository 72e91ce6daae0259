// Native training speed of the character model (issue 23's performance rows),
// one thread: CharModel::train_step on a batch of B sequences of T characters
// (random ids, which cost the same as text), thread CPU time per step (the
// machine is shared; wall time would count waiting for a core), median of
// the timed steps after a few warm-up steps. Prints tokens/s and GFLOP/s with
// the FLOP count of engine/bench/README.md ("Training FLOPs"):
//   forward per sequence = 2·T·(12·layers·C² + V·C) + layers·2·C·T·(T+1)
//   (the matrix products with the weights, the tied output projection, and
//   causal attention's QKᵀ and PV over the T(T+1)/2 visible pairs),
//   training step = 3 × forward (backward ≈ 2 × forward; the chunked
//   backward's recomputed scores are not counted, as in "model FLOPs").
// Also the forward with all attention maps of one text of T characters
// (CharModel::forward), median ms. The FMA ceiling is attn_bench --ceiling-only's.
// Usage: attn_train_bench [--steps 30] [--warmup 3] [--batch 16] [--context 64]
//                         [--width 64] [--layers 2] [--heads 4] [--vocab 67] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
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

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

// FLOPs of one training step (see the header comment).
double train_flops(double B, double T, double C, double V, double layers) {
  const double forward = 2.0 * T * (12.0 * layers * C * C + V * C) + layers * 2.0 * C * T * (T + 1.0);
  return 3.0 * B * forward;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {{"--steps", "30"}, {"--warmup", "3"}, {"--batch", "16"},
                                          {"--context", "64"}, {"--width", "64"}, {"--layers", "2"},
                                          {"--heads", "4"}, {"--vocab", "67"}, {"--json", ""}};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!a.count(argv[i])) {
      std::fprintf(stderr, "attn_train_bench: unknown option %s\n", argv[i]);
      return 2;
    }
    a[argv[i]] = argv[i + 1];
  }
  attn::CharModelConfig c;
  c.vocab = std::stoul(a["--vocab"]), c.context = std::stoul(a["--context"]);
  c.width = std::stoul(a["--width"]), c.layers = std::stoul(a["--layers"]);
  c.heads = std::stoul(a["--heads"]), c.kv_heads = c.heads, c.seed = 1;
  const std::size_t B = std::stoul(a["--batch"]), T = c.context;
  const std::size_t steps = std::stoul(a["--steps"]), warmup = std::stoul(a["--warmup"]);
  attn::TrainingConfig t;
  t.total_steps = warmup + steps;
  attn::CharModel model(c, t);

  attn::NormalRng rng(7);
  std::vector<std::uint32_t> in(B * T), out(B * T);
  auto fill = [&] {
    for (std::size_t i = 0; i < B * T; ++i)
      in[i] = static_cast<std::uint32_t>(rng.next_u64() % c.vocab), out[i] = static_cast<std::uint32_t>(rng.next_u64() % c.vocab);
  };
  std::vector<double> cpu, wall;
  double first_loss = 0;
  for (std::size_t s = 0; s < warmup + steps; ++s) {
    fill();
    const double c0 = thread_cpu_ms();
    const auto w0 = std::chrono::steady_clock::now();
    const double loss = model.train_step(in, out, B);
    const double c1 = thread_cpu_ms();
    if (s == 0) first_loss = loss;
    if (s >= warmup) {
      cpu.push_back(c1 - c0);
      wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
    }
  }
  const double ms = median(cpu), ms_wall = median(wall);
  const double flops = train_flops(B, T, c.width, c.vocab, c.layers);
  const double tokens_per_s = static_cast<double>(B * T) / (ms * 1e-3);
  const double gflops = flops / (ms * 1e-3) / 1e9;

  // forward with every layer's and head's attention weights, one text of T characters
  std::vector<std::uint32_t> text(T);
  for (std::size_t i = 0; i < T; ++i) text[i] = static_cast<std::uint32_t>(rng.next_u64() % c.vocab);
  std::vector<double> fwd;
  for (int r = 0; r < 50; ++r) {
    const double c0 = thread_cpu_ms();
    const attn::CharModelForward f = model.forward(text);
    fwd.push_back(thread_cpu_ms() - c0);
    if (f.attention.size() != c.layers) return 1;
  }
  const double fwd_ms = median(fwd);

  std::printf("char model: vocab %zu, context %zu, width %zu, layers %zu, heads %zu: %zu parameters\n", c.vocab,
              c.context, c.width, c.layers, c.heads, attn::char_model_parameter_count(c));
  std::printf("train step, batch %zux%zu (first loss %.4f): median %.2f ms thread CPU (%.2f ms wall) over %zu steps\n",
              B, T, first_loss, ms, ms_wall, steps);
  std::printf("  %.0f tokens/s, %.4f GFLOP per step, %.2f GFLOP/s\n", tokens_per_s, flops / 1e9, gflops);
  std::printf("forward with all attention maps, %zu characters: median %.3f ms thread CPU (50 runs)\n", T, fwd_ms);
  if (!a["--json"].empty()) {
    std::ofstream j(a["--json"]);
    j << "{\"parameters\":" << attn::char_model_parameter_count(c) << ",\"batch\":" << B << ",\"context\":" << T
      << ",\"steps\":" << steps << ",\"stepMs\":" << ms << ",\"stepMsWall\":" << ms_wall
      << ",\"tokensPerSecond\":" << tokens_per_s << ",\"flopsPerStep\":" << flops << ",\"gflops\":" << gflops
      << ",\"firstLoss\":" << first_loss << ",\"forwardAttentionMs\":" << fwd_ms << "}\n";
  }
  return 0;
}
