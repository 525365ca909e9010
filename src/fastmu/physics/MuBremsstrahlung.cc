#include "fastmu/physics/MuBremsstrahlung.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {
namespace {
const double sqrte = std::sqrt(std::exp(1.0));
// Screening constants (Thomas-Fermi, and hydrogen's exact values).
constexpr double btf = 183.0, btf1 = 1429.0, bh = 202.4, bh1 = 446.0;
}  // namespace

MuBremsstrahlung::MuBremsstrahlung(const Material& material) {
  for (const auto& c : material.components) {
    if (c.mass_fraction <= 0) continue;
    elements_.push_back(
        {c.z, c.a_g_per_mol,
         material.density_g_cm3 * constants::avogadro * c.mass_fraction / c.a_g_per_mol});
  }
}

double MuBremsstrahlung::dxs_per_atom_mev(int iz, double a, double t_mev, double k_mev) {
  if (k_mev > t_mev || k_mev <= 0) return 0;
  const double me = units::electron_mass_mev;
  const double mass = units::muon_mass_mev;
  const double rmass = mass / me;
  const double cc = constants::classical_electron_radius_cm / rmass;
  const double coeff = 16.0 * constants::fine_structure * cc * cc / 3.0;
  iz = std::clamp(iz, 1, 92);
  const double z = iz;
  const double e = t_mev + mass;
  const double v = k_mev / e;
  const double delta = 0.5 * mass * mass * v / (e - k_mev);
  const double rab0 = delta * sqrte;
  const double z13 = std::cbrt(z);
  // Nuclear form factor: D_n = 1.54 A^0.27, taken to the power 1 - 1/Z.
  double dn = 1.54 * std::pow(a, 0.27);
  if (iz > 1) dn /= std::pow(dn, 1.0 / z);
  const double b = (iz == 1) ? bh : btf;
  const double b1 = (iz == 1) ? bh1 : btf1;
  // Nucleus contribution.
  const double rab1 = b / z13;
  const double fn = std::max(
      0.0, std::log(rab1 / (dn * (me + rab0 * rab1)) * (mass + delta * (dn * sqrte - 2.0))));
  // Atomic-electron contribution.
  double fe = 0;
  const double epmax1 = e / (1.0 + 0.5 * mass * rmass / e);
  if (k_mev < epmax1) {
    const double rab2 = b1 / (z13 * z13);
    fe = std::max(
        0.0, std::log(rab2 * mass / ((1.0 + delta * rmass / (me * sqrte)) * (me + rab0 * rab2))));
  }
  return std::max(0.0, coeff * (1.0 - v * (1.0 - 0.75 * v)) * z * (fn * z + fe) / k_mev);
}

double MuBremsstrahlung::dxs(double t_gev, double k_gev) const {
  if (t_gev <= lowest_kinetic_gev) return 0;
  const double t = t_gev * units::mev_per_gev, k = k_gev * units::mev_per_gev;
  double sum = 0;  // 1/(cm MeV)
  for (const auto& el : elements_) sum += el.atoms_per_cm3 * dxs_per_atom_mev(el.z, el.a, t, k);
  return sum * units::cm_per_m * units::mev_per_gev;
}

}  // namespace fastmu
