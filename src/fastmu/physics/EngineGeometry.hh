// The two homogeneous volumes of the detailed engine: the sphere of the
// single-step sampler and the slab of `physics transport`. Each gives the
// straight-line distance to its boundary, the isotropic safety distance and an
// inside test (used to locate the boundary on curved tracks).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"

namespace fastmu {

// Sphere of radius r centred on the origin.
struct SphereVolume {
  double r = 0;

  FASTMU_HD double distance(Vec3 pos, Vec3 dir) const {
    const double b = dot(pos, dir);
    const double c = dot(pos, pos) - r * r;
    const double disc = b * b - c;
    if (c >= 0) return 0;  // on or outside the surface
    return -b + std::sqrt(std::max(disc, 0.0));
  }
  FASTMU_HD double safety(Vec3 pos) const { return std::max(0.0, r - norm(pos)); }
  FASTMU_HD bool inside(Vec3 pos) const { return dot(pos, pos) < r * r; }
};

// Slab 0 <= z <= thickness, |x|, |y| <= half_width.
struct SlabVolume {
  double thickness = 0;
  double half_width = 20.0;

  FASTMU_HD double distance(Vec3 pos, Vec3 dir) const {
    double d = std::numeric_limits<double>::infinity();
    if (dir.z > 0) d = std::min(d, (thickness - pos.z) / dir.z);
    if (dir.z < 0) d = std::min(d, -pos.z / dir.z);
    if (dir.x > 0) d = std::min(d, (half_width - pos.x) / dir.x);
    if (dir.x < 0) d = std::min(d, (-half_width - pos.x) / dir.x);
    if (dir.y > 0) d = std::min(d, (half_width - pos.y) / dir.y);
    if (dir.y < 0) d = std::min(d, (-half_width - pos.y) / dir.y);
    return std::max(d, 0.0);
  }
  FASTMU_HD double safety(Vec3 pos) const {
    const double s = std::min(
        {pos.z, thickness - pos.z, half_width - std::abs(pos.x), half_width - std::abs(pos.y)});
    return std::max(s, 0.0);
  }
  FASTMU_HD bool inside(Vec3 pos) const {
    return pos.z >= 0 && pos.z <= thickness && std::abs(pos.x) <= half_width &&
           std::abs(pos.y) <= half_width;
  }
};

}  // namespace fastmu
