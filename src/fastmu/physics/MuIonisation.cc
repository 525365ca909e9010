#include "fastmu/physics/MuIonisation.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/physics/LossIntegrals.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {
namespace {

constexpr double limit_kin_mev = 0.1;  // radiative correction above 100 keV
constexpr double alpha_prime = constants::fine_structure / constants::two_pi;
constexpr auto& xgi = integrals::gl8_x;  // 8-point Gauss-Legendre on [0, 1]
constexpr auto& wgi = integrals::gl8_w;

}  // namespace

MuIonisation::MuIonisation(const Material& material)
    : electron_density_per_cm3_(material.electron_density_per_cm3()),
      mean_excitation_mev_(material.mean_excitation_ev * units::mev_per_ev),
      density_effect_(material.density_effect) {}

double MuIonisation::dedx(double t_gev, double cut_gev) const {
  if (t_gev <= 0 || electron_density_per_cm3_ <= 0) return 0;
  const double me = units::electron_mass_mev;
  const double mass = units::muon_mass_mev;
  const double t = t_gev * units::mev_per_gev;
  const double tmax = kinematics::max_delta_energy(t_gev) * units::mev_per_gev;
  const double cut = std::min(cut_gev * units::mev_per_gev, tmax);
  const double tau = t / mass;
  const double gam = tau + 1.0;
  const double bg2 = tau * (tau + 2.0);
  const double beta2 = bg2 / (gam * gam);
  const double eexc = mean_excitation_mev_;

  double dedx = std::log(2.0 * me * bg2 * cut / (eexc * eexc)) - (1.0 + cut / tmax) * beta2;
  const double etot = t + mass;
  const double del = 0.5 * cut / etot;  // spin-1/2 term
  dedx += del * del;
  dedx -= density_effect_.delta(std::sqrt(bg2));
  dedx = std::max(dedx, 0.0);

  // Radiative correction (knock-on electron radiates), integrated over ln T.
  if (cut > limit_kin_mev) {
    const double logstep = std::log(cut / limit_kin_mev);
    const double ftot2 = 0.5 / (etot * etot);
    double dloss = 0;
    for (int i = 0; i < 8; ++i) {
      const double ep = limit_kin_mev * std::exp(xgi[i] * logstep);
      const double a1 = std::log(1.0 + 2.0 * ep / me);
      const double a3 = std::log(4.0 * etot * (etot - ep) / (mass * mass));
      dloss += wgi[i] * (1.0 - beta2 * ep / tmax + ep * ep * ftot2) * a1 * (a3 - a1);
    }
    dedx += dloss * logstep * alpha_prime;
  }
  dedx *= units::twopi_mc2_rcl2_mev_cm2 * electron_density_per_cm3_ / beta2;  // MeV/cm
  return std::max(dedx, 0.0) * units::gev_per_mev * units::cm_per_m;
}

double MuIonisation::cross_section(double t_gev, double cut_gev) const {
  const double me = units::electron_mass_mev;
  const double mass = units::muon_mass_mev;
  const double t = t_gev * units::mev_per_gev;
  const double tmax = kinematics::max_delta_energy(t_gev) * units::mev_per_gev;
  const double cut = cut_gev * units::mev_per_gev;
  if (cut >= tmax || t <= 0) return 0;
  const double etot = t + mass;
  const double e2 = etot * etot;
  const double beta2 = t * (t + 2.0 * mass) / e2;
  double cross =
      1.0 / cut - 1.0 / tmax - beta2 * std::log(tmax / cut) / tmax + 0.5 * (tmax - cut) / e2;
  if (tmax > limit_kin_mev) {
    const double logtmin = std::log(std::max(cut, limit_kin_mev));
    const double logstep = std::log(tmax) - logtmin;
    double dcross = 0;
    for (int i = 0; i < 8; ++i) {
      const double ep = std::exp(logtmin + xgi[i] * logstep);
      const double a1 = std::log(1.0 + 2.0 * ep / me);
      const double a3 = std::log(4.0 * etot * (etot - ep) / (mass * mass));
      dcross += wgi[i] * (1.0 / ep - beta2 / tmax + 0.5 * ep / e2) * a1 * (a3 - a1);
    }
    cross += dcross * logstep * alpha_prime;
  }
  cross *= units::twopi_mc2_rcl2_mev_cm2 / beta2 * electron_density_per_cm3_;  // 1/cm
  return cross * units::cm_per_m;
}

}  // namespace fastmu
