// A uniform 3-D grid over the world with, per cell, the volumes whose bounding
// box touches it (CSR: cell_offsets[c] .. cell_offsets[c + 1] into
// cell_volumes). A lookup costs one cell computation plus the few candidates of
// that cell, independently of the number of volumes.
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"

namespace fastmu {

struct UniformGridView {
  Vec3f lo{};        // grid corner (the world's min corner)
  Vec3f cell{};      // cell size per axis (m)
  Vec3f inv_cell{};  // 1 / cell
  std::int32_t nx = 1, ny = 1, nz = 1;
  const std::int32_t* cell_offsets = nullptr;  // nx * ny * nz + 1
  const std::int32_t* cell_volumes = nullptr;  // candidate volume ids
  // Per cell, a distance beyond the cell's faces within which no volume of
  // another cell lies (0 when a neighbour lists one): lets the safety in the
  // world region reach past the cell. Null: 0 everywhere.
  const float* cell_clearance = nullptr;

  // Cell index along one axis from the continuous grid coordinate g, clamped
  // to [0, n - 1]; compares before converting so that huge or NaN g are safe.
  FASTMU_HD static std::int32_t clamp_index(float g, std::int32_t n) {
    if (!(g >= 0.f)) return 0;
    if (g >= static_cast<float>(n)) return n - 1;
    const std::int32_t i = static_cast<std::int32_t>(g);
    return i < n ? i : n - 1;
  }
  FASTMU_HD std::int32_t ix(float x) const { return clamp_index((x - lo.x) * inv_cell.x, nx); }
  FASTMU_HD std::int32_t iy(float y) const { return clamp_index((y - lo.y) * inv_cell.y, ny); }
  FASTMU_HD std::int32_t iz(float z) const { return clamp_index((z - lo.z) * inv_cell.z, nz); }
  FASTMU_HD std::int32_t cell_id(std::int32_t i, std::int32_t j, std::int32_t k) const {
    return (k * ny + j) * nx + i;
  }
  FASTMU_HD std::int32_t cell_of(float x, float y, float z) const {
    return cell_id(ix(x), iy(y), iz(z));
  }
};

}  // namespace fastmu
