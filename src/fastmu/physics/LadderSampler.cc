#include "fastmu/physics/LadderSampler.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/LadderHistory.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#ifdef FASTMU_HAVE_CUDA
#include "fastmu/physics/cuda/CudaLadderSampler.hh"
#endif

namespace fastmu {

bool engine_gpu_available() {
#ifdef FASTMU_HAVE_CUDA
  static const bool available = cuda::engine_gpu_count() > 0;  // asked once per process
  return available;
#else
  return false;
#endif
}

const char* to_string(EngineBackend backend) {
  return backend == EngineBackend::cuda ? "cuda" : "cpu";
}

EngineBackend resolve_engine_backend(const std::string& name, const std::string& what) {
  if (name == "cpu") return EngineBackend::cpu;
  if (name == "auto") return engine_gpu_available() ? EngineBackend::cuda : EngineBackend::cpu;
  if (name == "cuda") {
#ifndef FASTMU_HAVE_CUDA
    throw Error(what + " cuda: this fastmu was built without CUDA");
#else
    if (!engine_gpu_available()) throw Error(what + " cuda: no usable GPU");
    return EngineBackend::cuda;
#endif
  }
  throw Error(what + " '" + name + "': expected cpu, cuda or auto");
}

void LadderRecords::lay_out(const std::vector<LadderJob>& jobs) {
  history_offset.resize(jobs.size());
  record_offset.resize(jobs.size());
  std::size_t h = 0, r = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    history_offset[j] = h;
    record_offset[j] = r;
    h += jobs[j].n;
    r += jobs[j].n * static_cast<std::size_t>(jobs[j].rungs);
  }
  p0.assign(h, 0.0f);
  loss.assign(r, 0.0f);
  kick.assign(r, 0.0f);
}

namespace {

void check(const LadderSpec& spec, const std::vector<LadderJob>& jobs) {
  if (spec.radii.empty()) throw Error("ladder sampler: no step lengths");
  for (std::size_t k = 0; k < spec.radii.size(); ++k) {
    if (!(spec.radii[k] > 0) || !std::isfinite(spec.radii[k]) ||
        (k > 0 && !(spec.radii[k] > spec.radii[k - 1]))) {
      throw Error("ladder sampler: step lengths must be positive, finite and ascending");
    }
  }
  if (spec.charge != 1 && spec.charge != -1) throw Error("ladder sampler: charge must be -1 or 1");
  for (const LadderJob& j : jobs) {
    if (!(j.p_lo > 0) || !(j.p_hi >= j.p_lo) || !std::isfinite(j.p_hi)) {
      throw Error("ladder sampler: momenta must be positive, finite and ascending");
    }
    if (j.rungs < 1 || j.rungs > static_cast<int>(spec.radii.size())) {
      throw Error("ladder sampler: a job asks for more steps than the ladder has");
    }
  }
}

void sample_on_cpu(const MuonPhysicsView& tables, const MultipleScatteringData& msc,
                   const LadderSpec& spec, const std::vector<LadderJob>& jobs, int threads,
                   LadderRecords& out) {
  // Histories of all jobs in one parallel loop: job j's history i is item
  // history_offset[j] + i (the jobs of a round differ a lot in size).
  const LadderParams lp{&tables, &msc, spec.physics, spec.charge, spec.radii.data()};
  const std::size_t total = out.p0.size();
  parallel_for_chunks(total, threads, 64, [&](std::size_t begin, std::size_t end) {
    std::size_t j = static_cast<std::size_t>(
        std::upper_bound(out.history_offset.begin(), out.history_offset.end(), begin) -
        out.history_offset.begin() - 1);
    for (std::size_t h = begin; h < end; ++h) {
      while (h >= out.history_offset[j] + jobs[j].n) ++j;
      const LadderJob& job = jobs[j];
      const std::size_t i = h - out.history_offset[j];
      const std::size_t r = out.record_offset[j] + i;
      HistoryRng rng(job.seed, job.first_id + i, RngStream::detailed_physics);
      ladder_history(lp, job.p_lo, job.p_hi, job.rungs, rng,
                     LadderOut{&out.p0[h], &out.loss[r], &out.kick[r], job.n});
    }
  });
}

}  // namespace

LadderRecords sample_ladder(const Material& material, const LadderSpec& spec,
                            const std::vector<LadderJob>& jobs, EngineBackend backend,
                            int threads) {
  LadderRecords out;
  out.lay_out(jobs);
  sample_ladder_into(material, spec, jobs, backend, threads, out);
  return out;
}

void sample_ladder_into(const Material& material, const LadderSpec& spec,
                        const std::vector<LadderJob>& jobs, EngineBackend backend, int threads,
                        LadderRecords& out) {
  check(spec, jobs);
  if (out.history_offset.size() != jobs.size()) {
    throw Error("ladder sampler: the records are not laid out for these jobs");
  }
  const auto tables = MuonPhysicsTables::get(material, spec.physics);
  const auto msc = MultipleScattering::get(material);
  if (out.p0.empty()) return;
  if (backend == EngineBackend::cuda) {
#ifdef FASTMU_HAVE_CUDA
    cuda::sample_ladder_gpu(tables->view(), msc->data(), spec, jobs, out);
    return;
#else
    throw Error("ladder sampler: this fastmu was built without CUDA");
#endif
  }
  sample_on_cpu(tables->view(), msc->data(), spec, jobs, threads, out);
}

}  // namespace fastmu
