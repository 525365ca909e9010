// GDML output (docs/geometry-and-materials.md "GDML"): any fastmu geometry as a GDML file
// that Geant4's G4GDMLParser loads: define, materials, solids, structure,
// setup. Each volume is its own logical volume placed in the world without
// rotation (ARB8 vertices are written in world x, y, so no rotation is
// needed). Uniform fields go into auxiliary tags; sensitive planes and the
// field map, which GDML cannot express, into a sidecar JSON beside it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/geometry/GeometryParams.hh"

namespace fastmu {

class MaterialLibrary;

// The GDML text. `materials` must define every custom material the geometry uses.
std::string geometry_to_gdml(const GeometryParams& geometry, const MaterialLibrary& materials);

// The sidecar ("sensitive_planes", "field_map"), or nothing when there are neither.
// A field-map file is named relative to `sidecar_dir` (where the sidecar will
// lie), so an exported geometry moves with its field map.
std::optional<nlohmann::json> geometry_gdml_sidecar(const GeometryParams& geometry,
                                                    const std::filesystem::path& sidecar_dir);

// Writes `out` and, when needed, `out` + ".json" (each atomically; a stale
// sidecar from an earlier export is removed so it cannot be read back).
void write_gdml(const GeometryParams& geometry, const MaterialLibrary& materials,
                const std::filesystem::path& out);

}  // namespace fastmu
