// Device-resident transport inputs: the geometry, field map and tables of a
// TransportParams, uploaded to a GPU once and kept there, with the GPU's
// streams and staging buffers (cuda::GpuStreams), so that repeated transport
// calls with the same inputs in one process (a chunked run, Python in a loop,
// an optimiser) pay the set-up once.
//
// Lifetime: each GPU holds the inputs of the last call made on it. They stay
// until a call with other inputs is made on that GPU (which replaces them),
// release_resident_gpus() is called, or the process ends. "Same inputs" means
// the same geometry and table objects (shared pointers, kept alive while
// resident, so their addresses cannot be reused) and equal step options; a
// field-map file changed on disk between two calls with the same geometry
// object is not seen.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"

namespace fastmu {

// The GPUs `devices`, each locked for the caller's use and holding `params`'
// views (uploaded now unless they are already resident). Unlocked when destroyed.
class ResidentGpus {
 public:
  ResidentGpus(const TransportParams& params, const std::vector<int>& devices);
  ~ResidentGpus();
  ResidentGpus(const ResidentGpus&) = delete;
  ResidentGpus& operator=(const ResidentGpus&) = delete;

  const std::vector<cuda::GpuTarget>& targets() const { return targets_; }

 private:
  std::vector<std::unique_lock<std::mutex>> locks_;
  std::vector<cuda::GpuTarget> targets_;
};

// Frees every GPU's resident inputs and buffers (waits for calls in flight);
// returns the GPUs that held any.
std::vector<int> release_resident_gpus();

// release_resident_gpus(), then the CUDA contexts of the GPUs that held
// inputs destroyed (cuda::stop_devices). For a command that has finished
// with its GPUs and still writes output: the driver's teardown (0.14 s on
// one H100 with a run's pinned buffers) then overlaps the writing instead of
// following the process's exit. No CUDA call may follow in this process.
void shut_down_resident_gpus();

// How many times inputs were uploaded to a GPU in this process (for tests
// and reports: a repeated call with the same inputs adds nothing).
std::uint64_t resident_uploads();

}  // namespace fastmu
