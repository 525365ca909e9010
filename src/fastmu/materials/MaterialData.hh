// Internal to the materials module: the reference tables (elements, NIST
// simple materials, Sternheimer 1984 density-effect fits) and the builder of
// the built-in material set. Not part of the public API.
#pragma once

#include <string_view>
#include <vector>

#include "fastmu/materials/Material.hh"

namespace fastmu::materials_detail {

inline constexpr int kMaxZ = 98;

// Geant4's NIST "simple material" G4_<symbol>: nominal density and state.
// (Its I is the element's mean_excitation_ev.)
struct SimpleMaterialRow {
  double density_g_cm3;
  bool gas;
};
const SimpleMaterialRow& simple_material(int z);  // z in 1..kMaxZ

// One fit of Sternheimer, Berger & Seltzer, Atom. Data Nucl. Data Tables 30
// (1984) 261, as tabulated in Geant4's G4DensityEffectData.
struct SternheimerRow {
  const char* name;  // Geant4 material name the fit belongs to
  double plasma_energy_ev;
  double cbar, x0, x1, a, m, delta0;
  double mean_excitation_ev;  // the I the fit was made with
  bool gas;                   // state the fit was made for
};

// The fit of the material with this exact name, or nullptr.
const SternheimerRow* sternheimer_by_name(std::string_view name);
// The fit of the pure element in its NIST reference state, or nullptr
// (Geant4 has none for At, Fr, Cf).
const SternheimerRow* sternheimer_by_z(int z);

// How a material is described before its derived parameters are computed.
struct MaterialSpec {
  std::string name;
  double density_g_cm3 = 0;
  double mean_excitation_ev = 0;  // 0: Bragg additivity from the elements
  bool gas = false;
  std::vector<MaterialComponent> components;  // normalised mass fractions
};

// Fills I and the density-effect parameters the way Geant4 (G4IonisParamMat
// + G4NistMaterialBuilder::BuildMaterial) does for a material of this name.
Material finish_material(MaterialSpec spec);

// Bragg additivity: ln I = sum w_i (Z/A)_i ln I_i / sum w_i (Z/A)_i.
double bragg_mean_excitation_ev(const std::vector<MaterialComponent>& components);

// The built-in set (NIST simple materials, selected NIST compounds, HEP
// materials, standard rock).
std::vector<Material> make_builtin_materials();

}  // namespace fastmu::materials_detail
