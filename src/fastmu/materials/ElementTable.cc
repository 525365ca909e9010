// Elements Z = 1..98: symbol, standard atomic weight and mean excitation
// energy, plus Geant4's NIST simple material G4_<symbol> (density, state).
//
// Sources:
//  - atomic weights: IUPAC/CIAAW standard atomic weights (abridged,
//    conventional values); for elements without stable isotopes the mass of
//    the longest-lived (or reference) isotope, as the PDG tables do.
//  - I and nominal densities: Geant4 G4NistMaterialBuilder::NistSimpleMaterials
//    (ICRU Report 37/49 values, I of H 19.2 eV ... Pb 823 eV); Geant4 uses the
//    same elemental I inside compounds (no 1.13 factor, see MaterialLibrary.cc).
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/materials/MaterialData.hh"

namespace fastmu {
namespace {

// clang-format off
constexpr Element kElements[materials_detail::kMaxZ] = {
    { 1, "H",    1.008,        19.2}, { 2, "He",   4.002602,     41.8},
    { 3, "Li",   6.94,         40.0}, { 4, "Be",   9.0121831,    63.7},
    { 5, "B",   10.81,         76.0}, { 6, "C",   12.011,        81.0},
    { 7, "N",   14.007,        82.0}, { 8, "O",   15.999,        95.0},
    { 9, "F",   18.998403163, 115.0}, {10, "Ne",  20.1797,      137.0},
    {11, "Na",  22.98976928,  149.0}, {12, "Mg",  24.305,       156.0},
    {13, "Al",  26.9815385,   166.0}, {14, "Si",  28.085,       173.0},
    {15, "P",   30.973761998, 173.0}, {16, "S",   32.06,        180.0},
    {17, "Cl",  35.45,        174.0}, {18, "Ar",  39.948,       188.0},
    {19, "K",   39.0983,      190.0}, {20, "Ca",  40.078,       191.0},
    {21, "Sc",  44.955908,    216.0}, {22, "Ti",  47.867,       233.0},
    {23, "V",   50.9415,      245.0}, {24, "Cr",  51.9961,      257.0},
    {25, "Mn",  54.938044,    272.0}, {26, "Fe",  55.845,       286.0},
    {27, "Co",  58.933194,    297.0}, {28, "Ni",  58.6934,      311.0},
    {29, "Cu",  63.546,       322.0}, {30, "Zn",  65.38,        330.0},
    {31, "Ga",  69.723,       334.0}, {32, "Ge",  72.630,       350.0},
    {33, "As",  74.921595,    347.0}, {34, "Se",  78.971,       348.0},
    {35, "Br",  79.904,       343.0}, {36, "Kr",  83.798,       352.0},
    {37, "Rb",  85.4678,      363.0}, {38, "Sr",  87.62,        366.0},
    {39, "Y",   88.90584,     379.0}, {40, "Zr",  91.224,       393.0},
    {41, "Nb",  92.90637,     417.0}, {42, "Mo",  95.95,        424.0},
    {43, "Tc",  97.90721,     428.0}, {44, "Ru", 101.07,        441.0},
    {45, "Rh", 102.90550,     449.0}, {46, "Pd", 106.42,        470.0},
    {47, "Ag", 107.8682,      470.0}, {48, "Cd", 112.414,       469.0},
    {49, "In", 114.818,       488.0}, {50, "Sn", 118.710,       488.0},
    {51, "Sb", 121.760,       487.0}, {52, "Te", 127.60,        485.0},
    {53, "I",  126.90447,     491.0}, {54, "Xe", 131.293,       482.0},
    {55, "Cs", 132.90545196,  488.0}, {56, "Ba", 137.327,       491.0},
    {57, "La", 138.90547,     501.0}, {58, "Ce", 140.116,       523.0},
    {59, "Pr", 140.90766,     535.0}, {60, "Nd", 144.242,       546.0},
    {61, "Pm", 144.91276,     560.0}, {62, "Sm", 150.36,        574.0},
    {63, "Eu", 151.964,       580.0}, {64, "Gd", 157.25,        591.0},
    {65, "Tb", 158.92535,     614.0}, {66, "Dy", 162.500,       628.0},
    {67, "Ho", 164.93033,     650.0}, {68, "Er", 167.259,       658.0},
    {69, "Tm", 168.93422,     674.0}, {70, "Yb", 173.045,       684.0},
    {71, "Lu", 174.9668,      694.0}, {72, "Hf", 178.49,        705.0},
    {73, "Ta", 180.94788,     718.0}, {74, "W",  183.84,        727.0},
    {75, "Re", 186.207,       736.0}, {76, "Os", 190.23,        746.0},
    {77, "Ir", 192.217,       757.0}, {78, "Pt", 195.084,       790.0},
    {79, "Au", 196.966569,    790.0}, {80, "Hg", 200.592,       800.0},
    {81, "Tl", 204.38,        810.0}, {82, "Pb", 207.2,         823.0},
    {83, "Bi", 208.98040,     823.0}, {84, "Po", 208.98243,     830.0},
    {85, "At", 209.98715,     825.0}, {86, "Rn", 222.01758,     794.0},
    {87, "Fr", 223.01974,     827.0}, {88, "Ra", 226.02541,     826.0},
    {89, "Ac", 227.02775,     841.0}, {90, "Th", 232.0377,      847.0},
    {91, "Pa", 231.03588,     878.0}, {92, "U",  238.02891,     890.0},
    {93, "Np", 237.04817,     902.0}, {94, "Pu", 244.06420,     921.0},
    {95, "Am", 243.06138,     934.0}, {96, "Cm", 247.07035,     939.0},
    {97, "Bk", 247.07031,     952.0}, {98, "Cf", 251.07959,     966.0},
};

// G4_<symbol>: density [g/cm3], gas at 20 C / 1 atm (everything else solid
// or liquid).
constexpr materials_detail::SimpleMaterialRow kSimpleMaterials[materials_detail::kMaxZ] = {
    {8.37480e-5, true},  {1.66322e-4, true},  {0.534, false},      {1.848, false},
    {2.37, false},       {2.0, false},        {1.16520e-3, true},  {1.33151e-3, true},
    {1.58029e-3, true},  {8.38505e-4, true},  {0.971, false},      {1.74, false},
    {2.699, false},      {2.33, false},       {2.2, false},        {2.0, false},
    {2.99473e-3, true},  {1.66201e-3, true},  {0.862, false},      {1.55, false},
    {2.989, false},      {4.54, false},       {6.11, false},       {7.18, false},
    {7.44, false},       {7.874, false},      {8.9, false},        {8.902, false},
    {8.96, false},       {7.133, false},      {5.904, false},      {5.323, false},
    {5.73, false},       {4.5, false},        {7.07210e-3, true},  {3.47832e-3, true},
    {1.532, false},      {2.54, false},       {4.469, false},      {6.506, false},
    {8.57, false},       {10.22, false},      {11.50, false},      {12.41, false},
    {12.41, false},      {12.02, false},      {10.5, false},       {8.65, false},
    {7.31, false},       {7.31, false},       {6.691, false},      {6.24, false},
    {4.93, false},       {5.48536e-3, true},  {1.873, false},      {3.5, false},
    {6.154, false},      {6.657, false},      {6.71, false},       {6.9, false},
    {7.22, false},       {7.46, false},       {5.243, false},      {7.9004, false},
    {8.229, false},      {8.55, false},       {8.795, false},      {9.066, false},
    {9.321, false},      {6.73, false},       {9.84, false},       {13.31, false},
    {16.654, false},     {19.30, false},      {21.02, false},      {22.57, false},
    {22.42, false},      {21.45, false},      {19.32, false},      {13.546, false},
    {11.72, false},      {11.35, false},      {9.747, false},      {9.32, false},
    {9.32, false},       {9.00662e-3, true},  {1.00, false},       {5.00, false},
    {10.07, false},      {11.72, false},      {15.37, false},      {18.95, false},
    {20.25, false},      {19.84, false},      {13.67, false},      {13.51, false},
    {14.00, false},      {10.00, false},
};
// clang-format on

}  // namespace

const Element& element_by_z(int z) {
  if (z < 1 || z > materials_detail::kMaxZ) {
    throw Error("unknown element: Z = " + std::to_string(z) + " (known: 1..98)");
  }
  return kElements[z - 1];
}

const Element& element_by_symbol(const std::string& symbol) {
  for (const Element& e : kElements) {
    if (symbol == e.symbol) return e;
  }
  throw Error("unknown element symbol '" + symbol +
              "' (symbols are case-sensitive, e.g. Fe, Pb, H)");
}

namespace materials_detail {

const SimpleMaterialRow& simple_material(int z) {
  element_by_z(z);  // range check with the standard message
  return kSimpleMaterials[z - 1];
}

}  // namespace materials_detail
}  // namespace fastmu
