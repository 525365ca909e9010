// sincos_turn(u) against std::sin/cos(2 pi u): a few units in the last place.
#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/physics/AzimuthTrig.hh"

namespace fastmu {
namespace {

TEST(AzimuthTrig, MatchesLibmToAFewUlp) {
  CounterRng rng(5, 6, RngStream::detailed_physics);
  double worst = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double u = to_unit_open(rng.next_u32());
    double s, c;
    sincos_turn(u, s, c);
    const double phi = constants::two_pi * u;
    worst = std::fmax(worst, std::fmax(std::fabs(s - std::sin(phi)), std::fabs(c - std::cos(phi))));
    ASSERT_LE(s * s + c * c, 1.0 + 4e-16);
  }
  EXPECT_LT(worst, 2e-15);
}

TEST(AzimuthTrig, ExactAtQuarterTurnsAndOctants) {
  double s, c;
  sincos_turn(0.0, s, c);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
  sincos_turn(0.25, s, c);
  EXPECT_EQ(s, 1.0);
  EXPECT_EQ(std::fabs(c), 0.0);
  sincos_turn(0.5, s, c);
  EXPECT_EQ(std::fabs(s), 0.0);
  EXPECT_EQ(c, -1.0);
  sincos_turn(0.75, s, c);
  EXPECT_EQ(s, -1.0);
  sincos_turn(1.0, s, c);
  EXPECT_EQ(c, 1.0);
  for (int k = 0; k < 8; ++k) {  // the octant edges, where the reduction switches quadrant
    sincos_turn(0.125 * k, s, c);
    EXPECT_NEAR(s, std::sin(constants::two_pi * 0.125 * k), 1e-15);
    EXPECT_NEAR(c, std::cos(constants::two_pi * 0.125 * k), 1e-15);
  }
}

}  // namespace
}  // namespace fastmu
