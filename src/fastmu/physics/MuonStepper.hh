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
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/DiscreteInteractions.hh"
#include "fastmu/physics/HelixPropagation.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/UrbanFluctuation.hh"

namespace fastmu {

struct StepLimits {
  double dr_over_range = 0.2;     // G4EmParameters default for muons and hadrons
  double final_range_m = 1e-4;    // 0.1 mm
  double lin_loss_limit = 0.01;   // below this fraction of the range, loss = dE/dx * step
  double max_bend_rad = 0.1;      // in a field, the most the direction may turn in one step
  long max_steps = 10000000;
};

// State of one muon. Lengths in metres, energies in GeV.
struct MuonTrack {
  Vec3 pos{};
  Vec3 dir{0, 0, 1};
  double kinetic = 0;
  int charge = -1;
  double lambda_left = 0;                 // interaction lengths left (all discrete processes)
  double proper_time_left_s = 0;          // until decay (when decay is on)
  bool stopped = false;
};

template <class Volume>
class MuonStepper {
 public:
  MuonStepper(const MuonPhysicsView& tables, const MultipleScattering& msc, const Volume& volume,
              UniformField field, const PhysicsOptions& options, StepLimits limits = {})
      : tab_(tables), msc_(msc), vol_(volume), field_(field), opt_(options), lim_(limits) {}

  // Transports the track until it leaves the volume or stops.
  void transport(MuonTrack& trk, CounterRng& rng) const {
    trk.lambda_left = random::exponential(rng);
    if (opt_.decay) trk.proper_time_left_s = -constants::muon_lifetime_s * std::log(random::uniform(rng));
    const double mass = constants::muon_mass;
    for (long step = 0; step < lim_.max_steps; ++step) {
      if (trk.kinetic <= opt_.tracking_cut_gev) {
        trk.stopped = true;
        return;
      }
      const double t = trk.kinetic;
      const double p = kinematics::momentum_from_kinetic(t);
      const MuonPhysicsView::Point g = tab_.locate(t);
      const double range = tab_.range_at(g);

      // --- proposed step lengths
      enum { kLimContinuous = -1, kLimGeometry = -2, kLimMsc = -3, kLimDecay = -4, kLimDiscrete = -5 };
      int limiter = kLimContinuous;
      double s = range > lim_.final_range_m
                     ? lim_.dr_over_range * range +
                           lim_.final_range_m * (1.0 - lim_.dr_over_range) *
                               (2.0 - lim_.final_range_m / range)
                     : range;
      double xs_pre[kNumDiscrete];
      double xs_tot = 0;
      for (int q = 0; q < kNumDiscrete; ++q) {
        xs_pre[q] = tab_.xs_at(q, g);
        xs_tot += xs_pre[q];
      }
      if (xs_tot > 0 && trk.lambda_left < s * xs_tot) {
        s = trk.lambda_left / xs_tot;
        limiter = kLimDiscrete;
      }
      const double s_msc = msc_.max_step_m(p);
      if (s_msc < s) {
        s = s_msc;
        limiter = kLimMsc;
      }
      const double bg = p / mass;
      if (opt_.decay) {
        const double s_decay = trk.proper_time_left_s * constants::c_light_m_per_s * bg;
        if (s_decay < s) {
          s = s_decay;
          limiter = kLimDecay;
        }
      }
      double kappa = 0;
      if (field_.on()) {
        kappa = field_.curvature(p, trk.charge);
        const double s_bend = lim_.max_bend_rad / std::abs(kappa);
        if (s_bend < s) {
          s = s_bend;
          limiter = kLimMsc;  // a plain step: no interaction at its end
        }
      } else {
        const double d = vol_.distance(trk.pos, trk.dir);
        if (d <= s) {
          s = d;
          limiter = kLimGeometry;
        }
      }

      // --- mean and actual continuous loss
      double mean_loss;
      bool ranges_out = false;
      if (s >= range) {
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
        kappa = field_.curvature(p_mid, trk.charge);
        Vec3 pos1 = trk.pos, dir1 = trk.dir;
        helix_advance(pos1, dir1, s, kappa, field_.b_hat);
        if (!vol_.inside(pos1)) {
          // Bisect for the boundary crossing along the helix.
          double lo = 0, hi = s;
          for (int it = 0; it < 60 && hi - lo > 1e-12; ++it) {
            const double mid = 0.5 * (lo + hi);
            Vec3 pm = trk.pos, dm = trk.dir;
            helix_advance(pm, dm, mid, kappa, field_.b_hat);
            if (vol_.inside(pm)) lo = mid; else hi = mid;
          }
          const double scale = hi / s;
          s = hi;
          mean_loss *= scale;
          if (ranges_out && scale < 1) ranges_out = false;
          limiter = kLimGeometry;
          pos1 = trk.pos;
          dir1 = trk.dir;
          helix_advance(pos1, dir1, s, kappa, field_.b_hat);
        }
        trk.pos = pos1;
        trk.dir = dir1;
      } else {
        trk.pos = trk.pos + s * trk.dir;
      }

      if (ranges_out) {
        trk.kinetic = 0;
        trk.stopped = true;
        return;
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
      const double p_mean = kinematics::momentum_from_kinetic(std::max(t - 0.5 * std::min(loss, t), 1e-9));
      const MultipleScattering::Deflection defl = msc_.sample(p_mean, s, trk.charge, rng);
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
        trk.dir = rotate_from_z(Vec3{st * std::cos(defl.phi), st * std::sin(defl.phi), defl.cos_theta}, trk.dir);
      }

      if (t_post <= opt_.tracking_cut_gev) {
        trk.kinetic = 0;
        trk.stopped = true;
        return;
      }
      trk.kinetic = t_post;
      if (limiter == kLimGeometry) return;
      if (limiter == kLimDecay) {
        trk.kinetic = 0;
        trk.stopped = true;
        return;
      }
      if (limiter == kLimDiscrete) {
        trk.lambda_left = random::exponential(rng);
        double u = random::uniform(rng) * xs_tot;
        int q = 0;
        while (q < kNumDiscrete - 1 && u >= xs_pre[q]) u -= xs_pre[q++];
        interact(trk, q, xs_pre[q], rng);
      }
    }
  }

 private:
  void interact(MuonTrack& trk, int q, double xs_pre, CounterRng& rng) const {
    const double t = trk.kinetic;
    const double xs_post = tab_.xs_at(q, t);
    if (!(xs_post > 0) || random::uniform(rng) * xs_pre > xs_post) return;  // integral-method rejection
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
  const MultipleScattering& msc_;
  Volume vol_;
  UniformField field_;
  PhysicsOptions opt_;
  StepLimits lim_;
};

}  // namespace fastmu
