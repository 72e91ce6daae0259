// CharModelDecoder and sample() of char_sampling.hpp: the model's forward
// for one new row per step, with attention through one KvCache per layer.
// The arithmetic per row mirrors run() in char_model.cpp (same layer
// functions, same order), so cached and full forwards agree to rounding.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "attn/char_sampling.hpp"
#include "char_model_layout.hpp"
#include "checks.hpp"

namespace attn {
namespace {

using detail::fail;

// Softmax in double (as run() does for probabilities), written as float.
std::vector<float> softmax(const std::vector<float>& z) {
  const double m = *std::max_element(z.begin(), z.end());
  double sum = 0.0;
  for (float x : z) sum += std::exp(x - m);
  std::vector<float> p(z.size());
  for (std::size_t c = 0; c < z.size(); ++c) p[c] = static_cast<float>(std::exp(z[c] - m) / sum);
  return p;
}

}  // namespace

CharModelDecoder::CharModelDecoder(const CharModel& model) : model_(model) {
  const CharModelConfig& c = model.config();
  const std::size_t hd = c.width / c.heads;
  caches_.reserve(c.layers);
  for (std::size_t l = 0; l < c.layers; ++l) caches_.emplace_back(c.kv_heads, hd, hd);
}

std::size_t CharModelDecoder::cache_bytes() const {
  const CharModelConfig& c = model_.config();
  return c.layers * c.kv_heads * length_ * 2 * (c.width / c.heads) * sizeof(float);
}

std::size_t CharModelDecoder::cache_capacity_bytes() const {
  const CharModelConfig& c = model_.config();
  return c.layers * c.kv_heads * c.context * 2 * (c.width / c.heads) * sizeof(float);
}

std::vector<float> CharModelDecoder::feed(std::uint32_t token) { return softmax(feed_logits(token)); }

std::vector<float> CharModelDecoder::feed_logits(std::uint32_t token) {
  const char* fn = "CharModelDecoder::feed";
  const CharModelConfig& cfg = model_.config();
  if (token >= cfg.vocab)
    fail(ErrorCode::BadArgument, std::string(fn) + ": token " + std::to_string(token) +
                                     " is not below the vocabulary size " + std::to_string(cfg.vocab));
  if (length_ >= cfg.context)
    fail(ErrorCode::ShapeMismatch, std::string(fn) + ": the context of " + std::to_string(cfg.context) +
                                       " characters is full");
  const detail::Layout lo = detail::make_layout(cfg);
  const float* P = model_.parameters().data();
  const std::size_t C = lo.C, Ckv = lo.Ckv, F = lo.F, V = lo.V;
  std::vector<float> x(C), ln(C), q(C), k(Ckv), v(Ckv), att(C), h(F), g(F), y(C), logits(V);
  float mean = 0, rstd = 0;
  const std::uint32_t tok[1] = {token};
  // position length_: wpe row length_ (embedding_forward with T = 1 would use row 0)
  embedding_forward(x.data(), tok, P + lo.wte, P + lo.wpe + length_ * C, 1, 1, C, V);
  AttentionOptions opt;  // scale 1/sqrt(hd), the SIMD decode kernel
  for (std::size_t l = 0; l < lo.blocks.size(); ++l) {
    const detail::Block& w = lo.blocks[l];
    layernorm_forward(ln.data(), &mean, &rstd, x.data(), P + w.ln1w, P + w.ln1b, 1, C);
    linear_forward(q.data(), ln.data(), P + w.wq, P + w.bq, 1, C, C);
    linear_forward(k.data(), ln.data(), P + w.wk, P + w.bk, 1, C, Ckv);
    linear_forward(v.data(), ln.data(), P + w.wv, P + w.bv, 1, C, Ckv);
    // one row: token-major (heads·hd) is already head-major (heads rows of hd)
    const AttentionResult r = caches_[l].decode_step({q.data(), lo.H, lo.hd}, {k.data(), lo.Hkv, lo.hd},
                                                     {v.data(), lo.Hkv, lo.hd}, opt);
    linear_forward(y.data(), r.out.data.data(), P + w.wo, P + w.bo, 1, C, C);
    for (std::size_t t = 0; t < C; ++t) x[t] += y[t];
    layernorm_forward(ln.data(), &mean, &rstd, x.data(), P + w.ln2w, P + w.ln2b, 1, C);
    linear_forward(h.data(), ln.data(), P + w.wfc, P + w.bfc, 1, C, F);
    gelu_forward(g.data(), h.data(), F);
    linear_forward(y.data(), g.data(), P + w.wproj, P + w.bproj, 1, F, C);
    for (std::size_t t = 0; t < C; ++t) x[t] += y[t];
  }
  layernorm_forward(ln.data(), &mean, &rstd, x.data(), P + lo.lnfw, P + lo.lnfb, 1, C);
  linear_forward(logits.data(), ln.data(), P + lo.wte, static_cast<const float*>(nullptr), 1, C, V);
  ++length_;
  return logits;
}

std::vector<std::uint32_t> sample(const CharModel& model, const std::vector<std::uint32_t>& prompt,
                                  std::size_t count, const SampleOptions& options) {
  const char* fn = "sample";
  const CharModelConfig& cfg = model.config();
  if (!(options.temperature > 0.0) || !std::isfinite(options.temperature))
    fail(ErrorCode::BadArgument, std::string(fn) + ": temperature " + detail::num(options.temperature) +
                                     " must be a finite number above 0");
  if (options.top_k > cfg.vocab)
    fail(ErrorCode::BadArgument, std::string(fn) + ": top_k " + std::to_string(options.top_k) +
                                     " is larger than the vocabulary of " + std::to_string(cfg.vocab));
  for (std::size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] >= cfg.vocab)
      fail(ErrorCode::BadArgument, std::string(fn) + ": prompt character " + std::to_string(i) + " is " +
                                       std::to_string(prompt[i]) + ", not below the vocabulary size " +
                                       std::to_string(cfg.vocab));
  std::vector<std::uint32_t> out;
  if (count == 0) return out;
  // the text the decoder has read: the prompt's last `context` characters (or token 0)
  std::vector<std::uint32_t> text = prompt.empty() ? std::vector<std::uint32_t>{0} : prompt;
  if (text.size() > cfg.context) text.erase(text.begin(), text.end() - static_cast<std::ptrdiff_t>(cfg.context));
  const std::size_t k = options.top_k == 0 ? cfg.vocab : options.top_k;
  NormalRng rng(options.seed);
  std::vector<std::size_t> order(cfg.vocab);
  std::vector<double> p(cfg.vocab);
  auto decoder = std::make_unique<CharModelDecoder>(model);
  std::vector<float> z;
  for (std::uint32_t t : text) z = decoder->feed_logits(t);
  out.reserve(count);
  for (;;) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return z[a] > z[b]; });
    const double top = z[order[0]];
    double sum = 0.0;
    for (std::size_t i = 0; i < k; ++i) sum += p[i] = std::exp((z[order[i]] - top) / options.temperature);
    const double u = rng.next_uniform() * sum;
    std::size_t pick = k - 1;  // rounding can leave u just past the last partial sum
    double acc = 0.0;
    for (std::size_t i = 0; i < k; ++i) {
      acc += p[i];
      if (u < acc) {
        pick = i;
        break;
      }
    }
    const auto next = static_cast<std::uint32_t>(order[pick]);
    out.push_back(next);
    if (out.size() == count) return out;
    text.push_back(next);
    if (decoder->length() == cfg.context) {  // full: restart on the last half
      const std::size_t keep = std::max<std::size_t>(1, cfg.context / 2);
      text.erase(text.begin(), text.end() - static_cast<std::ptrdiff_t>(keep));
      decoder = std::make_unique<CharModelDecoder>(model);
      for (std::uint32_t t : text) z = decoder->feed_logits(t);
    } else {
      z = decoder->feed_logits(next);
    }
  }
}

}  // namespace attn
