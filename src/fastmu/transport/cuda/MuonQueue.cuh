// The device queue loop that every transport kernel runs: each thread steps
// one muon at a time with the same transport_step as the CPU
// (StepPhysics.hh), taking the launch's next muon from a counter as soon as
// its muon is done; the muon's state lives in registers, the views
// (geometry, field map, tables) in global memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::cuda {

// Muons handed out one at a time: a thread whose muon is done takes the
// launch's next one, so the threads of a warp stay busy until the queue is
// empty. With one thread per muon a warp runs as long as its slowest muon and
// its other threads idle: in the SHiP-like shield, with step lengths that
// vary by 50x between iron and air, 55 % of the threads' time (step counts of
// 4 000 muons in warps of 32). Random numbers are keyed by muon id and step,
// so the order in which threads take muons changes nothing in the results:
// `order` (MuonOrder.cuh) hands them out grouped by charge and momentum.
struct MuonQueue {
  unsigned long long* next;  // device counter, zero at launch
  std::size_t n;
  const std::uint32_t* order = nullptr;  // muon of each turn (null: id order)

  __device__ bool take(std::size_t& i) const {
    const auto k = static_cast<std::size_t>(atomicAdd(next, 1ull));
    if (k >= n) return false;
    i = order ? order[k] : k;
    return true;
  }
};

inline constexpr int kAliveStatus = static_cast<int>(MuonStatus::alive);

// Threads per block of the transport kernels.
inline constexpr int kTransportBlock = 128;
// At least five blocks of the step loop per SM (at most 102 registers per
// thread): with the boundary search inlined the compiler would take ~120, and
// four blocks per SM cost the iron block 10 % (one H200); the few registers
// it spills are those of the rare boundary search.
inline constexpr int kTransportBlocksPerSm = 5;

// Runs the queue: takes a muon (job.load(view, i, id) returns its track,
// make_track with the view's options and the muon's id), steps it
// (job.step(view, track, id)) until it is no longer alive, stores it
// (job.store(i, track)) and takes the next. The muon's id is first_id + i.
// A job is a per-thread functor holding the kernel's columns and whatever
// else a muon carries along (its tangents, its code). `view` is a
// TransportViewFor of the geometry's features (TransportView: all).
template <class Env, class Job>
__device__ __forceinline__ void run_queue(const Env& view, const MuonQueue& queue,
                                          std::uint64_t first_id, Job& job) {
  MuonTrack t;
  std::size_t i = 0;
  for (bool busy = false;;) {
    if (!busy) {
      if (!queue.take(i)) return;
      t = job.load(view, i, first_id + i);
      busy = true;
    }
    job.step(view, t, first_id + i);
    if (t.status == kAliveStatus) continue;
    job.store(i, t);
    busy = false;
  }
}

// Enough blocks of `block` threads to fill the current device with `kernel`
// (its occupancy), but no more than the muons need.
template <class Kernel>
unsigned queue_grid(Kernel kernel, int block, std::size_t n) {
  int device = 0, sms = 0, per_sm = 0;
  FASTMU_CUDA_CHECK(cudaGetDevice(&device));
  FASTMU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FASTMU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  const std::size_t full = static_cast<std::size_t>(std::max(sms, 1)) * std::max(per_sm, 1);
  return static_cast<unsigned>(std::min(full, (n + block - 1) / block));
}

// An 8-byte device counter (a queue's, a search's result) on `stream`, zeroed;
// freed (stream-ordered) with it.
struct DeviceCounter {
  cudaStream_t stream;
  unsigned long long* value = nullptr;
  explicit DeviceCounter(cudaStream_t s) : stream(s) {
    FASTMU_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&value), 8, stream));
    FASTMU_CUDA_CHECK(cudaMemsetAsync(value, 0, 8, stream));
  }
  ~DeviceCounter() { cudaFreeAsync(value, stream); }
  DeviceCounter(const DeviceCounter&) = delete;
  DeviceCounter& operator=(const DeviceCounter&) = delete;
};

}  // namespace fastmu::cuda
