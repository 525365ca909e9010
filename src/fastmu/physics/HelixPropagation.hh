// Exact motion of a charged particle in a uniform magnetic field over a path
// length s (a helix about the field direction). UniformField is one model of
// the Field concept of MuonStepper (on, curvature_bound, advance); a field
// map is the other (MappedField.hh). The step physics keeps the
// momentum fixed over the step (the mean momentum), so the helix is exact for
// the step and no Runge-Kutta error control is needed.
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"

namespace fastmu {

struct UniformField {
  Vec3 b_hat{};    // unit vector along B
  double b_t = 0;  // |B| [T]

  FASTMU_HD static UniformField from(Vec3 b) {
    UniformField f;
    f.b_t = norm(b);
    if (f.b_t > 0) f.b_hat = (1.0 / f.b_t) * b;
    return f;
  }
  FASTMU_HD bool on() const { return b_t > 0; }
  // Signed curvature [1/m]: d(dir)/ds = kappa dir x b_hat.
  FASTMU_HD double curvature(double p_gev, int charge) const {
    return double(charge) * constants::c_light_gev_per_t_m * b_t / p_gev;
  }
  // The largest |curvature| a step from `pos` can meet (the stepper's Field concept).
  FASTMU_HD double curvature_bound(double p_gev, int charge, Vec3 /*pos*/) const {
    return std::abs(curvature(p_gev, charge));
  }
  // Moves pos and dir by path length s at momentum p (exact helix).
  FASTMU_HD void advance(Vec3& pos, Vec3& dir, double s, double p_gev, int charge) const;
};

// Advances pos and dir by path length s along the helix of curvature kappa about b_hat.
FASTMU_HD inline void helix_advance(Vec3& pos, Vec3& dir, double s, double kappa, Vec3 b_hat) {
  const Vec3 par = dot(dir, b_hat) * b_hat;
  const Vec3 u = dir - par;        // transverse part
  const Vec3 w = cross(u, b_hat);  // direction of the bending
  const double phi = kappa * s;
  double sin_over_k, one_minus_cos_over_k;
  if (std::abs(phi) < 1e-5) {
    sin_over_k = s * (1.0 - phi * phi / 6.0);
    one_minus_cos_over_k = 0.5 * s * phi;
  } else {
    sin_over_k = std::sin(phi) / kappa;
    one_minus_cos_over_k = (1.0 - std::cos(phi)) / kappa;
  }
  pos = pos + s * par + sin_over_k * u + one_minus_cos_over_k * w;
  const double c = std::cos(phi), sn = std::sin(phi);
  dir = par + c * u + sn * w;
  const double inv = 1.0 / norm(dir);
  dir = inv * dir;
}

FASTMU_HD inline void UniformField::advance(Vec3& pos, Vec3& dir, double s, double p_gev,
                                            int charge) const {
  helix_advance(pos, dir, s, curvature(p_gev, charge), b_hat);
}

}  // namespace fastmu
