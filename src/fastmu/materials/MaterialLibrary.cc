// Name -> material lookup over the built-in set plus user-defined materials.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fastmu/core/ClosestNames.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/materials/MaterialData.hh"
#include "fastmu/materials/MaterialNames.hh"

namespace fastmu {
namespace {

// Alternative names accepted by find(); they are not listed by names().
struct Alias {
  const char* alias;
  const char* canonical;
};
constexpr Alias kAliases[] = {
    {"vacuum", "G4_Galactic"},
    {"G4_STANDARD_ROCK", "StandardRock"},
    {"standard_rock", "StandardRock"},
    {"ice", "Ice"},
    {"sea_water", "SeaWater"},
    {"norite", "Norite"},
    {"granite", "Granite"},
};

std::string canonical_name(const std::string& name) {
  for (const Alias& a : kAliases) {
    if (name == a.alias) return a.canonical;
  }
  return name;
}

// Geant4's rule for materials without a declared state (kGasThreshold).
constexpr double kGasDensityThresholdGCm3 = 0.01;

}  // namespace

MaterialLibrary::MaterialLibrary() {
  for (Material& m : materials_detail::make_builtin_materials()) {
    std::string key = m.name;
    materials_.emplace(std::move(key), std::move(m));
  }
}

const Material& MaterialLibrary::find(const std::string& name) const {
  auto it = materials_.find(canonical_name(name));
  if (it != materials_.end()) return it->second;
  throw Error(unknown_material_message(*this, name));
}

std::string unknown_material_message(const MaterialLibrary& library, const std::string& name) {
  std::vector<std::string> known = library.names();
  for (const Alias& a : kAliases) known.emplace_back(a.alias);
  std::string hint = did_you_mean(name, known);
  if (!hint.empty()) hint += "; ";
  return "unknown material '" + name + "' (" + hint +
         "known: G4_Fe, G4_CONCRETE, G4_WATER, G4_AIR, G4_Pb, G4_W, StandardRock, Ice, SeaWater, "
         "vacuum, ... or any G4_<element>; " +
         std::to_string(library.names().size()) + " in all)";
}

bool MaterialLibrary::contains(const std::string& name) const {
  return materials_.count(canonical_name(name)) != 0;
}

std::vector<std::string> MaterialLibrary::names() const {
  std::vector<std::string> out;
  out.reserve(materials_.size());
  for (const auto& entry : materials_) out.push_back(entry.first);
  return out;  // std::map keeps them sorted
}

const Material& MaterialLibrary::add_custom(const std::string& name, double density_g_cm3,
                                            const std::map<std::string, double>& mass_fractions) {
  const std::string where = "material '" + name + "'";
  if (name.empty()) throw Error("custom material: empty name");
  if (contains(name)) throw Error(where + ": name already defined");
  if (!(density_g_cm3 >= limits::kMinDensity && density_g_cm3 <= limits::kMaxDensity)) {
    char range[128];
    std::snprintf(range, sizeof range, ": density %g g/cm3 is not in [%g, %g] g/cm3", density_g_cm3,
                  limits::kMinDensity, limits::kMaxDensity);
    throw Error(where + range);
  }
  if (mass_fractions.empty()) throw Error(where + ": empty composition");

  materials_detail::MaterialSpec spec;
  spec.name = name;
  spec.density_g_cm3 = density_g_cm3;
  spec.gas = density_g_cm3 <= kGasDensityThresholdGCm3;
  double total = 0;
  for (const auto& [symbol, fraction] : mass_fractions) {
    const Element* e = nullptr;
    try {
      e = &element_by_symbol(symbol);
    } catch (const Error&) {
      throw Error(where + ": unknown element symbol '" + symbol + "'");
    }
    if (!(fraction > 0) || !std::isfinite(fraction)) {
      throw Error(where + ": fraction of " + symbol + " must be positive (got " +
                  std::to_string(fraction) + ")");
    }
    spec.components.push_back({e->z, e->a_g_per_mol, fraction});
    total += fraction;
  }
  // G4Material::AddElement (mass fractions) warns when |1 - sum| > perThousand
  // and goes on; fastmu warns the same way and normalises.
  if (std::fabs(1.0 - total) > kMassFractionSumTolerance) {
    std::fprintf(stderr,
                 "fastmu: warning: %s: mass fractions sum to %.6g, not 1; normalised to 1\n",
                 where.c_str(), total);
  }
  for (MaterialComponent& c : spec.components) c.mass_fraction /= total;
  std::sort(spec.components.begin(), spec.components.end(),
            [](const MaterialComponent& a, const MaterialComponent& b) { return a.z < b.z; });

  Material m = materials_detail::finish_material(std::move(spec));
  return materials_.emplace(name, std::move(m)).first->second;
}

const MaterialLibrary& builtin_materials() {
  static const MaterialLibrary library;
  return library;
}

}  // namespace fastmu
