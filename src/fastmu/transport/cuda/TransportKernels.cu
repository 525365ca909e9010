#include "fastmu/transport/cuda/TransportKernels.cuh"

#include <algorithm>
#include <type_traits>

#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::cuda {
namespace {

// A queue job on muons in device columns, the results written over them.
struct ColumnJob {
  DeviceMuons m;

  __device__ __forceinline__ MuonTrack load(const TransportViewData& view, std::size_t i,
                                            std::uint64_t id) const {
    return make_track(Vec3f{m.x[i], m.y[i], m.z[i]}, Vec3f{m.px[i], m.py[i], m.pz[i]}, m.pdg[i],
                      view.options, id);
  }
  template <class Env>
  __device__ __forceinline__ void step(const Env& view, MuonTrack& t, std::uint64_t id) const {
    transport_step(view, t, id);
  }
  __device__ __forceinline__ void store(std::size_t i, const MuonTrack& t) const {
    m.x[i] = t.r.x, m.y[i] = t.r.y, m.z[i] = t.r.z;
    m.px[i] = t.p.x, m.py[i] = t.p.y, m.pz[i] = t.p.z;
    m.status[i] = t.status;
    m.plane[i] = t.plane;
    m.steps[i] = t.steps;
  }
};

// A queue job on muons given as device rows (px,py,pz,x,y,z,pdg[,weight]),
// the results written to output columns. The muon's code is kept from its
// load to its store.
struct RowJob {
  const float* rows;
  int ncol;
  DeviceColumns out;
  std::uint64_t first_id;
  std::int32_t pdg = 0;

  __device__ __forceinline__ MuonTrack load(const TransportViewData& view, std::size_t i,
                                            std::uint64_t id) {
    const float* row = rows + i * static_cast<std::size_t>(ncol);
    pdg = static_cast<std::int32_t>(lrintf(row[6]));
    return make_track(Vec3f{row[3], row[4], row[5]}, Vec3f{row[0], row[1], row[2]}, pdg,
                      view.options, id);
  }
  template <class Env>
  __device__ __forceinline__ void step(const Env& view, MuonTrack& t, std::uint64_t id) const {
    transport_step(view, t, id);
  }
  __device__ __forceinline__ void store(std::size_t i, const MuonTrack& t) const {
    out.id[i] = static_cast<std::int64_t>(first_id + i);
    out.px[i] = t.p.x, out.py[i] = t.p.y, out.pz[i] = t.p.z;
    out.x[i] = t.r.x, out.y[i] = t.r.y, out.z[i] = t.r.z;
    out.pdg[i] = pdg;
    out.weight[i] = ncol > 7 ? rows[i * static_cast<std::size_t>(ncol) + 7] : 1.0f;
    out.status[i] = t.status;
    out.plane[i] = t.plane;
  }
};

template <unsigned kF>
__global__ void __launch_bounds__(kTransportBlock, kBlocksPerSm<kF>)
    transport_kernel(const __grid_constant__ TransportViewFor<kF> view, DeviceMuons m,
                     MuonQueue queue, std::uint64_t first_id) {
  ColumnJob job{m};
  run_queue(view, queue, first_id, job);
}

template <unsigned kF>
__global__ void __launch_bounds__(kTransportBlock, kBlocksPerSm<kF>)
    transport_rows_kernel(const __grid_constant__ TransportViewFor<kF> view, const float* rows,
                          MuonQueue queue, int ncol, DeviceColumns out, std::uint64_t first_id) {
  RowJob job{rows, ncol, out, first_id};
  run_queue(view, queue, first_id, job);
}

// Grid-stride so that every thread of a warp reaches the shuffles.
__global__ void tally_kernel(const std::int32_t* status, const std::int32_t* steps, std::size_t n,
                             std::int32_t* keep, SlotCounters* tally) {
  unsigned long long s = 0;
  unsigned c[kStatuses] = {};
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::int32_t st = status[i];
    s += static_cast<unsigned long long>(steps[i]);
#pragma unroll
    for (int k = 0; k < kStatuses; ++k) c[k] += st == k;
    if (keep) keep[i] = st == 0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_down_sync(0xffffffffu, s, o);
#pragma unroll
    for (int k = 0; k < kStatuses; ++k) c[k] += __shfl_down_sync(0xffffffffu, c[k], o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (s) atomicAdd(&tally->steps, s);
#pragma unroll
    for (int k = 0; k < kStatuses; ++k) {
      if (c[k]) atomicAdd(&tally->by_status[k], static_cast<unsigned long long>(c[k]));
    }
  }
}

// The last thread stores how many were kept.
__global__ void compact_kernel(const std::uint32_t* state, std::size_t cap,
                               const std::int32_t* keep, const std::int32_t* pos, std::size_t n,
                               std::uint32_t* compact, unsigned long long* count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == n - 1) *count = static_cast<unsigned long long>(pos[i] + keep[i]);
  if (!keep[i]) return;
  const std::size_t j = static_cast<std::size_t>(pos[i]);
#pragma unroll
  for (int r = 0; r < kOutputRows; ++r) compact[r * cap + j] = state[r * cap + i];
  compact[kIndexRow * cap + j] = static_cast<std::uint32_t>(i);
}

