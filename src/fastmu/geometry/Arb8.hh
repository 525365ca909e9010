// Point containment and ray entry for the ARB8 (G4GenericTrap) solid, on host
// and device. The cross-section at height z is the quadrilateral of linearly
// interpolated vertices; lateral faces may be twisted (bilinear surfaces).
#pragma once

#include <cmath>

#include "fastmu/core/FastMath.hh"
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

// The unit normal of the face nearest to the point (near the surface): the
// z faces, or a lateral face i, whose surface is f_i = 0 with f_i the
// cross product of arb8_contains_xy (a twisted face's normal varies along it:
// the gradient of f_i at the point). Returns false for a degenerate solid.
// `face` is set to the face found: 0-3 lateral face i (from vertex i to
// i + 1), 4 the end at z_lo, 5 the end at z_lo + 1 / inv_h.
FASTMU_HD inline bool arb8_face_normal(const Arb8Shape& s, Vec3f p, Vec3f& normal, int& face) {
  const float t = (p.z - s.z_lo) * s.inv_h;
  const float z_hi = s.z_lo + 1.0f / s.inv_h;
  float best = fabsf(p.z - s.z_lo);
  normal = Vec3f{0.f, 0.f, -1.f};
  face = 4;
  if (fabsf(z_hi - p.z) < best) {
    best = fabsf(z_hi - p.z);
    normal = Vec3f{0.f, 0.f, 1.f};
    face = 5;
  }
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    const float vx = s.x0[i] + t * s.dx[i], vy = s.y0[i] + t * s.dy[i];
    const float ex = s.x0[j] + t * s.dx[j] - vx, ey = s.y0[j] + t * s.dy[j] - vy;
    const float dex = s.dx[j] - s.dx[i], dey = s.dy[j] - s.dy[i];
    const float f = ex * (p.y - vy) - ey * (p.x - vx);
    const Vec3f grad{-ey, ex,
                     s.inv_h * (dex * (p.y - vy) - ex * s.dy[i] - dey * (p.x - vx) + ey * s.dx[i])};
    const float g = sqrtf(dot(grad, grad));
    if (!(g > 0.f)) continue;  // a collapsed edge
    const float dist = fabsf(f) / g;
    if (dist < best) {
      best = dist;
      normal = (-1.0f / g) * grad;  // outward
      face = i;
    }
  }
  return s.inv_h > 0.f;
}
FASTMU_HD inline bool arb8_face_normal(const Arb8Shape& s, Vec3f p, Vec3f& normal) {
  int face;
  return arb8_face_normal(s, p, normal, face);
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

// The ray lengths l >= 0 where the ray pos + l dir may cross the ARB8's
// boundary: l = 0, the two end planes, and the roots of each lateral face's
// side function (a quadratic in l for bilinear faces). Returns how many
// (at most 11) were written to `cand`, unsorted.
FASTMU_HD inline int arb8_boundary_candidates(const Arb8Shape& s, Vec3f pos, Vec3f dir,
                                              float* cand) {
  const float t0 = (pos.z - s.z_lo) * s.inv_h;  // height fraction at the start
  const float tl = dir.z * s.inv_h;             // its change per metre of ray
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
  return n;
}

// Probe length beyond a boundary candidate: whether the ray is inside just
// after it decides whether it is an entry or an exit. A ray that crosses
// less than this of material (or of a gap) may be missed.
inline constexpr float kArb8Probe = 1e-4f;  // m

// Distance along the unit direction `dir` from `pos` (outside the solid) to
// where the ray enters the ARB8, or `limit` if it does not enter before.
// Entry happens at a boundary candidate just beyond which the ray is inside;
// the answer is never beyond the true entry by more than float rounding.
FASTMU_HD inline float arb8_entry_distance(const Arb8Shape& s, Vec3f pos, Vec3f dir, float limit) {
  float cand[11];
  const int n = arb8_boundary_candidates(s, pos, dir, cand);
  float best = limit;
  for (int k = 0; k < n; ++k) {
    const float l = cand[k];
    if (!(l >= 0.f && l < best)) continue;
    const float lp = l + kArb8Probe;
    if (arb8_contains(s, pos.x + lp * dir.x, pos.y + lp * dir.y, pos.z + lp * dir.z)) best = l;
  }
  return best;
}

// Distance along the unit direction `dir` from `pos` (inside the solid, or on
// its surface) to where the ray leaves the ARB8, at most `limit`: the nearest
// boundary candidate just beyond which the ray is outside. 0 when the ray
// starts on the surface heading out.
FASTMU_HD inline float arb8_exit_distance(const Arb8Shape& s, Vec3f pos, Vec3f dir, float limit) {
  float cand[11];
  const int n = arb8_boundary_candidates(s, pos, dir, cand);
  float best = limit;
  for (int k = 0; k < n; ++k) {
    const float l = cand[k];
    if (!(l >= 0.f && l < best)) continue;
    const float lp = l + kArb8Probe;
    if (!arb8_contains(s, pos.x + lp * dir.x, pos.y + lp * dir.y, pos.z + lp * dir.z)) best = l;
  }
  return best;
}

// A lower bound of the distance from `pos` (inside) to the ARB8's surface.
// Each lateral face is the zero set of f(x, y, z), the signed distance in the
// cross-section at z from (x, y) to the line through the face's edge; f moves
// by at most 1 per metre sideways and by at most s per metre in z, with
// s = (|vertex speed| + R |edge turn rate|) / height, R the bounding box's
// diagonal. The ball of radius D around pos lies in the solid, so the nearest
// surface point is reached within it and D >= f / sqrt(1 + s^2) for the face
// it lies on (Lipschitz bound). An edge that degenerates to a point somewhere
// along z has no such bound: the safety is then 0. `diag` is the bounding
// box's diagonal.
FASTMU_HD inline float arb8_safety(const Arb8Shape& s, Vec3f pos, float diag) {
  const float t = (pos.z - s.z_lo) * s.inv_h;
  const float h = 1.f / s.inv_h;
  float safety = fmin_inline(t, 1.f - t) * h;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) & 3;
    const float ex0 = s.x0[j] - s.x0[i], ey0 = s.y0[j] - s.y0[i];  // edge at t = 0
    const float ex1 = s.dx[j] - s.dx[i], ey1 = s.dy[j] - s.dy[i];  // its change to t = 1
    const float e1 = sqrtf(ex1 * ex1 + ey1 * ey1);
    if (ex0 == 0.f && ey0 == 0.f && e1 == 0.f) continue;  // collapsed edge: no face
    // Smallest edge length over t in [0, 1]: distance from 0 to the segment e0 + t e1.
    float tm = e1 > 0.f ? -(ex0 * ex1 + ey0 * ey1) / (e1 * e1) : 0.f;
    tm = fmin_inline(fmax_inline(tm, 0.f), 1.f);
    const float mx = ex0 + tm * ex1, my = ey0 + tm * ey1;
    const float e_min = sqrtf(mx * mx + my * my);
    if (!(e_min > 0.f)) return 0.f;
    const float vi = sqrtf(s.dx[i] * s.dx[i] + s.dy[i] * s.dy[i]);
    const float vj = sqrtf(s.dx[j] * s.dx[j] + s.dy[j] * s.dy[j]);
    const float slope = (fmax_inline(vi, vj) + diag * e1 / e_min) * s.inv_h;
    // Signed distance to the edge line at the point's height.
    const float ex = ex0 + t * ex1, ey = ey0 + t * ey1;
    const float qx = pos.x - (s.x0[i] + t * s.dx[i]), qy = pos.y - (s.y0[i] + t * s.dy[i]);
    const float f = (ex * qy - ey * qx) / sqrtf(ex * ex + ey * ey);
    safety = fmin_inline(safety, f / sqrtf(1.f + slope * slope));
  }
  return safety > 0.f ? safety : 0.f;
}

