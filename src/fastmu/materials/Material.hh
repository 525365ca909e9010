// Materials: composition, density, mean excitation energy and Sternheimer
// density-effect parameters. Names follow Geant4's NIST database.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fastmu {

struct Element {
  int z = 0;
  const char* symbol = "";
  double a_g_per_mol = 0;  // standard atomic weight
  double mean_excitation_ev =
      0;  // I of the element in its reference state (ICRU 37/49 / Geant4 NIST)
};

// Looks up by atomic number (1..98) or symbol ("Fe"); throws fastmu::Error if unknown.
const Element& element_by_z(int z);
const Element& element_by_symbol(const std::string& symbol);

// Sternheimer (1984) parametrisation of the density effect, in x = log10(beta gamma):
//   delta = 0                                       x < x0 (delta0 * 10^(2 (x - x0)) for conductors)
//   delta = 2 ln10 x - cbar + a (x1 - x)^m          x0 <= x < x1
//   delta = 2 ln10 x - cbar                         x >= x1
struct DensityEffect {
  double cbar = 0, x0 = 0, x1 = 0, a = 0, m = 0, delta0 = 0;

  double delta(double beta_gamma) const;
};

// Sternheimer & Peierls (Phys. Rev. B 3 (1971) 3681) general parameters, the
// way Geant4 (G4IonisParamMat) uses them for materials without a Sternheimer
// (1984) fit: cbar = 1 + 2 ln(I / hbar omega_p), x0/x1/m by state and I, a for
// continuity at x0. single_z: the Z of a one-element material (H and He
// have special values), else 0.
DensityEffect sternheimer_peierls_density_effect(double mean_excitation_ev, double plasma_energy_ev,
                                                 bool gas, int single_z = 0);

struct MaterialComponent {
  int z = 0;
  double a_g_per_mol = 0;  // the element's A, or an effective one (standard rock: Z = 11, A = 22)
  double mass_fraction = 0;
};

struct Material {
  std::string name;  // e.g. "G4_Fe"
  double density_g_cm3 = 0;
  double mean_excitation_ev = 0;              // I
  std::vector<MaterialComponent> components;  // mass fractions summing to 1
  DensityEffect density_effect;
  bool gas = false;  // state (only the density-effect parameters depend on it)

  // <Z/A> in mol/g.
  double z_over_a() const;
  // Electrons per cm^3.
  double electron_density_per_cm3() const;
  // Plasma energy hbar omega_p = sqrt(4 pi n_e r_e) hbar c, in eV (Fe: 55.17 eV).
  double plasma_energy_ev() const;
  // Radiation length in g/cm^2 (Tsai, PDG 34.4.1) and in metres.
  double radiation_length_g_cm2() const;
  double radiation_length_m() const;
  // One line for metadata: "G4_Fe: 7.874 g/cm3, I = 286 eV, Fe 1"
  // (mixtures: "..., H 0.111907, O 0.888093", mass fractions).
  std::string definition() const;
};

// How far a custom material's mass fractions may sum from 1 without a warning
// (Geant4's perThousand in G4Material::AddElement).
inline constexpr double kMassFractionSumTolerance = 1e-3;

// Materials known by name: the built-in NIST-like set plus custom ones.
class MaterialLibrary {
 public:
  // The built-in materials only.
  MaterialLibrary();

  // Looks up a material ("vacuum" is an alias of G4_Galactic); throws
  // fastmu::Error("unknown material 'X' (known: ...)") otherwise.
  const Material& find(const std::string& name) const;
  bool contains(const std::string& name) const;
  std::vector<std::string> names() const;

  // Defines a custom material from density [g/cm3] and mass fractions by element
  // symbol (normalised to 1; a sum that differs from 1 by more than 1e-3 gives a
  // one-line warning on stderr, as Geant4's G4Material::AddElement does). I follows the Bragg
  // additivity rule (Geant4's choice for mixtures), density-effect parameters the
  // Sternheimer-Peierls general formulas. Throws fastmu::Error for an unknown element, a
  // non-positive density or fraction, or a name that is already taken.
  const Material& add_custom(const std::string& name, double density_g_cm3,
                             const std::map<std::string, double>& mass_fractions);

 private:
  std::map<std::string, Material> materials_;
};

// The process-wide library of built-in materials.
const MaterialLibrary& builtin_materials();

}  // namespace fastmu
