// The ladder sampler's GPU side (compiled by nvcc into fastmu_physics_cuda;
// called through sample_ladder in LadderSampler.cc).
#pragma once

#include <vector>

#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/physics/MultipleScatteringData.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace fastmu::cuda {

// Number of usable GPUs (0 without a driver or device).
int engine_gpu_count();

// Runs the jobs on the current GPU. `tables` must outlive the process's use
// of the GPU (its arrays are copied there once and kept, keyed by address:
// MuonPhysicsTables::get shares one per material for the process's life).
// `out` is laid out for `jobs` already. Throws fastmu::Error on CUDA errors.
void sample_ladder_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                       const LadderSpec& spec, const std::vector<LadderJob>& jobs,
                       LadderRecords& out);

}  // namespace fastmu::cuda
