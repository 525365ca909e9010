// Condensed-history stepping of one muon through a homogeneous volume, with
// Geant4's step logic for muons:
//  - continuous loss limits the step to finalRange + dRoverRange (range - finalRange)
//    style (G4 step function for muons/hadrons: 0.2, 0.1 mm);
//  - discrete interactions: the number of interaction lengths left for the
//    sum of the discrete processes (-ln u, resampled after each interaction),
//    the process then chosen in proportion to its cross section: the same
//    statistics as Geant4's one counter per process, with one draw instead of
//    one per process;
//  - multiple scattering may limit the step; decay (optional) too;
//  - the volume boundary ends the track (the state there is recorded).
// The mean loss over a step comes from dE/dx (short steps) or from the range
// table, the actual loss from the Urban fluctuation model; the muon is then
// deflected and displaced by multiple scattering, and a discrete interaction
// (if that process limited the step) is sampled at the post-step energy,
// accepted with probability sigma(post)/sigma(pre) (Geant4's integral method).
//
// Host and device: the stepper reads the tables and the scattering constants
// through references to memory of the side it runs on (the CUDA sampler,
// physics/cuda/, copies both to the GPU once per material).
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/DiscreteInteractions.hh"
#include "fastmu/physics/HelixPropagation.hh"
#include "fastmu/physics/MultipleScatteringSampler.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/UrbanFluctuation.hh"

namespace fastmu {

struct StepLimits {
  double dr_over_range = 0.2;    // G4EmParameters default for muons and hadrons
  double final_range_m = 1e-4;   // 0.1 mm
  double lin_loss_limit = 0.01;  // below this fraction of the range, loss = dE/dx * step
  double max_bend_rad = 0.1;     // in a field, the most the direction may turn in one step
  // In a field, the most the helix may stray from its chord (Geant4's "delta
  // chord", default 0.25 mm): a step's chord is tested against the geometry,
  // so a boundary crossed by the helix but not by the chord is missed only
  // where it lies within this distance of the chord.
  double miss_distance_m = 2.5e-4;
  long max_steps = 10000000;
};

// State of one muon. Lengths in metres, energies in GeV.
struct DetailedTrack {
  Vec3 pos{};
  Vec3 dir{0, 0, 1};
  double kinetic = 0;
  int charge = -1;
  double lambda_left = 0;         // interaction lengths left (all discrete processes)
  double proper_time_left_s = 0;  // until decay (when decay is on)
  bool stopped = false;
  bool decayed = false;  // stopped by decay in flight: `kinetic` is kept, as it decayed
};

// Volume: distance(pos, dir), safety(pos), inside(pos) (EngineGeometry.hh,
// transport/detailed/DetailedRegion.hh). Field: on(), curvature_bound(p, charge, pos)
// and advance(pos, dir, s, p, charge) (UniformField: exact helix; MappedField:
// adaptive Runge-Kutta through a map).
template <class Volume, class Field = UniformField>
class MuonStepper {
 public:
  FASTMU_HD MuonStepper(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                        const Volume& volume, Field field, const PhysicsOptions& options,
                        StepLimits limits = {})
      : tab_(tables), msc_(msc), vol_(volume), field_(field), opt_(options), lim_(limits) {}

  // Transports a new track until it leaves the volume or stops.
  template <class Rng>
  FASTMU_HD void transport(DetailedTrack& trk, Rng& rng) const {
    start(trk, rng);
    follow(trk, rng);
  }

  // Draws a new track's distances to its first interaction and to its decay.
  template <class Rng>
  FASTMU_HD void start(DetailedTrack& trk, Rng& rng) const {
    trk.lambda_left = random::exponential(rng);
    if (opt_.decay)
      trk.proper_time_left_s = -constants::muon_lifetime_s * std::log(random::uniform(rng));
  }

