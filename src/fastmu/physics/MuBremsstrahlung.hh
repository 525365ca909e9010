// Muon bremsstrahlung: differential cross section of Kelner, Kokoulin and
// Petrukhin (Moscow Engineering Physics Inst. preprint 024-95 (1995); Phys.
// At. Nucl. 62 (1999) 1894), with nuclear-size and atomic-electron terms, as
// in Geant4's G4MuBremsstrahlungModel (Physics Reference Manual, "Muon
// bremsstrahlung"). Valid for muon kinetic energies 0.1 GeV .. 1000 TeV
// (Geant4 sets the cross section to zero below 0.1 GeV) and photon energies
// from 0.9 keV up to the kinetic energy.
#pragma once

#include <vector>

#include "fastmu/materials/Material.hh"

namespace fastmu {

class MuBremsstrahlung {
 public:
  explicit MuBremsstrahlung(const Material& material);

  // Below this muon kinetic energy [GeV] the process is off (as in Geant4).
  static constexpr double lowest_kinetic_gev = 0.1;
  // Photons below this energy [GeV] are never produced.
  static constexpr double min_photon_gev = 0.9e-6;

  // Differential cross section per unit volume d(sigma)/dk [1/(m GeV)] for a
  // muon of kinetic energy t emitting a photon of energy k.
  double dxs(double t_gev, double k_gev) const;
  // Largest photon energy [GeV].
  double max_transfer(double t_gev) const { return t_gev; }

  // Per element, atomic: d(sigma)/dk [cm^2/MeV] (Z, t and k in MeV).
  static double dxs_per_atom_mev(int z, double a, double t_mev, double k_mev);

 private:
  struct ElementTerm {
    int z;
    double a;
    double atoms_per_cm3;
  };
  std::vector<ElementTerm> elements_;
};

}  // namespace fastmu
