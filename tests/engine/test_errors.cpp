// Every ErrorCode from the input that should raise it, with a message that
// names the shapes or values; TooLarge is raised before allocating.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace {

// Runs f, requires an attn::Error with `code`, returns its message.
template <class F>
std::string error_of(F f, attn::ErrorCode code) {
  try {
    f();
  } catch (const attn::Error& e) {
    CHECK(std::string(attn::error_code_name(e.code())) == attn::error_code_name(code));
    return e.what();
  }
  FAIL("no attn::Error thrown");
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct BudgetGuard {  // restores the default budget even if a check fails
  ~BudgetGuard() { attn::set_memory_budget(0); }
};

}  // namespace

TEST_CASE("error_code_name names every code") {
  CHECK(std::string(attn::error_code_name(attn::ErrorCode::ShapeMismatch)) == "ShapeMismatch");
  CHECK(std::string(attn::error_code_name(attn::ErrorCode::ZeroDimension)) == "ZeroDimension");
  CHECK(std::string(attn::error_code_name(attn::ErrorCode::NonFinite)) == "NonFinite");
  CHECK(std::string(attn::error_code_name(attn::ErrorCode::TooLarge)) == "TooLarge");
  CHECK(std::string(attn::error_code_name(attn::ErrorCode::BadArgument)) == "BadArgument");
}

TEST_CASE("attention rejects bad shapes, zeros, non-finite input and bad options") {
  const attn::Matrix q = test::randn(1, 4, 3), k = test::randn(2, 5, 3), v = test::randn(3, 5, 2);
  attn::AttentionOptions opt;
  auto call = [&](const attn::Matrix& q_, const attn::Matrix& k_, const attn::Matrix& v_) {
    return [&, q_, k_, v_] { attn::attention(q_.view(), k_.view(), v_.view(), opt); };
  };

  SUBCASE("d_k of q and k differ") {
    const std::string msg =
        error_of(call(q, test::randn(4, 5, 2), v), attn::ErrorCode::ShapeMismatch);
    CHECK(has(msg, "q is 4x3"));
    CHECK(has(msg, "k is 5x2"));
  }
  SUBCASE("k and v rows differ") {
    const std::string msg = error_of(call(q, k, test::randn(5, 6, 2)), attn::ErrorCode::ShapeMismatch);
    CHECK(has(msg, "v is 6x2"));
  }
  SUBCASE("a zero dimension") {
    const std::string msg = error_of(call(q, k, attn::Matrix(5, 0)), attn::ErrorCode::ZeroDimension);
    CHECK(has(msg, "5x0"));
    error_of(call(attn::Matrix(0, 3), k, v), attn::ErrorCode::ZeroDimension);
  }
  SUBCASE("NaN or inf in q, k or v") {
    attn::Matrix bad = k;
    bad.at(2, 1) = std::numeric_limits<float>::quiet_NaN();
    std::string msg = error_of(call(q, bad, v), attn::ErrorCode::NonFinite);
    CHECK(has(msg, "row 2, column 1"));
    bad = v;
    bad.at(4, 0) = -std::numeric_limits<float>::infinity();
    msg = error_of(call(q, k, bad), attn::ErrorCode::NonFinite);
    CHECK(has(msg, "v (5x2)"));
    bad = q;
    bad.at(0, 0) = std::numeric_limits<float>::infinity();
    error_of(call(bad, k, v), attn::ErrorCode::NonFinite);
  }
  SUBCASE("scale NaN, 0 or negative") {
    opt.scale = std::numeric_limits<float>::quiet_NaN();
    error_of(call(q, k, v), attn::ErrorCode::NonFinite);
    opt.scale = std::numeric_limits<float>::infinity();
    error_of(call(q, k, v), attn::ErrorCode::NonFinite);
    opt.scale = 0.0f;
    CHECK(has(error_of(call(q, k, v), attn::ErrorCode::BadArgument), "scale is 0"));
    opt.scale = -2.0f;
    CHECK(has(error_of(call(q, k, v), attn::ErrorCode::BadArgument), "scale is -2"));
  }
  SUBCASE("block size 0 and return_weights with chunked") {
    opt.variant = attn::Variant::Chunked;
    opt.block_k = 0;
    CHECK(has(error_of(call(q, k, v), attn::ErrorCode::BadArgument), "block_k is 0"));
    opt.block_k = 8;
    opt.block_q = 0;
    error_of(call(q, k, v), attn::ErrorCode::BadArgument);
    opt.block_q = 8;
    opt.return_weights = true;
    CHECK(has(error_of(call(q, k, v), attn::ErrorCode::BadArgument), "return_weights"));
  }
  SUBCASE("null data") {
    attn::MatrixView nothing{nullptr, 4, 3};
    CHECK_THROWS_AS(attn::attention(nothing, k.view(), v.view(), opt), attn::Error);
  }
  SUBCASE("unknown variant") {
    opt.variant = static_cast<attn::Variant>(42);
    error_of(call(q, k, v), attn::ErrorCode::BadArgument);
  }
}