  // Steps a started track until it leaves the volume or stops; a track that
  // left an inner volume goes on from where it left it (the ladder sampler's
  // nested spheres), its interaction and decay distances carried over.
  template <class Rng>
  FASTMU_HD void follow(DetailedTrack& trk, Rng& rng) const {
    for (long step = 0; step < lim_.max_steps && step_once(trk, rng); ++step) {
    }
  }

  // One physics step of a started track: false once it has left the volume
  // or stopped. follow() runs it in a loop; the GPU's detailed transport
  // runs it one step per turn of its queue (transport/cuda/DetailedKernel.cu),
  // so that a warp's threads each take their next step together.
  template <class Rng>
  FASTMU_HD FASTMU_FORCEINLINE bool step_once(DetailedTrack& trk, Rng& rng) const {
    const double mass = constants::muon_mass;
    if (trk.kinetic <= opt_.tracking_cut_gev) {
      trk.stopped = true;
      return false;
    }
    const double t = trk.kinetic;
    const double p = kinematics::momentum_from_kinetic(t);
    const MuonPhysicsView::Point g = tab_.locate(t);
    double xs_pre[kNumDiscrete];
    double xs_tot = 0;
    for (int q = 0; q < kNumDiscrete; ++q) {
      xs_pre[q] = tab_.xs_at(q, g);
      xs_tot += xs_pre[q];
    }
    const double bg = p / mass;
    const double dist = field_.on() ? 0.0 : vol_.distance(trk.pos, trk.dir);

    // --- proposed step length. The continuous-loss limit needs the range
    // (an exp per step); first try with a lower bound of it, which decides
    // the step exactly as the range would whenever another limit wins (see
    // range_is_needed); else, or for the loss, the exact range.
    int limiter;
    bool discrete_undercut;
    double range = tab_.range_floor_at(g);
    double s = propose_step(range, xs_tot, p, bg, dist, trk, limiter, discrete_undercut);
    const bool exact = range_is_needed(s, range, limiter, discrete_undercut, xs_tot, trk);
    if (exact) {
      range = tab_.range_at(g);
      s = propose_step(range, xs_tot, p, bg, dist, trk, limiter, discrete_undercut);
    }

    // --- mean and actual continuous loss
    double mean_loss;
    bool ranges_out = false;
    if (!exact) {
      mean_loss = tab_.dedx_at(g) * s;  // s < lin_loss_limit x (a lower bound of the range)
    } else if (s >= range) {
      mean_loss = t;
      ranges_out = true;
    } else if (s < lim_.lin_loss_limit * range) {
      mean_loss = tab_.dedx_at(g) * s;
    } else {
      mean_loss = t - tab_.kinetic_from_range(range - s);
    }

    // --- transport along the step (helix in a field, located on the boundary)
    if (field_.on()) {
      const double p_mid = kinematics::momentum_from_kinetic(std::max(t - 0.5 * mean_loss, 1e-9));
      Vec3 pos1 = trk.pos, dir1 = trk.dir;
      field_.advance(pos1, dir1, s, p_mid, trk.charge);
      const double exit = track_exit(trk, s, p_mid, pos1);
      if (exit >= 0) {
        const double scale = exit / s;
        s = exit;
        mean_loss *= scale;
        if (ranges_out && scale < 1) ranges_out = false;
        limiter = kLimGeometry;
        pos1 = trk.pos;
        dir1 = trk.dir;
        field_.advance(pos1, dir1, s, p_mid, trk.charge);
      }
      trk.pos = pos1;
      trk.dir = dir1;
    } else {
      trk.pos = trk.pos + s * trk.dir;
    }

    if (ranges_out) {
      trk.kinetic = 0;
      trk.stopped = true;
      return false;
    }
    double loss = mean_loss;
    if (mean_loss > 0) {
      const double tmax = kinematics::max_delta_energy(t);
      const double tcut = std::min(tab_.electron_cut, tmax);
      loss = sample_urban_loss(tab_.urban, mean_loss, t, mass, tcut, tmax, s, rng);
    }
    trk.lambda_left -= s * xs_tot;
    if (opt_.decay) trk.proper_time_left_s -= s / (constants::c_light_m_per_s * bg);

    // --- multiple scattering: deflection, and displacement within the safety
    const double t_post = t - loss;
    const double p_mean =
        kinematics::momentum_from_kinetic(std::max(t - 0.5 * std::min(loss, t), 1e-9));
    // A step ending on the boundary discards the displacement (and ends the
    // history): its variates are not drawn.
    const MscDeflection defl =
        sample_msc(msc_, p_mean, s, trk.charge, rng, limiter != kLimGeometry);
    if (limiter != kLimGeometry) {
      const double lx = defl.lateral_x_m, ly = defl.lateral_y_m;
      const double r2 = lx * lx + ly * ly;
      if (r2 > 0) {
        const double safety = 0.99 * vol_.safety(trk.pos);
        const double r = std::sqrt(r2);
        const double fac = r > safety ? safety / r : 1.0;
        if (fac > 0) trk.pos = trk.pos + fac * rotate_from_z(Vec3{lx, ly, 0.0}, trk.dir);
      }
    }
    if (defl.cos_theta < 1.0) {
      const double st = std::sqrt(std::max(0.0, 1.0 - defl.cos_theta * defl.cos_theta));
      trk.dir = rotate_from_z(Vec3{st * defl.cos_phi, st * defl.sin_phi, defl.cos_theta}, trk.dir);
    }

    if (t_post <= opt_.tracking_cut_gev) {
      trk.kinetic = 0;
      trk.stopped = true;
      return false;
    }
    trk.kinetic = t_post;
    if (limiter == kLimGeometry) return false;
    if (limiter == kLimDecay) {
      trk.decayed = true;
      trk.stopped = true;
      return false;
    }
    if (limiter == kLimDiscrete) {
      trk.lambda_left = random::exponential(rng);
      double u = random::uniform(rng) * xs_tot;
      int q = 0;
      while (q < kNumDiscrete - 1 && u >= xs_pre[q]) u -= xs_pre[q++];
      interact(trk, q, xs_pre[q], rng);
    }
    return true;
  }

