// Helpers for the training tests: double copies of matrices, central finite
// differences of a scalar function of a double vector, and error measures.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "attn/engine.hpp"

namespace test {

inline std::vector<double> doubles(const attn::Matrix& m) {
  return std::vector<double>(m.data.begin(), m.data.end());
}

// ∂f/∂x[t] by (f(x + h e_t) − f(x − h e_t)) / 2h for every t in `which`
// (all entries when empty); x is restored.
inline std::vector<double> central_differences(const std::function<double()>& f, std::vector<double>& x,
                                               double h, std::vector<std::size_t> which = {}) {
  if (which.empty())
    for (std::size_t t = 0; t < x.size(); ++t) which.push_back(t);
  std::vector<double> g(x.size(), 0.0);
  for (std::size_t t : which) {
    const double keep = x[t];
    x[t] = keep + h;
    const double up = f();
    x[t] = keep - h;
    const double down = f();
    x[t] = keep;
    g[t] = (up - down) / (2.0 * h);
  }
  return g;
}

// max_t |a[t] − b[t]|
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  double worst = 0.0;
  for (std::size_t t = 0; t < a.size(); ++t)
    worst = std::max(worst, std::fabs(static_cast<double>(a[t]) - static_cast<double>(b[t])));
  return std::isnan(worst) ? INFINITY : worst;
}

template <class A>
double max_abs(const A& a) {
  double top = 0.0;
  for (auto x : a) top = std::max(top, std::fabs(static_cast<double>(x)));
  return top;
}

}  // namespace test
