// The CUDA backend, behind a plain C++ interface (no CUDA types), so that
// host code compiled without nvcc can call it. Implemented in
// CudaTransport.cu; without CUDA the functions are stubs (Transport.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/WindowObjective.hh"

namespace fastmu::cuda {

// Number of visible CUDA devices (0 when built without CUDA or none is visible).
int device_count();
// Makes device `index` the calling host thread's current device.
void set_device(int index);
// The calling host thread's current device.
int current_device();
// Name of device 0, for reports ("" without CUDA).
const char* device_name();
// Creates the primary contexts of devices 0..count-1 (a few hundred ms each),
// so that a caller can have it done on a thread of its own while it loads
// tables. Errors are left for the first real use to report.
void start_devices(int count);
// Destroys the CUDA context of each device in `devices` (cudaDeviceReset):
// every allocation on it is gone. For a process that has finished with its
// GPUs, so that the driver's teardown is not paid at exit.
void stop_devices(const std::vector<int>& devices);

// Device memory for the views: copies host arrays to the GPU and frees them
// all when destroyed. Every CUDA call is checked (fastmu::Error on failure).
class DeviceArena {
 public:
  DeviceArena() = default;
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  template <class T>
  const T* copy(const T* host, std::size_t n) {
    return static_cast<const T*>(copy_bytes(host, n * sizeof(T)));
  }

 private:
  const void* copy_bytes(const void* host, std::size_t bytes);
  std::vector<void*> blocks_;
};

// Streams, pinned host staging buffers, device scratch and events of one GPU,
// kept between calls (CudaSession owns one per GPU) so that a repeated call
// allocates nothing. Not thread-safe: one call at a time uses it.
class GpuLanes {
 public:
  explicit GpuLanes(int device);
  ~GpuLanes();
  GpuLanes(const GpuLanes&) = delete;
  GpuLanes& operator=(const GpuLanes&) = delete;
  int device() const { return device_; }
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  int device_;
  std::unique_ptr<Impl> impl_;
};

// One GPU taking part in a streamed transport: its device view and lanes.
struct GpuTarget {
  const TransportView* view = nullptr;  // device pointers, resident on lanes->device()
  GpuLanes* lanes = nullptr;
};

struct StreamedOptions {
  bool at_plane_only = false;  // compact on the device: keep status 0 rows only
  std::size_t chunk = 0;       // muons per chunk (0: sized from the batch and GPU count)
  int lanes_per_gpu = 0;       // streams (and host threads) per GPU (0: from the core count)
};

struct StreamedStats {
  double kernel_s = 0;                       // longest GPU's time with a transport kernel running
  std::uint64_t steps = 0;                   // muon-steps of every muon (kept or not)
  std::array<std::uint64_t, 5> by_status{};  // muons per final MuonStatus 0..4
};

// Transports `in` (ids first_id, first_id + 1, ...) on the given GPUs as a
// pipeline: the batch is cut into chunks that host threads (lanes_per_gpu per
// GPU, each with its own CUDA stream) take as they free up: pack into pinned memory,
// copy in, transport, tally, compact, copy out, unpack into `out`. Copies of
// one lane overlap the kernels of the others, and GPUs take chunks as they
// free up. `out` is set up by host threads while the first chunks run. The
// rows, and their order (id order), do not depend on chunking or GPU count.
void transport_streamed(const std::vector<GpuTarget>& gpus, const MuonBatch& in,
                        std::uint64_t first_id, const StreamedOptions& options,
                        TransportResult& out, StreamedStats* stats = nullptr);

// Creates the lanes (streams, pinned and device buffers) that a streamed
// transport of `batch` muons will use, ahead of it (e.g. while the input is
// read), so that the transport itself allocates nothing.
void prepare_streamed(const std::vector<GpuTarget>& gpus, std::size_t batch,
                      const StreamedOptions& options = {});

struct KernelTiming {
  double kernel_s = 0;    // GPU time in the transport kernels
  double transfer_s = 0;  // host <-> device copies of the muons
};

// Transports a batch with one GPU thread per muon; `view` holds device
// pointers (from a DeviceArena). Inputs larger than `max_chunk` muons (0: sized
// from free device memory) are streamed through the GPU in chunks.
TransportResult transport(const TransportView& view, const MuonBatch& in, std::uint64_t first_id,
                          std::size_t max_chunk = 0, KernelTiming* timing = nullptr);

// The same for rows [begin, end) of `in` only, written into the same rows of
// `out` (sized like `in`; row i has muon id out.first_id + i): one GPU's
// share of a batch split over several GPUs.
void transport_rows(const TransportView& view, const MuonBatch& in, std::size_t begin,
                    std::size_t end, TransportResult& out, std::size_t max_chunk = 0,
                    KernelTiming* timing = nullptr);

// Output columns in device memory, n elements each (interfaces.md's transport
// output: id, px, py, pz, x, y, z, pdg, weight, status, plane).
struct DeviceColumns {
  std::int64_t* id = nullptr;
  float *px = nullptr, *py = nullptr, *pz = nullptr;
  float *x = nullptr, *y = nullptr, *z = nullptr;
  std::int32_t* pdg = nullptr;
  float* weight = nullptr;
  std::int32_t *status = nullptr, *plane = nullptr;
};

// Transports muons that already live on the GPU: `rows` is a row-major (n, ncol)
// float32 array in device memory with ncol 7 (px,py,pz,x,y,z,pdg; weight 1) or
// 8 (+ weight). Results go to `out`; the muons never touch host memory. Runs
// on `stream` (a cudaStream_t; nullptr: the default stream) and returns when
// it is done. Muon i has id first_id + i, as in the host-batch entry point,
// so both give identical results for the same muons.
void transport_device(const TransportView& view, const float* rows, std::size_t n, int ncol,
                      const DeviceColumns& out, std::uint64_t first_id, void* stream = nullptr);

// The muons of a window-objective pass: a host batch, or `n` device rows
// (row-major float32 px,py,pz,x,y,z,pdg[,weight], `ncol` 7 or 8) that never
// touch host memory. The pass runs on `stream` (a cudaStream_t; nullptr:
// the default stream).
struct ObjectiveMuonsIn {
  const MuonBatch* host = nullptr;
  const float* rows = nullptr;
  std::size_t n = 0;
  int ncol = 8;
  void* stream = nullptr;
};

// The window objective (WindowObjective.hh) of `in` on the current GPU: one
// thread per muon carries its tangents; `view` and `fp` hold device
// pointers, `lanes` (the GPU's, kept between calls) the muons' columns. The
// totals are summed on the device in blocks (detail::objective_block_sum, the
// CPU's order); the per-muon arrays come back only with options.per_muon.
WindowObjectiveResult window_objective(const TransportView& view, const FieldParameterView& fp,
                                       const ObjectiveMuonsIn& in,
                                       const WindowObjectiveOptions& options, GpuLanes& lanes);

}  // namespace fastmu::cuda
