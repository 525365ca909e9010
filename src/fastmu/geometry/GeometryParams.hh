// Host-side owner of a geometry (interfaces.md "Geometry (JSON)"): parsed and
// validated once (types, materials, degenerate solids, containment in the
// world, overlaps), indexed by a uniform grid, then viewed on host or device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/field/FieldMapSpec.hh"
#include "fastmu/geometry/GeometryView.hh"

namespace fastmu {

class MaterialLibrary;
struct TerrainParts;

enum class VolumeShape : std::int32_t { box = 0, arb8 = 1, terrain = 2 };

// A volume as described in the JSON, in double precision.
struct VolumeDesc {
  std::string name;
  VolumeShape shape = VolumeShape::box;
  std::array<double, 3> lo{}, hi{};  // the box, or the ARB8's or terrain slab's bounding box
  double z_center = 0, dz = 0;       // ARB8 only
  // ARB8 only: 4 (x, y) at z_center - dz then 4 at z_center + dz, as given.
  std::array<std::array<double, 2>, 8> vertices{};
  std::string material;  // name as written (after alias resolution)
  std::int32_t material_id = 0;
  std::array<double, 3> field{};  // uniform field inside (T)
  // Terrain slab only: indices into terrain_slabs() and terrain_surfaces().
  std::int32_t terrain_slab = -1, terrain_surface = -1;
};

class GeometryParams {
 public:
  // Parses and validates a geometry file; custom materials it defines are
  // added to `materials`. Throws fastmu::Error with one line naming the file
  // and the JSON path, e.g. "geom.json: volumes[3].vertices: expected 8 [x, y]
  // pairs, got 7", or "geom.json: volumes 'a' and 'b' overlap".
  static GeometryParams from_json_file(const std::filesystem::path& file,
                                       MaterialLibrary& materials);
  // Same from a parsed document; `source` names it in messages and a relative
  // field-map path is resolved against `base_dir` (default: source's folder).
  static GeometryParams from_json(const nlohmann::json& doc, const std::string& source,
                                  MaterialLibrary& materials,
                                  std::optional<std::filesystem::path> base_dir = std::nullopt);

  const std::string& source() const { return source_; }
  const std::array<double, 3>& world_lo() const { return world_lo_; }
  const std::array<double, 3>& world_hi() const { return world_hi_; }
  std::int32_t world_material() const { return 0; }  // the world's material is id 0
  const std::vector<VolumeDesc>& volumes() const { return volumes_; }
  // Material id -> name; id 0 is the world's.
  const std::vector<std::string>& material_names() const { return material_names_; }
  // In JSON order (the index is the output's `plane` column).
  const std::vector<SensitivePlane>& sensitive_planes() const { return planes_; }
  const std::optional<FieldMapSpec>& field_map() const { return field_map_; }
  // Per-material step lengths [m] from the JSON's "steps" (canonical names).
  const std::map<std::string, double>& material_steps() const { return material_steps_; }
  // Terrains (key "terrain"): height maps and the slabs between them.
  const std::vector<TerrainSurface>& terrain_surfaces() const { return terrain_surfaces_; }
  const std::vector<TerrainSlab>& terrain_slabs() const { return terrain_slabs_; }
  const std::vector<float>& terrain_heights() const { return terrain_heights_; }

  // The grid's shape and the largest candidate list of a cell (diagnostics).
  std::array<std::int32_t, 3> grid_shape() const { return {grid_.nx, grid_.ny, grid_.nz}; }
  std::size_t max_candidates_per_cell() const;

  // copy(const T* host, std::size_t n) -> const T*: identity on host, a device
  // copy (owned by the caller) for CUDA.
  template <class Copy>
  GeometryView make_view(Copy&& copy) const {
    GeometryView v;
    v.world_lo = to_vec3f(world_lo_);
    v.world_hi = to_vec3f(world_hi_);
    v.world_material = 0;
    v.num_volumes = static_cast<std::int32_t>(records_.size());
    v.volumes = copy(records_.data(), records_.size());
    v.arb8s = copy(arb8s_.data(), arb8s_.size());
    v.grid = grid_;
    v.grid.cell_offsets = copy(cell_offsets_.data(), cell_offsets_.size());
    v.grid.cell_volumes = copy(cell_volumes_.data(), cell_volumes_.size());
    v.grid.cell_clearance = copy(cell_clearance_.data(), cell_clearance_.size());
    v.num_planes = static_cast<std::int32_t>(planes_.size());
    v.planes = copy(planes_.data(), planes_.size());
    v.terrain_surfaces = copy(terrain_surfaces_.data(), terrain_surfaces_.size());
    v.terrain_slabs = copy(terrain_slabs_.data(), terrain_slabs_.size());
    v.terrain_heights = copy(terrain_heights_.data(), terrain_heights_.size());
    return v;
  }
  // The kinds of solid beyond boxes that the geometry holds (ShapeKinds.hh).
  unsigned shape_kinds() const;
  // Whether some volume has a non-zero uniform field.
  bool has_volume_fields() const;
  GeometryView host_view() const {
    return make_view([](const auto* p, std::size_t) { return p; });
  }

 private:
  void build_device_data();  // records, ARB8 shapes and the grid from volumes_
  // Appends a terrain's height map, slabs and volumes (TerrainJson.hh).
  void add_terrain(TerrainParts&& t);

  std::string source_;
  std::array<double, 3> world_lo_{}, world_hi_{};
  std::vector<VolumeDesc> volumes_;
  std::vector<std::string> material_names_;
  std::vector<SensitivePlane> planes_;
  std::optional<FieldMapSpec> field_map_;
  std::map<std::string, double> material_steps_;
  std::vector<TerrainSurface> terrain_surfaces_;
  std::vector<TerrainSlab> terrain_slabs_;
  std::vector<float> terrain_heights_;

  std::vector<VolumeRecord> records_;
  std::vector<Arb8Shape> arb8s_;
  UniformGridView grid_;  // shape only; pointers are set by make_view
  std::vector<std::int32_t> cell_offsets_, cell_volumes_;
  std::vector<float> cell_clearance_;
};

}  // namespace fastmu
