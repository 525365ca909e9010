// libFuzzer target: the GDML reader (GdmlReader) and the validation it feeds
// (GeometryParams::from_json). Any input must give a geometry or a
// fastmu::Error, never a crash, hang or sanitizer finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/materials/Material.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = fastmu::gdml_to_geometry_json(text, "fuzz.gdml");
    fastmu::MaterialLibrary materials;
    fastmu::GeometryParams::from_json(doc, "fuzz.gdml", materials, std::filesystem::path("."));
  } catch (const fastmu::Error&) {
  }
  return 0;
}
