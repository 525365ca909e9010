// GeometryParams from JSON (interfaces.md "Geometry (JSON)"): every value is
// checked where it is read, and every error names the file and the JSON path.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/geometry/CrossSection.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/geometry/JsonNode.hh"
#include "fastmu/geometry/OverlapCheck.hh"
#include "fastmu/geometry/TerrainJson.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/materials/MaterialNames.hh"

namespace fastmu {

namespace {

using nlohmann::json;

using json_check::Node;

const char* kAxis = "xyz";

void read_custom_materials(const Node& node, MaterialLibrary& materials) {
  node.expect_object();
  for (const auto& [name, value] : node.j.items()) {
    const Node m = node.key(name);
    m.allow_keys({"density", "composition"});
    const double density = m.require("density").number();
    if (!(density >= limits::kMinDensity && density <= limits::kMaxDensity)) {
      m.key("density").fail(fmt::format("{:g} g/cm3 is not in [{:g}, {:g}] g/cm3", density,
                                        limits::kMinDensity, limits::kMaxDensity));
    }
    const Node comp = m.require("composition");
    comp.expect_object();
    if (comp.j.empty()) comp.fail("expected at least one element");
    std::map<std::string, double> fractions;
    for (const auto& [symbol, f] : comp.j.items()) {
      const double x = comp.key(symbol).number();
      if (!(x > 0 && x <= 1e6)) comp.key(symbol).fail("mass fraction must be in (0, 1e6]");
      fractions[symbol] = x;
    }
    if (materials.contains(name)) {
      // Reloading the same geometry into one library is fine; a different
      // definition under a taken name is not.
      const Material& old = materials.find(name);
      bool same = std::abs(old.density_g_cm3 - density) <= 1e-9 * density &&
                  old.components.size() == fractions.size();
      double total = 0;
      for (const auto& [s, f] : fractions) total += f;
      for (const auto& c : old.components) {
        const Element& e = element_by_z(c.z);
        auto it = fractions.find(e.symbol);
        same =
            same && it != fractions.end() && std::abs(it->second / total - c.mass_fraction) <= 1e-6;
      }
      if (!same) m.fail(fmt::format("material '{}' is already defined differently", name));
      continue;
    }
    try {
      materials.add_custom(name, density, fractions);
    } catch (const Error& e) {
      m.fail(e.what());
    }
  }
}

// volumes[i] of the geometry JSON, checked; `material_id` gives (and
// registers) the id of a material name node.
template <class MaterialId>
VolumeDesc read_volume(const Node& n, std::size_t i, const std::string& source,
                       std::set<std::string>& names, MaterialId&& material_id,
                       const std::array<double, 3>& world_lo,
                       const std::array<double, 3>& world_hi) {
  n.expect_object();
  VolumeDesc v;
  v.name = n.has("name") ? n.key("name").string() : fmt::format("volumes[{}]", i);
  if (!names.insert(v.name).second) n.key("name").fail(fmt::format("duplicate name '{}'", v.name));
  const std::string shape = n.require("shape").string();
  if (shape == "box") {
    n.allow_keys({"name", "shape", "min", "max", "material", "field"});
    v.shape = VolumeShape::box;
    v.lo = n.require("min").bounded<3>("[x, y, z]", limits::kMaxCoordinate, "m");
    v.hi = n.require("max").bounded<3>("[x, y, z]", limits::kMaxCoordinate, "m");
    for (int a = 0; a < 3; ++a) {
      if (!(v.lo[a] < v.hi[a])) {
        n.fail(fmt::format("degenerate box: min {} ({:g}) must be < max {} ({:g})", kAxis[a],
                           v.lo[a], kAxis[a], v.hi[a]));
      }
    }
  } else if (shape == "arb8") {
    n.allow_keys({"name", "shape", "z_center", "dz", "vertices", "material", "field"});
    v.shape = VolumeShape::arb8;
    v.z_center = n.require("z_center").number();
    v.dz = n.require("dz").number();
    if (!(std::abs(v.z_center) <= limits::kMaxCoordinate))
      n.key("z_center").fail(fmt::format("{:g} m is not within 1e5 m of 0", v.z_center));
    if (!(v.dz > 0 && v.dz <= limits::kMaxCoordinate))
      n.key("dz").fail(fmt::format("{:g} m is not in (0, 1e5] m", v.dz));
    const Node verts = n.require("vertices");
    if (!verts.j.is_array() || verts.j.size() != 8) {
      verts.fail(fmt::format("expected 8 [x, y] pairs, got {}", verts.j.is_array()
                                                                    ? std::to_string(verts.j.size())
                                                                    : verts.j.type_name()));
    }
    for (std::size_t k = 0; k < 8; ++k) {
      const auto xy = verts.index(k).bounded<2>("an [x, y] pair", limits::kMaxCoordinate, "m");
      v.vertices[k] = {xy[0], xy[1]};
    }
    normalise_arb8(v, fmt::format("{}: volumes[{}] ('{}')", source, i, v.name));
  } else {
    n.key("shape").fail(fmt::format("unknown shape '{}' (expected box or arb8)", shape));
  }
  const Node mat = n.require("material");
  v.material_id = material_id(mat);
  if (n.has("field"))
    v.field = n.key("field").bounded<3>("[Bx, By, Bz] in tesla", limits::kMaxField, "T");
  for (int a = 0; a < 3; ++a) {
    const double tol = 1e-9 * (1 + std::abs(world_lo[a]) + std::abs(world_hi[a]));
    if (v.lo[a] < world_lo[a] - tol || v.hi[a] > world_hi[a] + tol) {
      n.fail(fmt::format(
          "volume '{}' extends outside the world ({} in [{:g}, {:g}], world [{:g}, {:g}])", v.name,
          kAxis[a], v.lo[a], v.hi[a], world_lo[a], world_hi[a]));
    }
  }
  return v;
}

// The field_map entry: only the reference here; the field library loads it.
FieldMapSpec read_field_map(const Node& fm, const std::string& source,
                            const std::optional<std::filesystem::path>& base_dir) {
  fm.allow_keys({"file", "interpolation", "symmetry"});
  FieldMapSpec spec;
  const std::filesystem::path file = fm.require("file").string();
  const std::filesystem::path base =
      base_dir ? *base_dir : std::filesystem::path(source).parent_path();
  spec.file = file.is_absolute() || base.empty() ? file : base / file;
  if (!std::filesystem::exists(spec.file)) {
    fm.key("file").fail(fmt::format("field map '{}' not found", spec.file.string()));
  }
  if (fm.has("interpolation")) {
    const std::string s = fm.key("interpolation").string();
    if (s == "nearest") {
      spec.interpolation = FieldInterpolation::nearest;
    } else if (s == "linear") {
      spec.interpolation = FieldInterpolation::linear;
    } else {
      fm.key("interpolation").fail(fmt::format("expected \"nearest\" or \"linear\", got \"{}\"", s));
    }
  }
  if (fm.has("symmetry")) {
    const std::string s = fm.key("symmetry").string();
    if (s == "none") {
      spec.symmetry = FieldSymmetry::none;
    } else if (s == "quadrant") {
      spec.symmetry = FieldSymmetry::quadrant;
    } else {
      fm.key("symmetry").fail(fmt::format("expected \"none\" or \"quadrant\", got \"{}\"", s));
    }
  }
  return spec;
}

// sensitive_planes[i]; a window axis left out spans the world.
SensitivePlane read_plane(const Node& n, const std::array<double, 3>& world_lo,
                          const std::array<double, 3>& world_hi) {
  n.allow_keys({"z", "x", "y", "name"});
  const double z = n.require("z").number();
  if (z < world_lo[2] || z > world_hi[2]) {
    n.key("z").fail(fmt::format("plane at z = {:g} is outside the world [{:g}, {:g}]", z,
                                world_lo[2], world_hi[2]));
  }
  std::array<double, 2> x{world_lo[0], world_hi[0]}, y{world_lo[1], world_hi[1]};
  if (n.has("x")) x = n.key("x").bounded<2>("[min, max]", limits::kMaxCoordinate, "m");
  if (n.has("y")) y = n.key("y").bounded<2>("[min, max]", limits::kMaxCoordinate, "m");
  if (!(x[0] < x[1])) n.key("x").fail("window min must be < max");
  if (!(y[0] < y[1])) n.key("y").fail("window min must be < max");
  return {static_cast<float>(z), static_cast<float>(x[0]), static_cast<float>(x[1]),
          static_cast<float>(y[0]), static_cast<float>(y[1])};
}

}  // namespace

GeometryParams GeometryParams::from_json_file(const std::filesystem::path& file,
                                              MaterialLibrary& materials) {
  const std::string source = file.string();
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("{}: cannot open geometry file", source));
  io::note_input(file);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    // nlohmann's message already says "at line L, column C".
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    throw Error(fmt::format("{}: invalid JSON: {}", source, what));
  }
  return from_json(doc, source, materials, file.parent_path());
}

