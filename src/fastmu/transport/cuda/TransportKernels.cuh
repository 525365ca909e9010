// The forward transport kernels and the streamed pipeline's per-chunk
// kernels (tally, compaction), each behind a host launcher that picks its
// launch configuration. Defined in TransportKernels.cu, the one translation
// unit that compiles them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/cuda/MuonQueue.cuh"

namespace fastmu::cuda {

// Per-muon state in device memory, structure of arrays.
struct DeviceMuons {
  float *x, *y, *z, *px, *py, *pz;
  std::int32_t *pdg, *status, *plane, *steps;
};

// Final statuses a muon can have (MuonStatus 0..4).
inline constexpr int kStatuses = kMuonStatusCount;

// Rows of a stream slot's device state block (capacity C muons per row):
// the first kOutputRows are what goes back to the host; pdg only comes in.
// The host packs the kInputRows px..z and pdg in the same order.
enum StateRow { kPx, kPy, kPz, kX, kY, kZ, kStatus, kPlane, kSteps, kPdg, kStateRows };
inline constexpr int kInputRows = 7;
inline constexpr int kOutputRows = kSteps + 1;
// The compacted block: the output rows of the kept muons, then their index in
// the chunk.
inline constexpr int kIndexRow = kOutputRows, kCompactRows = kOutputRows + 1;

// A stream slot's counters, in device memory and pinned host memory: the
// tallies of every chunk of a call (steps and muons per status, of every
// muon, kept or not), the kept count of the last chunk and the queue
// counter of its launch.
struct SlotCounters {
  unsigned long long steps;
  unsigned long long by_status[kStatuses];
  unsigned long long kept;
  unsigned long long queue;
};
// The tallies: the leading fields, copied back once per call.
inline constexpr std::size_t kTallyBytes = offsetof(SlotCounters, kept);

// Transports the queue's muons held in `m` on `stream`, writing the results
// over them. A queue of no muons launches one block, which only loads the
// kernel.
void launch_transport(const TransportView& view, const DeviceMuons& m, const MuonQueue& queue,
                      std::uint64_t first_id, cudaStream_t stream);

// Transports the queue's muons given as device rows (px,py,pz,x,y,z,pdg[,weight],
// `ncol` 7 or 8) into the columns `out`.
void launch_transport_rows(const TransportView& view, const float* rows, int ncol,
                           const MuonQueue& queue, const DeviceColumns& out, std::uint64_t first_id,
                           cudaStream_t stream);

// Adds the steps and statuses of n muons to `counters` and, with `keep`, sets
// each muon's keep flag (status 0).
void launch_tally(const std::int32_t* status, const std::int32_t* steps, std::size_t n,
                  std::int32_t* keep, SlotCounters* counters, cudaStream_t stream);

// Moves the kept muons' output rows of `state` (capacity `cap`) to their place
// pos[i] (exclusive scan of keep) in `compact`, in chunk order, and stores
// how many were kept in counters->kept.
void launch_compact(const std::uint32_t* state, std::size_t cap, const std::int32_t* keep,
                    const std::int32_t* pos, std::size_t n, std::uint32_t* compact,
                    SlotCounters* counters, cudaStream_t stream);

// Sets *first to the lowest index of a row of `rows` (n rows of `ncol` 7 or 8
// floats) that muon_row_ok refuses, if below its value (atomicMin).
void launch_first_bad_row(const float* rows, std::size_t n, int ncol, double p_max,
                          unsigned long long* first, cudaStream_t stream);

}  // namespace fastmu::cuda
