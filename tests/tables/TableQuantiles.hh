// Exact quantiles of a table's marginal distributions (alias probabilities,
// uniform jitter in ln within each bin), to compare tables with their samples
// without the noise of drawing from them.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/TableParams.hh"

namespace fastmu::test {

// Quantile q of -dPz/P (axis 0) or dPt/P (axis 1) in momentum bin b.
inline double table_quantile(const TableParams& t, int b, int axis, double q) {
  const auto& d = t.data();
  const int cpb = d.cells_per_bin();
  std::vector<double> p(cpb);
  alias_probabilities(std::span(d.cells.data() + static_cast<std::size_t>(b) * cpb, cpb), p);
  const int n = axis == 0 ? d.nx : d.ny;
  std::vector<double> marginal(n + 1, 0.0);
  for (int c = 0; c < cpb; ++c) marginal[axis == 0 ? c / (d.ny + 1) : c % (d.ny + 1)] += p[c];
  const HistAxes a = d.axes[b];
  const double lo = axis == 0 ? a.x_lo : a.y_lo, w = axis == 0 ? a.x_width : a.y_width;
  double cum = marginal[0];
  if (q <= cum) return 0.0;
  for (int i = 1; i <= n; ++i) {
    if (marginal[i] > 0 && q <= cum + marginal[i]) {
      return std::exp(lo + (i - 1 + (q - cum) / marginal[i]) * w);
    }
    cum += marginal[i];
  }
  return std::exp(lo + n * w);
}

// Empirical quantile (the k = floor(q (n - 1))-th smallest value).
inline double sample_quantile(std::vector<double> v, double q) {
  const std::size_t k = static_cast<std::size_t>(q * (v.size() - 1));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

}  // namespace fastmu::test
