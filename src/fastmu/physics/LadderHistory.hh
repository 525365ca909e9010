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

// Samples p0 uniform in [p_lo, p_hi] with the history's first draw (as
// sample_single_step does), then records rungs 0 .. rungs - 1.
template <class Rng>
FASTMU_HD void ladder_history(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                              const PhysicsOptions& physics, int charge, double p_lo, double p_hi,
                              const double* radii, int rungs, Rng& rng, LadderOut out) {
  const double p0 = p_hi > p_lo ? p_lo + (p_hi - p_lo) * rng.uniform() : p_lo;
  *out.p0 = static_cast<float>(p0);
  DetailedTrack trk;
  trk.kinetic = kinematics::kinetic_from_momentum(p0);
  trk.charge = charge;
  for (int k = 0; k < rungs; ++k) {
    const MuonStepper<SphereVolume> stepper(tables, msc, SphereVolume{radii[k]}, UniformField{},
                                            physics);
    if (k == 0) stepper.start(trk, rng);
    if (!trk.stopped) stepper.follow(trk, rng);
    double loss = 1.0, kick = 0.0;
    if (!trk.stopped && trk.kinetic > 0) {
      const double p = kinematics::momentum_from_kinetic(trk.kinetic);
      loss = (p0 - p * trk.dir.z) / p0;
      kick = p * std::sqrt(trk.dir.x * trk.dir.x + trk.dir.y * trk.dir.y) / p0;
    }
    out.loss[k * out.stride] = static_cast<float>(loss);
    out.kick[k * out.stride] = static_cast<float>(kick);
  }
}

}  // namespace fastmu
