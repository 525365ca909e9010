#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

double fraction_of(const Material& m, int z) {
  for (const MaterialComponent& c : m.components) {
    if (c.z == z) return c.mass_fraction;
  }
  return 0.0;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MaterialLibrary, RequiredMaterialsExist) {
  const MaterialLibrary& lib = builtin_materials();
  for (const char* name : {"G4_Galactic",
                           "vacuum",
                           "G4_H",
                           "G4_C",
                           "G4_GRAPHITE",
                           "G4_Al",
                           "G4_Si",
                           "G4_Ti",
                           "G4_Fe",
                           "G4_Ni",
                           "G4_Cu",
                           "G4_Zn",
                           "G4_Ag",
                           "G4_Sn",
                           "G4_W",
                           "G4_Pt",
                           "G4_Au",
                           "G4_Pb",
                           "G4_U",
                           "G4_WATER",
                           "G4_AIR",
                           "G4_CONCRETE",
                           "G4_STAINLESS-STEEL",
                           "G4_BRASS",
                           "G4_POLYETHYLENE",
                           "G4_PbWO4",
                           "G4_BGO",
                           "G4_KAPTON",
                           "G4_Ar",
                           "G4_lAr",
                           "G4_SILICON_DIOXIDE",
                           "G4_CESIUM_IODIDE",
                           "StandardRock",
                           "G4_STANDARD_ROCK",
                           "standard_rock"}) {
    EXPECT_TRUE(lib.contains(name)) << name;
    EXPECT_NO_THROW(lib.find(name)) << name;
  }
}

TEST(MaterialLibrary, AliasesResolveToTheSameMaterial) {
  const MaterialLibrary& lib = builtin_materials();
  EXPECT_EQ(&lib.find("vacuum"), &lib.find("G4_Galactic"));
  EXPECT_EQ(&lib.find("G4_STANDARD_ROCK"), &lib.find("StandardRock"));
  EXPECT_EQ(&lib.find("standard_rock"), &lib.find("StandardRock"));
  EXPECT_EQ(lib.find("vacuum").name, "G4_Galactic");
}