// Grid-stride; a thread stops at its first bad row (its rows come in
// increasing order).
__global__ void first_bad_row_kernel(const float* rows, std::size_t n, int ncol, double p_max,
                                     unsigned long long* first) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float* row = rows + i * static_cast<std::size_t>(ncol);
    float v[8];
#pragma unroll
    for (int k = 0; k < 7; ++k) v[k] = row[k];
    v[7] = ncol > 7 ? row[7] : 1.0f;
    if (!muon_row_ok<float>(v, p_max)) {
      atomicMin(first, static_cast<unsigned long long>(i));
      return;
    }
  }
}

// Blocks of 256 threads for n threads; a launch of no work gets one block.
unsigned blocks_of_256(std::size_t n) {
  return static_cast<unsigned>(std::max<std::size_t>((n + 255) / 256, 1));
}

}  // namespace

void launch_transport(const TransportView& view, const DeviceMuons& m, const MuonQueue& queue,
                      std::uint64_t first_id, cudaStream_t stream) {
  with_step_features(view.features, [&](auto features) {
    constexpr unsigned kF = decltype(features)::value;
    const unsigned grid = queue.n ? queue_grid(transport_kernel<kF>, kTransportBlock, queue.n) : 1u;
    transport_kernel<kF>
        <<<grid, kTransportBlock, 0, stream>>>(TransportViewFor<kF>(view), m, queue, first_id);
  });
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_transport_rows(const TransportView& view, const float* rows, int ncol,
                           const MuonQueue& queue, const DeviceColumns& out, std::uint64_t first_id,
                           cudaStream_t stream) {
  with_step_features(view.features, [&](auto features) {
    constexpr unsigned kF = decltype(features)::value;
    const unsigned grid = queue_grid(transport_rows_kernel<kF>, kTransportBlock, queue.n);
    transport_rows_kernel<kF><<<grid, kTransportBlock, 0, stream>>>(
        TransportViewFor<kF>(view), rows, queue, ncol, out, first_id);
  });
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_tally(const std::int32_t* status, const std::int32_t* steps, std::size_t n,
                  std::int32_t* keep, SlotCounters* counters, cudaStream_t stream) {
  const unsigned grid = std::min(blocks_of_256(n), 1024u);
  tally_kernel<<<grid, 256, 0, stream>>>(status, steps, n, keep, counters);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_compact(const std::uint32_t* state, std::size_t cap, const std::int32_t* keep,
                    const std::int32_t* pos, std::size_t n, std::uint32_t* compact,
                    SlotCounters* counters, cudaStream_t stream) {
  compact_kernel<<<blocks_of_256(n), 256, 0, stream>>>(state, cap, keep, pos, n, compact,
                                                       &counters->kept);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_first_bad_row(const float* rows, std::size_t n, int ncol, double p_max,
                          unsigned long long* first, cudaStream_t stream) {
  const unsigned grid = std::min(blocks_of_256(n), 4096u);
  first_bad_row_kernel<<<grid, 256, 0, stream>>>(rows, n, ncol, p_max, first);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

}  // namespace fastmu::cuda
