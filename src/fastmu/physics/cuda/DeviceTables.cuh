// Device memory for the detailed engine on the GPU: buffers freed when they
// go out of scope (an exception included), and a material's physics tables
// copied to the GPU with a view of the copies.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace fastmu::cuda {

// Device memory freed when it goes out of scope (an exception included).
struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  template <class T>
  T* alloc(std::size_t n) {
    FASTMU_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T)));
    return static_cast<T*>(ptr);
  }
};

template <class T>
inline T* upload(DeviceBuffer& buf, const T* host, std::size_t n) {
  T* d = buf.alloc<T>(n);
  if (n) FASTMU_CUDA_CHECK(cudaMemcpy(d, host, n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// The tables' arrays in device memory and a view of them.
struct DeviceTables {
  DeviceBuffer arrays[3 + 2 * kNumDiscrete];
  MuonPhysicsView view;

  explicit DeviceTables(const MuonPhysicsView& host) : view(host) {
    const std::size_t n = static_cast<std::size_t>(host.n);
    const std::size_t cdf = n * static_cast<std::size_t>(host.n_bins + 1);
    view.dedx = upload(arrays[0], host.dedx, n);
    view.log_range = upload(arrays[1], host.log_range, n);
    view.range_floor = upload(arrays[2], host.range_floor, n);
    for (int q = 0; q < kNumDiscrete; ++q) {
      view.xs[q] = host.xs[q] ? upload(arrays[3 + q], host.xs[q], n) : nullptr;
      view.cdf[q] = host.cdf[q] ? upload(arrays[3 + kNumDiscrete + q], host.cdf[q], cdf) : nullptr;
    }
  }
};

template <class T>
inline T* upload(DeviceBuffer& buf, const std::vector<T>& host) {
  return upload(buf, host.data(), host.size());
}

template <class T>
inline void download(std::vector<T>& host, const T* device) {
  if (!host.empty())
    FASTMU_CUDA_CHECK(
        cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

}  // namespace fastmu::cuda
