#include "fastmu/flux/SeaLevelFlux.hh"

#include <cmath>

#include "fastmu/core/Constants.hh"

namespace fastmu::flux {

namespace {

// Chirkin (hep-ph/0407078), fitted to Volkova's tabulated cos(theta*).
constexpr double kP1 = 0.102573, kP2 = -0.068287, kP3 = 0.958633, kP4 = 0.0407253, kP5 = 0.817285;

// Gaisser's constants (PDG review "Cosmic rays"): normalisation in
// cm^-2 s^-1 sr^-1 GeV^-1, spectral index, the pion and kaon critical
// energies (GeV) and the kaon/pion weight.
constexpr double kNorm = 0.14, kIndex = 2.7, kPionEnergy = 115.0, kKaonEnergy = 850.0,
                 kKaonWeight = 0.054;
// Guan et al.'s low-energy correction E -> E (1 + kLowE / (E c*^kLowPower)).
constexpr double kLowE = 3.64, kLowPower = 1.29;
constexpr double kPerCm2ToPerM2 = 1e4;

}  // namespace

double cos_theta_star(double cos_theta) {
  const double c = std::fmin(std::fmax(cos_theta, 0.0), 1.0);
  const double num = c * c + kP1 * kP1 + kP2 * std::pow(c, kP3) + kP4 * std::pow(c, kP5);
  const double den = 1.0 + kP1 * kP1 + kP2 + kP4;
  return std::sqrt(num / den);
}

double sea_level_intensity(double energy_gev, double cos_theta) {
  if (!(cos_theta > 0.0)) return 0.0;
  return intensity_at_cos_star(energy_gev, cos_theta_star(cos_theta));
}

double intensity_at_cos_star(double energy_gev, double cs) {
  if (!(energy_gev > constants::muon_mass)) return 0.0;
  const double e = energy_gev;
  const double e_low = e * (1.0 + kLowE / (e * std::pow(cs, kLowPower)));
  const double mesons =
      1.0 / (1.0 + 1.1 * e * cs / kPionEnergy) + kKaonWeight / (1.0 + 1.1 * e * cs / kKaonEnergy);
  return kPerCm2ToPerM2 * kNorm * std::pow(e_low, -kIndex) * mesons;
}

}  // namespace fastmu::flux
