#include "fastmu/physics/MuPhotonuclear.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {

MuPhotonuclear::MuPhotonuclear(const Material& material) {
  for (const auto& c : material.components) {
    if (c.mass_fraction <= 0) continue;
    elements_.push_back({c.a_g_per_mol, material.density_g_cm3 * constants::avogadro *
                                            c.mass_fraction / c.a_g_per_mol});
  }
}

double MuPhotonuclear::max_transfer(double t_gev) const {
  return t_gev + constants::muon_mass - 0.5 * constants::proton_mass;
}

double MuPhotonuclear::dxs(double t_gev, double eps) const {
  if (t_gev <= lowest_kinetic_gev) return 0;
  const double mass = constants::muon_mass;
  const double etot = t_gev + mass;
  if (eps >= etot - 0.5 * constants::proton_mass || eps <= min_transfer_gev) return 0;
  constexpr double lambda2 = 0.400;    // GeV^2: vector-meson mass scale
  constexpr double lambda = 0.632456;  // GeV
  const double coeffn = constants::fine_structure / constants::pi;
  const double sigph_cm2 =
      (49.2 + 11.1 * std::log(eps) + 151.8 / std::sqrt(eps)) * units::cm2_per_microbarn;
  const double v = eps / etot, v1 = 1.0 - v, v2 = v * v;
  const double mass2 = mass * mass;
  const double up = etot * etot * v1 / mass2 * (1.0 + mass2 * v2 / (lambda2 * v1));
  const double down =
      1.0 + eps / lambda * (1.0 + lambda / (2.0 * constants::proton_mass) + eps / lambda);
  const double shape = -v1 + (v1 + 0.5 * v2 * (1.0 + 2.0 * mass2 / lambda2)) * std::log(up / down);
  if (shape <= 0) return 0;
  double sum = 0;  // 1/(cm GeV)
  for (const auto& el : elements_) {
    const double aeff = 0.22 * el.a + 0.78 * std::pow(el.a, 0.89);
    sum += el.atoms_per_cm3 * coeffn * aeff * sigph_cm2 / eps * shape;
  }
  return sum * units::cm_per_m;
}

}  // namespace fastmu
