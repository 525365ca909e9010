// One muon of the detailed transport (DetailedTransport.hh), host and device:
// the CPU threads and the CUDA kernel (transport/cuda/DetailedKernel.cu) run
// this same code, one muon per thread, on views whose pointers are host or
// device memory. Nothing here allocates or throws.
#pragma once

#include <cmath>
#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/field/FieldMapView.hh"
#include "fastmu/geometry/GeometryView.hh"
#include "fastmu/physics/MappedField.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonStepper.hh"
#include "fastmu/physics/RandomDistributions.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/detailed/DetailedRegion.hh"

namespace fastmu {

// The physics of one material of the geometry; null pointers: vacuum.
struct DetailedMaterialView {
  const MuonPhysicsView* tables = nullptr;
  const MultipleScatteringData* msc = nullptr;
};

// What every muon of a transport shares (all pointers on the side it runs on).
struct DetailedScene {
  GeometryView geometry;
  const DetailedMaterialView* materials = nullptr;  // by the geometry's material index
  FieldMapView map;                                 // empty: no field map
  double map_b_max = 0;                             // the largest |B| of the map [T]
  PhysicsOptions physics;
  double p_kill = 0.18;  // GeV/c
  std::int32_t max_segments = 1000000;
  StepLimits limits;
};

// A muon's final state: as the output columns of TransportResult.
struct DetailedEnd {
  Vec3 p{}, pos{};
  MuonStatus status = MuonStatus::alive;
  std::int32_t plane = -1, segments = 0;
};

namespace detail {

// Beyond a boundary: far enough for float positions to land in the next
// volume (as the fast transport's boundary_push: two float ulps of the
// largest coordinate where that is more than 20 um).
constexpr double kDetailedPush = 2e-5;  // m
FASTMU_HD inline double detailed_push(Vec3 pos) {
  const double m = std::fmax(std::fmax(std::fabs(pos.x), std::fabs(pos.y)), std::fabs(pos.z));
  return std::fmax(kDetailedPush, 2.4e-7 * m);
}

// The path [m] the muon flies before it decays: its lab decay length
// beta gamma c tau times an exponential variate (decay on; the stepper draws
// its own in matter: the exponential has no memory, so a fresh draw per
// region is the same law). Infinite with decay off, and then no draw.
template <class Rng>
FASTMU_HD double path_to_decay(const DetailedTrack& trk, bool decay, Rng& rng) {
  if (!decay) return 1e300;
  const double bg = kinematics::momentum_from_kinetic(trk.kinetic) / constants::muon_mass;
  return -std::log(random::uniform(rng)) * bg * constants::muon_lifetime_s *
         constants::c_light_m_per_s;
}

FASTMU_HD inline void mark_decayed(DetailedTrack& trk) {
  trk.decayed = true;
  trk.stopped = true;
}

// Through a region without matter: straight where there is no field, else
// along the track in steps that turn at most max_bend and stray at most the
// miss distance from their chords, up to where the region ends or (decay on)
// the muon decays.
template <class Field, class Rng>
FASTMU_HD void fly_through_vacuum(DetailedTrack& trk, const DetailedRegion& region,
                                  const Field& field, const StepLimits& limits, bool decay,
                                  Rng& rng) {
  double to_decay = path_to_decay(trk, decay, rng);
  if (!field.on()) {
    const double d = region.distance(trk.pos, trk.dir);
    trk.pos = trk.pos + std::fmin(d, to_decay) * trk.dir;
    if (to_decay < d) mark_decayed(trk);
    return;
  }
  const double p = kinematics::momentum_from_kinetic(trk.kinetic);
  const double kappa = field.curvature_bound(p, trk.charge, trk.pos);
  const double s_max = kappa > 0 ? std::fmin(limits.max_bend_rad / kappa,
                                             std::sqrt(8.0 * limits.miss_distance_m / kappa))
                                 : 1e30;
  for (long n = 0; n < limits.max_steps; ++n) {
    const double d = region.distance(trk.pos, trk.dir);
    Vec3 pos1 = trk.pos, dir1 = trk.dir;
    const bool decays = to_decay < std::fmin(s_max, d + detailed_push(trk.pos));
    const double s = decays ? to_decay : std::fmin(s_max, d + detailed_push(trk.pos));
    field.advance(pos1, dir1, s, p, trk.charge);
    if (region.inside(pos1)) {
      trk.pos = pos1, trk.dir = dir1;
      if (decays) return mark_decayed(trk);
      to_decay -= s;
      continue;
    }
    double lo = 0, hi = s;  // bisection for the exit along the track
    for (int it = 0; it < 60 && hi - lo > 1e-12; ++it) {
      const double mid = 0.5 * (lo + hi);
      Vec3 pm = trk.pos, dm = trk.dir;
      field.advance(pm, dm, mid, p, trk.charge);
      if (region.inside(pm)) lo = mid;
      else hi = mid;
    }
    field.advance(trk.pos, trk.dir, hi, p, trk.charge);
    return;
  }
}

// Why the history ends before the next segment (alive: it goes on).
FASTMU_HD inline MuonStatus segment_status(const DetailedTrack& trk, const DetailedScene& scene,
                                           std::int32_t segments) {
  const double p = trk.stopped ? 0.0 : kinematics::momentum_from_kinetic(trk.kinetic);
  const Vec3f r = DetailedRegion::to_f(trk.pos);
  if (trk.decayed) return MuonStatus::decayed;
  if (!(p >= scene.p_kill) || trk.stopped) return MuonStatus::stopped;
  if (!scene.geometry.in_world(r.x, r.y, r.z)) return MuonStatus::left_world;
  if (segments >= scene.max_segments) return MuonStatus::step_limit;
  return MuonStatus::alive;
}

// After a segment: a plane reached within float rounding (the region's end on
// it may fall just short) counts when the push into the next volume crosses
// it; else the track is pushed into the next volume.
FASTMU_HD inline MuonStatus cross_boundary(DetailedTrack& trk, const DetailedRegion& region,
                                           const GeometryView& geometry, std::int32_t& plane) {
  const Vec3 pushed = trk.pos + detailed_push(trk.pos) * trk.dir;
  const std::int32_t k = region.plane_reached(pushed.z);
  if (k < 0) {
    trk.pos = pushed;
    return MuonStatus::alive;
  }
  const SensitivePlane& sp = geometry.planes[k];
  trk.pos.z = sp.z;  // exact, as in the fast transport
  plane = k;
  const bool inside = trk.pos.x >= sp.x_min && trk.pos.x <= sp.x_max && trk.pos.y >= sp.y_min &&
                      trk.pos.y <= sp.y_max;
  return inside ? MuonStatus::at_plane : MuonStatus::outside_window;
}

}  // namespace detail

// A history in progress, for a transport that advances it one turn at a
// time: the track, its end so far and the segment it is in. A turn opens a
// segment (the stop checks, the location, the stepper's start) or takes one
// physics step in it, so that the GPU's threads, each on its own muon, take
// their next steps together (transport/cuda/DetailedKernel.cu) instead of
// each running a whole history while the warp waits for its longest one.
struct DetailedHistoryState {
  DetailedTrack trk;
  DetailedEnd end;
  DetailedRegion region;       // the open segment's region
  std::int32_t material = -1;  // its material (the scene's index)
  Vec3 field{};                // its volume's uniform field [T]
  long segment_steps = 0;      // physics steps taken in it
  bool in_segment = false;
};

// The state of a new history: momentum p0 [GeV/c] at pos [m], PDG code pdg.
FASTMU_HD inline DetailedHistoryState begin_detailed_history(Vec3 pos, Vec3 p0, std::int32_t pdg) {
  DetailedHistoryState h;
  const double p0_norm = norm(p0);
  h.trk.pos = pos;
  h.trk.dir = p0_norm > 0 ? (1.0 / p0_norm) * p0 : Vec3{0, 0, 1};
  h.trk.kinetic = kinematics::kinetic_from_momentum(p0_norm);
  h.trk.charge = pdg > 0 ? -1 : 1;  // 13 = mu-
  return h;
}

namespace detail {

// The final state of an ended history: a decayed muon keeps the momentum it
// decayed with (as the fast transport).
FASTMU_HD FASTMU_FORCEINLINE void finish_history(DetailedHistoryState& h) {
  if (h.end.status != MuonStatus::stopped) {
    h.end.p = kinematics::momentum_from_kinetic(h.trk.kinetic) * h.trk.dir;
  }
  h.end.pos = h.trk.pos;
}

// Ends the open segment: the track is pushed into the next volume or ends on
// a plane.
FASTMU_HD FASTMU_FORCEINLINE void close_segment(DetailedHistoryState& h, const GeometryView& view) {
  h.in_segment = false;
  ++h.end.segments;
  if (!h.trk.stopped) h.end.status = cross_boundary(h.trk, h.region, view, h.end.plane);
}

// One physics step of the open segment with the stepper of its field (start:
// the segment's first turn, which draws its interaction and decay distances).
template <class Field, class Rng>
FASTMU_HD FASTMU_FORCEINLINE bool segment_step(DetailedHistoryState& h, const DetailedScene& scene,
                                               const Field& field, bool start, Rng& rng) {
  const DetailedMaterialView& mp = scene.materials[h.material];
  const MuonStepper<DetailedRegion, Field> stepper(*mp.tables, *mp.msc, h.region, field,
                                                   scene.physics, scene.limits);
  if (start) {
    stepper.start(h.trk, rng);
    return true;
  }
  return stepper.step_once(h.trk, rng);
}

template <class Rng>
FASTMU_HD FASTMU_FORCEINLINE bool segment_step(DetailedHistoryState& h, const DetailedScene& scene,
                                               bool start, Rng& rng) {
  if (!scene.map.empty()) {
    const MappedField<FieldMapView> f{h.field, &scene.map, norm(h.field) + scene.map_b_max};
    return segment_step(h, scene, f, start, rng);
  }
  return segment_step(h, scene, fastmu::UniformField::from(h.field), start, rng);
}

// Opens the segment at the track's position; a region without matter is
// crossed at once (one turn).
template <class Rng>
FASTMU_HD FASTMU_FORCEINLINE void open_segment(DetailedHistoryState& h, const DetailedScene& scene,
                                               Rng& rng) {
  const GeometryView& view = scene.geometry;
  const Vec3f r = DetailedRegion::to_f(h.trk.pos);
  const LocateResult loc = view.locate(r.x, r.y, r.z);
  h.region = DetailedRegion{&view, loc.volume, h.trk.pos.z};
  h.material = loc.material;
  h.field = Vec3{loc.field.x, loc.field.y, loc.field.z};
  h.segment_steps = 0;
  h.in_segment = true;
  if (scene.materials[loc.material].tables) {
    segment_step(h, scene, true, rng);
    return;
  }
  if (!scene.map.empty()) {
    const MappedField<FieldMapView> f{h.field, &scene.map, norm(h.field) + scene.map_b_max};
    fly_through_vacuum(h.trk, h.region, f, scene.limits, scene.physics.decay, rng);
  } else {
    fly_through_vacuum(h.trk, h.region, fastmu::UniformField::from(h.field), scene.limits,
                       scene.physics.decay, rng);
  }
  close_segment(h, view);
}

}  // namespace detail

// One turn of history `h` (see DetailedHistoryState); false once it has
// ended, with h.end its final state.
template <class Rng>
FASTMU_HD FASTMU_FORCEINLINE bool advance_detailed_history(const DetailedScene& scene,
                                                           DetailedHistoryState& h, Rng& rng) {
  if (!h.in_segment) {
    h.end.status = detail::segment_status(h.trk, scene, h.end.segments);
    if (h.end.status == MuonStatus::alive) detail::open_segment(h, scene, rng);
  } else {
    const bool goes_on =
        h.segment_steps < scene.limits.max_steps && detail::segment_step(h, scene, false, rng);
    ++h.segment_steps;
    if (!goes_on) detail::close_segment(h, scene.geometry);
  }
  if (h.end.status == MuonStatus::alive) return true;
  detail::finish_history(h);
  return false;
}

// Transports one muon (momentum p0 [GeV/c] at pos [m], PDG code pdg) through
// the scene, segment by segment (one per volume crossed), with the random
// stream rng (the muon's own: the result depends on nothing else).
template <class Rng>
FASTMU_HD DetailedEnd detailed_history(const DetailedScene& scene, Vec3 pos, Vec3 p0,
                                       std::int32_t pdg, Rng& rng) {
  DetailedHistoryState h = begin_detailed_history(pos, p0, pdg);
  while (advance_detailed_history(scene, h, rng)) {
  }
  return h.end;
}

}  // namespace fastmu
