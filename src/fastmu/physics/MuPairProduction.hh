// Direct e+e- pair production by muons: differential cross section of
// Kokoulin and Petrukhin (Proc. 12th ICCR, Hobart 6 (1971) A2436; R.P. Kokoulin
// 1998 revision with atomic-electron term via Z(Z + zeta)), integrated over the
// pair asymmetry by 8-point Gauss quadrature in ln(1 - rho), as in Geant4's
// G4MuPairProductionModel (Physics Reference Manual, "Positron-electron pair
// production by muons"). Valid for muon kinetic energies 0.85 GeV .. 1000 TeV
// (Geant4 sets it to zero below 0.85 GeV) and pair energies from 4 m_e up to
// E - 0.75 sqrt(e) m_mu Z^(1/3).
#pragma once

#include <vector>

#include "fastmu/materials/Material.hh"

namespace fastmu {

class MuPairProduction {
 public:
  explicit MuPairProduction(const Material& material);

  static constexpr double lowest_kinetic_gev = 0.85;
  static constexpr double min_pair_gev = 4.0 * 0.51099895e-3;

  // d(sigma)/d(epsilon) per unit volume [1/(m GeV)] for pair energy epsilon.
  double dxs(double t_gev, double eps_gev) const;
  // Largest pair energy [GeV] over the material's elements.
  double max_transfer(double t_gev) const;

  // Per atom d(sigma)/d(epsilon) [cm^2/MeV] (t, epsilon in MeV).
  static double dxs_per_atom_mev(double z, double t_mev, double eps_mev);

 private:
  struct ElementTerm {
    double z;
    double atoms_per_cm3;
  };
  std::vector<ElementTerm> elements_;
  double min_z13_ = 1;
};

}  // namespace fastmu
