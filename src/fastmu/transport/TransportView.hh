// Everything the step loop reads, as one POD view (host or device pointers):
// geometry, field map, one TableView per material id, step options. It is the
// environment that transport_step (StepPhysics.hh) expects.
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/field/FieldMapView.hh"
#include "fastmu/geometry/GeometryView.hh"
#include "fastmu/tables/TableView.hh"
#include "fastmu/transport/MaterialTable.hh"
#include "fastmu/transport/StepPhysics.hh"

namespace fastmu {

struct TransportView {
  GeometryView geometry;
  FieldMapView field;                 // empty when the geometry has no map
  Vec3f field_lo{}, field_hi{};       // region where the map can be non-zero
  const MaterialTableView* tables = nullptr;  // by material id; n_pbins == 0: vacuum
  std::int32_t n_tables = 0;
  const SensitivePlane* planes = nullptr;
  std::int32_t n_planes = 0;
  StepOptions options;

  FASTMU_HD bool in_world(Vec3f r) const { return geometry.in_world(r.x, r.y, r.z); }

  // Margin kept from a box's faces so that float rounding of the positions
  // never lets a muon cross one while its location is reused.
  static constexpr float kSafetyMargin = 1e-4f;  // m

  // Material and field at r. Inside a box volume, `safety` is the distance to
  // its nearest face (less a margin): volumes do not overlap, so within it the
  // answer stays the same. Elsewhere (world, ARB8) it is 0: look again.
  FASTMU_HD Location locate(Vec3f r, float& safety) const {
    const LocateResult l = geometry.locate(r.x, r.y, r.z);
    safety = 0.0f;
    if (l.volume >= 0 && geometry.volumes[l.volume].arb8 < 0) {
      const VolumeRecord& v = geometry.volumes[l.volume];
      const float dx = fminf(r.x - v.lo.x, v.hi.x - r.x);
      const float dy = fminf(r.y - v.lo.y, v.hi.y - r.y);
      const float dz = fminf(r.z - v.lo.z, v.hi.z - r.z);
      safety = fminf(dx, fminf(dy, dz)) - kSafetyMargin;
    }
    return {l.volume >= 0 ? l.material : geometry.world_material, l.field};
  }

  FASTMU_HD bool has_field_map() const { return !field.empty(); }

  // The empty test inline: most geometries have no map, and `at` is an
  // out-of-line call on the host.
  FASTMU_HD Vec3f field_map(Vec3f r) const {
    return field.empty() ? Vec3f{} : field.at(r.x, r.y, r.z);
  }

  FASTMU_HD const MaterialTableView* table(std::int32_t material) const {
    return material >= 0 && material < n_tables && tables[material].t.n_pbins > 0
               ? tables + material
               : nullptr;
  }

  // Free flight through vacuum without field: up to the next volume or the
  // world's boundary, and not into the field map's region. Inside a vacuum
  // volume (distance 0) or inside the map's region, one table step.
  FASTMU_HD float free_flight_distance(Vec3f r, Vec3f u) const {
    float d = geometry.distance_to_next_volume(r, u);
    if (!field.empty()) {
      const bool inside = r.x >= field_lo.x && r.x <= field_hi.x && r.y >= field_lo.y &&
                          r.y <= field_hi.y && r.z >= field_lo.z && r.z <= field_hi.z;
      d = inside ? options.step : fminf(d, box_entry(r, u, field_lo, field_hi, d));
    }
    return d > 0.0f ? d : options.step;
  }

 private:
  // Distance along u to the entry into the box [lo, hi], or `limit`.
  FASTMU_HD static float box_entry(Vec3f r, Vec3f u, Vec3f lo, Vec3f hi, float limit) {
    float t_in = 0.0f, t_out = limit;
    const bool hit = clip_ray_to_slab(r.x, u.x, lo.x, hi.x, t_in, t_out) &&
                     clip_ray_to_slab(r.y, u.y, lo.y, hi.y, t_in, t_out) &&
                     clip_ray_to_slab(r.z, u.z, lo.z, hi.z, t_in, t_out);
    return hit ? t_in : limit;
  }
};

}  // namespace fastmu
