// Read-only view of the geometry for the step loop (host and CUDA): plain
// pointers and sizes into GeometryParams' arrays, no containers, no virtuals.
//
// The navigation functions take the kinds of solid they may meet
// (ShapeKinds.hh; default all): compiled for fewer, they skip the others'
// tests at no cost at run time.
//
// Convention for points exactly on a surface: boxes, ARB8s and terrain slabs
// are closed sets, so a point on a face shared by two volumes may be located
// in either.
#pragma once

#include <cstdint>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/Arb8.hh"
#include "fastmu/geometry/GeometryData.hh"
#include "fastmu/geometry/ShapeKinds.hh"
#include "fastmu/geometry/Terrain.hh"
#include "fastmu/geometry/UniformGrid.hh"

namespace fastmu {

struct LocateResult {
  std::int32_t volume;    // -1 = the world (no volume)
  std::int32_t material;  // the world's material where there is no volume
  Vec3f field;            // the volume's uniform field (zero in the world)
};

// Clips [t_in, t_out] to the ray's passage through lo <= p + t d <= hi along
// one axis (slab method); false when the passage is empty.
FASTMU_HD inline bool clip_ray_to_slab(float p, float d, float lo, float hi, float& t_in,
                                       float& t_out) {
  if (d == 0.f) return p >= lo && p <= hi;
  float t0 = (lo - p) / d, t1 = (hi - p) / d;
  if (t0 > t1) {
    const float tmp = t0;
    t0 = t1;
    t1 = tmp;
  }
  t_in = t0 > t_in ? t0 : t_in;
  t_out = t1 < t_out ? t1 : t_out;
  return t_in <= t_out;
}

struct GeometryView {
  Vec3f world_lo{}, world_hi{};
  std::int32_t world_material = 0;
  std::int32_t num_volumes = 0;
  const VolumeRecord* volumes = nullptr;
  const Arb8Shape* arb8s = nullptr;
  UniformGridView grid;
  std::int32_t num_planes = 0;
  const SensitivePlane* planes = nullptr;  // in JSON order
  const TerrainSurface* terrain_surfaces = nullptr;
  const TerrainSlab* terrain_slabs = nullptr;
  const float* terrain_heights = nullptr;  // all height maps, TerrainSurface::first

  // `&`, not `&&`: no branches, so that the CPU can test 8 muons at once.
  FASTMU_HD bool in_world(float x, float y, float z) const {
    return (x >= world_lo.x) & (x <= world_hi.x) & (y >= world_lo.y) & (y <= world_hi.y) &
           (z >= world_lo.z) & (z <= world_hi.z);
  }

  // Whether volume v contains the point (surface included).
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD bool contains(std::int32_t v, float x, float y, float z) const {
    const VolumeRecord& r = volumes[v];
    const bool in_box =
        x >= r.lo.x && x <= r.hi.x && y >= r.lo.y && y <= r.hi.y && z >= r.lo.z && z <= r.hi.z;
    if (!in_box) return false;
    if (terrain<kShapes>(r)) {
      const TerrainSlab& slab = terrain_slabs[r.terrain];
      return terrain_slab_contains(terrain_surfaces[slab.surface], terrain_heights, slab, x, y, z);
    }
    return !arb8<kShapes>(r) || arb8_contains_xy(arb8s[r.arb8], x, y, z);
  }

  // The volume containing the point, through the grid. Outside the world it
  // returns the world's material too: callers test in_world() first.
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD LocateResult locate(float x, float y, float z) const {
    const std::int32_t c = grid.cell_of(x, y, z);
    const std::int32_t end = grid.cell_offsets[c + 1];
    for (std::int32_t k = grid.cell_offsets[c]; k < end; ++k) {
      const std::int32_t v = grid.cell_volumes[k];
      if (contains<kShapes>(v, x, y, z)) return {v, volumes[v].material, volumes[v].field};
    }
    return {-1, world_material, {0.f, 0.f, 0.f}};
  }

  // Reference lookup over all volumes (tests, benchmarks).
  FASTMU_HD LocateResult locate_brute_force(float x, float y, float z) const {
    for (std::int32_t v = 0; v < num_volumes; ++v) {
      if (contains(v, x, y, z)) return {v, volumes[v].material, volumes[v].field};
    }
    return {-1, world_material, {0.f, 0.f, 0.f}};
  }

