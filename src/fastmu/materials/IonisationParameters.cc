// Mean excitation energy and density-effect parameters of a material, chosen
// the way Geant4 11 does (G4IonisParamMat::ComputeMeanParameters /
// ComputeDensityEffectParameters / SetMeanExcitationEnergy and
// G4NistMaterialBuilder::BuildMaterial), so that our dE/dx matches Geant4's:
//
//  1. A material whose name has a Sternheimer (1984) fit takes it, and its
//     starting I is the I of the fit.
//  2. Otherwise a one-element material, or a compound with one element above
//     90 % of the atoms (same state), takes that element's fit if its density
//     is within a factor e of the element's nominal NIST density, with cbar,
//     x0, x1 shifted by corr = ln(rho_nominal / rho) (hbar omega_p^2 ~ rho).
//     Starting I: Bragg additivity.
//  3. Otherwise the Sternheimer-Peierls general formulas with the Bragg I.
//  4. A NIST-defined I that differs from the starting one replaces it and
//     shifts cbar by 2 ln(I_new / I_old) (x0, x1 by that over 2 ln10).
//  5. Insulators (delta0 = 0) get a recomputed so that delta(x0) = 0.
//
// Bragg additivity uses the elemental I of the NIST simple materials as they
// are: Geant4 applies no 1.13 "compound" factor (ICRU 37 suggests one for
// some elements in condensed compounds), and neither do we, to stay equal.
// Not emulated: Geant4's extra pressure correction for gases defined away
// from STP (only G4_Galactic, where it does not matter).
#include <cmath>

#include "fastmu/materials/MaterialData.hh"

namespace fastmu::materials_detail {
namespace {

constexpr double kTwoLn10 = 2.0 * 2.302585092994045684;
// Geant4's limits: a fit is reused for |ln(rho_nominal / rho)| <= 1, and a
// compound counts as "one element" above 90 % of the atoms.
constexpr double kMaxDensityLogRatio = 1.0;
constexpr double kDominantAtomFraction = 0.9;

DensityEffect from_row(const SternheimerRow& row) {
  DensityEffect d;
  d.cbar = row.cbar;
  d.x0 = row.x0;
  d.x1 = row.x1;
  d.a = row.a;
  d.m = row.m;
  d.delta0 = row.delta0;
  return d;
}

// cbar = 1 + 2 ln(I / hbar omega_p): a change of ln(I^2 / omega_p^2) by corr
// moves cbar by corr and the x-range by corr / (2 ln10).
void shift(DensityEffect& d, double corr) {
  d.cbar += corr;
  d.x0 += corr / kTwoLn10;
  d.x1 += corr / kTwoLn10;
}

// The element's own fit, if the material is close enough to its nominal density.
const SternheimerRow* element_fit(int z, double density, double& corr) {
  const SternheimerRow* row = sternheimer_by_z(z);
  if (row == nullptr) return nullptr;
  const double c = std::log(simple_material(z).density_g_cm3 / density);
  if (std::abs(c) > kMaxDensityLogRatio) return nullptr;
  corr = c;
  return row;
}

}  // namespace

double bragg_mean_excitation_ev(const std::vector<MaterialComponent>& components) {
  double num = 0, den = 0;
  for (const MaterialComponent& c : components) {
    const double electrons = c.mass_fraction * c.z / c.a_g_per_mol;
    num += electrons * std::log(element_by_z(c.z).mean_excitation_ev);
    den += electrons;
  }
  return std::exp(num / den);
}

Material finish_material(MaterialSpec spec) {
  Material m;
  m.name = std::move(spec.name);
  m.density_g_cm3 = spec.density_g_cm3;
  m.components = std::move(spec.components);
  m.gas = spec.gas;

  double initial_i = bragg_mean_excitation_ev(m.components);
  double corr = 0;
  const SternheimerRow* row = sternheimer_by_name(m.name);
  if (row != nullptr) {
    initial_i = row->mean_excitation_ev;
  } else if (m.components.size() == 1) {
    row = element_fit(m.components[0].z, m.density_g_cm3, corr);
  } else {
    double atoms = 0;
    for (const MaterialComponent& c : m.components) atoms += c.mass_fraction / c.a_g_per_mol;
    for (const MaterialComponent& c : m.components) {
      if (c.mass_fraction / c.a_g_per_mol / atoms <= kDominantAtomFraction) continue;
      const SternheimerRow* candidate = element_fit(c.z, m.density_g_cm3, corr);
      if (candidate != nullptr && candidate->gas == m.gas) row = candidate;
      break;  // at most one element can hold > 90 % of the atoms
    }
  }

  DensityEffect d;
  if (row != nullptr) {
    d = from_row(*row);
    shift(d, corr);
  } else {
    const int single_z = m.components.size() == 1 ? m.components[0].z : 0;
    d = sternheimer_peierls_density_effect(initial_i, m.plasma_energy_ev(), m.gas, single_z);
  }

  m.mean_excitation_ev = initial_i;
  if (spec.mean_excitation_ev > 0 && spec.mean_excitation_ev != initial_i) {
    shift(d, 2.0 * std::log(spec.mean_excitation_ev / initial_i));
    m.mean_excitation_ev = spec.mean_excitation_ev;
  }
  if (d.delta0 == 0.0) {
    d.a = kTwoLn10 * (d.cbar / kTwoLn10 - d.x0) / std::pow(d.x1 - d.x0, d.m);
  }
  m.density_effect = d;
  return m;
}

}  // namespace fastmu::materials_detail
