// The CUDA backend, behind a plain C++ interface (no CUDA types), so that
// host code compiled without nvcc can call it. Implemented by job in the .cu
// files of this folder (CudaDevices: GPUs and device memory, StreamedPipeline:
// host batches, CudaObjective: the window objective, DeviceRows: muons in
// device arrays; the kernels in TransportKernels and ObjectiveKernels);
// without CUDA the functions are stubs (Transport.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/gradient/WindowObjective.hh"

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

// The streams of one GPU, each with its pinned host staging buffers, device
// scratch and events (a stream slot), kept between calls (CudaSession owns
// one per GPU) so that a repeated call allocates nothing. Not thread-safe:
// one call at a time uses it.
class GpuStreams {
 public:
  explicit GpuStreams(int device);
  ~GpuStreams();
  GpuStreams(const GpuStreams&) = delete;
  GpuStreams& operator=(const GpuStreams&) = delete;
  int device() const { return device_; }
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  int device_;
  std::unique_ptr<Impl> impl_;
};

// One GPU taking part in a streamed transport: its device view and streams.
struct GpuTarget {
  const TransportView* view = nullptr;  // device pointers, resident on streams->device()
  GpuStreams* streams = nullptr;
};

struct StreamedOptions {
  bool at_plane_only = false;  // compact on the device: keep status 0 rows only
  std::size_t chunk = 0;       // muons per chunk (0: sized from the batch and GPU count)
  int streams_per_gpu = 0;     // streams (and host threads) per GPU (0: from the core count)
};

struct StreamedStats {
  double kernel_s = 0;      // longest GPU's time with a transport kernel running
  std::uint64_t steps = 0;  // muon-steps of every muon (kept or not)
  std::array<std::uint64_t, kMuonStatusCount> by_status{};  // muons per final MuonStatus
};

// Transports `in` (ids first_id, first_id + 1, ...) on the given GPUs as a
// pipeline: the batch is cut into chunks that host threads (streams_per_gpu
// per GPU, each serving its own CUDA stream) take as they free up: pack into
// pinned memory, copy in, transport, tally, compact, copy out, unpack into
// `out`. Copies on one stream overlap the kernels of the others, and GPUs
// take chunks as they free up. `out` is set up by host threads while the first chunks run. The
// rows, and their order (id order), do not depend on chunking or GPU count.
void transport_streamed(const std::vector<GpuTarget>& gpus, const MuonBatch& in,
                        std::uint64_t first_id, const StreamedOptions& options,
                        TransportResult& out, StreamedStats* stats = nullptr);

// Creates the streams (with their pinned and device buffers) that a streamed
// transport of `batch` muons will use, ahead of it (e.g. while the input is
// read), so that the transport itself allocates nothing.
void prepare_streamed(const std::vector<GpuTarget>& gpus, std::size_t batch,
                      const StreamedOptions& options = {});

// Transports a host batch on the current GPU through the streamed pipeline
// (transport_streamed, every row kept); `view` holds device pointers (from a
// DeviceArena or resident inputs). `chunk` > 0 cuts the batch into chunks of
// that size (0: sized from the batch). `streams`: the GPU's streams kept
// between calls (CudaSession's); null: streams of the call's own, created
// and freed in it.
TransportResult transport(const TransportView& view, const MuonBatch& in, std::uint64_t first_id,
                          std::size_t chunk = 0, GpuStreams* streams = nullptr);

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

// The lowest index of a row of `rows` (device memory, row-major (n, ncol)
// float32, ncol 7 with a weight of 1, or 8) that muon_row_ok (MuonRowCheck.hh)
// refuses, checked on the GPU; n when every row is fine. Runs on `stream` (a
// cudaStream_t; nullptr: the default stream) and returns when it is done.
std::size_t first_bad_row(const float* rows, std::size_t n, int ncol, double p_max,
                          void* stream = nullptr);

// Copies `bytes` from device memory to host memory on `stream` and waits.
void copy_to_host(void* host, const void* device, std::size_t bytes, void* stream = nullptr);

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
// pointers, `streams` (the GPU's, kept between calls) the muons' columns. The
// totals are summed on the device in blocks (detail::objective_block_sum, the
// CPU's order); the per-muon arrays come back only with options.per_muon.
WindowObjectiveResult window_objective(const TransportView& view, const FieldParameterView& fp,
                                       const ObjectiveMuonsIn& in,
                                       const WindowObjectiveOptions& options, GpuStreams& streams);

}  // namespace fastmu::cuda