  // Distance along the unit vector dir from pos (inside the world) to the
  // world's boundary; >= 0.
  FASTMU_HD float distance_to_world_exit(Vec3f pos, Vec3f dir) const {
    float d = 3.0e38f;
    d = exit_1d(pos.x, dir.x, world_lo.x, world_hi.x, d);
    d = exit_1d(pos.y, dir.y, world_lo.y, world_hi.y, d);
    d = exit_1d(pos.z, dir.z, world_lo.z, world_hi.z, d);
    return d > 0.f ? d : 0.f;
  }

  // Straight-line distance from pos (in the world, outside every volume) along
  // the unit vector dir that stays outside all volumes and inside the world:
  // min(entry into the first volume hit, world exit). Walks the grid cells the
  // ray crosses (3-D DDA, Amanatides & Woo 1987) and stops as soon as the next
  // cell starts beyond the nearest entry found. Exact for boxes; for ARB8s see
  // arb8_entry_distance. Moving by it lands on the next volume's surface
  // (within float rounding), never beyond; returns 0 if pos is inside a volume.
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD float distance_to_next_volume(Vec3f pos, Vec3f dir, float limit = 3.0e38f) const {
    float best = fmin_inline(distance_to_world_exit(pos, dir), limit);
    std::int32_t i = grid.ix(pos.x), j = grid.iy(pos.y), k = grid.iz(pos.z);
    // Per axis: ray length to the next cell boundary and between boundaries.
    float next[3], delta[3];
    std::int32_t step[3];
    const float p[3] = {pos.x - grid.lo.x, pos.y - grid.lo.y, pos.z - grid.lo.z};
    const float d[3] = {dir.x, dir.y, dir.z};
    const float cs[3] = {grid.cell.x, grid.cell.y, grid.cell.z};
    const std::int32_t idx[3] = {i, j, k};
    for (int a = 0; a < 3; ++a) {
      if (d[a] > 0.f) {
        step[a] = 1;
        delta[a] = cs[a] / d[a];
        next[a] = (static_cast<float>(idx[a] + 1) * cs[a] - p[a]) / d[a];
      } else if (d[a] < 0.f) {
        step[a] = -1;
        delta[a] = -cs[a] / d[a];
        next[a] = (static_cast<float>(idx[a]) * cs[a] - p[a]) / d[a];
      } else {
        step[a] = 0;
        delta[a] = 3.0e38f;
        next[a] = 3.0e38f;
      }
    }
    const std::int32_t max_cells = grid.nx + grid.ny + grid.nz + 3;
    for (std::int32_t n = 0; n < max_cells; ++n) {
      const std::int32_t c = grid.cell_id(i, j, k);
      const std::int32_t end = grid.cell_offsets[c + 1];
      for (std::int32_t q = grid.cell_offsets[c]; q < end; ++q) {
        best = volume_entry<kShapes>(grid.cell_volumes[q], pos, dir, best);
      }
      // Advance to the neighbouring cell along the axis whose boundary is nearest.
      const int a = next[0] < next[1] ? (next[0] < next[2] ? 0 : 2) : (next[1] < next[2] ? 1 : 2);
      if (!(next[a] < best)) break;
      next[a] += delta[a];
      if (a == 0) {
        i += step[0];
        if (i < 0 || i >= grid.nx) break;
      } else if (a == 1) {
        j += step[1];
        if (j < 0 || j >= grid.ny) break;
      } else {
        k += step[2];
        if (k < 0 || k >= grid.nz) break;
      }
    }
    return best > 0.f ? best : 0.f;
  }

  // --- Navigation: what a step limited by the geometry needs.

  // Distance along the unit vector dir from pos to where the location changes:
  // for `volume` >= 0 (as returned by locate) the exit from that volume, for
  // -1 (the world's material) the entry into the next volume; never beyond
  // the world's boundary. Moving by it lands on the boundary within float
  // rounding (a caller pushes on by a few um to locate the next volume).
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD float distance_to_boundary(Vec3f pos, Vec3f dir, std::int32_t volume,
                                       float limit = 3.0e38f) const {
    if (volume < 0) return distance_to_next_volume<kShapes>(pos, dir, limit);
    const float world = fmin_inline(distance_to_world_exit(pos, dir), limit);
    return fmin_inline(volume_exit<kShapes>(volume, pos, dir, world), world);
  }

