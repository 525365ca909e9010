// The ladder sampler on the GPU: one thread per detailed history, running
// the same ladder_history (LadderHistory.hh) as the CPU threads.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/LadderHistory.hh"
#include "fastmu/physics/cuda/CudaLadderSampler.hh"
#include "fastmu/physics/cuda/DeviceTables.cuh"

namespace fastmu::cuda {
namespace {

constexpr int kMaxRungs = 16;

// What every history of a launch shares, passed by value.
struct LadderConstants {
  double radii[kMaxRungs];
  PhysicsOptions physics;
  int charge;
  int jobs;
  std::size_t histories;
};

__global__ void ladder_kernel(const MuonPhysicsView* tables, const MultipleScatteringData* msc,
                              const LadderJob* jobs, const std::size_t* history_offset,
                              const std::size_t* record_offset, LadderConstants c, float* p0,
                              float* loss, float* kick) {
  const std::size_t h = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (h >= c.histories) return;
  int lo = 0, hi = c.jobs;  // the job of history h: last offset <= h
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (history_offset[mid] <= h) lo = mid;
    else hi = mid;
  }
  const LadderJob job = jobs[lo];
  const std::size_t i = h - history_offset[lo];
  const std::size_t r = record_offset[lo] + i;
  HistoryRng rng(job.seed, job.first_id + i, RngStream::detailed_physics);
  ladder_history(*tables, *msc, c.physics, c.charge, job.p_lo, job.p_hi, c.radii, job.rungs, rng,
                 LadderOut{p0 + h, loss + r, kick + r, job.n});
}

}  // namespace

int engine_gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: clear the sticky error
    return 0;
  }
  return n;
}

void sample_ladder_gpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                       const LadderSpec& spec, const std::vector<LadderJob>& jobs,
                       LadderRecords& out) {
  if (spec.radii.size() > kMaxRungs) throw Error("ladder sampler: at most 16 steps on the GPU");
  LadderConstants c{};
  std::copy(spec.radii.begin(), spec.radii.end(), c.radii);
  c.physics = spec.physics;
  c.charge = spec.charge;
  c.jobs = static_cast<int>(jobs.size());
  c.histories = out.p0.size();

  const DeviceTables dev_tables(tables);
  DeviceBuffer b_view, b_msc, b_jobs, b_hoff, b_roff, b_p0, b_loss, b_kick;
  const MuonPhysicsView* d_view = upload(b_view, &dev_tables.view, 1);
  const MultipleScatteringData* d_msc = upload(b_msc, &msc, 1);
  const LadderJob* d_jobs = upload(b_jobs, jobs.data(), jobs.size());
  const std::size_t* d_hoff = upload(b_hoff, out.history_offset.data(), jobs.size());
  const std::size_t* d_roff = upload(b_roff, out.record_offset.data(), jobs.size());
  float* d_p0 = b_p0.alloc<float>(out.p0.size());
  float* d_loss = b_loss.alloc<float>(out.loss.size());
  float* d_kick = b_kick.alloc<float>(out.kick.size());

  // 128 threads: the history's double-precision state needs many registers.
  constexpr int kBlock = 128;
  const std::size_t blocks = (c.histories + kBlock - 1) / kBlock;
  ladder_kernel<<<static_cast<unsigned>(blocks), kBlock>>>(d_view, d_msc, d_jobs, d_hoff, d_roff, c,
                                                           d_p0, d_loss, d_kick);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaDeviceSynchronize());
  download(out.p0, d_p0);
  download(out.loss, d_loss);
  download(out.kick, d_kick);
}

}  // namespace fastmu::cuda
