#include "fastmu/tables/AliasTable.hh"

#include <cmath>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"

namespace fastmu {

namespace {

// Vose's construction from non-negative `weights` (doubles or counts) whose
// sum is `total` > 0. Scaled probabilities n * p_i: cells below 1 ("small")
// are topped up by one cell above 1 ("large"), which then loses that much;
// each step settles one small cell, so the whole build is O(n).
template <class W>
void build_from(const W* weights, std::size_t n, double total, std::span<AliasCell> out) {
  // Work space per thread: a table file's load builds thousands of bins.
  thread_local std::vector<double> scaled;
  thread_local std::vector<std::int32_t> small, large;
  scaled.resize(n);
  small.resize(n);
  large.resize(n);
  const double dn = static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {  // no branch: vectorised
    scaled[i] = static_cast<double>(weights[i]) * dn / total;
  }
  std::size_t ns = 0, nl = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Both written, one kept: no branch on the (random) class.
    const bool is_small = scaled[i] < 1.0;
    small[ns] = large[nl] = static_cast<std::int32_t>(i);
    ns += is_small;
    nl += !is_small;
  }
  while (ns > 0 && nl > 0) {
    // One large cell tops up small cells until it falls below 1 itself (a
    // peaked histogram: thousands of them). Its probability stays in a
    // register meanwhile, not stored and loaded back each step: the same
    // operations in the same order, so the same bits.
    const std::int32_t l = large[nl - 1];
    double left = scaled[l];
    do {
      const std::int32_t s = small[--ns];
      out[s] = {static_cast<float>(scaled[s]), l};
      left -= 1.0 - scaled[s];
    } while (ns > 0 && !(left < 1.0));
    scaled[l] = left;
    if (left < 1.0) {
      --nl;
      small[ns++] = l;
    }
  }
  // What is left is 1 up to rounding: those cells keep themselves.
  for (std::size_t k = 0; k < nl; ++k) out[large[k]] = {1.0f, large[k]};
  for (std::size_t k = 0; k < ns; ++k) out[small[k]] = {1.0f, small[k]};
}

void keep_first(std::span<AliasCell> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {i == 0 ? 1.0f : 0.0f, 0};
}

}  // namespace

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
  if (total <= 0) return keep_first(out);
  build_from(weights.data(), n, total, out);
}

void build_alias_table(std::span<const std::uint32_t> counts, std::span<AliasCell> out) {
  const std::size_t n = counts.size();
  if (out.size() != n) throw Error("alias table: output size does not match the weights");
  if (n == 0) return;
  // The counts' sum in doubles, added in order, is exact while it stays
  // below 2^53 (every partial sum an integer): the integer sum then gives
  // the same total in one vectorised pass.
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += counts[i];
  double total = static_cast<double>(sum);
  if (sum > (std::uint64_t(1) << 53)) {
    total = 0;
    for (std::size_t i = 0; i < n; ++i) total += static_cast<double>(counts[i]);
  }
  if (total <= 0) return keep_first(out);
  build_from(counts.data(), n, total, out);
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
