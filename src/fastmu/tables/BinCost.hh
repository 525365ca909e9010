// What a ladder build's momentum bins cost, relative to each other: the
// progress estimate weighs the bins done and left by it, so that the time
// left is not that of the cheap low-momentum bins done first.
#pragma once

#include <cstddef>
#include <vector>

namespace fastmu {

// One set of histories of a ladder build: the first bin of each of its
// rungs and the rung's radius in reference steps, over the set's range cut
// relative to the reference step's (longer cuts: fewer interactions per metre).
struct BinCostRungs {
  std::vector<int> first_bin;
  std::vector<double> radius;  // ascending, in reference steps
  double cut_scale = 1;
};

// Relative cost of bin [p_lo, p_hi): the histories its precision goal asks
// for (~ p^0.65 from min_samples, at most samples_per_bin; see
// LadderBuilder.hh), each dearer with the largest radius it reaches in each
// set and with momentum (more radiative interactions), cheaper with the
// bin's own range-cut scale (momentum_cut_scale: ~its square root, measured).
double ladder_bin_cost(int bin, double p_lo, double p_hi, const std::vector<BinCostRungs>& sets,
                       std::size_t min_samples, std::size_t samples_per_bin, bool precision_goal,
                       double bin_cut_scale = 1);

}  // namespace fastmu
