// Loads a geometry through the installed fastmu libraries and prints what it holds.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "fastmu/core/Version.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

int main() {
  const auto doc = nlohmann::json::parse(R"({
    "world": {"min": [-1, -1, -1], "max": [1, 1, 3], "material": "G4_AIR"},
    "volumes": [{"name": "slab", "shape": "box", "min": [-1, -1, 0], "max": [1, 1, 2],
                 "material": "G4_Fe"}]})");
  fastmu::MaterialLibrary materials;
  const auto geo = fastmu::GeometryParams::from_json(doc, "consumer", materials);
  std::printf("fastmu %s: %zu volume(s), material of '%s': %s\n", FASTMU_VERSION,
              geo.volumes().size(), geo.volumes()[0].name.c_str(),
              geo.volumes()[0].material.c_str());
  return geo.volumes().size() == 1 ? 0 : 1;
}
