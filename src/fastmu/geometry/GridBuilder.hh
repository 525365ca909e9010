// Builds the uniform grid index of GeometryView (host, once per geometry).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fastmu/geometry/GeometryData.hh"
#include "fastmu/geometry/UniformGrid.hh"

namespace fastmu {

struct GridIndex {
  UniformGridView shape;                   // pointers left null
  std::vector<std::int32_t> cell_offsets;  // cells + 1
  std::vector<std::int32_t> cell_volumes;  // candidates, ascending volume id per cell
  std::vector<float> cell_clearance;       // cells: gap to volumes of other cells (m)
};

// Cell size per axis: half the median bounding-box extent of the volumes along
// that axis (so a typical volume spans a few cells and a cell meets few
// volumes), at least world / 256, with the whole grid capped at `max_cells`
// cells. A volume is listed in every cell that its (slightly padded) solid may
// touch, so float rounding of a lookup near a cell face cannot miss it: a box
// in the cells of its box; an ARB8 in those cells of its bounding box that
// meet, within the cell's z range, the convex hull of its cross-sections at
// that range's ends (the solid's part between two heights lies inside that
// hull, as its vertices move linearly in z).
GridIndex build_grid_index(const std::array<double, 3>& world_lo,
                           const std::array<double, 3>& world_hi,
                           const std::vector<VolumeRecord>& volumes,
                           const std::vector<Arb8Shape>& arb8s,
                           std::int64_t max_cells = std::int64_t{1} << 20);

}  // namespace fastmu
