// The detailed muon physics engine: condensed-history Monte Carlo of a muon
// through a homogeneous material, with the processes of Geant4's muon EM
// physics. It generates the samples the histogram tables are built from, and
// it is the detailed (slow) baseline for the fast transport.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {

struct PhysicsOptions {
  // Muon photonuclear interactions: on from photonuclear_from_gev (kinetic
  // energy), where they are >= 3 % of the mean loss in rock and grow to a
  // tenth of the radiative loss at 10 TeV; off below, as in the Geant4
  // EM-standard samples that validate the engine and the fast transport up
  // to 300 GeV/c (there 1-3 % of the loss). `photonuclear`: at every energy.
  bool photonuclear = false;
  double photonuclear_from_gev = 400.0;
  bool decay = false;                // off by default
  double production_cut_m = 0.7e-3;  // range cut for secondaries (Geant4 default 0.7 mm)
  double tracking_cut_gev = 1e-3;    // muons below this kinetic energy [GeV] stop
};

// Where the engine runs: the CPU's threads or one GPU (the same history
// code; the GPU draws its normal and exponential variates by inversion, so
// its histories agree with the CPU's statistically, not bit for bit).
enum class EngineBackend { cpu, cuda };

// A recorded muon: initial momentum p0 along +z and the final state
// (momentum in GeV/c, position in metres). Stopped muons have px = py = pz = 0.
struct MuonSample {
  double p0 = 0;
  double px = 0, py = 0, pz = 0;
  double x = 0, y = 0, z = 0;
};

// Called (from worker threads, possibly concurrently) with the number of muons
// just finished since the previous call, e.g. ProgressBar::add.
using ProgressCallback = std::function<void(std::size_t done)>;

// Single-step sampler (`fastmu physics sample`): muons start at the centre of a
// sphere of radius `step_m` with momentum (0, 0, p), p uniform in [p_lo, p_hi],
// and are recorded where they leave it. Muon i uses the random stream
// (seed, i): output is independent of `threads`. On the GPU (`backend`)
// the progress callback is called once, at the end. `first_id` numbers the
// muons first_id .. first_id + n - 1 (a share of a larger run: an MPI rank's).
std::vector<MuonSample> sample_single_step(const Material& material, double p_lo, double p_hi,
                                           double step_m, std::size_t n, int charge,
                                           std::uint64_t seed, int threads,
                                           const PhysicsOptions& options = {},
                                           const ProgressCallback& progress = {},
                                           std::uint64_t first_id = 0,
                                           EngineBackend backend = EngineBackend::cpu);

// Slab transport (`fastmu physics transport`): muons start at the origin along
// +z through material filling 0 <= z <= thickness (|x|, |y| <= 20 m) with a
// uniform field, and are recorded where they leave it.
std::vector<MuonSample> transport_slab(const Material& material, double thickness_m, double p_lo,
                                       double p_hi, std::size_t n, int charge, Vec3 field_tesla,
                                       std::uint64_t seed, int threads,
                                       const PhysicsOptions& options = {},
                                       const ProgressCallback& progress = {},
                                       EngineBackend backend = EngineBackend::cpu);

}  // namespace fastmu
