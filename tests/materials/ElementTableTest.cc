#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

TEST(ElementTable, CoversZ1To98WithUniqueSymbols) {
  std::set<std::string> symbols;
  double previous_a = 0;
  for (int z = 1; z <= 98; ++z) {
    const Element& e = element_by_z(z);
    EXPECT_EQ(e.z, z);
    EXPECT_TRUE(symbols.insert(e.symbol).second) << e.symbol;
    EXPECT_EQ(&element_by_symbol(e.symbol), &e);
    EXPECT_GT(e.mean_excitation_ev, 0.0);
    // Atomic weights grow with Z except for the known inversions
    // (Ar/K, Co/Ni, Te/I, Th/Pa, U/Np, Pu/Am); never by more than 4 g/mol down.
    EXPECT_GT(e.a_g_per_mol, previous_a - 4.0) << e.symbol;
    previous_a = e.a_g_per_mol;
  }
  EXPECT_EQ(symbols.size(), 98u);
}

TEST(ElementTable, Geant4NistMeanExcitationEnergies) {
  const std::pair<const char*, double> expected[] = {
      {"H", 19.2}, {"C", 81},   {"N", 82},   {"O", 95},   {"Na", 149}, {"Mg", 156},
      {"Al", 166}, {"Si", 173}, {"K", 190},  {"Ca", 191}, {"Fe", 286}, {"Cu", 322},
      {"Zn", 330}, {"W", 727},  {"Pb", 823}, {"U", 890},  {"Ar", 188}, {"Au", 790}};
  for (const auto& [symbol, i_ev] : expected) {
    EXPECT_DOUBLE_EQ(element_by_symbol(symbol).mean_excitation_ev, i_ev) << symbol;
  }
}

TEST(ElementTable, StandardAtomicWeights) {
  EXPECT_DOUBLE_EQ(element_by_z(26).a_g_per_mol, 55.845);
  EXPECT_NEAR(element_by_symbol("H").a_g_per_mol, 1.008, 1e-3);
  EXPECT_NEAR(element_by_symbol("O").a_g_per_mol, 15.999, 1e-3);
  EXPECT_NEAR(element_by_symbol("Pb").a_g_per_mol, 207.2, 1e-3);
  EXPECT_NEAR(element_by_symbol("U").a_g_per_mol, 238.029, 1e-3);
}

TEST(ElementTable, UnknownElementsThrow) {
  EXPECT_THROW(element_by_z(0), Error);
  EXPECT_THROW(element_by_z(99), Error);
  EXPECT_THROW(element_by_symbol("Xx"), Error);
  EXPECT_THROW(element_by_symbol("fe"), Error);  // symbols are case-sensitive
  try {
    element_by_symbol("Qq");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'Qq'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fastmu
