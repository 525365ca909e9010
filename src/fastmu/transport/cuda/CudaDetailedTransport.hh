// The detailed transport's GPU side (compiled by nvcc into
// fastmu_transport_cuda; called by transport_detailed in
// transport/detailed/DetailedTransport.cc, which copies the scene there).
#pragma once

#include <cstdint>

#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/detailed/DetailedHistory.hh"

namespace fastmu::cuda {

// Transports `in` (muon i with the random stream (seed, out.first_id + i))
// on the current GPU, one thread per muon, through `scene` (device memory,
// every pointer in it too), into `out` (sized for `in`). `progress` is called
// from the calling thread as muons finish. Throws fastmu::Error on CUDA errors.
void transport_detailed_gpu(const DetailedScene* scene, std::uint64_t seed, const MuonBatch& in,
                            TransportResult& out, const ProgressCallback& progress);

}  // namespace fastmu::cuda
