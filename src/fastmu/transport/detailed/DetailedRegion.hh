// The region one segment of a detailed-engine history runs in: one volume of
// the geometry (or the world's material outside every volume), cut by the
// sensitive planes. It is the `Volume` of MuonStepper (physics/MuonStepper.hh):
// the straight-line distance to its boundary (which limits the physics step,
// as Geant4's navigator does), the isotropic safety (which bounds the
// multiple-scattering displacement) and an inside test (which locates the
// boundary on curved tracks by bisection). The geometry is float (the fast
// transport's); positions stay double in the engine, so a boundary is found
// to within float rounding (about 1 um at 10 m, 8 um at 100 m). Host and
// device: the CUDA detailed transport runs it too.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/geometry/GeometryView.hh"

namespace fastmu {

struct DetailedRegion {
  const GeometryView* geometry = nullptr;
  std::int32_t volume = -1;  // as returned by locate(); -1: the world's material
  double start_z = 0;        // the segment's start: the planes' sides are taken from it

  FASTMU_HD static Vec3f to_f(Vec3 v) {
    return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
  }

  // Whether plane k cuts the region (the start is not on it).
  FASTMU_HD bool plane_cuts(std::int32_t k) const { return geometry->planes[k].z != start_z; }

  FASTMU_HD double distance(Vec3 pos, Vec3 dir) const {
    double d = geometry->distance_to_boundary(to_f(pos), to_f(dir), volume);
    for (std::int32_t k = 0; k < geometry->num_planes; ++k) {
      const double zp = geometry->planes[k].z;
      if (!plane_cuts(k) || dir.z == 0) continue;
      const double t = (zp - pos.z) / dir.z;
      if (t >= 0 && t < d) d = t;
    }
    return d > 0 ? d : 0;
  }

  FASTMU_HD double safety(Vec3 pos) const {
    double s = geometry->safety(to_f(pos), volume);
    for (std::int32_t k = 0; k < geometry->num_planes; ++k) {
      if (plane_cuts(k)) s = std::fmin(s, std::fabs(pos.z - geometry->planes[k].z));
    }
    // Float positions: keep clear of the boundary by more than their rounding.
    s -= 2e-5;
    return s > 0 ? s : 0;
  }

  FASTMU_HD bool inside(Vec3 pos) const {
    const Vec3f p = to_f(pos);
    if (!geometry->in_world(p.x, p.y, p.z)) return false;
    if (geometry->locate(p.x, p.y, p.z).volume != volume) return false;
    for (std::int32_t k = 0; k < geometry->num_planes; ++k) {
      const double zp = geometry->planes[k].z;
      if (plane_cuts(k) && !((pos.z - zp) * (start_z - zp) > 0)) return false;
    }
    return true;
  }

  // The nearest plane between the start and z (reached or crossed), or -1.
  FASTMU_HD std::int32_t plane_reached(double z) const {
    std::int32_t hit = -1;
    double best = std::numeric_limits<double>::infinity();
    for (std::int32_t k = 0; k < geometry->num_planes; ++k) {
      const double zp = geometry->planes[k].z;
      if (!plane_cuts(k) || (z - zp) * (start_z - zp) > 0) continue;
      const double gap = std::fabs(zp - start_z);
      if (gap < best) best = gap, hit = k;
    }
    return hit;
  }
};

}  // namespace fastmu
