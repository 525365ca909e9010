// What a GPU keeps between calls (GpuStreams::Impl): its stream slots (a
// CUDA stream with the pinned and device buffers of one chunk in flight),
// the window objective's device columns, and whether the pipeline's kernels
// are loaded. Allocation and release in GpuStreams.cu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/cuda/MuonOrder.cuh"
#include "fastmu/transport/cuda/TransportKernels.cuh"

namespace fastmu::cuda {

// One stream of the streamed pipeline with the buffers of one chunk of up to
// `cap` muons, served by one host thread.
struct StreamSlot {
  cudaStream_t stream = nullptr;
  std::size_t cap = 0;                    // muons per chunk the buffers hold
  std::uint32_t* host_in = nullptr;       // pinned: kInputRows rows
  std::uint32_t* host_out = nullptr;      // pinned: kCompactRows rows
  SlotCounters* host_counters = nullptr;  // pinned
  std::uint32_t* state = nullptr;         // device: kStateRows rows
  std::uint32_t* compact = nullptr;       // device: kCompactRows rows
  std::int32_t* keep = nullptr;           // device: flags, then their scan
  std::int32_t* pos = nullptr;
  SlotCounters* counters = nullptr;  // device
  void* scan_temp = nullptr;
  std::size_t scan_bytes = 0;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events;  // kernel start/end per chunk
  std::size_t events_used = 0;
  void* order_block = nullptr;  // device: the ordering's keys, indices and scratch
  MuonOrderBuffers order;

  // The state block as per-muon columns.
  DeviceMuons muons() const {
    auto* f = reinterpret_cast<float*>(state);
    auto* i32 = reinterpret_cast<std::int32_t*>(state);
    return DeviceMuons{f + kX * cap,       f + kY * cap,      f + kZ * cap,     f + kPx * cap,
                       f + kPy * cap,      f + kPz * cap,     i32 + kPdg * cap, i32 + kStatus * cap,
                       i32 + kPlane * cap, i32 + kSteps * cap};
  }
};

// Device columns of the window objective, kept between passes (an optimiser
// calls it with the same muons again and again), in one block.
struct ObjectiveBuffers {
  void* block = nullptr;
  std::size_t bytes = 0;
  float *x = nullptr, *y = nullptr, *z = nullptr, *px = nullptr, *py = nullptr, *pz = nullptr;
  std::int32_t *pdg = nullptr, *status = nullptr, *steps = nullptr;
  double *weight = nullptr, *value = nullptr, *hard = nullptr, *grad = nullptr;
  double* partials = nullptr;
  unsigned long long* counter = nullptr;
  MuonOrderBuffers order;  // in `block`
};

struct GpuStreams::Impl {
  int device = 0;
  std::vector<StreamSlot> slots;
  cudaEvent_t origin = nullptr;  // the time origin of a call's kernel intervals
  bool warmed = false;           // the streamed pipeline's kernels loaded (prepare_streamed)
  ObjectiveBuffers objective;

  // At least `n` slots whose buffers hold `cap` muons (the calling thread's
  // device must be `device`).
  void ensure(int n, std::size_t cap);
  // A free pair of events of `s` (created when all are in use).
  std::pair<cudaEvent_t, cudaEvent_t> next_events(StreamSlot& s);
  // The objective's columns for n muons and np parameters (the calling
  // thread's device must be `device`).
  ObjectiveBuffers& objective_buffers(std::size_t n, std::size_t np);
  ~Impl();
};

}  // namespace fastmu::cuda
