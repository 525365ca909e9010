// Muon photonuclear (inelastic muon-nucleus) interaction: the double-
// logarithmic virtual-photon cross section of Borog and Petrukhin (Proc. 14th
// ICCR, Munich 6 (1975) 1949) with the real-photon cross section
// sigma_gamma_N = 49.2 + 11.1 ln(eps) + 151.8/sqrt(eps) microbarn (eps in GeV)
// and nuclear shadowing A_eff = 0.22 A + 0.78 A^0.89, as in Geant4's
// G4KokoulinMuonNuclearXS (G4MuonNuclearProcess). Valid for muon energies
// 1 GeV .. 1000 TeV and transfers eps > 0.2 GeV. Treated as purely discrete:
// the muon loses eps; its small deflection is neglected. Off by default.
#pragma once

#include <vector>

#include "fastmu/materials/Material.hh"

namespace fastmu {

class MuPhotonuclear {
 public:
  explicit MuPhotonuclear(const Material& material);

  static constexpr double lowest_kinetic_gev = 1.0;
  static constexpr double min_transfer_gev = 0.2;

  // d(sigma)/d(eps) per unit volume [1/(m GeV)].
  double dxs(double t_gev, double eps_gev) const;
  double max_transfer(double t_gev) const;

 private:
  struct ElementTerm {
    double a;
    double atoms_per_cm3;
  };
  std::vector<ElementTerm> elements_;
};

}  // namespace fastmu
