#include "fastmu/geometry/GeometryParams.hh"

#include <algorithm>

#include "fastmu/geometry/GridBuilder.hh"

namespace fastmu {

void GeometryParams::build_device_data() {
  records_.clear();
  arb8s_.clear();
  for (const VolumeDesc& v : volumes_) {
    VolumeRecord r;
    r.lo = to_f(v.lo);
    r.hi = to_f(v.hi);
    r.field = to_f(v.field);
    r.material = v.material_id;
    r.arb8 = -1;
    if (v.shape == VolumeShape::arb8) {
      Arb8Shape s;
      s.z_lo = static_cast<float>(v.z_center - v.dz);
      s.inv_h = static_cast<float>(1.0 / (2.0 * v.dz));
      for (int i = 0; i < 4; ++i) {
        s.x0[i] = static_cast<float>(v.vertices[i][0]);
        s.y0[i] = static_cast<float>(v.vertices[i][1]);
        s.dx[i] = static_cast<float>(v.vertices[i + 4][0] - v.vertices[i][0]);
        s.dy[i] = static_cast<float>(v.vertices[i + 4][1] - v.vertices[i][1]);
      }
      r.arb8 = static_cast<std::int32_t>(arb8s_.size());
      arb8s_.push_back(s);
    }
    records_.push_back(r);
  }
  GridIndex index = build_grid_index(world_lo_, world_hi_, records_, arb8s_);
  grid_ = index.shape;
  cell_offsets_ = std::move(index.cell_offsets);
  cell_volumes_ = std::move(index.cell_volumes);
}

std::size_t GeometryParams::max_candidates_per_cell() const {
  std::size_t m = 0;
  for (std::size_t c = 0; c + 1 < cell_offsets_.size(); ++c) {
    m = std::max<std::size_t>(m, cell_offsets_[c + 1] - cell_offsets_[c]);
  }
  return m;
}

}  // namespace fastmu
