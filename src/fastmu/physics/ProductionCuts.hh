// Conversion of a production range cut into energy thresholds per material,
// the way Geant4 11 does it (G4VRangeToEnergyConverter with the approximate
// electron stopping power of G4RToEConvForElectron and the approximate photon
// absorption cross section of G4RToEConvForGamma). These crude formulas are
// what Geant4 uses to *define* its thresholds, so reproducing them reproduces
// Geant4's split between continuous and discrete loss (e.g. about 1 MeV for
// electrons in iron at 0.7 mm).
#pragma once

#include "fastmu/materials/Material.hh"

namespace fastmu {

struct ProductionCuts {
  double electron_gev = 0;  // delta-ray threshold (kinetic energy)
  double positron_gev = 0;  // e+ threshold (the e+e- pair process uses it)
  double gamma_gev = 0;     // bremsstrahlung photon threshold
};

// Thresholds for range cut `range_cut_m` (clamped to [0.99 keV, 10 GeV] as in Geant4).
ProductionCuts compute_production_cuts(const Material& material, double range_cut_m);

}  // namespace fastmu