GeometryParams GeometryParams::from_json(const nlohmann::json& doc, const std::string& source,
                                         MaterialLibrary& materials,
                                         std::optional<std::filesystem::path> base_dir) {
  GeometryParams g;
  g.source_ = source;
  const Node root{doc, source, ""};
  root.allow_keys(
      {"world", "volumes", "terrain", "field_map", "sensitive_planes", "materials", "steps"});

  if (root.has("materials")) read_custom_materials(root.key("materials"), materials);
  // Per-material step lengths [m] (transport/step/StepLengths.hh).
  if (root.has("steps")) {
    const Node steps = root.key("steps");
    steps.expect_object();
    for (const auto& [name, value] : steps.j.items()) {
      const Node n = steps.key(name);
      if (!materials.contains(name)) n.fail(unknown_material_message(materials, name));
      const double d = n.number();
      if (!(d > 0 && d <= limits::kMaxStep))
        n.fail(fmt::format("step {:g} m is not a length in (0, {:g}] m", d, limits::kMaxStep));
      g.material_steps_[materials.find(name).name] = d;
    }
  }

  std::map<std::string, std::int32_t> material_ids;
  auto material_id = [&](const Node& n) {
    const std::string name = n.string();
    if (!materials.contains(name)) n.fail(unknown_material_message(materials, name));
    const std::string canonical = materials.find(name).name;  // "vacuum" -> "G4_Galactic"
    auto [it, added] =
        material_ids.emplace(canonical, static_cast<std::int32_t>(g.material_names_.size()));
    if (added) g.material_names_.push_back(canonical);
    return it->second;
  };

  // World.
  const Node world = root.require("world");
  world.allow_keys({"min", "max", "material"});
  g.world_lo_ = world.require("min").bounded<3>("[x, y, z]", limits::kMaxCoordinate, "m");
  g.world_hi_ = world.require("max").bounded<3>("[x, y, z]", limits::kMaxCoordinate, "m");
  for (int a = 0; a < 3; ++a) {
    if (!(g.world_lo_[a] < g.world_hi_[a])) {
      world.fail(fmt::format("min {} ({:g}) must be < max {} ({:g})", kAxis[a], g.world_lo_[a],
                             kAxis[a], g.world_hi_[a]));
    }
  }
  material_id(world.require("material"));  // id 0

  // Volumes.
  if (root.has("volumes")) {
    const Node vols = root.key("volumes");
    vols.expect_array();
    std::set<std::string> names;
    for (std::size_t i = 0; i < vols.j.size(); ++i) {
      VolumeDesc v =
          read_volume(vols.index(i), i, source, names, material_id, g.world_lo_, g.world_hi_);
      v.material = g.material_names_[v.material_id];
      g.volumes_.push_back(std::move(v));
    }
  }

  if (root.has("terrain")) {
    const std::filesystem::path base =
        base_dir ? *base_dir : std::filesystem::path(source).parent_path();
    g.add_terrain(read_terrain(root.key("terrain"), base, material_id, g.world_lo_, g.world_hi_));
  }

  // Field map: only the reference here; the field library loads it.
  if (root.has("field_map")) {
    g.field_map_ = read_field_map(root.key("field_map"), source, base_dir);
  }

  // Sensitive planes; a window axis left out spans the world.
  if (root.has("sensitive_planes")) {
    const Node planes = root.key("sensitive_planes");
    planes.expect_array();
    for (std::size_t i = 0; i < planes.j.size(); ++i) {
      g.planes_.push_back(read_plane(planes.index(i), g.world_lo_, g.world_hi_));
    }
  }

  check_overlaps(g.volumes_, source);
  g.build_device_data();
  return g;
}

}  // namespace fastmu
