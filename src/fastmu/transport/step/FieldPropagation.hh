// Charged-particle motion in a static magnetic field, in float, on host and
// device: the exact helix where the field along the move is uniform (a
// volume's own field), classical fourth-order Runge-Kutta on the path length
// s where it varies (a field map).
//
// With u = p / |p| the unit direction, the Lorentz force (no electric field)
// gives  dr/ds = u,  du/ds = kappa * u x B,  kappa = q c / |p| = q * 0.2998 / p
// [1/(T m)] for p in GeV/c, B in tesla, s in metres. |p| is conserved, so the
// direction is renormalised after each step (the RK4 error would otherwise
// change |p|).
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"

namespace fastmu {

// Curvature factor kappa [1/(T m)] for charge q [e] and momentum p [GeV/c].
FASTMU_HD FASTMU_FORCEINLINE float curvature_per_tesla(float charge, float p) {
  return charge * static_cast<float>(constants::c_light_gev_per_t_m) / p;
}

struct RayState {
  Vec3f r;  // position [m]
  Vec3f u;  // unit direction
};

// One RK4 step of length h [m]; field(r) returns B [T] at r. The field is
// evaluated at the four Runge-Kutta stage points (the two midpoint stages
// share one evaluation point only when the field is uniform, which costs
// nothing extra for a map lookup).
template <class FieldFn>
FASTMU_HD FASTMU_FORCEINLINE RayState rk4_step(RayState s, float kappa, float h, FieldFn&& field) {
  const float h2 = 0.5f * h;
  const Vec3f k1u = kappa * cross(s.u, field(s.r));
  const Vec3f k1r = s.u;
  const Vec3f u2 = s.u + h2 * k1u;
  const Vec3f r2 = s.r + h2 * k1r;
  const Vec3f k2u = kappa * cross(u2, field(r2));
  const Vec3f u3 = s.u + h2 * k2u;
  const Vec3f r3 = s.r + h2 * u2;
  const Vec3f k3u = kappa * cross(u3, field(r3));
  const Vec3f u4 = s.u + h * k3u;
  const Vec3f r4 = s.r + h * u3;
  const Vec3f k4u = kappa * cross(u4, field(r4));

  const float h6 = h * (1.0f / 6.0f);
  RayState out;
  out.r = s.r + h6 * (k1r + 2.0f * u2 + 2.0f * u3 + u4);
  const Vec3f u = s.u + h6 * (k1u + 2.0f * k2u + 2.0f * k3u + k4u);
  // Normalised in double: float rounding here is biased and would make |p|
  // drift by ~4e-8 per step.
  const double uu = static_cast<double>(u.x) * u.x + static_cast<double>(u.y) * u.y +
                    static_cast<double>(u.z) * u.z;
  const float inv = static_cast<float>(1.0 / sqrt(uu));
  out.u = inv * u;
  return out;
}

// The unit vector along the field b [T] (b_abs = |b|), which helix_step
// takes: computed once per step, not at each of the step's moves. |b| is
// floored: a field of subnormal components has |b|^2 = 0 in float; its
// direction is then (nearly) zero and helix_step's turn 0, a straight move
// (as for the CPU lanes' field-free lanes, whose b is 0).
FASTMU_HD FASTMU_FORCEINLINE Vec3f field_direction(Vec3f b, float b_abs) {
  return (1.0f / fmax_inline(b_abs, 1e-30f)) * b;
}

// The move of length h [m] in a uniform field of strength b_abs [T] along
// the unit vector n (field_direction), exact: a helix about n that turns
// the direction by t = kappa |b| h,
//   u(h) = u + (cos t - 1) u_perp + sin t (u x n),
//   r(h) = r + h [u + (sin(t/2)/(t/2) cos(t/2) - 1) u_perp + sin(t/2)/(t/2) sin(t/2) (u x n)],
// u_perp the part of u across n. In half angles, so that small turns lose
// nothing to cancellation (1 - cos t = 2 sin^2(t/2)). A rotation keeps |u|:
// unlike rk4_step's, the result is not renormalised, and float rounding
// moves |u| by ~1e-7 per move at random (over 1e5 moves in a pure field |p|
// drifts by less than with a renormalisation, whose own rounding is
// biased: FieldPropagation tests).
FASTMU_HD FASTMU_FORCEINLINE RayState helix_step(RayState s, float kappa, Vec3f n, float b_abs,
                                                 float h) {
  const float half = 0.5f * kappa * b_abs * h;
  float sh, ch;
  sincos_fast(half, sh, ch);
  // sin(x) / x; below 1e-4 its series' next term (x^2 / 6) is under 2e-9.
  const float sinc = fabsf(half) > 1e-4f ? sh / half : 1.0f;
  const Vec3f perp = s.u - dot(s.u, n) * n;
  const Vec3f side = cross(s.u, n);
  RayState out;
  out.r = s.r + h * (s.u + (sinc * ch - 1.0f) * perp + (sinc * sh) * side);
  out.u = s.u + (-2.0f * sh * sh) * perp + (2.0f * sh * ch) * side;
  return out;
}

// Straight-line move (no field).
FASTMU_HD FASTMU_FORCEINLINE RayState straight_step(RayState s, float h) {
  return {s.r + h * s.u, s.u};
}

}  // namespace fastmu
