// The GPUs themselves: how many there are, which one a host thread uses,
// their contexts, and the device memory that holds a TransportParams' views
// (DeviceArena: params.make_view copies the host arrays through it).
#include "fastmu/transport/cuda/CudaTransport.hh"

#include <string>

#include <cuda_runtime.h>

#include "fastmu/core/CudaCheck.cuh"

namespace fastmu::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: clear the sticky error
    return 0;
  }
  return n;
}

void set_device(int index) { FASTMU_CUDA_CHECK(cudaSetDevice(index)); }

int current_device() {
  int d = 0;
  FASTMU_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

const char* device_name() {
  static std::string name;
  if (name.empty() && device_count() > 0) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) name = prop.name;
  }
  return name.c_str();
}

void start_devices(int count) {
  for (int d = 0; d < count; ++d) {
    if (cudaSetDevice(d) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) cudaGetLastError();
  }
}

void stop_devices(const std::vector<int>& devices) {
  for (int d : devices) {
    if (cudaSetDevice(d) != cudaSuccess || cudaDeviceReset() != cudaSuccess) cudaGetLastError();
  }
}

DeviceArena::~DeviceArena() {
  for (void* p : blocks_) cudaFree(p);
}

const void* DeviceArena::copy_bytes(const void* host, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* d = nullptr;
  FASTMU_CUDA_CHECK(cudaMalloc(&d, bytes));
  blocks_.push_back(d);
  FASTMU_CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

}  // namespace fastmu::cuda
