// Range-cut to energy conversion (ProductionCuts) against Geant4 11.
// Fixture: Geant4 11 prints, for G4_WATER with a 0.7 mm range cut, the
// thresholds gamma 2.52521 keV and e- 277.633 keV (production-cuts table dump).
#include <gtest/gtest.h>

#include "fastmu/materials/Material.hh"
#include "fastmu/physics/ProductionCuts.hh"

namespace fastmu {
namespace {

TEST(ProductionCuts, WaterAt0p7mmAsGeant4) {
  const auto cuts = compute_production_cuts(builtin_materials().find("G4_WATER"), 0.7e-3);
  EXPECT_NEAR(cuts.electron_gev / 277.633e-6, 1.0, 0.002);
  EXPECT_NEAR(cuts.gamma_gev / 2.52521e-6, 1.0, 0.002);
}

TEST(ProductionCuts, IronNearOneMeVAndMonotonic) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const auto c07 = compute_production_cuts(fe, 0.7e-3);
  EXPECT_GT(c07.electron_gev, 0.9e-3);
  EXPECT_LT(c07.electron_gev, 1.1e-3);
  EXPECT_LT(c07.positron_gev,
            c07.electron_gev);  // positrons lose more per unit length at these energies
  const auto c1 = compute_production_cuts(fe, 1e-3);
  EXPECT_GT(c1.electron_gev, c07.electron_gev);
  EXPECT_GT(c1.gamma_gev, c07.gamma_gev);
}

TEST(ProductionCuts, GasGetsTheFloor) {
  const auto cuts = compute_production_cuts(builtin_materials().find("G4_AIR"), 0.7e-3);
  EXPECT_NEAR(cuts.electron_gev, 0.99e-6, 1e-12);
  EXPECT_NEAR(cuts.gamma_gev, 0.99e-6, 1e-12);
}

}  // namespace
}  // namespace fastmu
