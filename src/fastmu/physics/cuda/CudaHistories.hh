// The detailed engine's drivers on the GPU (the single-step sampler's
// sphere and the slab of `physics transport`; compiled by nvcc into
// fastmu_physics_cuda, called by DetailedEngine.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/EngineGeometry.hh"
#include "fastmu/physics/HelixPropagation.hh"
#include "fastmu/physics/MultipleScatteringData.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace fastmu::cuda {

// out.size() histories, muon i on stream (seed, first_id + i), on the
// current GPU. Throws fastmu::Error on CUDA errors.
void sample_histories_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                          const SphereVolume& volume, UniformField field,
                          const PhysicsOptions& options, int charge, double p_lo, double p_hi,
                          std::uint64_t seed, std::uint64_t first_id, std::vector<MuonSample>& out);
void sample_histories_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                          const SlabVolume& volume, UniformField field,
                          const PhysicsOptions& options, int charge, double p_lo, double p_hi,
                          std::uint64_t seed, std::uint64_t first_id, std::vector<MuonSample>& out);

}  // namespace fastmu::cuda
