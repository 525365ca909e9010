// Everything the step loop reads, as one POD view (host or device pointers):
// geometry, field map, one TableView per material id, step options. It is the
// environment that transport_step (StepPhysics.hh) expects.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/field/FieldMapView.hh"
#include "fastmu/geometry/GeometryView.hh"
#include "fastmu/geometry/ShapeKinds.hh"
#include "fastmu/tables/TableView.hh"
#include "fastmu/transport/step/MaterialTable.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {

// What a geometry may make a step meet, as bits: the kinds of solid beyond
// boxes (ShapeKinds.hh) and the kinds of field. TransportParams::features
// says which a run's geometry holds; the GPU runs the step compiled for the
// fewest that cover them (TransportViewFor).
namespace step_features {
inline constexpr unsigned kVolumeFields = 8u;  // a uniform field in some volume
inline constexpr unsigned kFieldMap = 16u;     // a field map
inline constexpr unsigned kAll = shapes::kAll | kVolumeFields | kFieldMap;
}  // namespace step_features

// The view's data: plain pointers and sizes (host or device).
struct TransportViewData {
  GeometryView geometry;
  FieldMapView field;                         // empty when the geometry has no map
  Vec3f field_lo{}, field_hi{};               // region where the map can be non-zero
  const MaterialTableView* tables = nullptr;  // by material id (n_pbins == 0: vacuum), then
                                              // the ladders' shorter entries
  std::int32_t n_tables = 0;                  // material ids (ladder entries not counted)
  const SensitivePlane* planes = nullptr;
  std::int32_t n_planes = 0;
  StepOptions options;
  unsigned features = step_features::kAll;  // what the geometry holds (step_features)
};

// The view of a geometry that holds at most the features kF: its navigation
// and field lookups are compiled for kF alone, so that a GPU step kernel
// for boxes without a field (TransportKernels.cu) carries none of the code
// of fields, ARB8s or terrain, and takes fewer registers. The step kernels,
// the CPU lanes and the objective's passes take it; TransportView (every
// feature) is the view everything else holds and hands on. The answers are the
// same for any kF that covers the geometry, bit for bit on the GPU; on the
// CPU the compiler may fuse other multiply-adds (float rounding).
template <unsigned kF>
struct TransportViewFor : TransportViewData {
  static constexpr unsigned kFeatures = kF;

  TransportViewFor() = default;
  explicit TransportViewFor(const TransportViewData& d) : TransportViewData(d) {}

  // Whether a geometry holding `features` may take this view.
  static constexpr bool covers(unsigned features) { return (features & ~kF) == 0u; }

  FASTMU_HD bool in_world(Vec3f r) const { return geometry.in_world(r.x, r.y, r.z); }

  // Margin kept from a volume's faces so that float rounding of the
  // positions never lets a muon cross one while its location is reused.
  static constexpr float kSafetyMargin = 1e-4f;  // m

  // Material, volume and field at r. `safety` is the isotropic safety of r
  // in its volume (GeometryView::safety: boxes exact, ARB8s a lower bound,
  // the world region through its grid cell) less a margin: volumes do not
  // overlap, so within it the answer stays the same.
  FASTMU_HD Location locate(Vec3f r, float& safety) const {
    const LocateResult l = geometry.locate<kF & shapes::kAll>(r.x, r.y, r.z);
    safety = this->safety(r, l.volume);
    const Vec3f field =
        (kF & step_features::kVolumeFields) != 0u ? l.field : Vec3f{0.0f, 0.0f, 0.0f};
    return {l.volume >= 0 ? l.material : geometry.world_material, field, l.volume};
  }

  // The safety of r, a point inside `volume` (as located), less the margin.
  FASTMU_HD float safety(Vec3f r, std::int32_t volume) const {
    return geometry.safety<kF & shapes::kAll>(r, volume) - kSafetyMargin;
  }

  // Straight-line distance along u to where the location of r changes, or
  // `limit` when that is farther (a step looks no farther than its length:
  // in the world's material the grid walk then stops after a cell or two
  // instead of running to the world's edge).
  FASTMU_HD float distance_to_boundary(Vec3f r, Vec3f u, std::int32_t volume, float limit) const {
    return geometry.distance_to_boundary<kF & shapes::kAll>(r, u, volume, limit);
  }

