// A non-uniform magnetic field for the detailed engine: a volume's uniform
// field plus a field map, through which a track is integrated by the
// embedded Runge-Kutta-Fehlberg 5(4) pair of Cash and Karp (ACM TOMS 16
// (1990) 201; the coefficients as in Numerical Recipes, 2nd ed., 16.2) with
// adaptive sub-steps. The momentum is fixed over a physics step (the
// stepper's mean momentum), so the equations are those of the direction:
//   dr/ds = u,  du/ds = (q c / p) u x B(r).
// Error control: each sub-step's embedded error estimate is kept below
// `tolerance_m` in position and `tolerance_m` per metre in direction (so a
// 1 m step through a map is integrated to about 1 um). The field is the Field
// concept of MuonStepper; Map is any type with at(x, y, z) -> Vec3f
// (FieldMapView), so physics/ does not depend on field/. Host and device (the
// CUDA detailed transport).
#pragma once

#include <algorithm>
#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"

namespace fastmu {

template <class Map>
struct MappedField {
  Vec3 uniform{};            // the volume's own field [T]
  const Map* map = nullptr;  // added everywhere (zero outside its region)
  double b_max = 0;          // an upper bound of |uniform + map| [T] (step limits)
  double tolerance_m = 1e-6;

  FASTMU_HD bool on() const { return true; }

  FASTMU_HD Vec3 at(Vec3 r) const {
    const auto b =
        map->at(static_cast<float>(r.x), static_cast<float>(r.y), static_cast<float>(r.z));
    return {uniform.x + b.x, uniform.y + b.y, uniform.z + b.z};
  }

  FASTMU_HD double curvature_bound(double p_gev, int /*charge*/, Vec3 /*pos*/) const {
    return constants::c_light_gev_per_t_m * b_max / p_gev;
  }

  FASTMU_HD void advance(Vec3& pos, Vec3& dir, double s, double p_gev, int charge) const {
    const double k = double(charge) * constants::c_light_gev_per_t_m / p_gev;
    double done = 0;
    double h = std::min(s, b_max > 0 ? 0.05 * p_gev / (constants::c_light_gev_per_t_m * b_max) : s);
    for (int n = 0; n < 100000 && done < s; ++n) {
      h = std::min(h, s - done);
      Vec3 r1, u1;
      const double err = cash_karp(pos, dir, h, k, r1, u1);
      if (err > 1.0 && h > 1e-9) {
        h *= std::max(0.1, 0.9 * std::pow(err, -0.25));  // reject, shrink
        continue;
      }
      pos = r1;
      dir = (1.0 / norm(u1)) * u1;
      done += h;
      h *= err > 1e-4 ? std::min(5.0, 0.9 * std::pow(err, -0.2)) : 5.0;
    }
  }

 private:
  FASTMU_HD Vec3 derivative_u(Vec3 r, Vec3 u, double k) const { return k * cross(u, at(r)); }

  // One Cash-Karp step of length h: the 5th-order result in (r1, u1) and the
  // error estimate relative to the tolerance.
  FASTMU_HD double cash_karp(Vec3 r, Vec3 u, double h, double k, Vec3& r1, Vec3& u1) const {
    constexpr double b21 = 1.0 / 5, b31 = 3.0 / 40, b32 = 9.0 / 40, b41 = 3.0 / 10, b42 = -9.0 / 10,
                     b43 = 6.0 / 5, b51 = -11.0 / 54, b52 = 5.0 / 2, b53 = -70.0 / 27,
                     b54 = 35.0 / 27, b61 = 1631.0 / 55296, b62 = 175.0 / 512, b63 = 575.0 / 13824,
                     b64 = 44275.0 / 110592, b65 = 253.0 / 4096;
    constexpr double c1 = 37.0 / 378, c3 = 250.0 / 621, c4 = 125.0 / 594, c6 = 512.0 / 1771;
    constexpr double d1 = c1 - 2825.0 / 27648, d3 = c3 - 18575.0 / 48384, d4 = c4 - 13525.0 / 55296,
                     d5 = -277.0 / 14336, d6 = c6 - 0.25;
    // Stage k: (dr, du) = (u_k, k u_k x B(r_k)).
    const Vec3 kr1 = u, ku1 = derivative_u(r, u, k);
    Vec3 ri = r + (h * b21) * kr1, ui = u + (h * b21) * ku1;
    const Vec3 kr2 = ui, ku2 = derivative_u(ri, ui, k);
    ri = r + h * (b31 * kr1 + b32 * kr2);
    ui = u + h * (b31 * ku1 + b32 * ku2);
    const Vec3 kr3 = ui, ku3 = derivative_u(ri, ui, k);
    ri = r + h * (b41 * kr1 + b42 * kr2 + b43 * kr3);
    ui = u + h * (b41 * ku1 + b42 * ku2 + b43 * ku3);
    const Vec3 kr4 = ui, ku4 = derivative_u(ri, ui, k);
    ri = r + h * (b51 * kr1 + b52 * kr2 + b53 * kr3 + b54 * kr4);
    ui = u + h * (b51 * ku1 + b52 * ku2 + b53 * ku3 + b54 * ku4);
    const Vec3 kr5 = ui, ku5 = derivative_u(ri, ui, k);
    ri = r + h * (b61 * kr1 + b62 * kr2 + b63 * kr3 + b64 * kr4 + b65 * kr5);
    ui = u + h * (b61 * ku1 + b62 * ku2 + b63 * ku3 + b64 * ku4 + b65 * ku5);
    const Vec3 kr6 = ui, ku6 = derivative_u(ri, ui, k);
    r1 = r + h * (c1 * kr1 + c3 * kr3 + c4 * kr4 + c6 * kr6);
    u1 = u + h * (c1 * ku1 + c3 * ku3 + c4 * ku4 + c6 * ku6);
    const Vec3 er = h * (d1 * kr1 + d3 * kr3 + d4 * kr4 + d5 * kr5 + d6 * kr6);
    const Vec3 eu = h * (d1 * ku1 + d3 * ku3 + d4 * ku4 + d5 * ku5 + d6 * ku6);
    return std::max(norm(er), norm(eu)) / tolerance_m;
  }
};

}  // namespace fastmu
