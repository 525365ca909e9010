// The entries for muons that already live on the GPU as row-major float32
// device arrays (the Python bindings' device path): their transport, and
// the check of their rows, neither touching host memory with the muons.
#include "fastmu/transport/cuda/CudaTransport.hh"

#include <string>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/cuda/MuonQueue.cuh"
#include "fastmu/transport/cuda/TransportKernels.cuh"

namespace fastmu::cuda {
namespace {

void check_columns(int ncol) {
  if (ncol != 7 && ncol != 8) {
    throw Error("transport: muons need 7 or 8 columns (px,py,pz,x,y,z,pdg[,weight]), got " +
                std::to_string(ncol));
  }
}

}  // namespace

void transport_device(const TransportView& view, const float* rows, std::size_t n, int ncol,
                      const DeviceColumns& out, std::uint64_t first_id, void* stream) {
  check_columns(ncol);
  if (n == 0) return;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  DeviceCounter counter(s);
  launch_transport_rows(view, rows, ncol, MuonQueue{counter.value, n}, out, first_id, s);
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
}

std::size_t first_bad_row(const float* rows, std::size_t n, int ncol, double p_max, void* stream) {
  check_columns(ncol);
  if (n == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  // All bits set: above any row index, so that atomicMin keeps the lowest.
  DeviceCounter first(s);
  FASTMU_CUDA_CHECK(cudaMemsetAsync(first.value, 0xff, 8, s));
  launch_first_bad_row(rows, n, ncol, p_max, first.value, s);
  unsigned long long found = 0;
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(&found, first.value, 8, cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  return found < n ? static_cast<std::size_t>(found) : n;
}

void copy_to_host(void* host, const void* device, std::size_t bytes, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace fastmu::cuda