  // e > 0 when r is outside `volume`: a signed distance-like function of r
  // near its faces; false where there is none (GeometryView::boundary_excess).
  FASTMU_HD bool boundary_excess(std::int32_t volume, Vec3f r, float& e) const {
    return geometry.boundary_excess<kF & shapes::kAll>(volume, r, e);
  }

  // The unit normal of the boundary of `volume` nearest r (false: none).
  FASTMU_HD bool boundary_normal(std::int32_t volume, Vec3f r, Vec3f& normal) const {
    return volume >= 0 && volume < geometry.num_volumes &&
           geometry.boundary_normal(volume, r, normal);
  }

  FASTMU_HD bool has_field_map() const {
    return (kF & step_features::kFieldMap) != 0u && !field.empty();
  }

  // The empty test inline: most geometries have no map, and `at` is an
  // out-of-line call on the host.
  FASTMU_HD Vec3f field_map(Vec3f r) const {
    return !has_field_map() ? Vec3f{} : field.at(r.x, r.y, r.z);
  }

  // The field at r on a step that started at `loc`: its volume's uniform
  // field plus the map's.
  FASTMU_HD Vec3f field_at(const Location& loc, Vec3f r) const {
    if constexpr ((kF & (step_features::kVolumeFields | step_features::kFieldMap)) == 0u) {
      return Vec3f{0.0f, 0.0f, 0.0f};
    } else {
      return loc.field + field_map(r);
    }
  }

  // The ladder's next shorter table of `t`, or null.
  FASTMU_HD const MaterialTableView* shorter_table(const MaterialTableView& t) const {
    return t.shorter >= 0 ? tables + t.shorter : nullptr;
  }

  // The table a muon of momentum p takes its steps from: the longest of
  // the long steps that p has reached, else t itself (StepLengths.hh); in
  // a field at most kFieldLongSteps doublings.
  FASTMU_HD const MaterialTableView* step_table(const MaterialTableView* t, float p,
                                                bool in_field) const {
    const int most = in_field && t->n_longer > kFieldLongSteps ? kFieldLongSteps : t->n_longer;
    int k = 0;
    while (k < most && p >= t->longer_from[k]) ++k;
    return k > 0 ? tables + t->longer[k - 1] : t;
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
    float d = geometry.distance_to_next_volume<kF & shapes::kAll>(r, u);
    if (has_field_map()) {
      const bool inside = r.x >= field_lo.x && r.x <= field_hi.x && r.y >= field_lo.y &&
                          r.y <= field_hi.y && r.z >= field_lo.z && r.z <= field_hi.z;
      d = inside ? options.step : fmin_inline(d, box_entry(r, u, field_lo, field_hi, d));
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

// Every feature: the view of any geometry (the general step, the view that
// params and sessions hold).
using TransportView = TransportViewFor<step_features::kAll>;

// The feature sets a step is compiled for, on both backends; a run takes
// the first that covers its geometry's (with_step_features): a step through
// boxes and planar ARB8s without a field (the iron block, rock, water), one
// with uniform fields in its volumes (the SHiP-like shield), and everything
// (terrain, twisted ARB8s, field maps). The step code is the same; a smaller
// set compiles out the paths its geometries cannot take.
namespace step_features {
inline constexpr unsigned kStraight = shapes::kPlanarArb8;
inline constexpr unsigned kMagnet = shapes::kPlanarArb8 | kVolumeFields;
}  // namespace step_features

// Calls fn(std::integral_constant<unsigned, kF>{}) for the smallest of the
// feature sets above that covers `features`.
template <class Fn>
decltype(auto) with_step_features(unsigned features, Fn&& fn) {
  if (TransportViewFor<step_features::kStraight>::covers(features)) {
    return fn(std::integral_constant<unsigned, step_features::kStraight>{});
  }
  if (TransportViewFor<step_features::kMagnet>::covers(features)) {
    return fn(std::integral_constant<unsigned, step_features::kMagnet>{});
  }
  return fn(std::integral_constant<unsigned, step_features::kAll>{});
}

// As with_step_features, for a pass whose fields come from elsewhere than
// the geometry's own (the objective's design, whose fields may be zero where
// their derivatives are not): the smallest set with volume fields.
template <class Fn>
decltype(auto) with_field_step_features(unsigned features, Fn&& fn) {
  if (TransportViewFor<step_features::kMagnet>::covers(features)) {
    return fn(std::integral_constant<unsigned, step_features::kMagnet>{});
  }
  return fn(std::integral_constant<unsigned, step_features::kAll>{});
}

}  // namespace fastmu
