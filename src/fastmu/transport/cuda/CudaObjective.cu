// The window objective's driver on one GPU: the muons into the GPU's
// objective columns (copied from the host or unpacked from device rows),
// ordered, one pass of the objective kernel, the block partial sums on the
// device and their total on the host.
#include "fastmu/transport/cuda/CudaTransport.hh"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/core/Error.hh"
#include "fastmu/physics/cuda/DeviceTables.cuh"
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

// Device memory the records may take: `requested`, or half of what is
// free, at most 8 GiB.
std::size_t record_budget(std::size_t requested) {
  if (requested > 0) return requested;
  std::size_t free = 0, total = 0;
  FASTMU_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return std::min<std::size_t>(free / 2, std::size_t{8} << 30);
}

// The adjoint after a value pass: the muons that need it selected on the
// device, their records laid out on the host in chunks that fit the budget,
// each chunk replayed and run backwards into m.grad. Returns the muons
// selected; `lost` those whose replay outgrew their room.
std::size_t run_adjoint(const TransportView& view, const FieldParameterView& fp,
                        const ObjectiveMuons& m, std::size_t n, const ObjectivePass& pass,
                        std::size_t record_bytes, std::uint64_t& lost, cudaStream_t s) {
  DeviceBuffer list_buf, caps_buf, counters_buf;
  auto* list = list_buf.alloc<std::uint32_t>(n);
  auto* caps = caps_buf.alloc<std::int32_t>(n);
  auto* counters = counters_buf.alloc<unsigned long long>(3);  // selected, next, lost
  FASTMU_CUDA_CHECK(cudaMemsetAsync(counters, 0, 3 * 8, s));
  launch_adjoint_selection(m, n, pass.smoothing, list, caps, counters, s);
  unsigned long long selected = 0;
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(&selected, counters, 8, cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<std::int32_t> room(selected);
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(room.data(), caps, selected * 4, cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<std::uint64_t> offsets(selected + 1, 0);
  for (std::size_t k = 0; k < selected; ++k) offsets[k + 1] = offsets[k] + room[k];
  // Chunks of consecutive turns whose records fit the budget (each at
  // least one muon).
  const std::size_t budget =
      std::max<std::size_t>(record_budget(record_bytes) / sizeof(MuonTrack), 1);
  std::vector<std::size_t> cuts{0};
  while (cuts.back() < selected) {
    std::size_t k = cuts.back() + 1;
    while (k < selected && offsets[k + 1] - offsets[cuts.back()] <= budget) ++k;
    cuts.push_back(k);
  }
  std::uint64_t largest = 0;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    largest = std::max(largest, offsets[cuts[c + 1]] - offsets[cuts[c]]);
  }
  DeviceBuffer offsets_buf, rec_buf;
  const std::uint64_t* d_offsets = upload(offsets_buf, offsets.data(), offsets.size());
  MuonTrack* rec = rec_buf.alloc<MuonTrack>(largest);
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    FASTMU_CUDA_CHECK(cudaMemsetAsync(counters + 1, 0, 8, s));
    launch_adjoint(view, fp, m, list, d_offsets, cuts[c], cuts[c + 1], rec, counters + 1,
                   counters + 2, pass, s);
  }
  unsigned long long lost_d = 0;
  FASTMU_CUDA_CHECK(cudaMemcpyAsync(&lost_d, counters + 2, 8, cudaMemcpyDeviceToHost, s));
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  lost = lost_d;
  return selected;
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
  const bool adjoint = options.gradient && options.method == GradientMethod::adjoint;
  const ObjectivePass pass{options.first_id, options.plane, options.smoothing, options.max_tangent,
                           options.gradient && !adjoint};
  launch_objective(view, fp, m, MuonQueue{o.counter, n, turn}, pass, s);
  if (adjoint) {
    FASTMU_CUDA_CHECK(cudaMemsetAsync(o.grad, 0, n * np * sizeof(double), s));
    r.adjoint_muons = run_adjoint(view, fp, m, n, pass, options.record_bytes, r.adjoint_lost, s);
  }
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
