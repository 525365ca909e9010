// Final states of the discrete muon interactions, as seen by the muon (all
// secondaries are killed at birth): the muon loses the transfer and recoils
// against the secondary's momentum.
//  - knock-on electron: 2-body kinematics on a free electron (G4MuBetheBlochModel);
//  - bremsstrahlung photon and e+e- pair: emitted at the polar angle of the
//    modified MEPHI distribution (Geant4 G4ModifiedMephi; theta ~ 1/gamma),
//    the pair treated as one body of momentum epsilon along that direction;
//  - photonuclear: energy loss only.
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/physics/MuIonisation.hh"
#include "fastmu/physics/MuonKinematics.hh"

namespace fastmu {

// Muon state changed by an interaction: kinetic energy [GeV] and unit direction.
struct MuonKick {
  double kinetic;
  Vec3 dir;
};

// Recoil against a secondary of momentum `p_sec` emitted at polar angle
// theta (cosine given) and a uniform azimuth to `dir`.
template <class Rng>
FASTMU_HD inline Vec3 recoil_direction(double p_mu, Vec3 dir, double p_sec, double cos_theta,
                                       Rng& rng) {
  const double sin_theta = std::sqrt(std::max(0.0, 1.0 - cos_theta * cos_theta));
  double cphi, sphi;
  random::unit_circle(rng, cphi, sphi);
  const Vec3 sec = rotate_from_z(Vec3{sin_theta * cphi, sin_theta * sphi, cos_theta}, dir);
  Vec3 pv = p_mu * dir - p_sec * sec;
  const double n = norm(pv);
  return n > 0 ? (1.0 / n) * pv : dir;
}

template <class Rng>
FASTMU_HD inline MuonKick knock_on_electron(double t, Vec3 dir, double cut, Rng& rng) {
  const DeltaRay d = sample_delta_ray(t, cut, rng);
  const double p_mu = kinematics::momentum_from_kinetic(t);
  const double p_e = std::sqrt(d.kinetic_gev * (d.kinetic_gev + 2.0 * constants::electron_mass));
  return {t - d.kinetic_gev, recoil_direction(p_mu, dir, p_e, d.cos_theta, rng)};
}

// Polar angle of a photon (or pair) of energy k from a muon of kinetic energy t (G4ModifiedMephi).
template <class Rng>
FASTMU_HD inline double mephi_cos_theta(double t, double k, Rng& rng) {
  const double gam = 1.0 + t / constants::muon_mass;
  const double rmax =
      gam * 0.5 * constants::pi * std::min(1.0, gam * constants::muon_mass / k - 1.0);
  const double rmax2 = rmax * rmax;
  const double x = random::uniform(rng) * rmax2 / (1.0 + rmax2);
  const double theta = std::sqrt(x / (1.0 - x)) / gam;
  return std::cos(theta);
}

template <class Rng>
FASTMU_HD inline MuonKick radiative_emission(double t, Vec3 dir, double k, Rng& rng) {
  const double p_mu = kinematics::momentum_from_kinetic(t);
  const double cost = mephi_cos_theta(t, k, rng);
  return {t - k, recoil_direction(p_mu, dir, k, cost, rng)};
}

}  // namespace fastmu
