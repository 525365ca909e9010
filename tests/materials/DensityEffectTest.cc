#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

constexpr double kTwoLn10 = 2.0 * 2.302585092994046;

TEST(DensityEffect, IronMatchesSternheimer1984) {
  const DensityEffect& d = builtin_materials().find("G4_Fe").density_effect;
  EXPECT_DOUBLE_EQ(d.cbar, 4.2911);
  EXPECT_DOUBLE_EQ(d.x0, -0.0012);
  EXPECT_DOUBLE_EQ(d.x1, 3.1531);
  EXPECT_DOUBLE_EQ(d.a, 0.146);
  EXPECT_DOUBLE_EQ(d.m, 2.9632);
  EXPECT_DOUBLE_EQ(d.delta0, 0.12);
}

TEST(DensityEffect, IronHighEnergyLimit) {
  // delta -> 2 ln(hbar omega_p / I) + 2 ln(beta gamma) - 1 (PDG eq. 34.6),
  // hbar omega_p(Fe) = 55.17 eV, I = 286 eV.
  const Material& fe = builtin_materials().find("G4_Fe");
  EXPECT_NEAR(fe.plasma_energy_ev(), 55.17, 0.01);
  for (double bg : {2e3, 1e4, 1e5, 1e6}) {
    const double limit = 2.0 * std::log(55.17 / 286.0) + 2.0 * std::log(bg) - 1.0;
    EXPECT_NEAR(fe.density_effect.delta(bg), limit, 2e-3) << bg;
  }
  // Far below x0 a conductor keeps delta0 10^(2(x - x0)).
  const DensityEffect& d = fe.density_effect;
  EXPECT_NEAR(d.delta(0.1), 0.12 * std::pow(10.0, 2.0 * (-1.0 - d.x0)), 1e-12);
  EXPECT_GT(d.delta(100.0), d.delta(10.0));
}

TEST(DensityEffect, PiecewiseFormAndContinuityAtX1) {
  const DensityEffect d{3.5, 0.2, 2.8, 0.09, 3.5, 0.0};
  EXPECT_EQ(d.delta(std::pow(10.0, 0.1)), 0.0);  // below x0, insulator
  const double x = 1.0;
  EXPECT_NEAR(d.delta(std::pow(10.0, x)), kTwoLn10 * x - 3.5 + 0.09 * std::pow(2.8 - x, 3.5),
              1e-12);
  const double below = d.delta(std::pow(10.0, 2.8 - 1e-9));
  const double above = d.delta(std::pow(10.0, 2.8 + 1e-9));
  EXPECT_NEAR(below, above, 1e-7);
  EXPECT_EQ(d.delta(0.0), 0.0);
  EXPECT_EQ(d.delta(-1.0), 0.0);
}

TEST(DensityEffect, AllBuiltinsFiniteNonNegativeAndInsulatorsContinuousAtX0) {
  const MaterialLibrary& lib = builtin_materials();
  for (const std::string& name : lib.names()) {
    const Material& m = lib.find(name);
    const DensityEffect& d = m.density_effect;
    for (double lg = -2; lg <= 7; lg += 0.25) {
      const double v = d.delta(std::pow(10.0, lg));
      ASSERT_TRUE(std::isfinite(v)) << name << " " << lg;
      ASSERT_GE(v, 0.0) << name << " " << lg;
    }
    if (d.delta0 == 0.0 && d.x1 > d.x0 && name != "G4_Galactic" && name != "StandardRock") {
      EXPECT_NEAR(d.delta(std::pow(10.0, d.x0 + 1e-9)), 0.0, 1e-6) << name;
    }
    // Tabulated or computed, cbar stays close to 1 + 2 ln(I / hbar omega_p):
    // exact for the general formulas, within the fits' own scatter else.
    // (Geant4's G4_lH2 fit was made for 0.060 g/cm3, its density is 0.0708.)
    if (name != "G4_Galactic" && name != "G4_lH2") {
      const double cbar = 1.0 + 2.0 * std::log(m.mean_excitation_ev / m.plasma_energy_ev());
      EXPECT_NEAR(d.cbar, cbar, 0.12) << name;
    }
  }
}

