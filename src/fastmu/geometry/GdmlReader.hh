// GDML input (docs/geometry-and-materials.md "GDML"): a Geant4 geometry of boxes, trds,
// traps and arb8s placed in a box world with rotations about z only,
// translated into the geometry JSON layout (interfaces.md "Geometry (JSON)")
// so that one validator (GeometryParams::from_json) serves both formats.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/geometry/GeometryParams.hh"

namespace fastmu {

class MaterialLibrary;

// The GDML document `text` as a geometry JSON document (lengths in metres,
// fields in tesla, custom materials as mass fractions). Anything that is not
// supported throws fastmu::Error with one line naming the source, the line
// and the element, e.g. "f.gdml:12: <sphere>: unsupported solid".
nlohmann::json gdml_to_geometry_json(std::string_view text, const std::string& source);

// Reads `file` (GDML) and, when present, its sidecar `file` + ".json" whose
// keys "sensitive_planes" and "field_map" are those of the JSON layout.
GeometryParams geometry_from_gdml_file(const std::filesystem::path& file,
                                       MaterialLibrary& materials);

// A geometry file by extension: ".gdml" as GDML, anything else as JSON.
GeometryParams load_geometry_file(const std::filesystem::path& file, MaterialLibrary& materials);

}  // namespace fastmu
