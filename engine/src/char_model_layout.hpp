// Where each tensor of a CharModel lives in its flat parameter array (one
// array, as llm.c), shared by the training pass (char_model.cpp), the
// incremental decoder (char_sampling.cpp) and checkpoints (checkpoint.cpp),
// so that the three agree on the order by construction. Not public API.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/train.hpp"

namespace attn::detail {

// How a tensor starts: N(0, 0.02²), N(0, (0.02/√(2·layers))²) for the
// projections back into the residual stream, ones (LayerNorm gains), zeros.
enum class Init { Normal, Residual, Ones, Zeros };
struct Tensor {
  std::size_t offset, size;
  Init init;
  std::size_t cols;  // length of one row (the input width of a matrix; a vector is one row)
};

struct Block {  // offsets into the flat parameter array
  std::size_t ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, wfc, bfc, wproj, bproj;
};

struct Layout {
  std::size_t V, T, C, H, Hkv, hd, Ckv, F;  // F = 4·C, the MLP's hidden width
  std::size_t wte, wpe, lnfw, lnfb, total = 0;
  std::vector<Block> blocks;
  std::vector<Tensor> tensors;
  std::size_t add(std::size_t size, Init init, std::size_t cols) {
    tensors.push_back({total, size, init, cols});
    total += size;
    return total - size;
  }
};

// Checks the configuration as CharModel's constructor documents (ZeroDimension,
// BadArgument, TooLarge past the memory budget), then lays the tensors out.
Layout make_layout(const CharModelConfig& c);

}  // namespace attn::detail
