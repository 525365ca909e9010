#include "fastmu/transport/cuda/ObjectiveKernels.cuh"

#include "fastmu/transport/gradient/FieldTangents.hh"
#include "fastmu/transport/gradient/MuonAdjoint.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::cuda {
namespace {

// A queue job of the objective: the muon, with its tangents when kGradient,
// then its contribution written at its index. The tangents are the kernel's
// local (`tan`): held apart, the job stays small enough to live in registers.
template <class View, bool kGradient>
struct ObjectiveJob {
  const View& view;
  const FieldParameterView& fp;
  ObjectiveMuons m;
  std::int32_t plane;
  double smoothing, max_tangent;
  FieldTangents& tan;
  std::int32_t np = kGradient ? fp.n_params : 0;

  __device__ __forceinline__ MuonTrack load(const View& v, std::size_t i, std::uint64_t id) {
    const MuonTrack t = make_track(Vec3f{m.x[i], m.y[i], m.z[i]}, Vec3f{m.px[i], m.py[i], m.pz[i]},
                                   m.pdg[i], v.options, id);
    if (kGradient) tan.reset(fp);
    return t;
  }
  __device__ __forceinline__ void step(const View& v, MuonTrack& t, std::uint64_t id) {
    if (kGradient) {
      transport_step(v, t, id, tan);
    } else {
      transport_step(v, t, id);
    }
  }
  __device__ __forceinline__ void store(std::size_t i, const MuonTrack& t) const {
    double hard;
    double grad[kMaxFieldParameters];
    m.value[i] =
        detail::window_contribution(t, view.planes[plane], plane, smoothing, m.weight[i],
                                    kGradient ? &tan : nullptr, np, hard, grad, max_tangent);
    m.hard[i] = hard;
    for (std::int32_t k = 0; k < np; ++k) m.grad[i * static_cast<std::size_t>(np) + k] = grad[k];
    m.status[i] = t.status;
    m.steps[i] = t.steps;
  }
};

// The kernels are compiled for the feature sets with volume fields
// (with_field_step_features), as the forward kernels are for theirs. The
// value-only pass is compiled apart, without tangents, with the forward
// kernel's bound (kBlocksPerSm). With tangents: four blocks per SM (at most
// 128 registers; three or two blocks, measured on one H200, were 3-12 %
// slower).
template <unsigned kF, int kMinBlocks, bool kGradient>
__global__ void __launch_bounds__(kTransportBlock, kMinBlocks)
    objective_kernel(const __grid_constant__ TransportViewFor<kF> view,
                     const __grid_constant__ FieldParameterView fp, ObjectiveMuons m,
                     MuonQueue queue, std::uint64_t first_id, std::int32_t plane, double smoothing,
                     double max_tangent) {
  FieldTangents tan;  // reset at each muon's load
  using Job = ObjectiveJob<TransportViewFor<kF>, kGradient>;
  Job job{view, fp, m, plane, smoothing, max_tangent, tan};
  run_queue(view, queue, first_id, job);
}
constexpr int kGradientBlocksPerSm = 4;

// One thread per block and quantity.
__global__ void objective_sum_kernel(detail::ObjectiveColumns c, std::size_t blocks,
                                     double* partials) {
  const std::int32_t nq = detail::objective_sum_quantities(c.n_params);
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= blocks * static_cast<std::size_t>(nq)) return;
  const std::size_t b = t / static_cast<std::size_t>(nq);
  const auto q = static_cast<std::int32_t>(t % static_cast<std::size_t>(nq));
  partials[t] = detail::objective_block_sum(c, b, q);
}

__global__ void select_adjoint_kernel(ObjectiveMuons m, std::size_t n, double smoothing,
                                      std::uint32_t* list, std::int32_t* caps,
                                      unsigned long long* count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double w = m.weight[i];
  if (w == 0.0) return;
  // The value pass kept w sigmoid; its slope is w sigmoid (1 - sigmoid) / s.
  const double sig = m.value[i] / w;
  detail::WindowTerm t;
  t.slope = w * sig * (1.0 - sig) / smoothing;
  if (!(sig > 0.0) || !detail::needs_adjoint(t, w, smoothing)) return;
  const auto k = static_cast<std::size_t>(atomicAdd(count, 1ull));
  list[k] = static_cast<std::uint32_t>(i);
  caps[k] = m.steps[i] + kReplayMargin;
}

