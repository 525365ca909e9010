// Plain data of the geometry as the transport reads it (host and device):
// compact float records, no pointers to owned memory, no virtual functions.
#pragma once

#include <cstdint>

#include "fastmu/core/Vec3.hh"

namespace fastmu {

// A detector plane perpendicular to z with its acceptance window (metres).
struct SensitivePlane {
  float z = 0;
  float x_min = 0, x_max = 0;
  float y_min = 0, y_max = 0;
};

// One volume: its axis-aligned bounding box (the solid itself for a box),
// material id, uniform field, and for an ARB8 or a terrain slab the index of
// its shape record.
struct VolumeRecord {
  Vec3f lo, hi;               // bounding box (m)
  Vec3f field;                // uniform field inside (T)
  std::int32_t material;      // index into GeometryParams::material_names()
  std::int32_t arb8;          // index into the ARB8 shapes, -1 for a box
  std::int32_t terrain = -1;  // index into the terrain slabs, -1 for none
};

// An ARB8 (G4GenericTrap): two quadrilaterals at z_lo and z_lo + 1 / inv_h,
// vertex i moving linearly in z from (x0[i], y0[i]) by (dx[i], dy[i]). Vertices
// are stored counter-clockwise (normalised at load time, whatever the input
// winding), so a point is inside the cross-section at its z when it lies left
// of (or on) every edge. Collapsed edges give a zero cross product and thus
// never exclude a point.
struct Arb8Shape {
  float z_lo = 0, inv_h = 0;
  float x0[4] = {}, y0[4] = {};
  float dx[4] = {}, dy[4] = {};
  // A solid whose lateral faces are all flat and whose end faces are convex
  // is a convex polyhedron (every ARB8 of the SHiP-like shield is): `planar`
  // is then 1 and lateral face i is also stored as the plane
  // n_i . (p - c) = w_i (unit outward normal n_i; c, the vertices' centroid,
  // keeps float rounding of n . p small), which gives exact and cheap
  // distances and safety (Arb8.hh). A collapsed face has n = 0 and a huge w.
  std::int32_t planar = 0;
  float cx = 0, cy = 0, cz = 0;
  float nx[4] = {}, ny[4] = {}, nz[4] = {}, w[4] = {};
};

// A height map: surface heights h[j * nx + i] at x = x0 + i dx, y = y0 + j dy
// (nx, ny >= 2 nodes), interpolated bilinearly within each cell. `lipschitz`
// bounds |grad h| over the map (a cell's gradient is largest at a corner),
// so a point at vertical distance g from the surface is at least
// g / sqrt(1 + lipschitz^2) from it: the safety of a terrain slab.
struct TerrainSurface {
  float x0 = 0, y0 = 0, dx = 1, dy = 1, inv_dx = 1, inv_dy = 1;
  std::int32_t nx = 2, ny = 2;
  std::int32_t first = 0;  // offset of h[0] in GeometryView::terrain_heights
  float h_min = 0, h_max = 0;
  float lipschitz = 0;
  float inv_cone = 1;  // 1 / sqrt(1 + lipschitz^2)
};

// The part of a terrain's bounding box between two offset copies of its
// surface: h - lower_depth <= z <= h - upper_depth, where a side without a
// surface (has_upper / has_lower 0) is bounded by the box alone. The air
// above is (lower 0, no upper), a layer (upper d_k, lower d_k+1), the bulk
// below (upper d_n, no lower). Depths are vertical, in metres.
struct TerrainSlab {
  std::int32_t surface = 0;  // index into GeometryView::terrain_surfaces
  std::int32_t has_upper = 0, has_lower = 0;
  float upper_depth = 0, lower_depth = 0;
};

}  // namespace fastmu
