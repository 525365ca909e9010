// The detailed engine (the physics of `fastmu physics`) through any geometry
// that the fast transport accepts: `fastmu run --engine detailed`,
// `fastmu.transport(..., engine="detailed")` and the reference of
// `fastmu validate`. Same inputs, outputs, statuses and planes as the fast
// transport (interfaces.md): each muon is a condensed-history Monte Carlo
// whose steps are limited by the geometry (no step crosses a boundary), in
// the material and uniform field of the volume it is in, until it stops
// (|p| < p_kill), leaves the world, reaches a sensitive plane or decays
// (physics.decay: in matter and in vacuum; status decayed, with the state
// where it decayed).
#pragma once

#include <cstdint>

#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/MuonRowCheck.hh"

namespace fastmu {

struct DetailedTransportOptions {
  PhysicsOptions physics;               // processes and cuts, as `fastmu physics`
  float p_kill = 0.18f;                 // GeV/c: below it a muon is stopped (status 1)
  std::int32_t max_segments = 1000000;  // volume crossings per muon before status 3
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all cores
  // cuda: one GPU thread per muon (the same code: DetailedHistory.hh).
  EngineBackend backend = EngineBackend::cpu;
};

// The detailed engine's top momentum [GeV/c]: its physics tables end at a
// kinetic energy of 100 TeV (MuonPhysicsTables.hh).
inline constexpr double kDetailedMomentumTop = 1.0e5;

// Rows above the engine's top are refused (MuonRowCheck.hh).
inline MuonRowLimits detailed_row_limits() { return MuonRowLimits{kDetailedMomentumTop}; }

// Transports `in` (muon ids first_id, first_id + 1, ...) through `geometry`,
// whose materials are looked up in `materials` (the library the geometry was
// loaded with: it holds its custom materials). The result depends only on
// (seed, muon id): not on the thread count or how the muons are batched. The
// CPU and CUDA backends run the same history from the same random stream;
// their normal and exponential variates come from other algorithms
// (RandomDistributions.hh), so they agree statistically, not bit for bit.
// `steps` counts volume segments. With a field map, tracks are integrated by
// adaptive Runge-Kutta (physics/MappedField.hh), else along exact helices.
TransportResult transport_detailed(const GeometryParams& geometry, const MaterialLibrary& materials,
                                   const MuonBatch& in, const DetailedTransportOptions& options,
                                   std::uint64_t first_id = 0,
                                   const ProgressCallback& progress = {});

}  // namespace fastmu
