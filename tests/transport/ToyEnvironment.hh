// Toy environments for the step tests: an axis-aligned world with one slab of
// material along z, a uniform field and optional sensitive planes; plus a
// small synthetic table. They satisfy the same interface as TransportView.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::test {

struct ToyEnv {
  StepOptions options;
  Vec3f world_lo{-10, -10, -1}, world_hi{10, 10, 20};
  float slab_z0 = 0, slab_z1 = 0;  // material 0 in [z0, z1); vacuum elsewhere
  Vec3f field{0, 0, 0};            // uniform field everywhere (volume field)
  const MaterialTableView* slab_table = nullptr;
  const SensitivePlane* planes = nullptr;
  std::int32_t n_planes = 0;

  bool in_world(Vec3f r) const {
    return (r.x >= world_lo.x) & (r.x <= world_hi.x) & (r.y >= world_lo.y) & (r.y <= world_hi.y) &
           (r.z >= world_lo.z) & (r.z <= world_hi.z);
  }
  Location locate(Vec3f r, float& safety) const {
    safety = 0;  // look up every step
    const bool in_slab = r.z >= slab_z0 && r.z < slab_z1;
    return {in_slab ? 0 : -1, field, in_slab ? 0 : -1};
  }
  float safety(Vec3f, std::int32_t) const { return 0; }
  bool boundary_excess(std::int32_t, Vec3f, float&) const { return false; }  // bisection
  // The slab's faces bound the only volume (0); outside it, the world region.
  float distance_to_boundary(Vec3f r, Vec3f u, std::int32_t, float limit) const {
    return fminf(free_flight_distance(r, u), limit);
  }
  const MaterialTableView* shorter_table(const MaterialTableView& t) const {
    return t.shorter >= 0 && t.shorter < static_cast<std::int32_t>(ladder.size())
               ? ladder[t.shorter]
               : nullptr;
  }
  std::vector<const MaterialTableView*> ladder;  // shorter tables by `shorter` index
  const MaterialTableView* step_table(const MaterialTableView* t, float, bool) const { return t; }
  bool has_field_map() const { return false; }
  Vec3f field_map(Vec3f) const { return {0, 0, 0}; }
  Vec3f field_at(const Location& loc, Vec3f) const { return loc.field; }
  const MaterialTableView* table(std::int32_t material) const {
    return material == 0 ? slab_table : nullptr;
  }
  // Distance to the slab faces or the world boundary along u.
  float free_flight_distance(Vec3f r, Vec3f u) const {
    float d = std::numeric_limits<float>::max();
    auto consider = [&](float pos, float dir, float target) {
      if (dir != 0) {
        const float t = (target - pos) / dir;
        if (t > 0 && t < d) d = t;
      }
    };
    consider(r.z, u.z, slab_z0);
    consider(r.z, u.z, slab_z1);
    consider(r.x, u.x, u.x > 0 ? world_hi.x : world_lo.x);
    consider(r.y, u.y, u.y > 0 ? world_hi.y : world_lo.y);
    consider(r.z, u.z, u.z > 0 ? world_hi.z : world_lo.z);
    return d;
  }
};

// A synthetic table: log momentum bins over [0.1, 1000] GeV/c, 4 x 4 log bins
// per axis plus the floor bins, all cells equally likely. Fractional losses
// lie in [1e-4, 1e-4 e^4) and kicks in [1e-5, 1e-5 e^4).
struct ToyTable {
  static constexpr int n_pbins = 4, nx = 4, ny = 4;
  std::vector<float> edges, centres;
  std::vector<HistAxes> axes;
  std::vector<AliasCell> cells;
  TableView tv;
  std::unique_ptr<MaterialTableArrays> logs;
  MaterialTableView view;

  ToyTable(const ToyTable&) = delete;
  ToyTable() {
    const float lo = 0.1f, hi = 1000.f;
    const float dl = std::log(hi / lo) / n_pbins;
    for (int i = 0; i <= n_pbins; ++i) edges.push_back(lo * std::exp(dl * i));
    for (int i = 0; i < n_pbins; ++i) centres.push_back(std::sqrt(edges[i] * edges[i + 1]));
    const int ncell = (nx + 1) * (ny + 1);
    for (int b = 0; b < n_pbins; ++b) {
      axes.push_back({std::log(1e-4f), 1.0f, std::log(1e-5f), 1.0f});
      for (int c = 0; c < ncell; ++c) cells.push_back({1.0f, c});
    }
    tv.n_pbins = n_pbins;
    tv.nx = nx;
    tv.ny = ny;
    tv.binning = MomentumBinning::log;
    tv.p_min = lo;
    tv.p_max = hi;
    tv.inv_dp = 1.0f / dl;
    tv.p_edges = edges.data();
    tv.p_centres = centres.data();
    tv.axes = axes.data();
    tv.cells = cells.data();
    logs = std::make_unique<MaterialTableArrays>(tv);
    view = logs->make_view(tv, [](const auto* p, std::size_t) { return p; });
    view.step = 0.02f;  // StepOptions' default
    view.inv_step = 1.0f / 0.02f;
  }
};

}  // namespace fastmu::test
