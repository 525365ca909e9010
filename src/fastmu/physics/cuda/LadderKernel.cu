// The ladder sampler on the GPU: the same ladder history (LadderHistory.hh)
// as the CPU threads, with the same random stream per history (HistoryRng
// keyed by the job's seed and the history's id), so the records do not
// depend on which thread runs a history or when. Each thread advances its
// history one physics step per turn and takes the next history from a
// counter when its own has ended: a ladder's histories range from a muon
// that stops in the first millimetre to thousands of steps through the
// largest sphere, and with one whole history per thread a warp ran as long
// as its longest history while its other threads idled (as in the detailed
// transport, transport/cuda/DetailedKernel.cu).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/core/Trace.hh"
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

// The launch's histories, handed out one at a time.
struct LadderQueue {
  unsigned long long* next;  // zero at launch
  std::size_t n;

  __device__ bool take(std::size_t& h) const {
    h = static_cast<std::size_t>(atomicAdd(next, 1ull));
    return h < n;
  }
};

// Threads per block: a history's double-precision state needs many registers.
constexpr int kLadderBlock = 128;
// Blocks per multiprocessor the registers must allow: 4 caps them at 128
// (~290 bytes of spills) where the kernel took 199 and ran 2. On one H200,
// two rounds alternating, the same tables bit for bit: StandardRock's
// ladder engine 7.1-7.3 -> 6.5-6.6 s, G4_WATER's 7.8-8.2 -> 7.2-8.0 s
// (3 blocks: 6.7-7.0 and 7.9 s).
constexpr int kLadderBlocksPerSm = 4;

// Where history h's records go, and its random stream.
struct LadderSlot {
  const LadderJob* job;
  std::size_t id;
  LadderOut out;
};

__device__ __forceinline__ LadderSlot ladder_slot(const LadderJob* jobs,
                                                  const std::size_t* history_offset,
                                                  const std::size_t* record_offset,
                                                  const LadderConstants& c, std::size_t h,
                                                  float* p0, float* loss, float* kick) {
  int lo = 0, hi = c.jobs;  // the job of history h: last offset <= h
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (history_offset[mid] <= h) lo = mid;
    else hi = mid;
  }
  const LadderJob* job = jobs + lo;
  const std::size_t i = h - history_offset[lo];
  const std::size_t r = record_offset[lo] + i;
  return LadderSlot{job, job->first_id + i, LadderOut{p0 + h, loss + r, kick + r, job->n}};
}

__global__ void __launch_bounds__(kLadderBlock, kLadderBlocksPerSm)
    ladder_kernel(const MuonPhysicsView* tables, const MultipleScatteringData* msc,
                  const LadderJob* jobs, const std::size_t* history_offset,
                  const std::size_t* record_offset, LadderConstants c, LadderQueue queue, float* p0,
                  float* loss, float* kick) {
  const LadderParams lp{tables, msc, c.physics, c.charge, c.radii};
  LadderHistoryState state;
  LadderSlot slot{};
  int rungs = 0;
  HistoryRng rng(0, 0, RngStream::detailed_physics);
  for (bool busy = false;;) {
    if (!busy) {
      std::size_t h = 0;
      if (!queue.take(h)) return;
      slot = ladder_slot(jobs, history_offset, record_offset, c, h, p0, loss, kick);
      const LadderJob job = *slot.job;
      rungs = job.rungs;
      rng = HistoryRng(job.seed, slot.id, RngStream::detailed_physics);
      state = begin_ladder_history(lp, job.p_lo, job.p_hi, rng, slot.out);
      busy = true;
    }
    busy = advance_ladder_history(lp, rungs, state, rng, slot.out);
  }
}

// Enough blocks to fill the current device (the kernel's occupancy), but no
// more than the histories need.
unsigned ladder_grid(std::size_t histories) {
  int device = 0, sms = 0, per_sm = 0;
  FASTMU_CUDA_CHECK(cudaGetDevice(&device));
  FASTMU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FASTMU_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ladder_kernel, kLadderBlock, 0));
  const std::size_t full = static_cast<std::size_t>(std::max(sms, 1)) * std::max(per_sm, 1);
  return static_cast<unsigned>(std::min(full, (histories + kLadderBlock - 1) / kLadderBlock));
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

  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const Clock::time_point t0 = Clock::now();
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

  DeviceBuffer b_next;
  auto* d_next = b_next.alloc<unsigned long long>(1);
  FASTMU_CUDA_CHECK(cudaMemset(d_next, 0, sizeof(*d_next)));
  const bool timed = trace_enabled();  // the set-up's end waited for only when traced
  if (timed) FASTMU_CUDA_CHECK(cudaDeviceSynchronize());
  const double upload_ms = ms_since(t0);
  const Clock::time_point t1 = Clock::now();
  ladder_kernel<<<ladder_grid(c.histories), kLadderBlock>>>(d_view, d_msc, d_jobs, d_hoff, d_roff,
                                                            c, LadderQueue{d_next, c.histories},
                                                            d_p0, d_loss, d_kick);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaDeviceSynchronize());
  const double kernel_ms = ms_since(t1);
  const Clock::time_point t2 = Clock::now();
  download(out.p0, d_p0);
  download(out.loss, d_loss);
  download(out.kick, d_kick);
  if (timed) {
    const double mb = 4e-6 * static_cast<double>(out.p0.size() + out.loss.size() + out.kick.size());
    char line[160];
    std::snprintf(line, sizeof line,
                  "ladder engine call: %zu histories, set-up %.1f ms, kernel %.1f ms, download "
                  "%.1f ms (%.1f MB)",
                  c.histories, upload_ms, kernel_ms, ms_since(t2), mb);
    trace(line);
  }
}

}  // namespace fastmu::cuda
