// Generation with a trained CharModel (train.hpp): an incremental decoder
// that keeps one KV cache per layer (the decode path of engine.hpp, so each
// new character costs one row per layer instead of a forward over the whole
// text), and sampling with temperature, top-k and a seed on top of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/engine.hpp"
#include "attn/train.hpp"

namespace attn {

struct SampleOptions {
  double temperature = 1.0;   // > 0 and finite; logits are divided by it
  std::size_t top_k = 0;      // keep the k most likely characters; 0 = all; <= vocab
  std::uint64_t seed = 1;     // NormalRng(seed).next_uniform() draws, one per new character
};

// Feeds one character at a time through the model, position 0, 1, 2, ...
// Each layer's K and V rows go to its KvCache and the new query row attends
// to them with KvCache::decode_step; everything else (LayerNorm, the
// projections, GELU, the tied output layer) is the model's own arithmetic
// for one row. The probabilities equal CharModel::forward's row for the same
// prefix up to float rounding (the tests hold them to 1e-6).
class CharModelDecoder {
 public:
  explicit CharModelDecoder(const CharModel& model);  // keeps a reference; model must outlive it
  // Next-character probabilities (vocab entries) after this token.
  // BadArgument for token >= vocab; ShapeMismatch once length() == context
  // (no learned position is left). Nothing changes when it throws.
  std::vector<float> feed(std::uint32_t token);
  // The same step, returning the logits (before the softmax); sample() uses these.
  std::vector<float> feed_logits(std::uint32_t token);
  std::size_t length() const { return length_; }  // tokens fed so far (<= context)
  std::size_t cache_bytes() const;                  // bytes of K and V the caches hold now
  std::size_t cache_capacity_bytes() const;         // the same at full context

 private:
  const CharModel& model_;
  std::vector<KvCache> caches_;  // one per layer
  std::size_t length_ = 0;
};

// Samples `count` new characters after `prompt` and returns only them.
// An empty prompt starts from token 0, which the trainer's vocabulary
// (sorted by code point, engine/tools/train_char.cpp) makes the newline, the
// start of a paragraph; token 0 is not returned. When the context is full,
// the decoder restarts on the last context/2 characters (recomputing their
// rows), so any count can be generated; a prompt longer than the context is
// read from its last context characters. The draw for each character is
// u = next_uniform() against the cumulative probabilities of softmax(logits /
// temperature) over the top_k most likely characters (ties: lower index first),
// so the same model, prompt, count and options give the same output
// everywhere; top_k = 1 is the argmax.
// BadArgument for temperature <= 0 or not finite, top_k > vocab, a prompt
// character >= vocab.
std::vector<std::uint32_t> sample(const CharModel& model, const std::vector<std::uint32_t>& prompt,
                                  std::size_t count, const SampleOptions& options);

}  // namespace attn