TEST_CASE("TooLarge before allocating: n = 200000 materialized with the default budget") {
  const std::size_t n = 200000;  // 200000^2 * 4 bytes = 160 GB of scores
  const attn::Matrix q(n, 1, 0.5f);
  attn::AttentionOptions opt;
  const std::string msg =
      error_of([&] { attn::attention(q.view(), q.view(), q.view(), opt); }, attn::ErrorCode::TooLarge);
  // out + masked_rows + L×S + one 64-row block's panel, output, m, l and ones
  CHECK(has(msg, "160001601280 bytes"));
  CHECK(has(msg, "L=200000"));
  // the chunked variant fits: its tiles do not grow with n (not run: n² work)
  CHECK(attn::memory_budget() >= std::size_t(1) << 30);
}

TEST_CASE("set_memory_budget limits every variant and 0 restores the default") {
  BudgetGuard guard;
  const std::size_t default_budget = attn::memory_budget();
#ifdef __EMSCRIPTEN__
  CHECK(default_budget < std::numeric_limits<std::size_t>::max());  // 4 GiB minus the heap in use
  CHECK(default_budget > (std::size_t(1) << 31));
#else
  CHECK(default_budget == (std::size_t(8) << 30));
#endif
  const attn::Matrix q = test::randn(1, 64, 8), v = test::randn(2, 64, 8);
  attn::AttentionOptions opt;
  attn::set_memory_budget(14000);  // materialized: 64*8*4 + 64*4 + 64*64*4 + 64*(8+8+3)*4 = 23552
  CHECK(attn::memory_budget() == 14000);
  CHECK(has(error_of([&] { attn::attention(q.view(), q.view(), v.view(), opt); },
                     attn::ErrorCode::TooLarge),
            "23552 bytes"));
  // chunked: a few 32 x 32 tiles, more than the 1,000-byte budget set next
  opt.variant = attn::Variant::Chunked;
  opt.block_q = opt.block_k = 32;
  const attn::AttentionResult r = attn::attention(q.view(), q.view(), v.view(), opt);
  CHECK(r.scratch_bytes > 1000);
  CHECK(r.scratch_bytes <= test::chunked_scratch_bound(32, 32, 8, 8));
  attn::set_memory_budget(1000);
  error_of([&] { attn::attention(q.view(), q.view(), v.view(), opt); }, attn::ErrorCode::TooLarge);
  opt.variant = attn::Variant::Reference;
  error_of([&] { attn::attention(q.view(), q.view(), v.view(), opt); }, attn::ErrorCode::TooLarge);
  attn::NormalRng rng(1);
  error_of([&] { attn::random_normal(rng, 100, 100); }, attn::ErrorCode::TooLarge);
  error_of([&] { attn::experiment(100, 64, {1}, true); }, attn::ErrorCode::TooLarge);
  attn::set_memory_budget(0);
  CHECK(attn::memory_budget() == default_budget);
}

TEST_CASE("logits that overflow float32 are reported, not returned as NaN") {
  const attn::Matrix q = test::from_rows({{1e20f, 1e20f}}), k = test::from_rows({{1e20f, 1e20f}});
  attn::AttentionOptions opt;
  for (attn::Variant variant : test::kFastVariants) {
    opt.variant = variant;
    error_of([&] { attn::attention(q.view(), k.view(), k.view(), opt); },
             attn::ErrorCode::NonFinite);
  }
}

TEST_CASE("the other entry points check their arguments") {
  const attn::Matrix q = test::randn(1, 4, 3), k = test::randn(2, 5, 3);
  error_of([&] { attn::online_softmax_trace(q.view(), k.view(), k.view(), 4, 2, false, {}); },
           attn::ErrorCode::BadArgument);
  error_of([&] { attn::online_softmax_trace(q.view(), k.view(), k.view(), 0, 0, false, {}); },
           attn::ErrorCode::BadArgument);
  error_of([&] { attn::online_softmax_trace(q.view(), q.view(), k.view(), 0, 2, false, {}); },
           attn::ErrorCode::ShapeMismatch);
  error_of([&] { attn::softmax_row({}, true); }, attn::ErrorCode::ZeroDimension);
  error_of([&] { attn::softmax_row({1.0f, NAN}, true); }, attn::ErrorCode::NonFinite);
  error_of([&] { attn::row_stats(attn::Matrix(0, 3).view()); }, attn::ErrorCode::ZeroDimension);
  error_of([&] { attn::logit_stats(q.view(), test::randn(3, 2, 2).view(), {}); },
           attn::ErrorCode::ShapeMismatch);
  error_of([&] { attn::logit_stats(q.view(), k.view(), -1.0f); }, attn::ErrorCode::BadArgument);
  const float p[2] = {0.5f, NAN};
  error_of([&] { attn::softmax_jacobian_norm(p, 2); }, attn::ErrorCode::NonFinite);
  error_of([&] { attn::softmax_jacobian_norm(p, 0); }, attn::ErrorCode::ZeroDimension);
  error_of([&] { attn::experiment(0, 8, {1}, true); }, attn::ErrorCode::ZeroDimension);
  error_of([&] { attn::experiment(8, 8, {}, true); }, attn::ErrorCode::BadArgument);
  attn::NormalRng rng(1);
  error_of([&] { attn::random_normal(rng, 0, 3); }, attn::ErrorCode::ZeroDimension);
  error_of([&] { attn::score_matrix_bytes(0, 2); }, attn::ErrorCode::BadArgument);
  error_of([&] { attn::score_matrix_bytes(1024, 1.5); }, attn::ErrorCode::BadArgument);
  error_of([&] { attn::score_matrix_bytes(1024, 2, NAN); }, attn::ErrorCode::BadArgument);
}
