// Error and variant names, and the message helpers every entry point uses. Messages are
// plain ASCII English (the pages translate by error code); shapes print as
// rows x cols, e.g. "4x3".
#include <cmath>
#include <iterator>
#include <sstream>

#include "checks.hpp"

namespace attn {

namespace {

// One name per ErrorCode, in the enum's order (ggml's tripwire: a new code
// fails this static_assert until it has a name here).
constexpr const char* kErrorCodeNames[] = {"ShapeMismatch", "ZeroDimension", "NonFinite", "TooLarge",
                                           "BadArgument"};
static_assert(std::size(kErrorCodeNames) == static_cast<std::size_t>(ErrorCode::Count),
              "ErrorCode has a code without a name in kErrorCodeNames");

// One JavaScript name per Variant, in the enum's order.
constexpr const char* kVariantNames[] = {"materialized", "chunked", "reference"};
static_assert(std::size(kVariantNames) == static_cast<std::size_t>(Variant::Count),
              "Variant has a variant without a name in kVariantNames");

}  // namespace

const char* error_code_name(ErrorCode code) {
  const auto i = static_cast<std::size_t>(code);
  return i < std::size(kErrorCodeNames) ? kErrorCodeNames[i] : "Unknown";
}

const char* variant_name(Variant variant) {
  const auto i = static_cast<std::size_t>(variant);
  return i < std::size(kVariantNames) ? kVariantNames[i] : nullptr;
}

namespace detail {

void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

void require_variant(Variant variant, const char* fn) {
  if (variant_name(variant) != nullptr) return;
  std::string names;
  for (std::size_t i = 0; i < std::size(kVariantNames); ++i)
    names += std::string(i == 0 ? "" : i + 1 == std::size(kVariantNames) ? " or " : ", ") + "'" +
             kVariantNames[i] + "'";
  fail(ErrorCode::BadArgument, std::string(fn) + ": unknown variant " +
                                   std::to_string(static_cast<int>(variant)) + "; use " + names);
}

void fail_logit_overflow(const char* fn, std::size_t i) {
  fail(ErrorCode::NonFinite, std::string(fn) + ": a logit of query row " + std::to_string(i) +
                                 " overflowed float32; the inputs are too large");
}

std::string shape(MatrixView m) { return std::to_string(m.rows) + "x" + std::to_string(m.cols); }

std::string num(double x) {
  std::ostringstream os;
  os.precision(9);
  os << x;
  return os.str();
}

std::string bytes_text(double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(0);
  os << bytes << " bytes (";
  os.precision(1);
  os << bytes / 1e6 << " MB)";
  return os.str();
}

}  // namespace detail
}  // namespace attn
