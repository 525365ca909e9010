// Geometry of a terrain (host and CUDA): a height map interpolated
// bilinearly, and the slabs between offset copies of it (GeometryData.hh).
//
// Float rounding: heights and positions are float, so at kilometre scale
// the surface is known to ~0.1 mm. Every height is evaluated in the local
// coordinates of its cell (the same formula for the location and the ray
// tests), so that both agree to within a few ulps; the step pushes past a
// boundary by more than that (StepPhysics.hh boundary_push).
#pragma once

#include <cmath>
#include <cstdint>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/GeometryData.hh"

namespace fastmu {

// One cell of the height map as h = a + b u + c v + d u v, with (u, v) the
// offsets from its lower corner (xc, yc) in metres.
struct BilinearPatch {
  float xc, yc;
  float a, b, c, d;
};

// The cell index along one axis from the grid coordinate g, clamped to the
// map (positions off the map use the edge cell's patch).
FASTMU_HD inline std::int32_t terrain_cell_index(float g, std::int32_t n_nodes) {
  if (!(g >= 0.f)) return 0;
  const float last = static_cast<float>(n_nodes - 2);
  return g >= last ? n_nodes - 2 : static_cast<std::int32_t>(g);
}

// Cell (i, j)'s corner heights: h00 at (x_i, y_j), h10 at (x_i+1, y_j) ...
struct CellCorners {
  float h00, h10, h01, h11;
};

FASTMU_HD inline CellCorners terrain_corners(const TerrainSurface& s, const float* h,
                                             std::int32_t i, std::int32_t j) {
  const float* row = h + s.first + j * s.nx + i;
  return {row[0], row[1], row[s.nx], row[s.nx + 1]};
}

FASTMU_HD inline BilinearPatch terrain_patch(const TerrainSurface& s, std::int32_t i,
                                             std::int32_t j, const CellCorners& k) {
  BilinearPatch p;
  p.xc = s.x0 + static_cast<float>(i) * s.dx;
  p.yc = s.y0 + static_cast<float>(j) * s.dy;
  p.a = k.h00;
  p.b = (k.h10 - k.h00) * s.inv_dx;
  p.c = (k.h01 - k.h00) * s.inv_dy;
  p.d = (k.h11 - k.h10 - k.h01 + k.h00) * (s.inv_dx * s.inv_dy);
  return p;
}

FASTMU_HD inline BilinearPatch terrain_patch(const TerrainSurface& s, const float* h,
                                             std::int32_t i, std::int32_t j) {
  return terrain_patch(s, i, j, terrain_corners(s, h, i, j));
}

FASTMU_HD inline BilinearPatch terrain_patch_at(const TerrainSurface& s, const float* h, float x,
                                                float y) {
  return terrain_patch(s, h, terrain_cell_index((x - s.x0) * s.inv_dx, s.nx),
                       terrain_cell_index((y - s.y0) * s.inv_dy, s.ny));
}

FASTMU_HD inline float patch_height(const BilinearPatch& p, float x, float y) {
  const float u = x - p.xc, v = y - p.yc;
  return p.a + p.b * u + p.c * v + p.d * u * v;
}

FASTMU_HD inline float terrain_height(const TerrainSurface& s, const float* h, float x, float y) {
  return patch_height(terrain_patch_at(s, h, x, y), x, y);
}

// The smallest root s in [s_lo, s_hi] of A s^2 + B s + C (false: none).
// The stable form of the quadratic formula: no cancellation when one root
// is tiny, and A = 0 (a ray along a grid axis) gives the linear root.
FASTMU_HD inline bool first_root(float A, float B, float C, float s_lo, float s_hi, float& s) {
  bool found = false;
  s = s_hi;
  auto take = [&](float r) {
    if (r >= s_lo && r <= s) s = r, found = true;
  };
  if (A == 0.f) {
    if (B != 0.f) take(-C / B);
    return found;
  }
  const float disc = B * B - 4.f * A * C;
  if (disc < 0.f) return false;
  const float q = -0.5f * (B + copysignf(sqrtf(disc), B));
  if (q != 0.f) take(C / q);
  take(q / A);
  return found;
}

// Where the ray pos + t dir meets the surface z = h(x, y) - depth inside one
// cell, for t in [ta, tb]: the crossing of g(t) = z + depth - h, exactly a
// quadratic in t on a bilinear patch, solved about the point at ta (local
// coordinates keep the coefficients small). The interval is widened by a
// few ulps of tb past tb (and before ta, except in the ray's first cell)
// so that a crossing on a face between two cells is not lost to rounding.
FASTMU_HD inline bool patch_crossing(const BilinearPatch& p, float depth, Vec3f pos, Vec3f dir,
                                     float ta, float tb, bool first_cell, float& t) {
  const float za = pos.z + ta * dir.z + depth;
  const float ua = pos.x + ta * dir.x - p.xc, va = pos.y + ta * dir.y - p.yc;
  const float A = -p.d * dir.x * dir.y;
  const float B = dir.z - p.b * dir.x - p.c * dir.y - p.d * (ua * dir.y + va * dir.x);
  const float C = za - (p.a + p.b * ua + p.c * va + p.d * ua * va);
  const float slack = 1e-6f + 4e-7f * fabsf(tb);
  float s;
  if (!first_root(A, B, C, first_cell ? 0.f : -slack, tb - ta + slack, s)) return false;
  t = ta + fmax_inline(s, 0.f);
  return true;
}

// The first t in [t0, t1] where the ray pos + t dir (unit dir) meets the
// surface z = h(x, y) - depth (false: none). Walks the cells that the ray's
// x-y projection crosses (2-D DDA) from t0 and solves each one's patch
// exactly; the caller keeps [t0, t1] within the map's x-y extent.
FASTMU_HD inline bool terrain_crossing(const TerrainSurface& s, const float* h, float depth,
                                       Vec3f pos, Vec3f dir, float t0, float t1, float& t) {
  if (!(t1 >= t0)) return false;
  std::int32_t i = terrain_cell_index((pos.x + t0 * dir.x - s.x0) * s.inv_dx, s.nx);
  std::int32_t j = terrain_cell_index((pos.y + t0 * dir.y - s.y0) * s.inv_dy, s.ny);
  const std::int32_t si = dir.x > 0.f ? 1 : (dir.x < 0.f ? -1 : 0);
  const std::int32_t sj = dir.y > 0.f ? 1 : (dir.y < 0.f ? -1 : 0);
  const float inv_x = si == 0 ? 0.f : 1.f / dir.x, inv_y = sj == 0 ? 0.f : 1.f / dir.y;
  float ta = t0;
  for (std::int32_t n = 0; n < s.nx + s.ny; ++n) {
    // Ray length to this cell's exit face along x and along y.
    const float tx = si == 0
                         ? 3.0e38f
                         : (s.x0 + static_cast<float>(i + (si > 0 ? 1 : 0)) * s.dx - pos.x) * inv_x;
    const float ty = sj == 0
                         ? 3.0e38f
                         : (s.y0 + static_cast<float>(j + (sj > 0 ? 1 : 0)) * s.dy - pos.y) * inv_y;
    const float tb = fmax_inline(fmin_inline(fmin_inline(tx, ty), t1), ta);
    // No contact possible when the ray's z over the cell misses its corners'.
    const CellCorners k = terrain_corners(s, h, i, j);
    const float za = pos.z + ta * dir.z + depth, zb = pos.z + tb * dir.z + depth;
    const float lo = fmin_inline(fmin_inline(k.h00, k.h10), fmin_inline(k.h01, k.h11));
    const float hi = fmax_inline(fmax_inline(k.h00, k.h10), fmax_inline(k.h01, k.h11));
    if (!(fmax_inline(za, zb) < lo || fmin_inline(za, zb) > hi) &&
        patch_crossing(terrain_patch(s, i, j, k), depth, pos, dir, ta, tb, n == 0, t)) {
      return t <= t1;
    }
    if (!(tb < t1)) return false;
    if (tx <= ty) i += si;
    else j += sj;
    if (i < 0 || i > s.nx - 2 || j < 0 || j > s.ny - 2) return false;
    ta = tb;
  }
  return false;
}

// Whether (x, y, z) lies between the slab's surfaces (its box is the
// caller's test). Closed: a point on a surface is in both slabs it parts.
FASTMU_HD inline bool terrain_slab_contains(const TerrainSurface& s, const float* h,
                                            const TerrainSlab& slab, float x, float y, float z) {
  const float hz = terrain_height(s, h, x, y);
  return (!slab.has_upper || z <= hz - slab.upper_depth) &&
         (!slab.has_lower || z >= hz - slab.lower_depth);
}

// Distance along dir from pos (inside the slab) to its first surface, at
// most `limit` (the box's exit, which the caller takes).
FASTMU_HD inline float terrain_slab_exit(const TerrainSurface& s, const float* h,
                                         const TerrainSlab& slab, Vec3f pos, Vec3f dir,
                                         float limit) {
  float d = limit, t;
  if (slab.has_upper && terrain_crossing(s, h, slab.upper_depth, pos, dir, 0.f, d, t)) d = t;
  if (slab.has_lower && terrain_crossing(s, h, slab.lower_depth, pos, dir, 0.f, d, t)) d = t;
  return d;
}

// The ray's entry into the slab given its passage [t_in, t_out] through the
// slab's box, or `none`: at t_in if that point is between the surfaces,
// else where it crosses the surface it is beyond (above the upper one, or
// below the lower one).
FASTMU_HD inline float terrain_slab_entry(const TerrainSurface& s, const float* h,
                                          const TerrainSlab& slab, Vec3f pos, Vec3f dir, float t_in,
                                          float t_out, float none) {
  const Vec3f q = pos + t_in * dir;
  const float hz = terrain_height(s, h, q.x, q.y);
  const bool above = slab.has_upper && q.z > hz - slab.upper_depth;
  const bool below = slab.has_lower && q.z < hz - slab.lower_depth;
  if (!above && !below) return t_in;
  float t;
  const float depth = above ? slab.upper_depth : slab.lower_depth;
  return terrain_crossing(s, h, depth, pos, dir, t_in, t_out, t) ? t : none;
}

// A lower bound of the distance from pos (inside the slab) to its surfaces:
// the vertical gap times 1 / sqrt(1 + L^2) (L bounds the surface's slope).
FASTMU_HD inline float terrain_slab_safety(const TerrainSurface& s, const float* h,
                                           const TerrainSlab& slab, Vec3f pos) {
  const float hz = terrain_height(s, h, pos.x, pos.y);
  float g = 3.0e38f;
  if (slab.has_upper) g = fmin_inline(g, hz - slab.upper_depth - pos.z);
  if (slab.has_lower) g = fmin_inline(g, pos.z - (hz - slab.lower_depth));
  return g > 0.f ? g * s.inv_cone : 0.f;
}

// The slab's outward unit normal at its surface nearest pos (vertically),
// and that vertical gap over sqrt(1 + |grad h|^2) in `gap` (an estimate of
// the distance, to compare with the box's faces); false when the slab has
// no surface.
FASTMU_HD inline bool terrain_slab_normal(const TerrainSurface& s, const float* h,
                                          const TerrainSlab& slab, Vec3f pos, Vec3f& normal,
                                          float& gap) {
  if (!slab.has_upper && !slab.has_lower) return false;
  const BilinearPatch p = terrain_patch_at(s, h, pos.x, pos.y);
  const float hz = patch_height(p, pos.x, pos.y);
  const float gu = slab.has_upper ? fabsf(hz - slab.upper_depth - pos.z) : 3.0e38f;
  const float gl = slab.has_lower ? fabsf(pos.z - (hz - slab.lower_depth)) : 3.0e38f;
  const float hx = p.b + p.d * (pos.y - p.yc), hy = p.c + p.d * (pos.x - p.xc);
  const float inv = 1.f / sqrtf(1.f + hx * hx + hy * hy);
  const float sign = gu <= gl ? 1.f : -1.f;  // the upper surface faces up
  normal = Vec3f{-sign * hx * inv, -sign * hy * inv, sign * inv};
  gap = fmin_inline(gu, gl) * inv;
  return true;
}

}  // namespace fastmu
