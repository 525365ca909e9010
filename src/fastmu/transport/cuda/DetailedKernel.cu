// The detailed transport on the GPU: the same history code as the CPU
// threads (DetailedHistory.hh), with the same random stream per muon
// (HistoryRng keyed by seed and muon id), so the results are the CPU's.
// Each thread advances its muon one turn (a physics step, or a segment's
// opening) at a time and takes the next muon from a queue when its own has
// ended: histories in the SHiP-like shield range from a few steps (muons that
// stop in the first metre) to thousands (those through 30 m of magnetised
// iron), and with one whole history per thread a warp ran as long as its
// longest muon while its other threads idled.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/cuda/DeviceTables.cuh"
#include "fastmu/transport/cuda/CudaDetailedTransport.hh"
#include "fastmu/transport/cuda/MuonQueue.cuh"

namespace fastmu::cuda {
namespace {

// The finished-muon count: kept in device memory by the kernel (device-scope
// atomics are exact everywhere; system-scope ones on host memory are not on
// every platform) and read by the host through a stream of its own, so that
// it reports progress while the one launch runs.
struct DoneCounter {
  DeviceBuffer buf;
  unsigned long long* device = nullptr;
  unsigned long long* host = nullptr;  // pinned
  cudaStream_t stream = nullptr;
  DoneCounter() {
    device = buf.alloc<unsigned long long>(1);
    FASTMU_CUDA_CHECK(cudaMemset(device, 0, sizeof(*device)));
    FASTMU_CUDA_CHECK(cudaMallocHost(&host, sizeof(*host)));
    FASTMU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  DoneCounter(const DoneCounter&) = delete;
  DoneCounter& operator=(const DoneCounter&) = delete;
  ~DoneCounter() {
    if (stream) cudaStreamDestroy(stream);
    if (host) cudaFreeHost(host);
  }
  std::size_t read() const {
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(host, device, sizeof(*host), cudaMemcpyDeviceToHost, stream));
    FASTMU_CUDA_CHECK(cudaStreamSynchronize(stream));
    return *host;
  }
};

struct Columns {
  const float *px, *py, *pz, *x, *y, *z;
  const std::int32_t* pdg;
  float *out_px, *out_py, *out_pz, *out_x, *out_y, *out_z;
  std::int32_t *status, *plane, *segments;
};

// Threads per block: a history's double-precision state needs many registers.
constexpr int kDetailedBlock = 128;

__global__ void __launch_bounds__(kDetailedBlock)
    detailed_kernel(const DetailedScene* scene, std::uint64_t seed, std::uint64_t first_id,
                    MuonQueue queue, Columns c, unsigned long long* done) {
  DetailedHistoryState h;
  HistoryRng rng(seed, first_id, RngStream::detailed_physics);
  std::size_t i = 0;
  for (bool busy = false;;) {
    if (!busy) {
      if (!queue.take(i)) return;
      h = begin_detailed_history(Vec3{c.x[i], c.y[i], c.z[i]}, Vec3{c.px[i], c.py[i], c.pz[i]},
                                 c.pdg[i]);
      rng = HistoryRng(seed, first_id + i, RngStream::detailed_physics);
      busy = true;
    }
    if (advance_detailed_history(*scene, h, rng)) continue;
    const DetailedEnd& e = h.end;
    c.out_px[i] = static_cast<float>(e.p.x);
    c.out_py[i] = static_cast<float>(e.p.y);
    c.out_pz[i] = static_cast<float>(e.p.z);
    c.out_x[i] = static_cast<float>(e.pos.x);
    c.out_y[i] = static_cast<float>(e.pos.y);
    c.out_z[i] = static_cast<float>(e.pos.z);
    c.status[i] = static_cast<std::int32_t>(e.status);
    c.plane[i] = e.plane;
    c.segments[i] = e.segments;
    atomicAdd(done, 1ull);
    busy = false;
  }
}

// Waits for the stream, calling `progress` with the muons finished since its
// last call (polled every 50 ms).
void wait_reporting(cudaStream_t stream, const DoneCounter& done,
                    const ProgressCallback& progress) {
  std::size_t reported = 0;
  for (;;) {
    const cudaError_t state = cudaStreamQuery(stream);
    if (state != cudaErrorNotReady) FASTMU_CUDA_CHECK(state);
    const std::size_t now = done.read();
    if (progress && now > reported) progress(now - reported);
    reported = std::max(reported, now);
    if (state == cudaSuccess) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

void transport_detailed_gpu(const DetailedScene* scene, std::uint64_t seed, const MuonBatch& in,
                            TransportResult& out, const ProgressCallback& progress) {
  const std::size_t n = in.size();
  DeviceBuffer b_in[7], b_out[9];
  Columns c{};
  c.px = upload(b_in[0], in.px), c.py = upload(b_in[1], in.py), c.pz = upload(b_in[2], in.pz);
  c.x = upload(b_in[3], in.x), c.y = upload(b_in[4], in.y), c.z = upload(b_in[5], in.z);
  c.pdg = upload(b_in[6], in.pdg);
  c.out_px = b_out[0].alloc<float>(n), c.out_py = b_out[1].alloc<float>(n);
  c.out_pz = b_out[2].alloc<float>(n), c.out_x = b_out[3].alloc<float>(n);
  c.out_y = b_out[4].alloc<float>(n), c.out_z = b_out[5].alloc<float>(n);
  c.status = b_out[6].alloc<std::int32_t>(n), c.plane = b_out[7].alloc<std::int32_t>(n);
  c.segments = b_out[8].alloc<std::int32_t>(n);

  DoneCounter done;
  cudaStream_t stream = nullptr;
  FASTMU_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    DeviceCounter next(stream);
    const unsigned grid = n ? queue_grid(detailed_kernel, kDetailedBlock, n) : 1u;
    detailed_kernel<<<grid, kDetailedBlock, 0, stream>>>(scene, seed, out.first_id,
                                                         MuonQueue{next.value, n}, c, done.device);
    FASTMU_CUDA_CHECK(cudaGetLastError());
    wait_reporting(stream, done, progress);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
  download(out.muons.px, c.out_px), download(out.muons.py, c.out_py);
  download(out.muons.pz, c.out_pz), download(out.muons.x, c.out_x);
  download(out.muons.y, c.out_y), download(out.muons.z, c.out_z);
  download(out.status, c.status), download(out.plane, c.plane), download(out.steps, c.segments);
}

}  // namespace fastmu::cuda
