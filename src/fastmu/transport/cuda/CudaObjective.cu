// The window objective's driver on one GPU: the muons into the GPU's
// objective columns (copied from the host or unpacked from device rows),
// ordered, one pass of the objective kernel, the block partial sums on the
// device and their total on the host.
#include "fastmu/transport/cuda/CudaTransport.hh"

#include <string>
#include <utility>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/cuda/GpuStreams.cuh"
#include "fastmu/transport/cuda/MuonOrder.cuh"
#include "fastmu/transport/cuda/ObjectiveKernels.cuh"

namespace fastmu::cuda {
namespace {

// The muons of `in` into the columns of `o`, on `s`.
void load_muons(const ObjectiveMuonsIn& in, std::size_t n, ObjectiveBuffers& o, cudaStream_t s) {
  if (!in.host) {
    launch_unpack_rows(in.rows, n, in.ncol, o.x, o.y, o.z, o.px, o.py, o.pz, o.pdg, o.weight, s);
    return;
  }
  const MuonBatch& b = *in.host;
  const std::pair<float*, const float*> f[6] = {{o.x, b.x.data()},   {o.y, b.y.data()},
                                                {o.z, b.z.data()},   {o.px, b.px.data()},
                                                {o.py, b.py.data()}, {o.pz, b.pz.data()}};
  for (const auto& [dst, src] : f) {
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * 4, cudaMemcpyHostToDevice, s));
  }
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(o.pdg, b.pdg.data(), n * 4, cudaMemcpyHostToDevice, s));
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(o.weight, b.weight.data(), n * 8, cudaMemcpyHostToDevice, s));
}

// The order in which the pass takes the muons: host muons are ordered unless
// they are a beam of identical muons; device rows always (they are not looked
// at on the host). Null: id order.
const std::uint32_t* muon_order(const ObjectiveMuonsIn& in, std::size_t n, ObjectiveBuffers& o,
                                cudaStream_t s) {
  const std::uint32_t* turn = nullptr;
  const MuonBatch* hb = in.host;
  if (!hb || worth_ordering(hb->px.data(), hb->py.data(), hb->pz.data(), hb->pdg.data(), n)) {
    FASTMU_CUDA_CHECK(order_muons(o.px, o.py, o.pz, o.pdg, n, o.order, s, &turn));
  }
  return turn;
}

// The per-muon arrays of the pass into `r` (options.per_muon), on `s`.
void copy_per_muon(const ObjectiveBuffers& o, std::size_t n, std::size_t np,
                   WindowObjectiveResult& r, cudaStream_t s) {
  FASTMU_CUDA_CHECK(
      cudaMemcpyAsync(r.muon_value.data(), o.value, n * sizeof(double), cudaMemcpyDeviceToHost, s));
  if (np) {
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.muon_grad.data(), o.grad, n * np * sizeof(double),
                                      cudaMemcpyDeviceToHost, s));
  }
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.status.data(), o.status, n * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.muon_steps.data(), o.steps, n * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost, s));
}

}  // namespace

WindowObjectiveResult window_objective(const TransportView& view, const FieldParameterView& fp,
                                       const ObjectiveMuonsIn& in,
                                       const WindowObjectiveOptions& options, GpuStreams& streams) {
  const std::size_t n = in.host ? in.host->size() : in.n;
  if (!in.host && in.ncol != 7 && in.ncol != 8) {
    throw Error("objective: muons need 7 or 8 columns (px,py,pz,x,y,z,pdg[,weight]), got " +
                std::to_string(in.ncol));
  }
  WindowObjectiveResult r =
      detail::objective_result(n, options.gradient ? fp.n_params : 0, options.per_muon);
  const std::size_t np = static_cast<std::size_t>(r.n_params);
  if (n == 0) return r;
  const cudaStream_t s = static_cast<cudaStream_t>(in.stream);
  ObjectiveBuffers& o = streams.impl().objective_buffers(n, np);
  load_muons(in, n, o, s);
  const ObjectiveMuons m{o.x,      o.y,     o.z,    o.px,   o.py,     o.pz,   o.pdg,
                         o.weight, o.value, o.hard, o.grad, o.status, o.steps};
  const std::uint32_t* turn = muon_order(in, n, o, s);
  FASTMU_CUDA_CHECK(cudaMemsetAsync(o.counter, 0, 8, s));
  const ObjectivePass pass{options.first_id, options.plane, options.smoothing, options.max_tangent,
                           options.gradient};
  launch_objective(view, fp, m, MuonQueue{o.counter, n, turn}, pass, s);
  // The totals: block partial sums on the device, the blocks added on the host.
  const detail::ObjectiveColumns cols{o.value, o.hard, o.grad, o.steps, n, r.n_params};
  const std::size_t blocks = detail::objective_sum_blocks(n);
  const std::size_t nq = static_cast<std::size_t>(detail::objective_sum_quantities(r.n_params));
  launch_objective_sums(cols, blocks, o.partials, s);
  std::vector<double> partials(blocks * nq);
  FASTMU_CUDA_CHECK(
      cudaMemcpyAsync(partials.data(), o.partials, partials.size() * 8, cudaMemcpyDeviceToHost, s));
  if (options.per_muon) copy_per_muon(o, n, np, r, s);
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  detail::sum_objective_partials(r, partials.data(), blocks);
  return r;
}

}  // namespace fastmu::cuda