  // A lower bound of the distance from pos to any boundary where the location
  // could change (isotropic safety). In the world's material: the nearest of
  // the bounding boxes listed in pos's grid cell, that cell's own faces plus
  // its clearance (volumes of other cells lie beyond them) and the world's
  // faces. Inside a volume: its faces (exact for a box and a planar ARB8; a
  // Lipschitz bound for a twisted one and a terrain slab).
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD float safety(Vec3f pos, std::int32_t volume) const {
    const float world = box_inner_distance(pos, world_lo, world_hi);
    if (volume >= 0) {
      const VolumeRecord& r = volumes[volume];
      const float box = box_inner_distance(pos, r.lo, r.hi);
      if (terrain<kShapes>(r)) {
        const TerrainSlab& slab = terrain_slabs[r.terrain];
        return fmin_inline(
            fmin_inline(box, world),
            terrain_slab_safety(terrain_surfaces[slab.surface], terrain_heights, slab, pos));
      }
      if (!arb8<kShapes>(r)) return fmin_inline(box, world);
      const Arb8Shape& a = arb8s[r.arb8];
      if (planar<kShapes>(a)) return fmin_inline(world, arb8_planar_safety(a, pos));
      return fmin_inline(fmin_inline(box, world), arb8_safety(a, pos, norm(r.hi - r.lo)));
    }
    const std::int32_t i = grid.ix(pos.x), j = grid.iy(pos.y), k = grid.iz(pos.z);
    const Vec3f cell_lo{grid.lo.x + static_cast<float>(i) * grid.cell.x,
                        grid.lo.y + static_cast<float>(j) * grid.cell.y,
                        grid.lo.z + static_cast<float>(k) * grid.cell.z};
    const std::int32_t c = grid.cell_id(i, j, k);
    const float beyond = grid.cell_clearance != nullptr ? grid.cell_clearance[c] : 0.f;
    float d = fmin_inline(world, box_inner_distance(pos, cell_lo, cell_lo + grid.cell) + beyond);
    for (std::int32_t q = grid.cell_offsets[c]; q < grid.cell_offsets[c + 1]; ++q) {
      const VolumeRecord& r = volumes[grid.cell_volumes[q]];
      d = fmin_inline(d, box_outer_distance(pos, r.lo, r.hi));
    }
    return d > 0.f ? d : 0.f;
  }

  // The unit normal of volume v's face nearest to pos (a point near its
  // surface): for the derivative of a boundary-limited step's length
  // (FieldTangents.hh). False when there is none (a degenerate solid).
  FASTMU_HD bool boundary_normal(std::int32_t v, Vec3f pos, Vec3f& normal) const {
    const VolumeRecord& r = volumes[v];
    if (r.arb8 >= 0) return arb8_face_normal(arb8s[r.arb8], pos, normal);
    const float d[6] = {fabsf(pos.x - r.lo.x), fabsf(r.hi.x - pos.x), fabsf(pos.y - r.lo.y),
                        fabsf(r.hi.y - pos.y), fabsf(pos.z - r.lo.z), fabsf(r.hi.z - pos.z)};
    int best = 0;
    for (int k = 1; k < 6; ++k) best = d[k] < d[best] ? k : best;
    if (r.terrain >= 0) {  // a surface nearer than every face of the box
      const TerrainSlab& slab = terrain_slabs[r.terrain];
      float gap;
      if (terrain_slab_normal(terrain_surfaces[slab.surface], terrain_heights, slab, pos, normal,
                              gap) &&
          gap <= d[best]) {
        return true;
      }
    }
    normal = Vec3f{0.f, 0.f, 0.f};
    const float sign = (best & 1) ? 1.f : -1.f;
    if (best < 2) normal.x = sign;
    else if (best < 4) normal.y = sign;
    else normal.z = sign;
    return true;
  }

  // How far pos lies outside volume v beyond the face it is farthest beyond
  // (> 0 outside, <= 0 inside; the largest plane excess): for a box or a
  // planar ARB8 a signed distance-like function, linear along a straight
  // path near a face, for root finding. False (e untouched) for a twisted
  // ARB8, a terrain slab (not convex) and the world region (v < 0), which
  // have none.
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD bool boundary_excess(std::int32_t v, Vec3f p, float& e) const {
    if (v < 0) return false;
    const VolumeRecord& r = volumes[v];
    if (terrain<kShapes>(r) || (arb8<kShapes>(r) && !planar<kShapes>(arb8s[r.arb8]))) return false;
    float g = fmax_inline(fmax_inline(fmax_inline(r.lo.x - p.x, p.x - r.hi.x),
                                      fmax_inline(r.lo.y - p.y, p.y - r.hi.y)),
                          fmax_inline(r.lo.z - p.z, p.z - r.hi.z));
    if (arb8<kShapes>(r)) {
      for (int i = 0; i < 4; ++i) g = fmax_inline(g, arb8_plane_excess(arb8s[r.arb8], i, p));
    }
    e = g;
    return true;
  }

