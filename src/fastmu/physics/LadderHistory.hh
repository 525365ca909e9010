// One detailed history serving every step of a table ladder. A muon starts
// at the centre of nested spheres of radii r_0 < r_1 < ... along +z; its
// state where it first leaves sphere k is a single-step sample of step r_k.
//
// Why this is exact for r_0 and statistically right for the others: up to
// leaving sphere k the history steps exactly as a lone history in a sphere
// of radius r_k would (same stepper, same random draws), so the state there
// has that history's distribution; only what follows differs. The muon then
// goes on from that boundary into sphere k + 1, its distances to the next
// interaction and to decay carried over (both memoryless): a boundary inside
// the medium, which condensed histories cross without bias (a step ends
// there, as at any volume boundary in Geant4). tests/tables/test_ladder.cc
// compares every rung with independent histories. Cost: one history to the
// largest radius, ~ half the sum of separate histories for steps that double.
#pragma once

#include <cmath>
#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/physics/EngineGeometry.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonStepper.hh"

namespace fastmu {

// Where one history's records go: p0 of the history, and per rung k the
// fractional loss (p0 - pz) / p0 and kick |pt| / p0 at rung stride `stride`
// (a stopped muon: loss 1, kick 0).
struct LadderOut {
  float* p0;
  float* loss;
  float* kick;
  std::size_t stride;
};

// What every history of a ladder shares.
struct LadderParams {
  const MuonPhysicsView* tables;
  const MultipleScatteringData* msc;
  PhysicsOptions physics;
  int charge;
  const double* radii;  // ascending [m]
};

// A ladder history between turns: the track, the rung (sphere) it is in and
// the physics steps taken there. A turn is one physics step, so that the
// GPU's threads, each on its own history, take their steps together
// (physics/cuda/LadderKernel.cu): an air history takes many more steps than
// an iron one and, with whole histories per thread, a warp ran as long as its
// longest history.
struct LadderHistoryState {
  DetailedTrack trk;
  double p0 = 0;
  int rung = 0;
  long rung_steps = 0;
};

namespace detail {

FASTMU_HD FASTMU_FORCEINLINE MuonStepper<SphereVolume> ladder_stepper(const LadderParams& lp,
                                                                      int rung) {
  return MuonStepper<SphereVolume>(*lp.tables, *lp.msc, SphereVolume{lp.radii[rung]},
                                   UniformField{}, lp.physics);
}

// Records rung k of the history's state.
FASTMU_HD FASTMU_FORCEINLINE void record_rung(const LadderHistoryState& h, int k, LadderOut out) {
  double loss = 1.0, kick = 0.0;
  if (!h.trk.stopped && h.trk.kinetic > 0) {
    const double p = kinematics::momentum_from_kinetic(h.trk.kinetic);
    const Vec3& d = h.trk.dir;
    loss = (h.p0 - p * d.z) / h.p0;
    kick = p * std::sqrt(d.x * d.x + d.y * d.y) / h.p0;
  }
  out.loss[k * out.stride] = static_cast<float>(loss);
  out.kick[k * out.stride] = static_cast<float>(kick);
}

}  // namespace detail

// Starts a history: p0 uniform in [p_lo, p_hi] with its first draw (as
// sample_single_step does), then the stepper's start in rung 0.
template <class Rng>
FASTMU_HD FASTMU_FORCEINLINE LadderHistoryState begin_ladder_history(const LadderParams& lp,
                                                                     double p_lo, double p_hi,
                                                                     Rng& rng, LadderOut out) {
  LadderHistoryState h;
  h.p0 = p_hi > p_lo ? p_lo + (p_hi - p_lo) * rng.uniform() : p_lo;
  *out.p0 = static_cast<float>(h.p0);
  h.trk.kinetic = kinematics::kinetic_from_momentum(h.p0);
  h.trk.charge = lp.charge;
  detail::ladder_stepper(lp, 0).start(h.trk, rng);
  return h;
}

// One turn of history `h`: a physics step in its rung (as MuonStepper::follow
// takes them, at most StepLimits::max_steps per rung); where the rung ends
// (the muon leaves the sphere, stops, or runs out of steps) it is recorded
// and the muon goes on in the next sphere. A stopped muon records its
// remaining rungs at once. False once rung rungs - 1 is recorded.
template <class Rng>
FASTMU_HD FASTMU_FORCEINLINE bool advance_ladder_history(const LadderParams& lp, int rungs,
                                                         LadderHistoryState& h, Rng& rng,
                                                         LadderOut out) {
  const auto stepper = detail::ladder_stepper(lp, h.rung);
  if (!h.trk.stopped && h.rung_steps < StepLimits{}.max_steps) {
    const bool goes_on = stepper.step_once(h.trk, rng);
    ++h.rung_steps;
    if (goes_on) return true;
  }
  do {
    detail::record_rung(h, h.rung, out);
    ++h.rung;
  } while (h.trk.stopped && h.rung < rungs);
  h.rung_steps = 0;
  return h.rung < rungs;
}

// A whole history: rungs 0 .. rungs - 1 of the ladder (the CPU threads run
// this; the GPU runs the same turns from its queue).
template <class Rng>
FASTMU_HD void ladder_history(const LadderParams& lp, double p_lo, double p_hi, int rungs, Rng& rng,
                              LadderOut out) {
  LadderHistoryState h = begin_ladder_history(lp, p_lo, p_hi, rng, out);
  while (advance_ladder_history(lp, rungs, h, rng, out)) {
  }
}

}  // namespace fastmu
