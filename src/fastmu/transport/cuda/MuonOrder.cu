#include "fastmu/transport/cuda/MuonOrder.cuh"

#include <cub/device/device_radix_sort.cuh>

#include "fastmu/core/CudaCheck.cuh"

namespace fastmu::cuda {
namespace {

__global__ void muon_order_keys_kernel(const float* px, const float* py, const float* pz,
                                       const std::int32_t* pdg, std::size_t n, std::uint32_t* keys,
                                       std::uint32_t* index) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i] = muon_order_key(px[i], py[i], pz[i], pdg[i]);
  index[i] = static_cast<std::uint32_t>(i);
}

}  // namespace

std::size_t MuonOrderBuffers::scratch_for(std::size_t capacity) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<std::uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, static_cast<int>(capacity), 0,
                                  kOrderKeyBits);
  return bytes;
}

cudaError_t order_muons(const float* px, const float* py, const float* pz, const std::int32_t* pdg,
                        std::size_t n, MuonOrderBuffers& b, cudaStream_t stream,
                        const std::uint32_t** order) {
  const unsigned grid = static_cast<unsigned>((n + 255) / 256);
  muon_order_keys_kernel<<<grid, 256, 0, stream>>>(px, py, pz, pdg, n, b.keys[0], b.index[0]);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  cub::DoubleBuffer<std::uint32_t> keys(b.keys[0], b.keys[1]), index(b.index[0], b.index[1]);
  std::size_t bytes = b.scratch_bytes;
  err = cub::DeviceRadixSort::SortPairs(b.scratch, bytes, keys, index, static_cast<int>(n), 0,
                                        kOrderKeyBits, stream);
  *order = index.Current();
  return err;
}

void carve_order(MuonOrderBuffers& b, char* at, std::size_t column) {
  b.keys[0] = reinterpret_cast<std::uint32_t*>(at);
  b.keys[1] = reinterpret_cast<std::uint32_t*>(at + column);
  b.index[0] = reinterpret_cast<std::uint32_t*>(at + 2 * column);
  b.index[1] = reinterpret_cast<std::uint32_t*>(at + 3 * column);
  b.scratch = at + 4 * column;
}

void* allocate_order(MuonOrderBuffers& b, std::size_t cap) {
  const std::size_t column = (cap * 4 + 255) / 256 * 256;
  b.scratch_bytes = MuonOrderBuffers::scratch_for(cap);
  void* block = nullptr;
  FASTMU_CUDA_CHECK(cudaMalloc(&block, 4 * column + b.scratch_bytes));
  carve_order(b, static_cast<char*>(block), column);
  return block;
}

}  // namespace fastmu::cuda
