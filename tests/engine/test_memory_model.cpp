// The memory-cost model quoted in the lesson: bytes of the n×n score
// matrices for element size, heads, layers and batch.
#include "helpers.hpp"

TEST_CASE("score matrix bytes: the lesson's numbers") {
  CHECK(attn::score_matrix_bytes(8192, 2) == 134217728.0);        // ≈ 134 MB fp16
  CHECK(attn::score_matrix_bytes(32768, 2) == 2147483648.0);      // ≈ 2,147 MB fp16
  CHECK(attn::score_matrix_bytes(128000, 4) == 65536000000.0);    // 65.5 GB at 128K fp32
  CHECK(attn::score_matrix_bytes(131072, 4) == 68719476736.0);    // exactly 64 GiB
  CHECK(attn::score_matrix_bytes(131072, 4) == 64.0 * 1024 * 1024 * 1024);
}

TEST_CASE("score matrix bytes: doubling n quadruples; heads, layers, batch multiply") {
  for (double n : {1.0, 3.0, 1000.0, 8192.0, 100000.0}) {
    CAPTURE(n);
    CHECK(attn::score_matrix_bytes(2 * n, 2) == 4 * attn::score_matrix_bytes(n, 2));
  }
  const double one = attn::score_matrix_bytes(4096, 2);
  CHECK(attn::score_matrix_bytes(4096, 2, 32) == 32 * one);
  CHECK(attn::score_matrix_bytes(4096, 2, 32, 40) == 32 * 40 * one);
  CHECK(attn::score_matrix_bytes(4096, 2, 32, 40, 3) == 3 * 32 * 40 * one);
}
