#include "fastmu/transport/detailed/DetailedTransport.hh"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/MappedField.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/MuonStepper.hh"
#include "fastmu/physics/RandomDistributions.hh"
#include "fastmu/transport/detailed/DetailedRegion.hh"

namespace fastmu {
namespace {

// Beyond a boundary: far enough for float positions to land in the next
// volume (as the fast transport's kBoundaryPush).
constexpr double kPush = 2e-5;  // m

// Physics of one material of the geometry (null tables: vacuum).
struct MaterialPhysics {
  std::shared_ptr<const MuonPhysicsTables> tables;
  std::shared_ptr<const MultipleScattering> msc;
};

bool is_vacuum(const std::string& name) { return name == "G4_Galactic" || name == "vacuum"; }

// The path [m] the muon flies before it decays: its lab decay length
// beta gamma c tau times an exponential variate (decay on; the stepper draws
// its own in matter: the exponential has no memory, so a fresh draw per
// region is the same law). Infinite with decay off, and then no draw.
template <class Rng>
double path_to_decay(const DetailedTrack& trk, bool decay, Rng& rng) {
  if (!decay) return std::numeric_limits<double>::infinity();
  const double bg = kinematics::momentum_from_kinetic(trk.kinetic) / constants::muon_mass;
  return -std::log(random::uniform(rng)) * bg * constants::muon_lifetime_s *
         constants::c_light_m_per_s;
}

void mark_decayed(DetailedTrack& trk) {
  trk.decayed = true;
  trk.stopped = true;
}

// Through a region without matter: straight where there is no field, else
// along the track in steps that turn at most max_bend and stray at most the
// miss distance from their chords, up to where the region ends or (decay on)
// the muon decays.
template <class Field, class Rng>
void fly_through_vacuum(DetailedTrack& trk, const DetailedRegion& region, const Field& field,
                        const StepLimits& limits, bool decay, Rng& rng) {
  double to_decay = path_to_decay(trk, decay, rng);
  if (!field.on()) {
    const double d = region.distance(trk.pos, trk.dir);
    trk.pos = trk.pos + std::min(d, to_decay) * trk.dir;
    if (to_decay < d) mark_decayed(trk);
    return;
  }
  const double p = kinematics::momentum_from_kinetic(trk.kinetic);
  const double kappa = field.curvature_bound(p, trk.charge, trk.pos);
  const double s_max = kappa > 0 ? std::min(limits.max_bend_rad / kappa,
                                            std::sqrt(8.0 * limits.miss_distance_m / kappa))
                                 : 1e30;
  for (long n = 0; n < limits.max_steps; ++n) {
    const double d = region.distance(trk.pos, trk.dir);
    Vec3 pos1 = trk.pos, dir1 = trk.dir;
    const bool decays = to_decay < std::min(s_max, d + kPush);
    const double s = decays ? to_decay : std::min(s_max, d + kPush);
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

// One segment: the physics of the region's material (or none: vacuum) in the
// given field, until the track leaves the region or stops.
template <class Field, class Rng>
void transport_segment(DetailedTrack& trk, const DetailedRegion& region, const MaterialPhysics& mp,
                       const Field& field, const DetailedTransportOptions& options,
                       const StepLimits& limits, Rng& rng) {
  if (mp.tables) {
    const MuonStepper<DetailedRegion, Field> stepper(mp.tables->view(), mp.msc->data(), region,
                                                     field, options.physics, limits);
    stepper.transport(trk, rng);
  } else {
    fly_through_vacuum(trk, region, field, limits, options.physics.decay, rng);
  }
}

// The largest |B| a map holds (a bound for the step limits).
double max_field(const FieldMapParams& map) {
  double b2 = 0;
  const auto& v = map.values();
  for (std::size_t i = 0; i + 2 < v.size(); i += 3) {
    b2 = std::max(b2,
                  double(v[i]) * v[i] + double(v[i + 1]) * v[i + 1] + double(v[i + 2]) * v[i + 2]);
  }
  return std::sqrt(b2);
}

}  // namespace

TransportResult transport_detailed(const GeometryParams& geometry, const MaterialLibrary& materials,
                                   const MuonBatch& in, const DetailedTransportOptions& options,
                                   std::uint64_t first_id, const ProgressCallback& progress) {
  std::optional<FieldMapParams> map;
  if (const auto& spec = geometry.field_map()) map = FieldMapParams::from_spec(*spec);
  const FieldMapView map_view = map ? map->host_view() : FieldMapView{};
  const double map_b_max = map ? max_field(*map) : 0.0;
  if (!(options.p_kill >= 0)) throw Error("p-kill must be >= 0");
  const auto& names = geometry.material_names();
  std::vector<MaterialPhysics> physics(names.size());
  for (std::size_t m = 0; m < names.size(); ++m) {
    if (is_vacuum(names[m])) continue;
    const Material& mat = materials.find(names[m]);
    physics[m].tables = MuonPhysicsTables::get(mat, options.physics);
    physics[m].msc = std::make_shared<const MultipleScattering>(mat);
  }
  const GeometryView view = geometry.host_view();
  const StepLimits limits{};

  const std::size_t n = in.size();
  TransportResult out;
  out.first_id = first_id;
  out.muons = in;
  out.status.assign(n, static_cast<std::int32_t>(MuonStatus::alive));
  out.plane.assign(n, -1);
  out.steps.assign(n, 0);

  parallel_for_chunks(n, options.threads, 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      HistoryRng rng(options.seed, first_id + i, RngStream::detailed_physics);
      const Vec3 p0{in.px[i], in.py[i], in.pz[i]};
      const double p0_norm = norm(p0);
      DetailedTrack trk;
      trk.pos = {in.x[i], in.y[i], in.z[i]};
      trk.dir = p0_norm > 0 ? (1.0 / p0_norm) * p0 : Vec3{0, 0, 1};
      trk.kinetic = kinematics::kinetic_from_momentum(p0_norm);
      trk.charge = in.pdg[i] > 0 ? -1 : 1;  // 13 = mu-
      MuonStatus status = MuonStatus::alive;
      std::int32_t plane = -1, segments = 0;
      while (status == MuonStatus::alive) {
        const double p = trk.stopped ? 0.0 : kinematics::momentum_from_kinetic(trk.kinetic);
        const Vec3f r = DetailedRegion::to_f(trk.pos);
        if (trk.decayed) {
          status = MuonStatus::decayed;
        } else if (!(p >= options.p_kill) || trk.stopped) {
          status = MuonStatus::stopped;
        } else if (!view.in_world(r.x, r.y, r.z)) {
          status = MuonStatus::left_world;
        } else if (segments >= options.max_segments) {
          status = MuonStatus::step_limit;
        }
        if (status != MuonStatus::alive) break;
        const LocateResult loc = view.locate(r.x, r.y, r.z);
        const DetailedRegion region{&view, loc.volume, trk.pos.z};
        const MaterialPhysics& mp = physics[loc.material];
        const Vec3 field{loc.field.x, loc.field.y, loc.field.z};
        if (map) {
          const MappedField<FieldMapView> f{field, &map_view, norm(field) + map_b_max};
          transport_segment(trk, region, mp, f, options, limits, rng);
        } else {
          transport_segment(trk, region, mp, UniformField::from(field), options, limits, rng);
        }
        ++segments;
        if (trk.stopped) continue;
        // A plane reached within float rounding (the region's end on it may
        // fall just short) counts when the push into the next volume crosses it.
        const Vec3 pushed = trk.pos + kPush * trk.dir;
        const std::int32_t k = region.plane_reached(pushed.z);
        if (k >= 0) {
          const SensitivePlane& sp = view.planes[k];
          trk.pos.z = sp.z;  // exact, as in the fast transport
          const bool inside = trk.pos.x >= sp.x_min && trk.pos.x <= sp.x_max &&
                              trk.pos.y >= sp.y_min && trk.pos.y <= sp.y_max;
          status = inside ? MuonStatus::at_plane : MuonStatus::outside_window;
          plane = k;
        } else {
          trk.pos = pushed;  // into the next volume
        }
      }
      // A decayed muon keeps the momentum it decayed with (as the fast transport).
      const bool moving = status != MuonStatus::stopped;
      const double p = moving ? kinematics::momentum_from_kinetic(trk.kinetic) : 0.0;
      out.muons.px[i] = moving ? static_cast<float>(p * trk.dir.x) : 0.f;
      out.muons.py[i] = moving ? static_cast<float>(p * trk.dir.y) : 0.f;
      out.muons.pz[i] = moving ? static_cast<float>(p * trk.dir.z) : 0.f;
      out.muons.x[i] = static_cast<float>(trk.pos.x);
      out.muons.y[i] = static_cast<float>(trk.pos.y);
      out.muons.z[i] = static_cast<float>(trk.pos.z);
      out.status[i] = static_cast<std::int32_t>(status);
      out.plane[i] = plane;
      out.steps[i] = segments;
    }
    if (progress) progress(end - begin);
  });
  return out;
}

}  // namespace fastmu
