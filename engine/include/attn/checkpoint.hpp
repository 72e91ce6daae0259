// Checkpoints of a CharModel: a versioned, checksummed little-endian binary
// (layout in engine/README.md, "Checkpoints"): configuration, training
// configuration, vocabulary, weights in float32, float16 or int8 with one
// float32 scale per row, and optionally AdamW's state (m, v, step) in float32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/train.hpp"

namespace attn {

enum class WeightFormat { F32, F16, Int8 };  // Int8: per-row scales

struct CheckpointOptions {
  WeightFormat format = WeightFormat::F16;
  bool optimizer = false;  // also store AdamW's m, v and the step (to resume training exactly)
};

struct Checkpoint {
  CharModel model;
  std::vector<std::uint32_t> vocabulary;  // Unicode code point of token i
  WeightFormat format;
  bool optimizer;  // the file held AdamW's state; without it the model starts at step 0 with zero moments
};

// Weight error after a round trip: F32 exact; F16 round-to-nearest-even,
// |error| <= 2^-11·|w| for |w| >= 2^-14 and <= 2^-25 below; Int8 per row
// q = round(w/s), s = max|row|/127, |error| <= s/2 = max|row|/254.
// BadArgument when vocabulary.size() != vocab, a code point is not a Unicode
// scalar value, or a weight is beyond ±65504 (float16's range, in every format);
// NonFinite for a NaN/inf weight.
std::vector<std::uint8_t> save_checkpoint(const CharModel& model, const std::vector<std::uint32_t>& vocabulary,
                                          const CheckpointOptions& options);

// Refuses, before building anything: a file shorter than its header or than
// the sizes its header states (truncated), a bad magic, a version other than
// 1, or a CRC-32 mismatch (BadArgument); trailing bytes (ShapeMismatch); a
// configuration CharModel refuses (its errors); a NaN/inf weight, scale or
// moment (NonFinite); a weight beyond ±65504, a bad code point or training
// setting (BadArgument).
Checkpoint load_checkpoint(const std::uint8_t* bytes, std::size_t size);

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib's crc32).
std::uint32_t crc32(const std::uint8_t* bytes, std::size_t size);

}  // namespace attn
