// Two-sample comparison for the statistical tests (CPU against GPU, ladder
// against independent histories): the Kolmogorov-Smirnov distance and its
// critical value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace fastmu::test {

// Two-sample Kolmogorov-Smirnov distance.
inline double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(double(i) / a.size() - double(j) / b.size()));
  }
  return d;
}

// KS critical distance at significance 1e-4 for samples of n and m.
inline double ks_critical(std::size_t n, std::size_t m) {
  return 2.225 * std::sqrt(double(n + m) / (double(n) * m));
}

}  // namespace fastmu::test
