// Fuzzes the geometry JSON reader (GeometryParams::from_json_file, the path of
// `fastmu run --geometry`): any bytes -> a geometry or fastmu::Error.
#include <cstddef>
#include <cstdint>

#include "FuzzSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fastmu::fuzz::write_bytes("geometry.json", data, size);
  try {
    fastmu::MaterialLibrary materials;
    fastmu::GeometryParams::from_json_file(path, materials);
  } catch (const fastmu::Error&) {
  }
  return 0;
}
