// Point containment and ray entry for the ARB8 (G4GenericTrap) solid, on host
// and device. The cross-section at height z is the quadrilateral of linearly
// interpolated vertices; lateral faces may be twisted (bilinear surfaces).
#pragma once

#include <cmath>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/GeometryData.hh"

namespace fastmu {

// Inside (or on the surface of) the cross-section at z. The caller has already
// checked that z lies within [z_lo, z_hi] (the bounding-box test does).
FASTMU_HD inline bool arb8_contains_xy(const Arb8Shape& s, float x, float y, float z) {
  const float t = (z - s.z_lo) * s.inv_h;
  float vx[4], vy[4];
  for (int i = 0; i < 4; ++i) {
    vx[i] = s.x0[i] + t * s.dx[i];
    vy[i] = s.y0[i] + t * s.dy[i];
  }
  bool inside = true;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    const float c = (vx[j] - vx[i]) * (y - vy[i]) - (vy[j] - vy[i]) * (x - vx[i]);
    inside = inside && c >= 0.f;
  }
  return inside;
}

FASTMU_HD inline bool arb8_contains(const Arb8Shape& s, float x, float y, float z) {
  const float t = (z - s.z_lo) * s.inv_h;
  return t >= 0.f && t <= 1.f && arb8_contains_xy(s, x, y, z);
}

namespace detail {
// Real roots of a + b l + c l^2 = 0 (numerically stable form); returns how many.
FASTMU_HD inline int solve_quadratic(float a, float b, float c, float* roots) {
  if (c == 0.f) {
    if (b == 0.f) return 0;
    roots[0] = -a / b;
    return 1;
  }
  const float disc = b * b - 4.f * a * c;
  if (disc < 0.f) return 0;
  const float root = std::sqrt(disc);
  const float q = -0.5f * (b >= 0.f ? b + root : b - root);
  roots[0] = q / c;
  if (q == 0.f) return 1;
  roots[1] = a / q;
  return 2;
}
}  // namespace detail

// Distance along the unit direction `dir` from `pos` (outside the solid) to
// where the ray enters the ARB8, or `limit` if it does not enter before.
// Entry happens on the boundary: at a root of some face's side function (a
// quadratic in the ray length for bilinear faces) or on an end plane, so only
// those candidates are tried, each by testing a point just beyond it. A ray
// that crosses less than `kProbe` of material may be missed; the answer is
// never beyond the true entry by more than float rounding.
FASTMU_HD inline float arb8_entry_distance(const Arb8Shape& s, Vec3f pos, Vec3f dir, float limit) {
  constexpr float kProbe = 1e-4f;  // m
  const float t0 = (pos.z - s.z_lo) * s.inv_h;  // height fraction at the start
  const float tl = dir.z * s.inv_h;             // its change per metre of ray
  float cand[11];  // l = 0, two end planes, two roots per lateral face
  int n = 0;
  cand[n++] = 0.f;
  if (tl != 0.f) {
    cand[n++] = -t0 / tl;
    cand[n++] = (1.f - t0) / tl;
  }
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    // Edge vector and point-minus-vertex, both linear in the ray length l.
    const float ex0 = (s.x0[j] - s.x0[i]) + t0 * (s.dx[j] - s.dx[i]);
    const float ey0 = (s.y0[j] - s.y0[i]) + t0 * (s.dy[j] - s.dy[i]);
    const float ex1 = tl * (s.dx[j] - s.dx[i]);
    const float ey1 = tl * (s.dy[j] - s.dy[i]);
    const float qx0 = pos.x - s.x0[i] - t0 * s.dx[i];
    const float qy0 = pos.y - s.y0[i] - t0 * s.dy[i];
    const float qx1 = dir.x - tl * s.dx[i];
    const float qy1 = dir.y - tl * s.dy[i];
    const float a = ex0 * qy0 - ey0 * qx0;
    const float b = ex0 * qy1 - ey0 * qx1 + ex1 * qy0 - ey1 * qx0;
    const float c = ex1 * qy1 - ey1 * qx1;
    n += detail::solve_quadratic(a, b, c, cand + n);
  }
  float best = limit;
  for (int k = 0; k < n; ++k) {
    const float l = cand[k];
    if (!(l >= 0.f && l < best)) continue;
    const float lp = l + kProbe;
    if (arb8_contains(s, pos.x + lp * dir.x, pos.y + lp * dir.y, pos.z + lp * dir.z)) best = l;
  }
  return best;
}

}  // namespace fastmu