 private:
  // Where the track curving in the field over arc length s at momentum p
  // (ending at `end`) first
  // leaves the volume, or -1 if it stays inside. A crossing shows as an end
  // outside or a chord that meets the boundary; its first outside point is
  // then found among kScan points along the arc and refined by bisection to
  // 1e-12 m (the returned length ends just outside). An excursion shorter
  // than s / kScan that the end and the chord both miss is not seen: it lies
  // within the miss distance of the chord.
  FASTMU_HD double track_exit(const DetailedTrack& trk, double s, double p, Vec3 end) const {
    constexpr int kScan = 16;
    const Vec3 chord = end - trk.pos;
    const double len = norm(chord);
    bool crosses = !vol_.inside(end);
    if (!crosses && len > 0) crosses = vol_.distance(trk.pos, (1.0 / len) * chord) < len;
    if (!crosses) return -1;
    double lo = 0, hi = -1;
    for (int j = 1; j <= kScan; ++j) {
      const double l = s * j / kScan;
      Vec3 pm = trk.pos, dm = trk.dir;
      field_.advance(pm, dm, l, p, trk.charge);
      if (!vol_.inside(pm)) {
        hi = l;
        break;
      }
      lo = l;
    }
    if (hi < 0) return -1;
    for (int it = 0; it < 60 && hi - lo > 1e-12; ++it) {
      const double mid = 0.5 * (lo + hi);
      Vec3 pm = trk.pos, dm = trk.dir;
      field_.advance(pm, dm, mid, p, trk.charge);
      if (vol_.inside(pm)) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  enum { kLimContinuous = -1, kLimGeometry = -2, kLimMsc = -3, kLimDecay = -4, kLimDiscrete = -5 };

  // The step length Geant4's step limits give for the given range (the
  // continuous-loss limit first, then discrete, msc, decay, field bending or
  // geometry, each taken when shorter). `discrete_undercut`: the discrete
  // limit was shorter than the continuous one.
  FASTMU_HD double propose_step(double range, double xs_tot, double p, double bg, double dist,
                                const DetailedTrack& trk, int& limiter,
                                bool& discrete_undercut) const {
    limiter = kLimContinuous;
    double s = s_continuous(range);
    discrete_undercut = xs_tot > 0 && trk.lambda_left < s * xs_tot;
    if (discrete_undercut) {
      s = trk.lambda_left / xs_tot;
      limiter = kLimDiscrete;
    }
    const double s_msc = msc_max_step(msc_, p);
    if (s_msc < s) {
      s = s_msc;
      limiter = kLimMsc;
    }
    if (opt_.decay) {
      const double s_decay = trk.proper_time_left_s * constants::c_light_m_per_s * bg;
      if (s_decay < s) {
        s = s_decay;
        limiter = kLimDecay;
      }
    }
    if (field_.on()) {
      // Sagitta s^2 kappa / 8 below the miss distance, turn below max_bend.
      const double kappa = field_.curvature_bound(p, trk.charge, trk.pos);
      const double s_bend =
          std::min(lim_.max_bend_rad / kappa, std::sqrt(8.0 * lim_.miss_distance_m / kappa));
      if (s_bend < s) {
        s = s_bend;
        limiter = kLimMsc;  // a plain step: no interaction at its end
      }
    } else if (dist <= s) {
      s = dist;
      limiter = kLimGeometry;
    }
    return s;
  }

  // Whether the step proposed with a lower bound `range_lo` of the range may
  // differ from the one the exact range gives, or the loss needs the range.
  // The continuous limit grows with the range, and each later limit is taken
  // when shorter than the running length, so the exact running length is
  // never below the bounded one: a limit taken with the bound is taken with
  // the exact range too, and from then on both agree. Two provisos: the
  // discrete test compares with the continuous limit itself (an undercut of
  // the bound is one of the exact limit; otherwise the discrete length must
  // not be below the bound), and the linear loss needs s < 1 % of the range.
  FASTMU_HD bool range_is_needed(double s, double range_lo, int limiter, bool discrete_undercut,
                                 double xs_tot, const DetailedTrack& trk) const {
    if (!(range_lo > 0)) return true;
    if (!discrete_undercut) {
      if (limiter == kLimContinuous) return true;
      if (xs_tot > 0 && !(trk.lambda_left / xs_tot >= s_continuous(range_lo))) return true;
    }
    return !(s < lim_.lin_loss_limit * range_lo);
  }

  // Continuous-loss limit: dRoverRange x range, tapering to the range below finalRange.
  FASTMU_HD double s_continuous(double range) const {
    return range > lim_.final_range_m
               ? lim_.dr_over_range * range + lim_.final_range_m * (1.0 - lim_.dr_over_range) *
                                                  (2.0 - lim_.final_range_m / range)
               : range;
  }

  template <class Rng>
  FASTMU_HD void interact(DetailedTrack& trk, int q, double xs_pre, Rng& rng) const {
    const double t = trk.kinetic;
    const double xs_post = tab_.xs_at(q, t);
    if (!(xs_post > 0) || random::uniform(rng) * xs_pre > xs_post)
      return;  // integral-method rejection
    MuonKick kick{t, trk.dir};
    if (q == kDelta) {
      if (kinematics::max_delta_energy(t) <= tab_.electron_cut) return;
      kick = knock_on_electron(t, trk.dir, tab_.electron_cut, rng);
    } else {
      const double k = tab_.sample_transfer(q, t, rng);
      if (q == kPhotonuclear) {
        kick = {t - k, trk.dir};
      } else {
        kick = radiative_emission(t, trk.dir, k, rng);
      }
    }
    trk.kinetic = std::max(kick.kinetic, 0.0);
    trk.dir = kick.dir;
  }

  const MuonPhysicsView& tab_;
  const MultipleScatteringData& msc_;
  Volume vol_;
  Field field_;
  PhysicsOptions opt_;
  StepLimits lim_;
};

}  // namespace fastmu
