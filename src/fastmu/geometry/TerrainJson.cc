#include "fastmu/geometry/TerrainJson.hh"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "fastmu/geometry/HeightMap.hh"

namespace fastmu {

namespace {

using json_check::Node;

// The largest |grad h| of the bilinear surface: within a cell each slope
// component is affine, so |grad h| (convex) peaks at a corner.
double max_slope(const HeightMap& m, const std::vector<float>& h, double dx, double dy) {
  double l2 = 0;
  for (std::int32_t j = 0; j + 1 < m.ny; ++j) {
    for (std::int32_t i = 0; i + 1 < m.nx; ++i) {
      const double h00 = h[j * m.nx + i], h10 = h[j * m.nx + i + 1];
      const double h01 = h[(j + 1) * m.nx + i], h11 = h[(j + 1) * m.nx + i + 1];
      const double gx0 = (h10 - h00) / dx, gx1 = (h11 - h01) / dx;  // at v = 0, dy
      const double gy0 = (h01 - h00) / dy, gy1 = (h11 - h10) / dy;  // at u = 0, dx
      for (double gx : {gx0, gx1}) {
        for (double gy : {gy0, gy1}) l2 = std::max(l2, gx * gx + gy * gy);
      }
    }
  }
  return std::sqrt(l2);
}

std::array<double, 2> read_range(const Node& n, const char* key, double lo, double hi) {
  const Node r = n.require(key);
  const auto v = r.numbers<2>("[min, max]");
  if (!(v[0] < v[1])) r.fail(fmt::format("min ({:g}) must be < max ({:g})", v[0], v[1]));
  if (v[0] < lo || v[1] > hi) {
    r.fail(fmt::format("[{:g}, {:g}] extends outside the world [{:g}, {:g}]", v[0], v[1], lo, hi));
  }
  return v;
}

TerrainSurface make_surface(const HeightMap& m, const std::vector<float>& h,
                            const std::array<double, 2>& x, const std::array<double, 2>& y) {
  TerrainSurface s;
  const double dx = (x[1] - x[0]) / (m.nx - 1), dy = (y[1] - y[0]) / (m.ny - 1);
  s.x0 = static_cast<float>(x[0]), s.y0 = static_cast<float>(y[0]);
  s.dx = static_cast<float>(dx), s.dy = static_cast<float>(dy);
  s.inv_dx = static_cast<float>(1 / dx), s.inv_dy = static_cast<float>(1 / dy);
  s.nx = m.nx, s.ny = m.ny;
  s.h_min = *std::min_element(h.begin(), h.end());
  s.h_max = *std::max_element(h.begin(), h.end());
  // A little above the true bound: float rounding of the heights in use.
  const double l = max_slope(m, h, dx, dy) * (1 + 1e-4) + 1e-6;
  s.lipschitz = static_cast<float>(l);
  s.inv_cone = static_cast<float>((1 - 1e-4) / std::sqrt(1 + l * l));
  return s;
}

// The slab between depths `upper` and `lower` below the surface (negative:
// none on that side) as a volume with its box clipped to [bottom, top].
bool add_slab(TerrainParts& t, const std::string& name, double upper, double lower,
              std::int32_t material, const std::array<double, 2>& x, const std::array<double, 2>& y,
              double bottom, double top) {
  const double z_hi = upper < 0 ? top : std::min(top, t.surface.h_max - upper);
  const double z_lo = lower < 0 ? bottom : std::max(bottom, t.surface.h_min - lower);
  if (!(z_lo < z_hi)) return false;  // a layer wholly below the bottom
  TerrainSlab slab;
  slab.has_upper = upper >= 0, slab.has_lower = lower >= 0;
  slab.upper_depth = static_cast<float>(std::max(upper, 0.0));
  slab.lower_depth = static_cast<float>(std::max(lower, 0.0));
  VolumeDesc v;
  v.name = name;
  v.shape = VolumeShape::terrain;
  v.lo = {x[0], y[0], z_lo};
  v.hi = {x[1], y[1], z_hi};
  v.material_id = material;
  v.terrain_slab = static_cast<std::int32_t>(t.slabs.size());
  v.terrain_surface = 0;
  t.slabs.push_back(slab);
  t.volumes.push_back(v);
  return true;
}

}  // namespace

TerrainParts read_terrain(const Node& n, const std::filesystem::path& base_dir,
                          const std::function<std::int32_t(const Node&)>& material_id,
                          const std::array<double, 3>& world_lo,
                          const std::array<double, 3>& world_hi) {
  n.allow_keys(
      {"name", "height_map", "dataset", "x", "y", "bottom", "top", "material", "above", "layers"});
  const std::string name = n.has("name") ? n.key("name").string() : "terrain";
  const std::array<double, 2> x = read_range(n, "x", world_lo[0], world_hi[0]);
  const std::array<double, 2> y = read_range(n, "y", world_lo[1], world_hi[1]);
  const double bottom = n.has("bottom") ? n.key("bottom").number() : world_lo[2];
  const double top = n.has("top") ? n.key("top").number() : world_hi[2];
  if (bottom < world_lo[2])
    n.key("bottom").fail(fmt::format("below the world ({:g})", world_lo[2]));
  if (top > world_hi[2]) n.key("top").fail(fmt::format("above the world ({:g})", world_hi[2]));

  const Node file_node = n.require("height_map");
  const std::filesystem::path file = file_node.string();
  const std::filesystem::path path =
      file.is_absolute() || base_dir.empty() ? file : base_dir / file;
  const HeightMap map =
      read_height_map(path, n.has("dataset") ? n.key("dataset").string() : "height");

  TerrainParts t;
  t.heights.assign(map.heights.begin(), map.heights.end());
  t.surface = make_surface(map, t.heights, x, y);
  if (!(bottom < t.surface.h_min)) {
    n.fail(fmt::format("bottom ({:g}) must be below the lowest height ({:g}) of {}", bottom,
                       t.surface.h_min, path.string()));
  }
  if (!(top > t.surface.h_max)) {
    n.fail(fmt::format("top ({:g}) must be above the highest height ({:g}) of {}", top,
                       t.surface.h_max, path.string()));
  }

  // Air of the world's material needs no volume: the world region above the
  // surface is cheaper to cross (free flight in vacuum, no slab tests).
  const std::int32_t above = n.has("above") ? material_id(n.key("above")) : 0;  // 0: the world's
  if (above != 0) add_slab(t, fmt::format("{}.above", name), -1, 0, above, x, y, bottom, top);
  double depth = 0;
  if (n.has("layers")) {
    const Node layers = n.key("layers");
    layers.expect_array();
    for (std::size_t k = 0; k < layers.j.size(); ++k) {
      const Node l = layers.index(k);
      l.allow_keys({"thickness", "material"});
      const double thickness = l.require("thickness").number();
      if (!(thickness > 0))
        l.key("thickness").fail(fmt::format("must be > 0, got {:g}", thickness));
      add_slab(t, fmt::format("{}.layers[{}]", name, k), depth, depth + thickness,
               material_id(l.require("material")), x, y, bottom, top);
      depth += thickness;
    }
  }
  add_slab(t, fmt::format("{}.below", name), depth, -1, material_id(n.require("material")), x, y,
           bottom, top);
  return t;
}

}  // namespace fastmu
