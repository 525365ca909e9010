// The inline float sin/cos, exp and log of FastMath.hh (used by the step on
// host and device) against double-precision libm over the ranges they serve.
#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/core/FastMath.hh"

namespace fastmu {
namespace {

TEST(FastMath, SinCosTwoPiWithin1e7) {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const float u = static_cast<float>(i) / 200000.0f;
    float s, c;
    sincos_two_pi(u, s, c);
    const double a = 2.0 * M_PI * static_cast<double>(u);
    worst = std::fmax(worst, std::fabs(s - std::sin(a)));
    worst = std::fmax(worst, std::fabs(c - std::cos(a)));
  }
  EXPECT_LT(worst, 1.5e-7);
}

// Any angle (here to 10 rad, the reduction exact): absolute error within a
// few ulps, relative for small angles (the helix's half turns, often 1e-4
// rad or less).
TEST(FastMath, SinCosOfAnyAngle) {
  double worst_abs = 0, worst_rel = 0;
  for (int i = -200000; i <= 200000; ++i) {
    const float a = 5e-5f * static_cast<float>(i) * std::fabs(static_cast<float>(i)) / 200000.0f;
    float s, c;
    sincos_fast(a, s, c);
    const double ad = static_cast<double>(a);
    worst_abs = std::fmax(worst_abs, std::fabs(s - std::sin(ad)));
    worst_abs = std::fmax(worst_abs, std::fabs(c - std::cos(ad)));
    if (std::fabs(ad) < 0.7 && ad != 0) {
      worst_rel = std::fmax(worst_rel, std::fabs(s / std::sin(ad) - 1));
    }
  }
  EXPECT_LT(worst_abs, 2.5e-7);
  EXPECT_LT(worst_rel, 2e-7);
  float s, c;
  sincos_fast(std::nanf(""), s, c);  // no undefined conversion (UBSan)
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  sincos_fast(-3.0e-9f, s, c);
  EXPECT_FLOAT_EQ(s, -3.0e-9f);
  EXPECT_EQ(c, 1.0f);
}

TEST(FastMath, ExpRelativeErrorWithin2e7) {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const float x = -87.0f + 175.0f * (static_cast<float>(i) / 200000.0f);
    const double ref = std::exp(static_cast<double>(x));
    worst = std::fmax(worst, std::fabs(exp_fast(x) - ref) / ref);
  }
  EXPECT_LT(worst, 2e-7);
  EXPECT_EQ(exp_fast(0.0f), 1.0f);
}

TEST(FastMath, LogWithin2e7RelativeOrAbsolute) {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const float x = 1e-4f * std::pow(1e8f, static_cast<float>(i) / 200000.0f);
    const double ref = std::log(static_cast<double>(x));
    worst = std::fmax(worst, std::fabs(log_fast(x) - ref) / std::fmax(1.0, std::fabs(ref)));
  }
  EXPECT_LT(worst, 2e-7);
  EXPECT_EQ(log_fast(1.0f), 0.0f);
}

}  // namespace
}  // namespace fastmu
