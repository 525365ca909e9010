// The built-in materials: Geant4 NIST definitions (G4NistMaterialBuilder:
// densities, compositions and I as Geant4 11 has them), and the media of
// underground and neutrino-telescope muons: standard rock, norite, granite,
// ice, sea water.
#include <string>
#include <utility>
#include <vector>

#include "fastmu/materials/MaterialData.hh"

namespace fastmu::materials_detail {
namespace {

// Geant4's universe_mean_density (CLHEP), the density of G4_Galactic.
constexpr double kUniverseMeanDensityGCm3 = 1.0e-25;

enum class Amount { mass_fraction, atom_count };

struct CompoundDef {
  const char* name;
  double density_g_cm3;
  double mean_excitation_ev;  // 0: Bragg additivity (Geant4 gives none)
  bool gas;
  Amount amount;
  std::vector<std::pair<int, double>> parts;  // (Z, mass fraction or atoms)
};

MaterialSpec to_spec(const CompoundDef& def) {
  MaterialSpec spec;
  spec.name = def.name;
  spec.density_g_cm3 = def.density_g_cm3;
  spec.mean_excitation_ev = def.mean_excitation_ev;
  spec.gas = def.gas;
  double total = 0;
  for (const auto& [z, amount] : def.parts) {
    const Element& e = element_by_z(z);
    const double mass = def.amount == Amount::atom_count ? amount * e.a_g_per_mol : amount;
    spec.components.push_back({z, e.a_g_per_mol, mass});
    total += mass;
  }
  // Geant4 renormalises the listed fractions too.
  for (MaterialComponent& c : spec.components) c.mass_fraction /= total;
  return spec;
}

std::vector<CompoundDef> compound_definitions() {
  using A = Amount;
  return {
      // NIST compounds
      {"G4_WATER", 1.0, 78.0, false, A::atom_count, {{1, 2}, {8, 1}}},
      {"G4_AIR",
       0.00120479,
       85.7,
       true,
       A::mass_fraction,
       {{6, 0.000124}, {7, 0.755267}, {8, 0.231781}, {18, 0.012827}}},
      {"G4_CONCRETE",
       2.3,
       135.2,
       false,
       A::mass_fraction,
       {{1, 0.01},
        {6, 0.001},
        {8, 0.529107},
        {11, 0.016},
        {12, 0.002},
        {13, 0.033872},
        {14, 0.337021},
        {19, 0.013},
        {20, 0.044},
        {26, 0.014}}},
      {"G4_POLYETHYLENE", 0.94, 57.4, false, A::atom_count, {{6, 1}, {1, 2}}},
      {"G4_KAPTON", 1.42, 79.6, false, A::atom_count, {{6, 22}, {1, 10}, {7, 2}, {8, 5}}},
      {"G4_SILICON_DIOXIDE", 2.32, 139.2, false, A::mass_fraction, {{8, 0.532565}, {14, 0.467435}}},
      {"G4_CESIUM_IODIDE", 4.51, 553.1, false, A::atom_count, {{55, 1}, {53, 1}}},
      {"G4_SODIUM_IODIDE", 3.667, 452.0, false, A::mass_fraction, {{11, 0.153373}, {53, 0.846627}}},
      {"G4_TITANIUM_DIOXIDE", 4.26, 179.5, false, A::mass_fraction, {{8, 0.400592}, {22, 0.599408}}},
      {"G4_BGO", 7.13, 534.1, false, A::atom_count, {{83, 4}, {32, 3}, {8, 12}}},
      {"G4_CALCIUM_CARBONATE", 2.8, 136.4, false, A::atom_count, {{20, 1}, {6, 1}, {8, 3}}},
      {"G4_GRAPHITE", 2.21, 78.0, false, A::atom_count, {{6, 1}}},
      // HEP and nuclear materials
      {"G4_lH2", 0.0708, 21.8, false, A::atom_count, {{1, 1}}},
      {"G4_lN2", 0.807, 82.0, false, A::atom_count, {{7, 1}}},
      {"G4_lO2", 1.141, 95.0, false, A::atom_count, {{8, 1}}},
      {"G4_lAr", 1.396, 188.0, false, A::atom_count, {{18, 1}}},
      {"G4_lKr", 2.418, 352.0, false, A::atom_count, {{36, 1}}},
      {"G4_lXe", 2.953, 482.0, false, A::atom_count, {{54, 1}}},
      // Liquid lead: named in fastmu's interface contract but not in Geant4's
      // NIST database. fastmu defines it as lead at its melting point
      // (10.66 g/cm3, CRC Handbook) with the element's I (823 eV).
      {"G4_lPb", 10.66, 823.0, false, A::atom_count, {{82, 1}}},
      {"G4_PbWO4", 8.28, 0.0, false, A::atom_count, {{8, 4}, {82, 1}, {74, 1}}},
      {"G4_Galactic", kUniverseMeanDensityGCm3, 21.8, true, A::atom_count, {{1, 1}}},
      {"G4_GRAPHITE_POROUS", 1.7, 78.0, false, A::atom_count, {{6, 1}}},
      {"G4_BRASS", 8.52, 0.0, false, A::atom_count, {{29, 62}, {30, 35}, {82, 3}}},
      {"G4_BRONZE", 8.82, 0.0, false, A::atom_count, {{29, 89}, {30, 9}, {82, 2}}},
      {"G4_STAINLESS-STEEL", 8.00, 0.0, false, A::atom_count, {{26, 74}, {24, 18}, {28, 8}}},
  };
}

// Standard rock (D.E. Groom, N.V. Mokhov, S.I. Striganov, Atom. Data Nucl.
// Data Tables 78 (2001) 183): a fictitious Z = 11, A = 22 medium with
// rho = 2.65 g/cm3, I = 136.4 eV and the Sternheimer parameters of CaCO3.
Material standard_rock() {
  Material m;
  m.name = "StandardRock";
  m.density_g_cm3 = 2.65;
  m.mean_excitation_ev = 136.4;
  m.components = {{11, 22.0, 1.0}};
  m.density_effect = {3.7738, 0.0492, 3.0549, 0.0830, 3.4120, 0.0};
  return m;
}

// SNOLAB's norite as MUTE v3 models it (W. Woodley, A. Fedynitch, M.-C. Piro,
// arXiv:2406.10339, Table II, read in the MUTE repository's
// docs/Tutorial_Labs.md: <Z> = 12.02, <A> = 24.22, 2.83 g/cm3, standard
// rock's I): one effective component. fastmu's components have an integer
// Z, so Z = 12 with A = 24.22 * 12 / 12.02 keeps <Z/A> (ionisation) exactly
// and <Z^2/A> (bremsstrahlung, pair production) within 0.2 %. Against
// standard rock (Z/A 0.5, Z^2/A 5.5) the radiative loss is ~8 % larger: the
// loss that sets the range of the TeV muons that reach SNOLAB. The density
// effect by the Sternheimer-Peierls general formulas at 2.83 g/cm3
// (standard rock's fit was made for 2.65).
Material norite() {
  Material m;
  m.name = "Norite";
  m.density_g_cm3 = 2.83;
  m.mean_excitation_ev = 136.4;
  m.components = {{12, 24.22 * 12.0 / 12.02, 1.0}};
  m.density_effect =
      sternheimer_peierls_density_effect(m.mean_excitation_ev, m.plasma_energy_ev(), false);
  return m;
}

// Granite: the world-average oxide composition of granite by weight (over
// 2000 analyses; SiO2 72.04, Al2O3 14.42, K2O 4.12, Na2O 3.69, CaO 1.82, FeO
// 1.68, Fe2O3 1.22, MgO 0.71, TiO2 0.30, P2O5 0.12, MnO 0.05 %, the
// encyclopaedic average as read on nygraniteworks.com/post.php?pid=584; its
// primary source was not at hand) converted to element mass fractions with
// the standard atomic weights. 2.70 g/cm3: the middle of the 2.65-2.75 g/cm3
// the same encyclopaedic entries give (a site's own: --density). I by Bragg
// additivity, the density effect by Sternheimer-Peierls. <Z/A> = 0.4962,
// <Z^2/A> = 5.66: between standard rock and norite.
CompoundDef granite() {
  return {"Granite",
          2.70,
          0.0,
          false,
          Amount::mass_fraction,
          {{8, 0.48465},
           {14, 0.33617},
           {13, 0.07619},
           {19, 0.03414},
           {11, 0.02733},
           {26, 0.02156},
           {20, 0.01299},
           {12, 0.00427},
           {22, 0.00179},
           {15, 0.00052},
           {25, 0.00039}}};
}

// Water ice (the PDG's "Water (ice)", AtomicNuclearProperties; PROPOSAL's
// PDG2020::Ice): H2O at 0.918 g/cm3 with I = 79.7 eV, the medium of IceCube
// and of glacier muography. Its Sternheimer row (SternheimerTable.cc, the
// PDG's -C = 3.5873, x0 = 0.2586, x1 = 2.8190, a = 0.09116, k = 3.4773) was
// made with I = 75 eV: moved to 79.7 eV as Geant4 moves G4_WATER's.
CompoundDef ice() { return {"Ice", 0.918, 79.7, false, Amount::atom_count, {{1, 2}, {8, 1}}}; }

// Deep sea water: the Reference Composition of standard seawater at
// practical salinity 35 (F.J. Millero et al., Deep-Sea Research I 55 (2008)
// 50; g per kg of seawater: Na+ 10.78145, Mg2+ 1.28372, Ca2+ 0.41208, K+ 0.39910, Cl- 19.35271,
// SO4 2- 2.71235, Br- 0.06728, HCO3- 0.10481, CO3 2- 0.01434 g/kg, the rest
// water), as element mass fractions (elements under 1e-5 left out). Per two
// H atoms it has the atoms of PROPOSAL's CascadiaBasinWater within 0.5 %.
// Density 1.040 g/cm3: sea water compressed at 2.5-3.5 km, where neutrino
// telescopes sit (ANTARES: 1.0404 at its sea bed, J. Brunner,
// ANTARES-Site/2000-001; PROPOSAL's CascadiaBasinWater 1.0400); surface
// water (1.025-1.028) is a custom material. I = 79.7 eV: water's 78.0 eV (as
// G4_WATER) and the salts' elemental I by Bragg additivity (ICRU 37).
CompoundDef sea_water() {
  return {"SeaWater",
          1.040,
          79.7,
          false,
          Amount::mass_fraction,
          {{8, 0.8587944},
           {1, 0.1079665},
           {17, 0.0193527},
           {11, 0.0107815},
           {12, 0.0012837},
           {16, 0.0009054},
           {20, 0.0004121},
           {19, 0.0003991},
           {35, 0.0000673},
           {6, 0.0000236}}};
}

}  // namespace

std::vector<Material> make_builtin_materials() {
  std::vector<Material> out;
  for (int z = 1; z <= kMaxZ; ++z) {
    const Element& e = element_by_z(z);
    MaterialSpec spec;
    spec.name = std::string("G4_") + e.symbol;
    spec.density_g_cm3 = simple_material(z).density_g_cm3;
    spec.mean_excitation_ev = e.mean_excitation_ev;
    spec.gas = simple_material(z).gas;
    spec.components = {{z, e.a_g_per_mol, 1.0}};
    out.push_back(finish_material(std::move(spec)));
  }
  for (const CompoundDef& def : compound_definitions())
    out.push_back(finish_material(to_spec(def)));
  out.push_back(standard_rock());
  out.push_back(norite());
  out.push_back(finish_material(to_spec(granite())));
  out.push_back(finish_material(to_spec(ice())));
  out.push_back(finish_material(to_spec(sea_water())));
  return out;
}

}  // namespace fastmu::materials_detail