TEST(MaterialLibrary, UnknownNameErrorIsOneLineNamingKnownOnes) {
  const std::string msg = error_of([] { builtin_materials().find("G4_Unobtainium"); });
  EXPECT_NE(msg.find("unknown material 'G4_Unobtainium'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("known:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("G4_Fe"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_FALSE(builtin_materials().contains("G4_Unobtainium"));
  EXPECT_FALSE(builtin_materials().contains("g4_fe"));  // names are case-sensitive, like Geant4's
}

// A typo gets the nearest names, not the whole list of ~130.
TEST(MaterialLibrary, UnknownNameSuggestsTheNearestNames) {
  const std::string msg = error_of([] { builtin_materials().find("G4_FE"); });
  EXPECT_NE(msg.find("did you mean 'G4_Fe'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 300u) << msg;
  const std::string rock = error_of([] { builtin_materials().find("standard_rok"); });
  EXPECT_NE(rock.find("did you mean 'standard_rock'"), std::string::npos) << rock;
  const std::string far = error_of([] { builtin_materials().find("G4_Unobtainium"); });
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(MaterialLibrary, NamesAreSortedCanonicalAndComplete) {
  const std::vector<std::string> names = builtin_materials().names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_GE(names.size(), 98u + 20u);
  EXPECT_NE(std::find(names.begin(), names.end(), "G4_Fe"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "G4_Cf"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "vacuum"), names.end());
}

TEST(MaterialLibrary, LiquidLeadOfTheInterfaceContractExists) {
  // interfaces.md names G4_lPb; Geant4's NIST database lacks it, fastmu defines it.
  const Material& lpb = builtin_materials().find("G4_lPb");
  EXPECT_DOUBLE_EQ(lpb.density_g_cm3, 10.66);
  EXPECT_DOUBLE_EQ(lpb.mean_excitation_ev, 823.0);
  ASSERT_EQ(lpb.components.size(), 1u);
  EXPECT_EQ(lpb.components[0].z, 82);
}

TEST(MaterialLibrary, EveryMaterialIsConsistent) {
  const MaterialLibrary& lib = builtin_materials();
  for (const std::string& name : lib.names()) {
    const Material& m = lib.find(name);
    EXPECT_EQ(m.name, name);
    EXPECT_GT(m.density_g_cm3, 0.0) << name;
    EXPECT_GT(m.mean_excitation_ev, 0.0) << name;
    ASSERT_FALSE(m.components.empty()) << name;
    double sum = 0;
    for (const MaterialComponent& c : m.components) {
      EXPECT_GT(c.mass_fraction, 0.0) << name;
      EXPECT_GE(c.z, 1) << name;
      EXPECT_GT(c.a_g_per_mol, 0.0) << name;
      sum += c.mass_fraction;
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << name;
    EXPECT_GT(m.z_over_a(), 0.35) << name;
    EXPECT_LE(m.z_over_a(), 1.0) << name;
    EXPECT_TRUE(std::isfinite(m.radiation_length_g_cm2())) << name;
    EXPECT_EQ(m.definition().rfind(name + ": ", 0), 0u) << m.definition();
  }
}

TEST(MaterialLibrary, Iron) {
  const Material& fe = builtin_materials().find("G4_Fe");
  EXPECT_DOUBLE_EQ(fe.density_g_cm3, 7.874);
  EXPECT_DOUBLE_EQ(fe.mean_excitation_ev, 286.0);
  EXPECT_NEAR(fe.z_over_a(), 26.0 / 55.845, 1e-15);
  EXPECT_NEAR(fe.electron_density_per_cm3(), 7.874 * 6.02214076e23 * 26.0 / 55.845, 1e9);
  // PDG: X0(Fe) = 13.84 g/cm2, 1.757 cm.
  EXPECT_NEAR(fe.radiation_length_g_cm2(), 13.84, 0.01);
  EXPECT_NEAR(fe.radiation_length_m(), 0.01757, 0.00002);
  EXPECT_EQ(fe.definition(), "G4_Fe: 7.874 g/cm3, I = 286 eV, Fe 1");
  EXPECT_FALSE(fe.gas);
}

TEST(MaterialLibrary, RadiationLengthsMatchPdg) {
  // PDG atomic and nuclear properties, g/cm2.
  const std::pair<const char*, double> pdg[] = {
      {"G4_WATER", 36.08}, {"G4_Pb", 6.37},   {"G4_Cu", 12.86},        {"G4_Al", 24.01},
      {"G4_W", 6.76},      {"G4_AIR", 36.62}, {"StandardRock", 26.54}, {"G4_H", 63.04},
      {"G4_U", 6.00},      {"G4_Si", 21.82}};
  for (const auto& [name, x0] : pdg) {
    EXPECT_NEAR(builtin_materials().find(name).radiation_length_g_cm2(), x0, 0.002 * x0) << name;
  }
}

TEST(MaterialLibrary, ConcreteIsGeant4s) {
  const Material& c = builtin_materials().find("G4_CONCRETE");
  EXPECT_DOUBLE_EQ(c.density_g_cm3, 2.3);
  EXPECT_DOUBLE_EQ(c.mean_excitation_ev, 135.2);
  EXPECT_EQ(c.components.size(), 10u);
  EXPECT_NEAR(fraction_of(c, 1), 0.01, 1e-9);
  EXPECT_NEAR(fraction_of(c, 8), 0.529107, 1e-9);
  EXPECT_NEAR(fraction_of(c, 14), 0.337021, 1e-9);
  EXPECT_NEAR(fraction_of(c, 20), 0.044, 1e-9);
  EXPECT_NEAR(fraction_of(c, 26), 0.014, 1e-9);
  EXPECT_DOUBLE_EQ(c.density_effect.cbar, 3.9464);
  EXPECT_DOUBLE_EQ(c.density_effect.x0, 0.1301);
  EXPECT_DOUBLE_EQ(c.density_effect.x1, 3.0466);
  EXPECT_NEAR(c.density_effect.a, 0.07515, 2e-4);
  EXPECT_NEAR(c.plasma_energy_ev(), 30.986, 0.01);
}

TEST(MaterialLibrary, StandardRockIsGroomMokhovStriganov) {
  const Material& r = builtin_materials().find("standard_rock");
  EXPECT_EQ(r.name, "StandardRock");
  ASSERT_EQ(r.components.size(), 1u);
  EXPECT_EQ(r.components[0].z, 11);
  EXPECT_DOUBLE_EQ(r.components[0].a_g_per_mol, 22.0);
  EXPECT_DOUBLE_EQ(r.density_g_cm3, 2.65);
  EXPECT_DOUBLE_EQ(r.mean_excitation_ev, 136.4);
  EXPECT_NEAR(r.z_over_a(), 0.5, 1e-15);
  const DensityEffect& d = r.density_effect;
  EXPECT_DOUBLE_EQ(d.cbar, 3.7738);
  EXPECT_DOUBLE_EQ(d.x0, 0.0492);
  EXPECT_DOUBLE_EQ(d.x1, 3.0549);
  EXPECT_DOUBLE_EQ(d.a, 0.0830);
  EXPECT_DOUBLE_EQ(d.m, 3.4120);
  EXPECT_DOUBLE_EQ(d.delta0, 0.0);
}

// Ice: the PDG's "Water (ice)": water's composition and radiation length
// (36.08 g/cm2), the PDG's Sternheimer row (made with I = 75 eV) moved to
// I = 79.7 eV as Geant4 moves water's.
TEST(MaterialLibrary, IceIsThePdgWaterIce) {
  const Material& ice = builtin_materials().find("ice");
  EXPECT_EQ(&ice, &builtin_materials().find("Ice"));
  EXPECT_DOUBLE_EQ(ice.density_g_cm3, 0.918);
  EXPECT_DOUBLE_EQ(ice.mean_excitation_ev, 79.7);
  const Material& water = builtin_materials().find("G4_WATER");
  EXPECT_NEAR(fraction_of(ice, 1), fraction_of(water, 1), 1e-12);
  EXPECT_NEAR(ice.z_over_a(), water.z_over_a(), 1e-12);
  EXPECT_NEAR(ice.radiation_length_g_cm2(), 36.08, 0.05);
  const DensityEffect& d = ice.density_effect;
  const double corr = 2 * std::log(79.7 / 75.0);
  EXPECT_NEAR(d.cbar, 3.5873 + corr, 1e-12);
  EXPECT_NEAR(d.x0, 0.2586 + corr / (2 * std::log(10.0)), 1e-12);
  EXPECT_NEAR(d.x1, 2.8190 + corr / (2 * std::log(10.0)), 1e-12);
  EXPECT_DOUBLE_EQ(d.m, 3.4773);
  // cbar is the definition's 1 + 2 ln(I / hbar omega_p) at ice's density.
  EXPECT_NEAR(d.cbar, 1 + 2 * std::log(79.7 / ice.plasma_energy_ev()), 2e-3);
}

// Sea water: water and 35 g/kg of salts (Millero et al. 2008), 1.040 g/cm3.
TEST(MaterialLibrary, SeaWaterIsWaterWithSalinity35) {
  const Material& sea = builtin_materials().find("sea_water");
  EXPECT_EQ(sea.name, "SeaWater");
  EXPECT_DOUBLE_EQ(sea.density_g_cm3, 1.040);
  EXPECT_DOUBLE_EQ(sea.mean_excitation_ev, 79.7);
  double sum = 0;
  for (const MaterialComponent& c : sea.components) sum += c.mass_fraction;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  // The water holds all the hydrogen: what is not water is the salinity.
  const double h = element_by_z(1).a_g_per_mol, o = element_by_z(8).a_g_per_mol;
  const double water = fraction_of(sea, 1) * (2 * h + o) / (2 * h);
  EXPECT_NEAR(1 - water, 0.0352, 0.0005);
  EXPECT_NEAR(fraction_of(sea, 17), 0.01935, 1e-5);  // chlorine
  EXPECT_NEAR(fraction_of(sea, 11), 0.01078, 1e-5);  // sodium
  // Salts lower <Z/A> a little below water's, and the radiation length by
  // 2 %: 1/X0 = sum w_i / X0_i = 0.965 / 36.08 + 0.0194 / 19.28 (Cl)
  // + 0.0108 / 27.74 (Na) + ... = 1 / 35.29 g/cm2.
  const Material& pure = builtin_materials().find("G4_WATER");
  EXPECT_LT(sea.z_over_a(), pure.z_over_a());
  EXPECT_GT(sea.z_over_a(), pure.z_over_a() - 0.003);
  EXPECT_NEAR(sea.radiation_length_g_cm2(), 35.29, 0.05);
  // No Sternheimer fit: the general parameters, a density effect that grows.
  EXPECT_GT(sea.density_effect.delta(1e4), sea.density_effect.delta(1e2));
}

// The laboratory rocks of docs/geometry-and-materials.md as custom
// materials: their mean Z and A (<Z> = sum w Z^2/A / sum w Z/A) as the page
// states them, close to the published site values.
TEST(MaterialLibrary, LaboratoryRocksOfTheDocs) {
  MaterialLibrary lib;
  const Material& lngs = lib.add_custom("lngs_rock", 2.72,
                                        {{"H", 0.0003},
                                         {"C", 0.1217},
                                         {"O", 0.5079},
                                         {"Mg", 0.0832},
                                         {"Al", 0.0063},
                                         {"Si", 0.0105},
                                         {"K", 0.001},
                                         {"Ca", 0.2691}});
  const Material& soudan = lib.add_custom("soudan_rock", 2.85,
                                          {{"H", 0.00304},
                                           {"C", 0.00081},
                                           {"O", 0.45467},
                                           {"Na", 0.01874},
                                           {"Mg", 0.0397},
                                           {"Al", 0.08042},
                                           {"Si", 0.23954},
                                           {"K", 0.00334},
                                           {"Ca", 0.06513},
                                           {"Fe", 0.09461}});
  auto mean_z_a = [](const Material& m) {
    double za = 0, z2a = 0;
    for (const MaterialComponent& c : m.components) {
      za += c.mass_fraction * c.z / c.a_g_per_mol;
      z2a += c.mass_fraction * c.z * c.z / c.a_g_per_mol;
    }
    return std::pair<double, double>{z2a / za, z2a / za / za};
  };
  const auto [z_lngs, a_lngs] = mean_z_a(lngs);
  EXPECT_NEAR(z_lngs, 11.41, 0.01);  // Mei & Hime: 11.42
  EXPECT_NEAR(a_lngs, 22.86, 0.01);  // 22.83
  const auto [z_soudan, a_soudan] = mean_z_a(soudan);
  EXPECT_NEAR(z_soudan, 12.43, 0.01);  // 12.32
  EXPECT_NEAR(a_soudan, 25.07, 0.01);  // 24.90
}

// The underground rock presets: norite keeps MUTE's <Z/A> = 12.02 / 24.22
// exactly and its <Z^2/A> within 0.2 % with one Z = 12 component; granite's
// oxide average gives a rock between standard rock and norite in Z^2/A.
TEST(MaterialLibrary, NoriteAndGraniteRocks) {
  auto z2_over_a = [](const Material& m) {
    double s = 0;
    for (const MaterialComponent& c : m.components)
      s += c.mass_fraction * c.z * c.z / c.a_g_per_mol;
    return s;
  };
  const Material& norite = builtin_materials().find("Norite");
  EXPECT_EQ(builtin_materials().find("norite").name, "Norite");  // aliases
  EXPECT_EQ(builtin_materials().find("granite").name, "Granite");
  EXPECT_DOUBLE_EQ(norite.density_g_cm3, 2.83);
  EXPECT_NEAR(norite.z_over_a(), 12.02 / 24.22, 1e-12);
  EXPECT_NEAR(z2_over_a(norite) / (12.02 * 12.02 / 24.22), 1.0, 2e-3);
  const Material& granite = builtin_materials().find("Granite");
  EXPECT_DOUBLE_EQ(granite.density_g_cm3, 2.70);
  EXPECT_EQ(granite.components.size(), 11u);
  EXPECT_NEAR(granite.z_over_a(), 0.4962, 1e-4);
  const double rock = z2_over_a(builtin_materials().find("StandardRock"));
  EXPECT_GT(z2_over_a(granite), rock);
  EXPECT_LT(z2_over_a(granite), z2_over_a(norite));
  // Radiation lengths follow: norite's is shorter than standard rock's.
  EXPECT_LT(norite.radiation_length_g_cm2(),
            builtin_materials().find("StandardRock").radiation_length_g_cm2());
}

TEST(MaterialLibrary, CompoundsFromAtomCounts) {
  const Material& water = builtin_materials().find("G4_WATER");
  const double h = element_by_z(1).a_g_per_mol, o = element_by_z(8).a_g_per_mol;
  EXPECT_NEAR(fraction_of(water, 1), 2 * h / (2 * h + o), 1e-12);
  EXPECT_NEAR(water.z_over_a(), 10.0 / (2 * h + o), 1e-12);
  const Material& steel = builtin_materials().find("G4_STAINLESS-STEEL");
  EXPECT_DOUBLE_EQ(steel.density_g_cm3, 8.0);
  EXPECT_EQ(steel.components.size(), 3u);
  // No NIST I: Bragg additivity, between Cr (257 eV) and Ni (311 eV).
  EXPECT_GT(steel.mean_excitation_ev, 257.0);
  EXPECT_LT(steel.mean_excitation_ev, 311.0);
  EXPECT_TRUE(builtin_materials().find("G4_AIR").gas);
  EXPECT_TRUE(builtin_materials().find("G4_Galactic").gas);
  EXPECT_FALSE(builtin_materials().find("G4_lAr").gas);
  EXPECT_LT(builtin_materials().find("G4_Galactic").density_g_cm3, 1e-20);
}

TEST(MaterialLibrary, FractionsWithinGeant4ToleranceNeedNoWarning) {
  MaterialLibrary lib;
  testing::internal::CaptureStderr();
  lib.add_custom("ok", 7.9, {{"Fe", 0.7}, {"Cr", 0.2}, {"Ni", 0.1005}});  // sum 1.0005
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  testing::internal::CaptureStderr();
  lib.add_custom("short", 7.9, {{"Fe", 0.7}, {"Cr", 0.2}});  // sum 0.9
  const std::string w = testing::internal::GetCapturedStderr();
  EXPECT_NE(w.find("material 'short': mass fractions sum to 0.9, not 1"), std::string::npos) << w;
  EXPECT_EQ(std::count(w.begin(), w.end(), '\n'), 1);
  EXPECT_NEAR(fraction_of(lib.find("short"), 26), 0.7 / 0.9, 1e-12);
}

TEST(MaterialLibrary, CustomMixtureUsesBraggRuleAndGeneralFormulas) {
  MaterialLibrary lib = builtin_materials();
  // Relative weights are normalised, with Geant4's one-line warning.
  testing::internal::CaptureStderr();
  const Material& m = lib.add_custom("my_steel", 7.9, {{"Fe", 7}, {"Cr", 2}, {"Ni", 1}});
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warning,
            "fastmu: warning: material 'my_steel': mass fractions sum to 10, not 1; "
            "normalised to 1\n");
  EXPECT_EQ(&lib.find("my_steel"), &m);
  EXPECT_FALSE(builtin_materials().contains("my_steel"));  // the copy only
  EXPECT_NEAR(fraction_of(m, 26), 0.7, 1e-12);
  EXPECT_NEAR(fraction_of(m, 24), 0.2, 1e-12);
  EXPECT_NEAR(fraction_of(m, 28), 0.1, 1e-12);
  double num = 0, den = 0;
  for (auto [z, w] : {std::pair{26, 0.7}, {24, 0.2}, {28, 0.1}}) {
    const Element& e = element_by_z(z);
    num += w * z / e.a_g_per_mol * std::log(e.mean_excitation_ev);
    den += w * z / e.a_g_per_mol;
  }
  EXPECT_NEAR(m.mean_excitation_ev, std::exp(num / den), 1e-9);
  // Fe holds < 90 % of the atoms: no Sternheimer fit, general formulas.
  const double cbar = 1.0 + 2.0 * std::log(m.mean_excitation_ev / m.plasma_energy_ev());
  EXPECT_NEAR(m.density_effect.cbar, cbar, 1e-12);
  EXPECT_DOUBLE_EQ(m.density_effect.x1, 3.0);
  EXPECT_FALSE(m.gas);
  EXPECT_NE(m.definition().find("my_steel: 7.9 g/cm3"), std::string::npos) << m.definition();
}

TEST(MaterialLibrary, CustomElementReusesItsFitWithDensityCorrection) {
  MaterialLibrary lib;
  const DensityEffect& ref = lib.find("G4_Fe").density_effect;
  const Material& same = lib.add_custom("iron_copy", 7.874, {{"Fe", 1.0}});
  EXPECT_DOUBLE_EQ(same.density_effect.cbar, ref.cbar);
  EXPECT_DOUBLE_EQ(same.density_effect.x0, ref.x0);
  EXPECT_DOUBLE_EQ(same.mean_excitation_ev, 286.0);

  const Material& light = lib.add_custom("iron_light", 7.0, {{"Fe", 1.0}});
  const double corr = std::log(7.874 / 7.0);
  EXPECT_NEAR(light.density_effect.cbar, ref.cbar + corr, 1e-12);
  EXPECT_NEAR(light.density_effect.x0, ref.x0 + corr / (2 * std::log(10.0)), 1e-12);
  EXPECT_NEAR(light.density_effect.x1, ref.x1 + corr / (2 * std::log(10.0)), 1e-12);

  // Beyond a factor e from the nominal density the fit is not reused.
  const Material& foam = lib.add_custom("iron_foam", 1.0, {{"Fe", 1.0}});
  EXPECT_NEAR(foam.density_effect.cbar, 1.0 + 2.0 * std::log(286.0 / foam.plasma_energy_ev()),
              1e-12);

  // Low density means gas (Geant4's 10 mg/cm3 rule).
  EXPECT_TRUE(lib.add_custom("thin_gas", 0.001, {{"N", 0.8}, {"O", 0.2}}).gas);
}

TEST(MaterialLibrary, CustomMaterialErrors) {
  MaterialLibrary lib;
  std::string msg = error_of([&] { lib.add_custom("bad", 1.0, {{"Xx", 1.0}}); });
  EXPECT_NE(msg.find("material 'bad'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown element symbol 'Xx'"), std::string::npos) << msg;

  msg = error_of([&] { lib.add_custom("bad", 0.0, {{"Fe", 1.0}}); });
  EXPECT_NE(msg.find("density"), std::string::npos) << msg;
  EXPECT_THROW(lib.add_custom("bad", -1.0, {{"Fe", 1.0}}), Error);
  // Absurd densities (1e300 crashed the engine, 1e15 built tables forever).
  msg = error_of([&] { lib.add_custom("bad", 1e300, {{"Fe", 1.0}}); });
  EXPECT_NE(msg.find("is not in [1e-25, 1000] g/cm3"), std::string::npos) << msg;
  EXPECT_THROW(lib.add_custom("bad", 1e15, {{"Fe", 1.0}}), Error);
  EXPECT_THROW(lib.add_custom("bad", 1e-300, {{"Fe", 1.0}}), Error);
  EXPECT_THROW(lib.add_custom("bad", std::numeric_limits<double>::quiet_NaN(), {{"Fe", 1.0}}),
               Error);

  msg = error_of([&] { lib.add_custom("bad", 1.0, {{"Fe", 0.5}, {"Ni", 0.0}}); });
  EXPECT_NE(msg.find("fraction of Ni"), std::string::npos) << msg;
  EXPECT_THROW(lib.add_custom("bad", 1.0, {{"Fe", -0.5}}), Error);
  EXPECT_THROW(lib.add_custom("bad", 1.0, {}), Error);
  EXPECT_FALSE(lib.contains("bad"));  // nothing half-made was stored

  msg = error_of([&] { lib.add_custom("G4_Fe", 7.0, {{"Fe", 1.0}}); });
  EXPECT_NE(msg.find("already defined"), std::string::npos) << msg;
  EXPECT_THROW(lib.add_custom("vacuum", 1.0, {{"H", 1.0}}), Error);
  lib.add_custom("mine", 1.0, {{"H", 1.0}});
  EXPECT_THROW(lib.add_custom("mine", 1.0, {{"H", 1.0}}), Error);
  EXPECT_THROW(lib.add_custom("", 1.0, {{"H", 1.0}}), Error);
}

}  // namespace
}  // namespace fastmu
