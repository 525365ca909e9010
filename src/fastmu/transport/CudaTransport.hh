// The CUDA backend, behind a plain C++ interface (no CUDA types), so that
// host code compiled without nvcc can call it. Implemented in
// CudaTransport.cu; without CUDA the functions are stubs (Transport.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/TransportView.hh"

namespace fastmu::cuda {

// Number of visible CUDA devices (0 when built without CUDA or none is visible).
int device_count();
// Makes device `index` the calling host thread's current device.
void set_device(int index);
// Name of device 0, for reports ("" without CUDA).
const char* device_name();

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

}  // namespace fastmu::cuda
