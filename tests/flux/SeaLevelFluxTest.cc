// The sea-level flux parametrisation against the values it must give.
#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/flux/FluxSampler.hh"
#include "fastmu/flux/SeaLevelFlux.hh"

namespace {

using fastmu::flux::cos_theta_star;
using fastmu::flux::sea_level_intensity;

// Gaisser's formula (PDG review "Cosmic rays") in m^-2 s^-1 sr^-1 GeV^-1.
double gaisser(double e, double c) {
  return 1e4 * 0.14 * std::pow(e, -2.7) *
         (1.0 / (1.0 + 1.1 * e * c / 115.0) + 0.054 / (1.0 + 1.1 * e * c / 850.0));
}

// Integral of the vertical intensity over [e_lo, e_hi] (Simpson in ln E).
double vertical_integral(double e_lo, double e_hi) {
  const int n = 4000;
  const double a = std::log(e_lo), h = (std::log(e_hi) - a) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double e = std::exp(a + i * h);
    sum += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * e * sea_level_intensity(e, 1.0);
  }
  return sum * h / 3;
}

TEST(SeaLevelFlux, CosThetaStarIsOneVerticalAndPositiveHorizontal) {
  EXPECT_NEAR(cos_theta_star(1.0), 1.0, 1e-12);
  EXPECT_GT(cos_theta_star(0.0), 0.05);  // a curved Earth: finite path at the horizon
  double prev = cos_theta_star(0.0);
  for (int i = 1; i <= 100; ++i) {
    const double c = i / 100.0;
    EXPECT_GT(cos_theta_star(c), prev) << c;
    // theta* <= theta; the fit dips below cos(theta) by ~3e-5 near vertical.
    EXPECT_GE(cos_theta_star(c), c - 1e-4) << c;
    prev = cos_theta_star(c);
  }
}

// PDG: vertical muons above 1 GeV/c at sea level, ~70 m^-2 s^-1 sr^-1.
TEST(SeaLevelFlux, VerticalIntegralIntensityAboveOneGeV) {
  const double i = vertical_integral(1.0, 1e7);
  EXPECT_NEAR(i, 70.0, 0.2 * 70.0) << i;
}

// Above ~100 GeV / cos(theta) the corrections fade: Gaisser's formula holds.
TEST(SeaLevelFlux, ApproachesGaisserAtHighEnergy) {
  EXPECT_NEAR(sea_level_intensity(100.0, 1.0) / gaisser(100.0, 1.0), 1.0, 0.10);
  EXPECT_NEAR(sea_level_intensity(1000.0, 1.0) / gaisser(1000.0, 1.0), 1.0, 0.02);
  EXPECT_NEAR(sea_level_intensity(1e4, 1.0) / gaisser(1e4, 1.0), 1.0, 0.005);
  const double c60 = 0.5;  // 60 degrees, below the PDG's 70-degree limit
  EXPECT_NEAR(sea_level_intensity(2000.0, c60) / gaisser(2000.0, c60), 1.0, 0.05);
  // At 10 GeV (below 100 GeV) the low-energy correction lowers the flux.
  EXPECT_LT(sea_level_intensity(10.0, 1.0), gaisser(10.0, 1.0));
  EXPECT_GT(sea_level_intensity(10.0, 1.0), 0.3 * gaisser(10.0, 1.0));
}

TEST(SeaLevelFlux, FallsWithZenithAtLowEnergyRisesAtHighEnergy) {
  // Below ~100 GeV inclined muons decay or lose their energy on the longer
  // path; at TeV energies their parent mesons decay more before interacting.
  EXPECT_LT(sea_level_intensity(3.0, 0.3), sea_level_intensity(3.0, 1.0));
  EXPECT_GT(sea_level_intensity(1e4, 0.3), sea_level_intensity(1e4, 1.0));
}

TEST(SeaLevelFlux, ZeroOutsideItsDomain) {
  EXPECT_EQ(sea_level_intensity(10.0, 0.0), 0.0);
  EXPECT_EQ(sea_level_intensity(10.0, -0.5), 0.0);
  EXPECT_EQ(sea_level_intensity(0.1, 1.0), 0.0);  // below the muon mass
}

// PDG: ~1 cm^-2 min^-1 through a horizontal detector (all energies).
TEST(SeaLevelFlux, RateThroughHorizontalPlane) {
  fastmu::flux::FluxOptions o;
  o.e_min = 0.106;
  o.e_max = 1e7;
  o.area = {0.0, 1.0, 0.0, 1.0};
  const double per_cm2_min = fastmu::flux::FluxSampler(o).expected_rate() * 60.0 / 1e4;
  EXPECT_NEAR(per_cm2_min, 1.0, 0.3) << per_cm2_min;
}

}  // namespace
