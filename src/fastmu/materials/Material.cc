// Quantities derived from a material's composition and density.
#include <cmath>
#include <cstdio>
#include <string>

#include "fastmu/core/Constants.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

// hbar c in eV cm (CODATA 2018), for the plasma energy.
constexpr double kHbarCEvCm = 1.973269804e-5;

// Tsai's radiation logarithms L_rad, L'_rad (Rev. Mod. Phys. 46 (1974) 815;
// PDG Table 34.2 / eq. 34.26): tabulated for Z <= 4, Thomas-Fermi above.
void radiation_logs(int z, double& l_rad, double& l_rad_prime) {
  switch (z) {
    case 1:
      l_rad = 5.31, l_rad_prime = 6.144;
      return;
    case 2:
      l_rad = 4.79, l_rad_prime = 5.621;
      return;
    case 3:
      l_rad = 4.74, l_rad_prime = 5.805;
      return;
    case 4:
      l_rad = 4.71, l_rad_prime = 5.924;
      return;
    default:
      l_rad = std::log(184.15 * std::pow(z, -1.0 / 3.0));
      l_rad_prime = std::log(1194.0 * std::pow(z, -2.0 / 3.0));
  }
}

// Coulomb correction f(Z) of Davies, Bethe & Maximon (PDG eq. 34.27),
// accurate to 4 digits up to a = alpha Z = 1.
double coulomb_correction(int z) {
  const double a2 = std::pow(constants::fine_structure * z, 2);
  return a2 * (1.0 / (1.0 + a2) + 0.20206 - 0.0369 * a2 + 0.0083 * a2 * a2 - 0.002 * a2 * a2 * a2);
}

// 1/X0 of one element in cm^2/g (PDG eq. 34.26).
double inverse_radiation_length_cm2_g(int z, double a_g_per_mol) {
  const double re = constants::classical_electron_radius_cm;
  const double k = 4.0 * constants::fine_structure * re * re * constants::avogadro;  // cm^2/mol
  double l_rad = 0, l_rad_prime = 0;
  radiation_logs(z, l_rad, l_rad_prime);
  const double zz = z;
  return k / a_g_per_mol * (zz * zz * (l_rad - coulomb_correction(z)) + zz * l_rad_prime);
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

double Material::z_over_a() const {
  double sum = 0;
  for (const MaterialComponent& c : components) sum += c.mass_fraction * c.z / c.a_g_per_mol;
  return sum;
}

double Material::electron_density_per_cm3() const {
  return density_g_cm3 * constants::avogadro * z_over_a();
}

double Material::plasma_energy_ev() const {
  const double four_pi_ne_re =
      4.0 * constants::pi * electron_density_per_cm3() * constants::classical_electron_radius_cm;
  return std::sqrt(four_pi_ne_re) * kHbarCEvCm;
}

double Material::radiation_length_g_cm2() const {
  // Mixtures: 1/X0 = sum_j w_j / X0_j (PDG eq. 34.28).
  double inverse = 0;
  for (const MaterialComponent& c : components) {
    inverse += c.mass_fraction * inverse_radiation_length_cm2_g(c.z, c.a_g_per_mol);
  }
  return 1.0 / inverse;
}

double Material::radiation_length_m() const {
  return radiation_length_g_cm2() / density_g_cm3 * 0.01;  // cm -> m
}

std::string Material::definition() const {
  std::string s = name + ": " + format_number(density_g_cm3) +
                  " g/cm3, I = " + format_number(mean_excitation_ev) + " eV";
  for (const MaterialComponent& c : components) {
    const Element& e = element_by_z(c.z);
    s += ", ";
    s += e.symbol;
    // An effective component (standard rock) shows its A.
    if (std::abs(c.a_g_per_mol - e.a_g_per_mol) > 1e-6 * e.a_g_per_mol) {
      s += "(A=" + format_number(c.a_g_per_mol) + ")";
    }
    s += ' ' + format_number(c.mass_fraction);
  }
  return s;
}

}  // namespace fastmu