// One selected muon per turn (a counter hands them out, as MuonQueue): its
// replay with the record, then its backward pass.
template <unsigned kF>
__global__ void __launch_bounds__(kTransportBlock)
    adjoint_kernel(const __grid_constant__ TransportViewFor<kF> view,
                   const __grid_constant__ FieldParameterView fp, ObjectiveMuons m,
                   const std::uint32_t* list, const std::uint64_t* offsets, std::size_t k0,
                   std::size_t k1, MuonTrack* rec, unsigned long long* next,
                   unsigned long long* lost, ObjectivePass pass) {
  for (;;) {
    const std::size_t k = k0 + static_cast<std::size_t>(atomicAdd(next, 1ull));
    if (k >= k1) return;
    const std::size_t i = list[k];
    const std::uint64_t id = pass.first_id + i;
    MuonTrack t = make_track(Vec3f{m.x[i], m.y[i], m.z[i]}, Vec3f{m.px[i], m.py[i], m.pz[i]},
                             m.pdg[i], view.options, id);
    MuonTrack* r = rec + (offsets[k] - offsets[k0]);
    const auto cap = static_cast<std::int32_t>(offsets[k + 1] - offsets[k]);
    const std::int32_t n = record_muon(view, t, id, [&](std::int32_t s, const MuonTrack& at) {
      if (s < cap) r[s] = at;
    });
    if (n > cap) {
      atomicAdd(lost, 1ull);
      continue;
    }
    const detail::WindowTerm term =
        detail::window_term(t, view.planes[pass.plane], pass.plane, pass.smoothing, m.weight[i]);
    if (!detail::needs_adjoint(term, m.weight[i], pass.smoothing)) continue;
    detail::adjoint_term_gradient(view, fp, r, n, id, term, pass.max_tangent,
                                  m.grad + i * static_cast<std::size_t>(fp.n_params));
  }
}

__global__ void unpack_rows_kernel(const float* rows, std::size_t n, int ncol, float* x, float* y,
                                   float* z, float* px, float* py, float* pz, std::int32_t* pdg,
                                   double* weight) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* row = rows + i * static_cast<std::size_t>(ncol);
  px[i] = row[0], py[i] = row[1], pz[i] = row[2];
  x[i] = row[3], y[i] = row[4], z[i] = row[5];
  pdg[i] = static_cast<std::int32_t>(lrintf(row[6]));
  weight[i] = ncol > 7 ? static_cast<double>(row[7]) : 1.0;
}

template <class Kernel, class View>
void launch_pass(Kernel kernel, const View& view, const FieldParameterView& fp,
                 const ObjectiveMuons& m, const MuonQueue& queue, const ObjectivePass& pass,
                 cudaStream_t stream) {
  kernel<<<queue_grid(kernel, kTransportBlock, queue.n), kTransportBlock, 0, stream>>>(
      view, fp, m, queue, pass.first_id, pass.plane, pass.smoothing, pass.max_tangent);
}

}  // namespace

void launch_objective(const TransportView& view, const FieldParameterView& fp,
                      const ObjectiveMuons& m, const MuonQueue& queue, const ObjectivePass& pass,
                      cudaStream_t stream) {
  with_field_step_features(view.features, [&](auto features) {
    constexpr unsigned kF = decltype(features)::value;
    const TransportViewFor<kF> v(view);
    if (pass.gradient) {
      launch_pass(objective_kernel<kF, kGradientBlocksPerSm, true>, v, fp, m, queue, pass, stream);
    } else {
      launch_pass(objective_kernel<kF, kBlocksPerSm<kF>, false>, v, fp, m, queue, pass, stream);
    }
  });
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_objective_sums(const detail::ObjectiveColumns& c, std::size_t blocks, double* partials,
                           cudaStream_t stream) {
  const std::size_t nq = static_cast<std::size_t>(detail::objective_sum_quantities(c.n_params));
  objective_sum_kernel<<<static_cast<unsigned>((blocks * nq + 127) / 128), 128, 0, stream>>>(
      c, blocks, partials);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_adjoint_selection(const ObjectiveMuons& m, std::size_t n, double smoothing,
                              std::uint32_t* list, std::int32_t* caps, unsigned long long* count,
                              cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>((n + 255) / 256);
  select_adjoint_kernel<<<grid, 256, 0, stream>>>(m, n, smoothing, list, caps, count);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_adjoint(const TransportView& view, const FieldParameterView& fp,
                    const ObjectiveMuons& m, const std::uint32_t* list,
                    const std::uint64_t* offsets, std::size_t k0, std::size_t k1, MuonTrack* rec,
                    unsigned long long* next, unsigned long long* lost, const ObjectivePass& pass,
                    cudaStream_t stream) {
  if (k1 <= k0) return;
  with_field_step_features(view.features, [&](auto features) {
    constexpr unsigned kF = decltype(features)::value;
    const unsigned grid = queue_grid(adjoint_kernel<kF>, kTransportBlock, k1 - k0);
    adjoint_kernel<kF><<<grid, kTransportBlock, 0, stream>>>(
        TransportViewFor<kF>(view), fp, m, list, offsets, k0, k1, rec, next, lost, pass);
  });
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

void launch_unpack_rows(const float* rows, std::size_t n, int ncol, float* x, float* y, float* z,
                        float* px, float* py, float* pz, std::int32_t* pdg, double* weight,
                        cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>((n + 255) / 256);
  unpack_rows_kernel<<<grid, 256, 0, stream>>>(rows, n, ncol, x, y, z, px, py, pz, pdg, weight);
  FASTMU_CUDA_CHECK(cudaGetLastError());
}

}  // namespace fastmu::cuda
