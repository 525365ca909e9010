// The relative cost of a ladder build's momentum bins (the progress
// estimate's weights): dearer with momentum, the steps a history reaches and
// the histories the precision goal asks for.
#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/tables/BinCost.hh"

using namespace fastmu;

namespace {

// Bins of 0.5 in ln p from 1 GeV/c; a step of 1 d from bin 0, 2 d from bin
// 4, and a second set (cut scaled 16 x) of 16 d from bin 8.
std::vector<BinCostRungs> sets() { return {{{0, 4}, {1, 2}, 1}, {{8}, {16}, 16}}; }

double cost(int b, bool goal = false, std::size_t cap = 2000) {
  const double lo = std::exp(0.5 * b), hi = std::exp(0.5 * (b + 1));
  return ladder_bin_cost(b, lo, hi, sets(), 20000, cap, goal);
}

}  // namespace

TEST(BinCost, GrowsWithMomentumAndTheStepsReached) {
  for (int b = 1; b < 12; ++b) EXPECT_GT(cost(b), cost(b - 1)) << b;
  // Reaching 2 d: (2.5 + 2) / (2.5 + 1) dearer per history, beyond momentum.
  EXPECT_GT(cost(4) / cost(3), 4.5 / 3.5);
  // A second set of histories adds its own: (2.5 + 1) more at bin 8.
  EXPECT_GT(cost(8) / cost(7), (4.5 + 3.5) / 4.5);
}

TEST(BinCost, FollowsThePrecisionGoalsHistories) {
  // Capped at 2000 per bin: the goal changes nothing.
  EXPECT_DOUBLE_EQ(cost(6, true), cost(6, false));
  // Up to 1e6: the first round's 2e4 at low momentum, ~1e4 p^0.65 above.
  const double low = cost(0, true, 1'000'000) / cost(0, false, 20000);
  EXPECT_DOUBLE_EQ(low, 1.0);
  const double p = std::exp(0.5 * 10.5);  // 190 GeV/c: 3e5 histories
  const double high = cost(10, true, 1'000'000) / cost(10, false, 1);
  EXPECT_NEAR(high, 1e4 * std::pow(p, 0.65), 1e-6 * high);
  // ... and never more than the cap.
  EXPECT_DOUBLE_EQ(cost(30, true, 1'000'000) / cost(30, false, 1), 1e6);
}