  // Distance along dir from pos (inside volume v) to its exit, at most `limit`.
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD float volume_exit(std::int32_t v, Vec3f pos, Vec3f dir, float limit) const {
    const VolumeRecord& r = volumes[v];
    float d = limit;
    d = exit_1d(pos.x, dir.x, r.lo.x, r.hi.x, d);
    d = exit_1d(pos.y, dir.y, r.lo.y, r.hi.y, d);
    d = exit_1d(pos.z, dir.z, r.lo.z, r.hi.z, d);
    d = d > 0.f ? d : 0.f;
    if (terrain<kShapes>(r)) {
      // The slab lies within its box: its exit is at or before the box's.
      const TerrainSlab& slab = terrain_slabs[r.terrain];
      return terrain_slab_exit(terrain_surfaces[slab.surface], terrain_heights, slab, pos, dir, d);
    }
    if (!arb8<kShapes>(r)) return d;
    // The solid lies within its box: its exit is at or before the box's.
    const Arb8Shape& a = arb8s[r.arb8];
    return planar<kShapes>(a) ? arb8_planar_exit_distance(a, pos, dir, d)
                              : arb8_exit_distance(a, pos, dir, d);
  }

  // Ray entry into volume v if nearer than `best`, else `best`.
  template <unsigned kShapes = shapes::kAll>
  FASTMU_HD float volume_entry(std::int32_t v, Vec3f pos, Vec3f dir, float best) const {
    const VolumeRecord& r = volumes[v];
    // Slab test against the bounding box.
    float t_in = 0.f, t_out = best;
    if (!clip_ray_to_slab(pos.x, dir.x, r.lo.x, r.hi.x, t_in, t_out)) return best;
    if (!clip_ray_to_slab(pos.y, dir.y, r.lo.y, r.hi.y, t_in, t_out)) return best;
    if (!clip_ray_to_slab(pos.z, dir.z, r.lo.z, r.hi.z, t_in, t_out)) return best;
    if (terrain<kShapes>(r)) {
      const TerrainSlab& slab = terrain_slabs[r.terrain];
      return terrain_slab_entry(terrain_surfaces[slab.surface], terrain_heights, slab, pos, dir,
                                t_in, t_out, best);
    }
    if (!arb8<kShapes>(r)) return t_in;
    // The solid lies within its box: its entry is at or after t_in.
    const Arb8Shape& a = arb8s[r.arb8];
    return planar<kShapes>(a) ? arb8_planar_entry_distance(a, pos, dir, best)
                              : arb8_entry_distance(a, pos, dir, best);
  }

 private:
  // What volume record r is, among the kinds kShapes allows: a kind left
  // out is known false at compile time.
  template <unsigned kShapes>
  FASTMU_HD static bool terrain(const VolumeRecord& r) {
    return shapes::may_hold(kShapes, shapes::kTerrain) && r.terrain >= 0;
  }
  template <unsigned kShapes>
  FASTMU_HD static bool arb8(const VolumeRecord& r) {
    return shapes::may_hold(kShapes, shapes::kPlanarArb8 | shapes::kTwistedArb8) && r.arb8 >= 0;
  }
  template <unsigned kShapes>
  FASTMU_HD static bool planar(const Arb8Shape& a) {
    return !shapes::may_hold(kShapes, shapes::kTwistedArb8) || a.planar;
  }

  // Distance from pos inside [lo, hi] to the nearest face (0 outside).
  FASTMU_HD static float box_inner_distance(Vec3f p, Vec3f lo, Vec3f hi) {
    const float d = fmin_inline(
        fmin_inline(fmin_inline(p.x - lo.x, hi.x - p.x), fmin_inline(p.y - lo.y, hi.y - p.y)),
        fmin_inline(p.z - lo.z, hi.z - p.z));
    return d > 0.f ? d : 0.f;
  }
  // Distance from pos to the box [lo, hi] (0 inside).
  FASTMU_HD static float box_outer_distance(Vec3f p, Vec3f lo, Vec3f hi) {
    const float dx = fmax_inline(fmax_inline(lo.x - p.x, p.x - hi.x), 0.f);
    const float dy = fmax_inline(fmax_inline(lo.y - p.y, p.y - hi.y), 0.f);
    const float dz = fmax_inline(fmax_inline(lo.z - p.z, p.z - hi.z), 0.f);
    return sqrtf(dx * dx + dy * dy + dz * dz);
  }
  FASTMU_HD static float exit_1d(float p, float d, float lo, float hi, float best) {
    if (d > 0.f) {
      const float t = (hi - p) / d;
      return t < best ? t : best;
    }
    if (d < 0.f) {
      const float t = (lo - p) / d;
      return t < best ? t : best;
    }
    return best;
  }
};

}  // namespace fastmu
