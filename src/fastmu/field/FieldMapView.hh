// Read-only view of a field map on a regular grid, usable on host and device.
//
// The map stores B (tesla) at nx * ny * nz grid points spanning [lo, hi]
// (grid points at both ends) in the C order of the HDF5 dataset (nx, ny, nz, 3):
// z is the fastest grid index and the 3 components of a point are contiguous.
// Outside the map, or when there is no map, the field is zero.
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/field/FieldMapSpec.hh"

namespace fastmu {

struct FieldMapView {
  const float* b = nullptr;  // nx * ny * nz * 3 values, C order (ix, iy, iz, component)
  std::int32_t nx = 0, ny = 0, nz = 0;
  Vec3f lo{}, hi{};     // grid corners (m)
  Vec3f inv_spacing{};  // (n - 1) / (hi - lo) per axis
  FieldInterpolation interpolation = FieldInterpolation::linear;
  FieldSymmetry symmetry = FieldSymmetry::none;

  FASTMU_HD bool empty() const { return b == nullptr; }

  // The box of space where the map can be non-zero: [lo, hi], or with the
  // quadrant symmetry its mirror images too (|x| <= hi.x, |y| <= hi.y).
  FASTMU_HD Vec3f region_lo() const {
    return symmetry == FieldSymmetry::quadrant ? Vec3f{-hi.x, -hi.y, lo.z} : lo;
  }
  FASTMU_HD Vec3f region_hi() const { return hi; }

  // B at a point (tesla); zero outside the map or when there is no map.
  FASTMU_HD Vec3f at(float x, float y, float z) const {
    if (b == nullptr) return {0.f, 0.f, 0.f};
    float sx = 1.f, sz = 1.f;
    if (symmetry == FieldSymmetry::quadrant) {
      // sign(0) is taken as +1: on the symmetry planes a consistent map has
      // Bx = 0 (x = 0 or y = 0) and Bz = 0 (y = 0) anyway.
      sx = (x < 0.f) != (y < 0.f) ? -1.f : 1.f;
      sz = y < 0.f ? -1.f : 1.f;
      x = x < 0.f ? -x : x;
      y = y < 0.f ? -y : y;
    }
    if (!(x >= lo.x && x <= hi.x && y >= lo.y && y <= hi.y && z >= lo.z && z <= hi.z)) {
      return {0.f, 0.f, 0.f};
    }
    // Continuous grid coordinates in [0, n - 1].
    const float gx = (x - lo.x) * inv_spacing.x;
    const float gy = (y - lo.y) * inv_spacing.y;
    const float gz = (z - lo.z) * inv_spacing.z;
    Vec3f r;
    if (interpolation == FieldInterpolation::nearest) {
      r = node(clamp_index(static_cast<std::int32_t>(gx + 0.5f), nx),
               clamp_index(static_cast<std::int32_t>(gy + 0.5f), ny),
               clamp_index(static_cast<std::int32_t>(gz + 0.5f), nz));
    } else {
      // Trilinear: exact for fields linear in each coordinate.
      const std::int32_t ix = clamp_index(static_cast<std::int32_t>(gx), nx - 1);
      const std::int32_t iy = clamp_index(static_cast<std::int32_t>(gy), ny - 1);
      const std::int32_t iz = clamp_index(static_cast<std::int32_t>(gz), nz - 1);
      const float fx = gx - static_cast<float>(ix);
      const float fy = gy - static_cast<float>(iy);
      const float fz = gz - static_cast<float>(iz);
      r = {0.f, 0.f, 0.f};
      for (int c = 0; c < 8; ++c) {
        const int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
        const float w = (dx ? fx : 1.f - fx) * (dy ? fy : 1.f - fy) * (dz ? fz : 1.f - fz);
        r += w * node(ix + dx, iy + dy, iz + dz);
      }
    }
    return {sx * r.x, r.y, sz * r.z};
  }

 private:
  FASTMU_HD static std::int32_t clamp_index(std::int32_t i, std::int32_t n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
  }
  FASTMU_HD Vec3f node(std::int32_t ix, std::int32_t iy, std::int32_t iz) const {
    const float* p = b + 3 * ((static_cast<std::int64_t>(ix) * ny + iy) * nz + iz);
    return {p[0], p[1], p[2]};
  }
};

}  // namespace fastmu
