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
  std::vector<double> scaled(n);
  std::vector<std::int32_t> small, large;
  small.reserve(n);
  large.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::int32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::int32_t s = small.back();
    small.pop_back();
    const std::int32_t l = large.back();
    out[s] = {static_cast<float>(scaled[s]), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left is 1 up to rounding: those cells keep themselves.
  for (std::int32_t i : large) out[i] = {1.0f, i};
  for (std::int32_t i : small) out[i] = {1.0f, i};
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
