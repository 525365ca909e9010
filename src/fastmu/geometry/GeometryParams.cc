#include "fastmu/geometry/GeometryParams.hh"

#include <algorithm>
#include <array>
#include <cmath>

#include "fastmu/geometry/GridBuilder.hh"
#include "fastmu/geometry/TerrainJson.hh"

namespace fastmu {

namespace {

using V3 = std::array<double, 3>;
V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double length(const V3& a) { return std::sqrt(dot(a, a)); }

// The planes of an ARB8 whose lateral faces are flat and end faces convex
// (Arb8Shape::planar); otherwise leaves it on the general (twisted) path. A
// lateral face is flat when its edges at the two ends are parallel (the
// bilinear surface through them is then a plane).
void set_arb8_planes(const VolumeDesc& v, Arb8Shape& s) {
  s.planar = 0;
  const double z_lo = v.z_center - v.dz, z_hi = v.z_center + v.dz;
  V3 lo[4], hi[4];
  V3 c{0, 0, 0};
  double size = 0;
  for (int i = 0; i < 4; ++i) {
    lo[i] = {v.vertices[i][0], v.vertices[i][1], z_lo};
    hi[i] = {v.vertices[i + 4][0], v.vertices[i + 4][1], z_hi};
    for (int k = 0; k < 3; ++k) c[k] += (lo[i][k] + hi[i][k]) / 8.0;
  }
  for (int i = 0; i < 4; ++i) size = std::max({size, length(sub(lo[i], c)), length(sub(hi[i], c))});
  const double eps = 1e-9 * std::max(size, 1e-3);
  // End faces convex (counter-clockwise: every turn to the left or none).
  for (const V3* q : {lo, hi}) {
    for (int i = 0; i < 4; ++i) {
      const V3 a = sub(q[(i + 1) & 3], q[i]), b = sub(q[(i + 2) & 3], q[(i + 1) & 3]);
      if (a[0] * b[1] - a[1] * b[0] < -eps * size) return;
    }
  }
  V3 n[4];
  double w[4];
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    const V3 e0 = sub(lo[j], lo[i]), e1 = sub(hi[j], hi[i]);
    const double l0 = length(e0), l1 = length(e1);
    if (l0 <= eps && l1 <= eps) {  // collapsed face: no plane
      n[i] = {0, 0, 0}, w[i] = 1e30;
      continue;
    }
    if (std::fabs(e0[0] * e1[1] - e0[1] * e1[0]) > 1e-7 * l0 * l1) return;  // twisted
    const V3 rise = sub(l0 >= l1 ? hi[i] : lo[i], l0 >= l1 ? lo[i] : hi[i]);
    V3 nn = cross(l0 >= l1 ? e0 : e1, rise);
    const double ln = length(nn);
    if (!(ln > 0)) return;
    for (double& x : nn) x /= ln;
    const V3 on = l0 >= l1 ? lo[i] : hi[i];
    if (dot(nn, sub(c, on)) > 0) {  // point away from the centroid: outward
      for (double& x : nn) x = -x;
    }
    n[i] = nn, w[i] = dot(nn, sub(on, c));
  }
  // A convex polyhedron holds its vertices on the inner side of every face.
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 4; ++k) {
      if (dot(n[i], sub(lo[k], c)) > w[i] + eps || dot(n[i], sub(hi[k], c)) > w[i] + eps) return;
    }
  }
  s.cx = static_cast<float>(c[0]), s.cy = static_cast<float>(c[1]), s.cz = static_cast<float>(c[2]);
  for (int i = 0; i < 4; ++i) {
    s.nx[i] = static_cast<float>(n[i][0]), s.ny[i] = static_cast<float>(n[i][1]);
    s.nz[i] = static_cast<float>(n[i][2]), s.w[i] = static_cast<float>(w[i]);
  }
  s.planar = 1;
}

}  // namespace

void GeometryParams::build_device_data() {
  records_.clear();
  arb8s_.clear();
  for (const VolumeDesc& v : volumes_) {
    VolumeRecord r;
    r.lo = to_vec3f(v.lo);
    r.hi = to_vec3f(v.hi);
    r.field = to_vec3f(v.field);
    r.material = v.material_id;
    r.arb8 = -1;
    r.terrain = v.terrain_slab;
    if (v.shape == VolumeShape::arb8) {
      Arb8Shape s;
      s.z_lo = static_cast<float>(v.z_center - v.dz);
      s.inv_h = static_cast<float>(1.0 / (2.0 * v.dz));
      for (int i = 0; i < 4; ++i) {
        s.x0[i] = static_cast<float>(v.vertices[i][0]);
        s.y0[i] = static_cast<float>(v.vertices[i][1]);
        s.dx[i] = static_cast<float>(v.vertices[i + 4][0] - v.vertices[i][0]);
        s.dy[i] = static_cast<float>(v.vertices[i + 4][1] - v.vertices[i][1]);
      }
      set_arb8_planes(v, s);
      r.arb8 = static_cast<std::int32_t>(arb8s_.size());
      arb8s_.push_back(s);
    }
    records_.push_back(r);
  }
  GridIndex index = build_grid_index(world_lo_, world_hi_, records_, arb8s_);
  grid_ = index.shape;
  cell_offsets_ = std::move(index.cell_offsets);
  cell_volumes_ = std::move(index.cell_volumes);
  cell_clearance_ = std::move(index.cell_clearance);
}

void GeometryParams::add_terrain(TerrainParts&& t) {
  const auto surface = static_cast<std::int32_t>(terrain_surfaces_.size());
  const auto first_slab = static_cast<std::int32_t>(terrain_slabs_.size());
  t.surface.first = static_cast<std::int32_t>(terrain_heights_.size());
  terrain_surfaces_.push_back(t.surface);
  terrain_heights_.insert(terrain_heights_.end(), t.heights.begin(), t.heights.end());
  for (TerrainSlab slab : t.slabs) {
    slab.surface = surface;
    terrain_slabs_.push_back(slab);
  }
  for (VolumeDesc& v : t.volumes) {
    v.terrain_slab += first_slab;
    v.terrain_surface = surface;
    v.material = material_names_[v.material_id];
    volumes_.push_back(std::move(v));
  }
}

std::size_t GeometryParams::max_candidates_per_cell() const {
  std::size_t m = 0;
  for (std::size_t c = 0; c + 1 < cell_offsets_.size(); ++c) {
    m = std::max<std::size_t>(m, cell_offsets_[c + 1] - cell_offsets_[c]);
  }
  return m;
}

unsigned GeometryParams::shape_kinds() const {
  unsigned kinds = terrain_slabs_.empty() ? 0u : shapes::kTerrain;
  for (const Arb8Shape& a : arb8s_) kinds |= a.planar ? shapes::kPlanarArb8 : shapes::kTwistedArb8;
  return kinds;
}

bool GeometryParams::has_volume_fields() const {
  for (const VolumeRecord& r : records_) {
    if (r.field.x != 0.0f || r.field.y != 0.0f || r.field.z != 0.0f) return true;
  }
  return false;
}

}  // namespace fastmu
