#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/core/Error.hh"
#include "fastmu/tables/BinHistogrammer.hh"

using namespace fastmu;

TEST(BinHistogrammer, AxesFromDataFloorBinsAndStoppedMuons) {
  BinHistogrammer h(10, 10, 0.0);
  // Losses 1e-4 .. 1e-2 (log-uniform), kicks 1e-5 .. 1e-3.
  for (int i = 0; i <= 100; ++i) {
    const double loss = 1e-4 * std::pow(100.0, i / 100.0);
    const double kick = 1e-5 * std::pow(100.0, i / 100.0);
    h.add(10, 10 * kick, 0, 10 * (1 - loss));
  }
  h.add(10, 0, 0, 10);  // zero loss, zero kick: both floors
  h.add(10, 0, 0, 0);   // stopped: loss 1, kick 0
  const BinHistogram out = h.finish();
  EXPECT_EQ(out.samples, 103u);
  // The loss axis runs from the smallest non-zero loss to the largest (1, stopped).
  EXPECT_NEAR(out.axes.x_lo, std::log(1e-4), 1e-5);
  EXPECT_NEAR(out.axes.x_lo + 10 * out.axes.x_width, 0.0, 1e-5);
  EXPECT_NEAR(out.axes.y_lo, std::log(1e-5), 1e-5);
  EXPECT_NEAR(out.axes.y_lo + 10 * out.axes.y_width, std::log(1e-3), 1e-5);
  std::uint64_t total = 0;
  for (auto c : out.counts) total += c;
  EXPECT_EQ(total, 103u);
  EXPECT_EQ(out.counts[0], 1u);            // (floor, floor): the zero-loss muon
  EXPECT_EQ(out.counts[10 * 11 + 0], 1u);  // (top loss bin, floor kick): the stopped one
  EXPECT_NEAR(out.centre, 10.0, 1e-12);
  double kick_sum = 0;
  for (int i = 0; i <= 100; ++i) kick_sum += 1e-5 * std::pow(100.0, i / 100.0);
  EXPECT_NEAR(out.mean_kick, kick_sum / 103, 1e-12);
}

TEST(BinHistogrammer, LowTailGoesToTheFloorBin) {
  BinHistogrammer h(4, 4, 0.01);
  h.add(1, 1e-3, 0, 1 - 1e-9);  // one tiny loss far below the rest
  for (int i = 0; i < 999; ++i) h.add(1, 1e-3, 0, 1 - 1e-3 * (1 + i / 999.0));
  const BinHistogram out = h.finish();
  EXPECT_GT(out.axes.x_lo, std::log(1e-8));  // the outlier does not stretch the axis
  std::uint64_t floor_x = 0;
  for (int iy = 0; iy <= 4; ++iy) floor_x += out.counts[iy];
  EXPECT_GE(floor_x, 1u);
  EXPECT_LE(floor_x, 11u);
  // A point mass (all kicks equal) still gets a valid axis.
  EXPECT_GT(out.axes.y_width, 0.0f);
  EXPECT_THROW(BinHistogrammer(0, 4), Error);
}