// --- Planar ARB8s (Arb8Shape::planar): a convex polyhedron of six planes.

// Signed distance of pos beyond lateral face i's plane (> 0 outside it).
FASTMU_HD inline float arb8_plane_excess(const Arb8Shape& s, int i, Vec3f pos) {
  return s.nx[i] * (pos.x - s.cx) + s.ny[i] * (pos.y - s.cy) + s.nz[i] * (pos.z - s.cz) - s.w[i];
}

// The exact distance from pos (inside) to the surface of a planar ARB8: the
// nearest of its six planes (a convex solid), 0 outside.
FASTMU_HD inline float arb8_planar_safety(const Arb8Shape& s, Vec3f pos) {
  const float z_hi = s.z_lo + 1.0f / s.inv_h;
  float d = fmin_inline(pos.z - s.z_lo, z_hi - pos.z);
  for (int i = 0; i < 4; ++i) d = fmin_inline(d, -arb8_plane_excess(s, i, pos));
  return d > 0.f ? d : 0.f;
}

// Distance along the unit direction `dir` from pos (inside, or on the
// surface) to where the ray leaves a planar ARB8, at most `limit`: the
// nearest plane it heads out through. 0 when it starts on the surface
// heading out.
FASTMU_HD inline float arb8_planar_exit_distance(const Arb8Shape& s, Vec3f pos, Vec3f dir,
                                                 float limit) {
  const float z_hi = s.z_lo + 1.0f / s.inv_h;
  float t = limit;
  if (dir.z > 0.f) t = fmin_inline(t, (z_hi - pos.z) / dir.z);
  if (dir.z < 0.f) t = fmin_inline(t, (s.z_lo - pos.z) / dir.z);
  for (int i = 0; i < 4; ++i) {
    const float dn = s.nx[i] * dir.x + s.ny[i] * dir.y + s.nz[i] * dir.z;
    if (dn > 0.f) t = fmin_inline(t, -arb8_plane_excess(s, i, pos) / dn);
  }
  return t > 0.f ? t : 0.f;
}

// Distance along `dir` from pos (outside) to where the ray enters a planar
// ARB8, or `limit` if it does not before: the ray clipped by the six
// half-spaces (Kay & Kajiya slabs for a convex polyhedron); 0 if pos is inside.
FASTMU_HD inline float arb8_planar_entry_distance(const Arb8Shape& s, Vec3f pos, Vec3f dir,
                                                  float limit) {
  const float z_hi = s.z_lo + 1.0f / s.inv_h;
  float t_in = 0.f, t_out = limit;
  if (dir.z == 0.f) {
    if (pos.z < s.z_lo || pos.z > z_hi) return limit;
  } else {
    float a = (s.z_lo - pos.z) / dir.z, b = (z_hi - pos.z) / dir.z;
    if (a > b) {
      const float tmp = a;
      a = b;
      b = tmp;
    }
    t_in = fmax_inline(t_in, a);
    t_out = fmin_inline(t_out, b);
  }
  for (int i = 0; i < 4; ++i) {
    const float dn = s.nx[i] * dir.x + s.ny[i] * dir.y + s.nz[i] * dir.z;
    const float excess = arb8_plane_excess(s, i, pos);
    if (dn == 0.f) {
      if (excess > 0.f) return limit;  // parallel, outside this face
      continue;
    }
    const float t = -excess / dn;
    if (dn < 0.f) {
      t_in = fmax_inline(t_in, t);
    } else {
      t_out = fmin_inline(t_out, t);
    }
  }
  return t_in <= t_out && t_in < limit ? t_in : limit;
}

}  // namespace fastmu
