// Density-effect correction delta(beta gamma) of the Bethe formula.
//
// Sternheimer parametrisation (R.M. Sternheimer, S.M. Seltzer, M.J. Berger,
// Atom. Data Nucl. Data Tables 30 (1984) 261; PDG "Passage of particles
// through matter" eq. 34.7), with x = log10(beta gamma):
//   x <  x0:       delta = delta0 10^(2 (x - x0))   (conductors; 0 otherwise)
//   x0 <= x < x1:  delta = 2 ln10 x - cbar + a (x1 - x)^m
//   x >= x1:       delta = 2 ln10 x - cbar
// Valid for any beta gamma > 0; at high energy delta -> 2 ln(hbar omega_p / I)
// + 2 ln(beta gamma) - 1 because cbar = 1 + 2 ln(I / hbar omega_p).
#include <algorithm>
#include <cmath>

#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

constexpr double kTwoLn10 = 2.0 * 2.302585092994045684;

}  // namespace

double DensityEffect::delta(double beta_gamma) const {
  if (!(beta_gamma > 0)) return 0.0;
  const double x = std::log10(beta_gamma);
  if (x < x0) {
    return delta0 > 0 ? delta0 * std::pow(10.0, 2.0 * (x - x0)) : 0.0;
  }
  // delta >= 0 physically; the clamp only matters for parameters far outside
  // the fits' domain (e.g. the near-zero density of G4_Galactic).
  const double high = kTwoLn10 * x - cbar;
  if (x >= x1) return std::max(0.0, high);
  return std::max(0.0, high + a * std::pow(x1 - x, m));
}

DensityEffect sternheimer_peierls_density_effect(double mean_excitation_ev, double plasma_energy_ev,
                                                 bool gas, int single_z) {
  DensityEffect d;
  d.cbar = 1.0 + 2.0 * std::log(mean_excitation_ev / plasma_energy_ev);
  d.m = 3.0;
  if (!gas) {
    // Condensed media: two regimes split at I = 100 eV.
    const bool low_i = mean_excitation_ev < 100.0;
    const double cbar_limit = low_i ? 3.681 : 5.215;
    d.x0 = d.cbar < cbar_limit ? 0.2 : 0.326 * d.cbar - (low_i ? 1.0 : 1.5);
    d.x1 = low_i ? 2.0 : 3.0;
    if (single_z == 1) {
      d.x0 = 0.425;
      d.x1 = 2.0;
      d.m = 5.949;
    }
  } else {
    // Gases: x0 stepped in cbar.
    d.x1 = 4.0;
    if (d.cbar <= 10.0) {
      d.x0 = 1.6;
    } else if (d.cbar <= 10.5) {
      d.x0 = 1.7;
    } else if (d.cbar <= 11.0) {
      d.x0 = 1.8;
    } else if (d.cbar <= 11.5) {
      d.x0 = 1.9;
    } else if (d.cbar <= 12.25) {
      d.x0 = 2.0;
    } else if (d.cbar <= 13.804) {
      d.x0 = 2.0;
      d.x1 = 5.0;
    } else {
      d.x0 = 0.326 * d.cbar - 2.5;
      d.x1 = 5.0;
    }
    if (single_z == 1) {
      d.x0 = 1.837;
      d.x1 = 3.0;
      d.m = 4.754;
    } else if (single_z == 2) {
      d.x0 = 2.191;
      d.x1 = 3.0;
      d.m = 3.297;
    }
  }
  // Insulator: delta is continuous (zero) at x0.
  d.a = kTwoLn10 * (d.cbar / kTwoLn10 - d.x0) / std::pow(d.x1 - d.x0, d.m);
  d.delta0 = 0.0;
  return d;
}

}  // namespace fastmu
