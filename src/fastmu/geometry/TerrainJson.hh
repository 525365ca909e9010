// The geometry JSON's "terrain" entry (interfaces.md "Geometry (JSON)"): a
// height map over an x-y rectangle with the air above, optional layers and
// the bulk material below, turned into one volume per slab.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/geometry/JsonNode.hh"

namespace fastmu {

// One terrain ready for GeometryParams: indices are local (surface 0, slab
// k, heights from 0); the caller offsets them when it appends.
struct TerrainParts {
  TerrainSurface surface;
  std::vector<float> heights;
  std::vector<TerrainSlab> slabs;
  std::vector<VolumeDesc> volumes;  // slab k's volume, from the top down
};

// Reads and checks the entry; a relative height-map path is resolved
// against base_dir. `material_id` gives (and registers) a material name's
// id. Throws fastmu::Error with one line naming the file and the JSON path
// or the height map's line.
TerrainParts read_terrain(const json_check::Node& n, const std::filesystem::path& base_dir,
                          const std::function<std::int32_t(const json_check::Node&)>& material_id,
                          const std::array<double, 3>& world_lo,
                          const std::array<double, 3>& world_hi);

}  // namespace fastmu
