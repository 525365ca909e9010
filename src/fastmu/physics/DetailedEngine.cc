// Drivers of the detailed engine: the single-step sampler (sphere) and the
// slab transport, run in parallel over muons with per-muon random streams.
#include "fastmu/physics/DetailedEngine.hh"

#include <cmath>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/physics/EngineGeometry.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonStepper.hh"
#include "fastmu/physics/VolumeHistory.hh"
#ifdef FASTMU_HAVE_CUDA
#include "fastmu/physics/cuda/CudaHistories.hh"
#endif

namespace fastmu {
namespace {

constexpr std::size_t chunk_size = 64;

void check_common(double p_lo, double p_hi, int charge) {
  if (!(p_lo > 0) || !std::isfinite(p_lo)) throw Error("momentum must be positive and finite");
  if (!(p_hi >= p_lo) || !std::isfinite(p_hi))
    throw Error("maximum momentum must be >= the momentum");
  if (!(p_hi <= limits::kTopMomentum)) {
    throw Error("momentum " + std::to_string(p_hi) + " GeV/c is above the engine's top, " +
                std::to_string(limits::kTopMomentum) + " GeV/c");
  }
  if (charge != 1 && charge != -1) throw Error("charge must be -1 or 1");
}

template <class Volume>
std::vector<MuonSample> run(const Material& material, const Volume& volume, Vec3 field, double p_lo,
                            double p_hi, std::size_t n, int charge, std::uint64_t seed, int threads,
                            const PhysicsOptions& options, const ProgressCallback& progress,
                            std::uint64_t first_id, EngineBackend backend) {
  const auto tables = MuonPhysicsTables::get(material, options);
  const auto msc = MultipleScattering::get(material);
  const MuonStepper<Volume> stepper(tables->view(), msc->data(), volume, UniformField::from(field),
                                    options);
  std::vector<MuonSample> out(n);
  if (backend == EngineBackend::cuda) {
#ifdef FASTMU_HAVE_CUDA
    cuda::sample_histories_gpu(tables->view(), msc->data(), volume, UniformField::from(field),
                               options, charge, p_lo, p_hi, seed, first_id, out);
    if (progress) progress(n);
    return out;
#else
    throw Error("the detailed engine: this fastmu was built without CUDA");
#endif
  }
  parallel_for_chunks(n, threads, chunk_size, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      HistoryRng rng(seed, first_id + i, RngStream::detailed_physics);
      out[i] = volume_history(stepper, charge, p_lo, p_hi, rng);
    }
    if (progress) progress(end - begin);
  });
  return out;
}

}  // namespace

std::vector<MuonSample> sample_single_step(const Material& material, double p_lo, double p_hi,
                                           double step_m, std::size_t n, int charge,
                                           std::uint64_t seed, int threads,
                                           const PhysicsOptions& options,
                                           const ProgressCallback& progress, std::uint64_t first_id,
                                           EngineBackend backend) {
  check_common(p_lo, p_hi, charge);
  if (!(step_m > 0 && step_m <= limits::kMaxStep))
    throw Error("step " + std::to_string(step_m) + " m is not in (0, 1000] m");
  return run(material, SphereVolume{step_m}, Vec3{}, p_lo, p_hi, n, charge, seed, threads, options,
             progress, first_id, backend);
}

std::vector<MuonSample> transport_slab(const Material& material, double thickness_m, double p_lo,
                                       double p_hi, std::size_t n, int charge, Vec3 field_tesla,
                                       std::uint64_t seed, int threads,
                                       const PhysicsOptions& options,
                                       const ProgressCallback& progress, EngineBackend backend) {
  check_common(p_lo, p_hi, charge);
  if (!(thickness_m > 0 && thickness_m <= limits::kMaxThickness))
    throw Error("thickness " + std::to_string(thickness_m) + " m is not in (0, 1e5] m");
  return run(material, SlabVolume{thickness_m, 20.0}, field_tesla, p_lo, p_hi, n, charge, seed,
             threads, options, progress, 0, backend);
}

}  // namespace fastmu
