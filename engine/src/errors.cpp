// Error names and the message helpers every entry point uses. Messages are
// plain ASCII English (the pages translate by error code); shapes print as
// rows x cols, e.g. "4x3".
#include <cmath>
#include <sstream>

#include "checks.hpp"

namespace attn {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::ShapeMismatch: return "ShapeMismatch";
    case ErrorCode::ZeroDimension: return "ZeroDimension";
    case ErrorCode::NonFinite: return "NonFinite";
    case ErrorCode::TooLarge: return "TooLarge";
    case ErrorCode::BadArgument: return "BadArgument";
  }
  return "Unknown";
}

namespace detail {

void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

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
