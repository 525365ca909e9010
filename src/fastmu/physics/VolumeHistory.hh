// One history of the detailed engine's drivers (the single-step sampler's
// sphere, the slab of `physics transport`): p0 drawn first from the
// history's stream, the muon along +z from the origin until it leaves the
// volume or stops. Host and device (DetailedEngine.cc, physics/cuda/).
#pragma once

#include "fastmu/core/Macros.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonStepper.hh"

namespace fastmu {

template <class Volume, class Rng>
FASTMU_HD MuonSample volume_history(const MuonStepper<Volume>& stepper, int charge, double p_lo,
                                    double p_hi, Rng& rng) {
  const double p0 = p_hi > p_lo ? p_lo + (p_hi - p_lo) * rng.uniform() : p_lo;
  DetailedTrack trk;
  trk.kinetic = kinematics::kinetic_from_momentum(p0);
  trk.charge = charge;
  stepper.transport(trk, rng);
  MuonSample s;
  s.p0 = p0;
  s.x = trk.pos.x;
  s.y = trk.pos.y;
  s.z = trk.pos.z;
  if (!trk.stopped && trk.kinetic > 0) {
    const double p = kinematics::momentum_from_kinetic(trk.kinetic);
    s.px = p * trk.dir.x;
    s.py = p * trk.dir.y;
    s.pz = p * trk.dir.z;
  }
  return s;
}

}  // namespace fastmu
