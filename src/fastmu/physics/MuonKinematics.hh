// Relativistic kinematics of the muon, shared by all models (host and device).
// Energies in GeV, momenta in GeV/c.
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"

namespace fastmu::kinematics {

FASTMU_HD inline double kinetic_from_momentum(double p, double mass = constants::muon_mass) {
  // sqrt(p^2+m^2)-m without cancellation at small p.
  return p * p / (std::sqrt(p * p + mass * mass) + mass);
}

FASTMU_HD inline double momentum_from_kinetic(double t, double mass = constants::muon_mass) {
  return std::sqrt(t * (t + 2.0 * mass));
}

FASTMU_HD inline double beta2_from_kinetic(double t, double mass = constants::muon_mass) {
  const double e = t + mass;
  return t * (t + 2.0 * mass) / (e * e);
}

// Largest kinetic energy a free electron at rest can receive (PDG 34.2.2 Eq. 34.4;
// Geant4 MaxSecondaryEnergy for heavy charged particles).
FASTMU_HD inline double max_delta_energy(double t, double mass = constants::muon_mass) {
  const double tau = t / mass;
  const double ratio = constants::electron_mass / mass;
  return 2.0 * constants::electron_mass * tau * (tau + 2.0) /
         (1.0 + 2.0 * (tau + 1.0) * ratio + ratio * ratio);
}

}  // namespace fastmu::kinematics
