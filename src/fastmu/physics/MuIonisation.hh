// Muon ionisation: Bethe-Bloch for muons with the density effect and the
// radiative correction to the knock-on cross section of Kelner, Kokoulin and
// Petrukhin (Phys. At. Nucl. 60 (1997) 576), as in Geant4's G4MuBetheBlochModel
// (Geant4 Physics Reference Manual, "Muon ionisation"). Valid for muon kinetic
// energies above ~0.2 MeV (Geant4 uses it from 200 keV up to 100 TeV); below
// 1 MeV the muon stops within micrometres and the model only sets the range.
//
// Restricted loss: energy transfers below the delta-ray cut are continuous;
// transfers above it are explicit knock-on electrons sampled from
//   dsigma/dT = 2 pi r_e^2 m_e c^2 n_el / (beta^2 T^2) [1 - beta^2 T/Tmax + T^2/(2E^2)]
//               x (1 + alpha/(2 pi) ln(1 + 2T/m_e) [ln(4 E (E - T)/m_mu^2) - ln(1 + 2T/m_e)]).
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/RandomDistributions.hh"

namespace fastmu {

class MuIonisation {
 public:
  explicit MuIonisation(const Material& material);

  // Restricted stopping power [GeV/m] for transfers below `cut_gev`
  // (cut >= Tmax gives the unrestricted one), kinetic energy `t_gev`.
  double dedx(double t_gev, double cut_gev) const;

  // Macroscopic cross section [1/m] for knock-on electrons above `cut_gev`.
  double cross_section(double t_gev, double cut_gev) const;

 private:
  double electron_density_per_cm3_ = 0;
  double mean_excitation_mev_ = 0;
  DensityEffect density_effect_;
};

// A knock-on electron: its kinetic energy [GeV] and the cosine of its angle to the muon.
struct DeltaRay {
  double kinetic_gev;
  double cos_theta;
};

// Samples the delta-ray energy in [cut, min(Tmax, ...)] from the cross section
// above (1/T^2 by inversion, then rejection on the bracket and the radiative
// factor), and its 2-body emission angle. Requires cut < Tmax.
template <class Rng>
FASTMU_HD inline DeltaRay sample_delta_ray(double t_gev, double cut_gev, Rng& rng) {
  constexpr double me = constants::electron_mass;
  constexpr double mass = constants::muon_mass;
  constexpr double limit_kin = 1e-4;  // 100 keV: radiative correction above
  constexpr double alpha_prime = constants::fine_structure / constants::two_pi;
  const double tau = t_gev / mass;
  const double ratio = me / mass;
  const double tmax =
      2.0 * me * tau * (tau + 2.0) / (1.0 + 2.0 * (tau + 1.0) * ratio + ratio * ratio);
  const double tmin = cut_gev;
  const double etot = t_gev + mass;
  const double etot2 = etot * etot;
  const double beta2 = t_gev * (t_gev + 2.0 * mass) / etot2;
  double grej = 1.0;
  if (tmax > limit_kin) {
    const double l = std::log(2.0 * etot / mass);
    grej += alpha_prime * l * l;
  }
  // The radiative factor is >= 1 for every T <= Tmax when a3 >= a1 at Tmax; then
  // a draw under the plain bracket is accepted without evaluating it (squeeze).
  const bool squeeze = 4.0 * etot * (etot - tmax) >= (1.0 + 2.0 * tmax / me) * mass * mass;
  double tkin = tmin;
  for (int i = 0; i < 10000; ++i) {
    const double q = random::uniform(rng);
    tkin = tmin * tmax / (tmin * (1.0 - q) + tmax * q);
    double f = 1.0 - beta2 * tkin / tmax + 0.5 * tkin * tkin / etot2;
    const double r = grej * random::uniform(rng);
    if (squeeze && r <= f) break;
    if (tkin > limit_kin) {
      const double a1 = std::log(1.0 + 2.0 * tkin / me);
      const double a3 = std::log(4.0 * etot * (etot - tkin) / (mass * mass));
      f *= 1.0 + alpha_prime * a1 * (a3 - a1);
    }
    if (r <= f) break;
  }
  const double pdelta = std::sqrt(tkin * (tkin + 2.0 * me));
  const double pmu = std::sqrt(t_gev * (t_gev + 2.0 * mass));
  double cost = tkin * (etot + me) / (pdelta * pmu);
  cost = cost > 1.0 ? 1.0 : cost;
  return {tkin, cost};
}

}  // namespace fastmu