TEST(DensityEffect, WaterFitShiftedToNistMeanExcitation) {
  // Geant4 starts water from the fit made with I = 75 eV and moves it to the
  // NIST I = 78 eV: cbar += 2 ln(78/75), x0, x1 by that over 2 ln10.
  const Material& water = builtin_materials().find("G4_WATER");
  const double corr = 2.0 * std::log(78.0 / 75.0);
  EXPECT_DOUBLE_EQ(water.mean_excitation_ev, 78.0);
  EXPECT_NEAR(water.density_effect.cbar, 3.5017 + corr, 1e-12);
  EXPECT_NEAR(water.density_effect.x0, 0.24 + corr / kTwoLn10, 1e-12);
  EXPECT_NEAR(water.density_effect.x1, 2.8004 + corr / kTwoLn10, 1e-12);
  EXPECT_NEAR(water.density_effect.m, 3.4773, 1e-12);
}

TEST(DensityEffect, Geant4ChoicesForNistMaterials) {
  const MaterialLibrary& lib = builtin_materials();
  // G4_C: fit made with I = 78 eV, NIST I = 81 eV -> shifted.
  const Material& c = lib.find("G4_C");
  EXPECT_DOUBLE_EQ(c.mean_excitation_ev, 81.0);
  EXPECT_NEAR(c.density_effect.cbar, 2.9925 + 2.0 * std::log(81.0 / 78.0), 1e-12);
  // G4_GRAPHITE has its own fit (conductor, delta0 = 0.12) and I = 78 eV.
  const DensityEffect& g = lib.find("G4_GRAPHITE").density_effect;
  EXPECT_DOUBLE_EQ(g.cbar, 2.868);
  EXPECT_DOUBLE_EQ(g.delta0, 0.12);
  // No fit and no dominant element (Fe is 74 % of the atoms): general
  // formulas with the Bragg I. Checked against Geant4 11.4's unrestricted
  // mu- dE/dx (dedx_mu-_per_process.csv): our/Geant4 is flat in energy.
  for (const char* name : {"G4_STAINLESS-STEEL", "G4_BRASS", "G4_PbWO4", "G4_lAr"}) {
    const Material& m = lib.find(name);
    EXPECT_NEAR(m.density_effect.cbar,
                1.0 + 2.0 * std::log(m.mean_excitation_ev / m.plasma_energy_ev()), 1e-12)
        << name;
    EXPECT_DOUBLE_EQ(m.density_effect.x1, 3.0) << name;
    EXPECT_DOUBLE_EQ(m.density_effect.m, 3.0) << name;
  }
}

TEST(DensityEffect, SternheimerPeierlsGeneralFormulas) {
  // Condensed, I >= 100 eV, large cbar: x0 = 0.326 cbar - 1.5, x1 = 3, m = 3.
  const double hwp = 50.0, i = 500.0;
  const DensityEffect d = sternheimer_peierls_density_effect(i, hwp, false);
  const double cbar = 1.0 + 2.0 * std::log(i / hwp);
  EXPECT_NEAR(d.cbar, cbar, 1e-12);
  EXPECT_NEAR(d.x0, 0.326 * cbar - 1.5, 1e-12);
  EXPECT_DOUBLE_EQ(d.x1, 3.0);
  EXPECT_DOUBLE_EQ(d.m, 3.0);
  EXPECT_DOUBLE_EQ(d.delta0, 0.0);
  EXPECT_NEAR(d.delta(std::pow(10.0, d.x0)), 0.0, 1e-9);

  // Condensed, I < 100 eV, small cbar: x0 = 0.2, x1 = 2.
  const DensityEffect low = sternheimer_peierls_density_effect(60.0, 25.0, false);
  EXPECT_DOUBLE_EQ(low.x0, 0.2);
  EXPECT_DOUBLE_EQ(low.x1, 2.0);

  // Gas with cbar <= 10: x0 = 1.6, x1 = 4.
  const DensityEffect gas = sternheimer_peierls_density_effect(80.0, 1.0, true);
  EXPECT_LE(gas.cbar, 10.0);
  EXPECT_DOUBLE_EQ(gas.x0, 1.6);
  EXPECT_DOUBLE_EQ(gas.x1, 4.0);

  // Hydrogen's special values.
  const DensityEffect h = sternheimer_peierls_density_effect(19.2, 0.263, true, 1);
  EXPECT_DOUBLE_EQ(h.x0, 1.837);
  EXPECT_DOUBLE_EQ(h.x1, 3.0);
  EXPECT_DOUBLE_EQ(h.m, 4.754);
}

}  // namespace
}  // namespace fastmu
