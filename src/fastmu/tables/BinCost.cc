#include "fastmu/tables/BinCost.hh"

#include <algorithm>
#include <cmath>

namespace fastmu {

double ladder_bin_cost(int bin, double p_lo, double p_hi, const std::vector<BinCostRungs>& sets,
                       std::size_t min_samples, std::size_t samples_per_bin, bool precision_goal,
                       double bin_cut_scale) {
  const double p = std::sqrt(std::max(p_lo, 1e-3) * std::max(p_hi, 1e-3));
  const double cap = static_cast<double>(samples_per_bin);
  const double floor = std::min(static_cast<double>(min_samples), cap);
  // ~1e4 histories at 1 GeV/c and ~2e5 at 100 GeV/c for 1 % of the mean loss
  // in 2 cm of iron (LadderBuilder.hh), never fewer than the first round.
  const double histories = precision_goal ? std::clamp(1e4 * std::pow(p, 0.65), floor, cap) : cap;
  // A history costs a fixed part (its start, the first interactions) worth
  // ~2.5 reference steps of path, plus its path over the set's cut scale,
  // ~15 % more per e-fold of momentum: fitted to the CPU times of G4_Fe's
  // ladder to 100 TeV/c (16-bin groups within +-30 % of their time, where
  // counting bins is off by 12x between the cheapest and the dearest group).
  double length = 0;
  for (const BinCostRungs& s : sets) {
    double r = 0;
    for (std::size_t k = 0; k < s.radius.size(); ++k) {
      if (s.first_bin[k] <= bin) r = std::max(r, s.radius[k]);
    }
    if (r > 0) length += 2.5 + r / (s.cut_scale * std::sqrt(std::max(bin_cut_scale, 1.0)));
  }
  return histories * length * (1 + 0.15 * std::log1p(p));
}

}  // namespace fastmu
