// The detailed engine's sphere and slab drivers on the GPU: one thread per
// history, running the same volume_history (VolumeHistory.hh) as the CPU.
#include <cuda_runtime.h>

#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/VolumeHistory.hh"
#include "fastmu/physics/cuda/CudaHistories.hh"
#include "fastmu/physics/cuda/DeviceTables.cuh"

namespace fastmu::cuda {
namespace {

// What every history of a launch shares, passed by value.
template <class Volume>
struct HistoryConstants {
  Volume volume;
  UniformField field;
  PhysicsOptions physics;
  int charge;
  double p_lo, p_hi;
  std::uint64_t seed, first_id;
  std::size_t n;
};

template <class Volume>
__global__ void history_kernel(const MuonPhysicsView* tables, const MultipleScatteringData* msc,
                               HistoryConstants<Volume> c, MuonSample* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= c.n) return;
  const MuonStepper<Volume> stepper(*tables, *msc, c.volume, c.field, c.physics);
  HistoryRng rng(c.seed, c.first_id + i, RngStream::detailed_physics);
  out[i] = volume_history(stepper, c.charge, c.p_lo, c.p_hi, rng);
}

template <class Volume>
void run(const MuonPhysicsView& tables, const MultipleScatteringData& msc, const Volume& volume,
         UniformField field, const PhysicsOptions& options, int charge, double p_lo, double p_hi,
         std::uint64_t seed, std::uint64_t first_id, std::vector<MuonSample>& out) {
  if (out.empty()) return;
  const HistoryConstants<Volume> c{volume, field, options,  charge,    p_lo,
                                   p_hi,   seed,  first_id, out.size()};
  const DeviceTables dev_tables(tables);
  DeviceBuffer b_view, b_msc, b_out;
  const MuonPhysicsView* d_view = upload(b_view, &dev_tables.view, 1);
  const MultipleScatteringData* d_msc = upload(b_msc, &msc, 1);
  MuonSample* d_out = b_out.alloc<MuonSample>(out.size());
  constexpr int kBlock = 128;  // the history's double-precision state needs many registers
  const std::size_t blocks = (out.size() + kBlock - 1) / kBlock;
  history_kernel<<<static_cast<unsigned>(blocks), kBlock>>>(d_view, d_msc, c, d_out);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaDeviceSynchronize());
  download(out, d_out);
}

}  // namespace

void sample_histories_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                          const SphereVolume& volume, UniformField field,
                          const PhysicsOptions& options, int charge, double p_lo, double p_hi,
                          std::uint64_t seed, std::uint64_t first_id,
                          std::vector<MuonSample>& out) {
  run(tables, msc, volume, field, options, charge, p_lo, p_hi, seed, first_id, out);
}

void sample_histories_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                          const SlabVolume& volume, UniformField field,
                          const PhysicsOptions& options, int charge, double p_lo, double p_hi,
                          std::uint64_t seed, std::uint64_t first_id,
                          std::vector<MuonSample>& out) {
  run(tables, msc, volume, field, options, charge, p_lo, p_hi, seed, first_id, out);
}

}  // namespace fastmu::cuda
