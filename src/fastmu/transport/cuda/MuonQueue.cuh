// The device queue loop that every transport kernel runs: each thread steps
// one muon at a time with the same transport_step as the CPU
// (StepPhysics.hh), its warp taking the launch's next 32 muons from a
// counter once all of its muons are done; the muon's state lives in
// registers, the views (geometry, field map, tables) in global memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::cuda {

// A launch's muons, handed out in turns. Random numbers are keyed by muon
// id and step, so the order in which threads take muons changes nothing in
// the results: `order` (MuonOrder.cuh) hands them out grouped by charge and
// momentum. take() gives one muon to one thread (the detailed engine's and
// the ladder's queues); run_queue gives 32 at a time to a warp.
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

// Threads per block of the transport kernels (whole warps: run_queue).
inline constexpr int kTransportBlock = 128;
// At least five blocks of the step loop per SM (at most 102 registers per
// thread): with the boundary search inlined the compiler would take ~120, and
// four blocks per SM cost the iron block 10 % (one H200); the few registers
// it spills are those of the rare boundary search.
inline constexpr int kTransportBlocksPerSm = 5;

// Blocks per SM the step kernels of feature set kF must allow (at most
// 65536 / (128 x blocks) registers a thread), measured with 4e6 muons,
// builds alternating. The straight step takes 72 registers uncapped (7
// blocks), 63 at 8 (one H200: iron block 0.0138 -> 0.0136 s; 64 under the
// warp queue). The magnet step with the exact helix (one H100,
// BENCHMARKS.md): 64 registers at 8 blocks (128 bytes of spill stores), 56
// at 9 (182; 144 under the warp queue), 48 at 10 (314): SHiP-like 0.1040,
// 0.1040 / 0.1018, 0.1014 / 0.1035, 0.1038 s. (With RK4 moves, one H200, 10
// blocks had been best: 48 registers, 144 bytes of spills.) The general
// step keeps kTransportBlocksPerSm.
template <unsigned kF>
constexpr int kBlocksPerSm = kF == step_features::kStraight ? 8
                             : kF == step_features::kMagnet ? 9
                                                            : kTransportBlocksPerSm;

// Runs the queue a warp at a time: the warp's lanes take 32 consecutive
// muons of the order together (job.load(view, i, id) returns each one's
// track, make_track with the view's options and the muon's id), step them
// (job.step(view, track, id)) until none is alive, store them
// (job.store(i, track)) and take the next 32. The muon's id is first_id + i.
// Taken together, a warp's muons are alike (the order) and stay so; a warp
// that is done takes new ones at once instead of idling in a block held by
// another warp's last muon. Threads that each took the next muon alone
// refilled lanes with muons of other momenta than their warp's (one H100,
// 4e6 SHiP-like muons: kernel 0.0994 s, against 0.0881 s a warp at a time;
// BENCHMARKS.md). Warps that refilled their idle lanes between steps (a
// ballot after every step) were slower still, even when refilling only
// once all 32 were idle (0.096 s): that loop keeps more of the track live.
// A job is a per-thread functor holding the kernel's columns and whatever
// else a muon carries along (its tangents, its code). `view` is a
// TransportViewFor of the geometry's features (TransportView: all). Every
// lane of a warp must call it (blocks of whole warps).
template <class Env, class Job>
__device__ __forceinline__ void run_queue(const Env& view, const MuonQueue& queue,
                                          std::uint64_t first_id, Job& job) {
  const unsigned lane = threadIdx.x & 31u;
  for (;;) {
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(queue.next, 32ull);
    first = __shfl_sync(0xffffffffu, first, 0);
    if (first >= queue.n) return;  // the same for the whole warp
    const auto k = static_cast<std::size_t>(first) + lane;
    if (k < queue.n) {
      const std::size_t i = queue.order ? queue.order[k] : k;
      MuonTrack t = job.load(view, i, first_id + i);
      while (t.status == kAliveStatus) job.step(view, t, first_id + i);
      job.store(i, t);
    }
    __syncwarp();
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
