#include "fastmu/underground/Overburden.hh"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu::underground {

namespace {

struct NamedRock {
  const char* name;
  const char* material;  // library name ("" : defined here)
  const char* description;
};

// Rock salt as pure halite, NaCl by stoichiometry, at halite's density
// 2.165 g/cm3 (CRC Handbook); a mine's salt with anhydrite or clay is denser
// (--density).
constexpr double kHaliteDensity = 2.165;
constexpr const char* kSaltName = "Salt";

const NamedRock kRocks[] = {
    {"standard_rock", "StandardRock", "standard rock (Groom, Mokhov & Striganov 2001)"},
    {"salt", "", "rock salt: NaCl (halite)"},
    {"norite", "Norite", "SNOLAB norite (<Z> 12.02, <A> 24.22, 2.83 g/cm3, as MUTE v3 models it)"},
    {"granite", "Granite", "granite (world-average oxide composition, 2.70 g/cm3)"},
    {"water", "G4_WATER", "fresh water (G4_WATER)"},
    {"ice", "Ice", "ice (the PDG's Water (ice))"},
    {"sea_water", "SeaWater", "sea water (salinity 35, 1.040 g/cm3 at depth)"},
};

const Material& salt(MaterialLibrary& materials) {
  if (!materials.contains(kSaltName)) {
    const double na = 22.98976928, cl = 35.453;
    materials.add_custom(kSaltName, kHaliteDensity,
                         {{"Na", na / (na + cl)}, {"Cl", cl / (na + cl)}});
  }
  return materials.find(kSaltName);
}

void check_depth(double d, double depth_max, const std::string& option) {
  if (!(d >= 1) || !(d <= depth_max)) {
    throw Error(fmt::format("{}: {} m.w.e. is outside [1, {}] (the slant-depth table's reach)",
                            option, d, depth_max));
  }
}

}  // namespace

std::vector<std::string> named_rocks() {
  std::vector<std::string> names;
  for (const NamedRock& r : kRocks) names.push_back(r.name);
  return names;
}

std::map<std::string, double> parse_composition(const std::string& text,
                                                const std::string& option) {
  std::map<std::string, double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      throw Error(
          fmt::format("{}: '{}' is not ELEMENT:FRACTION (e.g. O:0.46,Si:0.28)", option, item));
    }
    const std::string symbol = item.substr(0, colon);
    double f = 0;
    try {
      std::size_t used = 0;
      f = std::stod(item.substr(colon + 1), &used);
      if (used != item.size() - colon - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw Error(fmt::format("{}: '{}' has no number after ':'", option, item));
    }
    if (!(f > 0) || !(f <= 1)) {
      throw Error(fmt::format("{}: fraction of {} is {}, outside (0, 1]", option, symbol, f));
    }
    if (out.count(symbol)) throw Error(fmt::format("{}: {} appears twice", option, symbol));
    out[symbol] = f;
  }
  if (out.empty()) throw Error(fmt::format("{}: empty composition", option));
  return out;
}

Overburden resolve_overburden(const OverburdenSpec& s, MaterialLibrary& materials,
                              double depth_max) {
  Overburden o;
  if (s.density != 0 && !(s.density > 0.1 && s.density < 25)) {
    throw Error(fmt::format("density: {} g/cm3 is outside (0.1, 25)", s.density));
  }
  if (!s.composition.empty()) {
    if (!(s.density > 0)) throw Error("composition: a custom rock needs --density");
    for (const NamedRock& r : kRocks) {
      if (s.rock == r.name) {
        throw Error(
            fmt::format("rock: '{}' is a named rock; give the custom rock another name", s.rock));
      }
    }
    if (builtin_materials().contains(s.rock)) {
      throw Error(fmt::format(
          "rock: '{}' is a built-in material; give the custom rock another name", s.rock));
    }
    if (!materials.contains(s.rock)) {
      materials.add_custom(s.rock, s.density, s.composition);
    } else if (std::abs(materials.find(s.rock).density_g_cm3 - s.density) > 1e-9 * s.density) {
      throw Error(fmt::format("rock: '{}' is already defined with {} g/cm3", s.rock,
                              materials.find(s.rock).density_g_cm3));
    }
    o.material = s.rock;
    o.description = "custom rock '" + s.rock + "'";
  } else {
    const NamedRock* named = nullptr;
    for (const NamedRock& r : kRocks) named = s.rock == r.name ? &r : named;
    if (!named) {
      std::string known;
      for (const auto& n : named_rocks()) known += (known.empty() ? "" : ", ") + n;
      throw Error(fmt::format(
          "rock: '{}' is not a named rock ({}); give another rock by --composition and --density",
          s.rock, known));
    }
    o.material = *named->material ? named->material : salt(materials).name;
    o.description = named->description;
  }
  const Material& m = materials.find(o.material);
  o.density = s.density > 0 ? s.density : m.density_g_cm3;
  const bool by_mwe = s.depth_mwe != 0, by_metres = s.rock_depth_m != 0;
  if (by_mwe && by_metres)
    throw Error("depth: give --depth (m.w.e.) or --rock-depth (m), not both");
  if (by_mwe) o.depth_mwe = s.depth_mwe;
  if (by_metres) {
    if (!(s.rock_depth_m > 0)) {
      throw Error(fmt::format("rock-depth: {} m must be positive", s.rock_depth_m));
    }
    o.depth_mwe = s.rock_depth_m * o.density;
  }
  if (!by_mwe && !by_metres && s.depths_mwe.empty()) {
    throw Error("depth: give --depth (m.w.e.), --rock-depth (m) or --depths (a list of m.w.e.)");
  }
  if (by_mwe || by_metres) check_depth(o.depth_mwe, depth_max, by_mwe ? "depth" : "rock-depth");
  if (s.depths_mwe.size() > 20) {
    throw Error(fmt::format("depths: {} depths, at most 20", s.depths_mwe.size()));
  }
  for (const double d : s.depths_mwe) check_depth(d, depth_max, "depths");
  return o;
}

}  // namespace fastmu::underground
