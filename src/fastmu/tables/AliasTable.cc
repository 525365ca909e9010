#include "fastmu/tables/AliasTable.hh"

#include <cmath>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"

namespace fastmu {

void build_alias_table(std::span<const double> weights, std::span<AliasCell> out) {
  const std::size_t n = weights.size();
  if (out.size() != n) throw Error("alias table: output size does not match the weights");
  if (n == 0) return;
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(weights[i] >= 0) || !std::isfinite(weights[i])) {
      throw Error("alias table: weight " + std::to_string(i) + " is negative or not finite");
    }
    total += weights[i];
  }
  if (total <= 0) {
    for (std::size_t i = 0; i < n; ++i) out[i] = {i == 0 ? 1.0f : 0.0f, 0};
    return;
  }
  // Scaled probabilities n * p_i: cells below 1 ("small") are topped up by one
  // cell above 1 ("large"), which then loses that much; each step settles one
  // small cell, so the whole build is O(n).
  // Work space per thread: a table file's load builds thousands of bins.
  thread_local std::vector<double> scaled;
  thread_local std::vector<std::int32_t> small, large;
  scaled.resize(n);
  small.resize(n);
  large.resize(n);
  std::size_t ns = 0, nl = 0;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    // Both written, one kept: no branch on the (random) class.
    const bool is_small = scaled[i] < 1.0;
    small[ns] = large[nl] = static_cast<std::int32_t>(i);
    ns += is_small;
    nl += !is_small;
  }
  while (ns > 0 && nl > 0) {
    const std::int32_t s = small[--ns];
    const std::int32_t l = large[nl - 1];
    out[s] = {static_cast<float>(scaled[s]), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      --nl;
      small[ns++] = l;
    }
  }
  // What is left is 1 up to rounding: those cells keep themselves.
  for (std::size_t k = 0; k < nl; ++k) out[large[k]] = {1.0f, large[k]};
  for (std::size_t k = 0; k < ns; ++k) out[small[k]] = {1.0f, small[k]};
}

void build_alias_table(std::span<const std::uint32_t> counts, std::span<AliasCell> out) {
  thread_local std::vector<double> w;
  w.assign(counts.begin(), counts.end());
  build_alias_table(std::span<const double>(w), out);
}

void alias_probabilities(std::span<const AliasCell> cells, std::span<double> out) {
  const std::size_t n = cells.size();
  for (auto& v : out) v = 0;
  if (n == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = std::min(1.0, std::max(0.0, static_cast<double>(cells[i].threshold)));
    out[i] += t / n;
    out[cells[i].alias] += (1.0 - t) / n;
  }
}

}  // namespace fastmu
