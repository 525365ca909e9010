#include "fastmu/transport/Transport.hh"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"
#include "fastmu/transport/cuda/CudaSession.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"

namespace fastmu {

Backend parse_backend(const std::string& name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  throw Error("--backend: '" + name + "' is not one of auto, cpu, cuda");
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::automatic:
      return "auto";
    case Backend::cpu:
      return "cpu";
    case Backend::cuda:
      return "cuda";
  }
  return "?";
}

bool cuda_available() { return cuda::device_count() > 0; }

Backend resolve_backend(Backend requested) {
  if (requested == Backend::automatic) return cuda_available() ? Backend::cuda : Backend::cpu;
  if (requested == Backend::cuda && !cuda_available()) {
#ifdef FASTMU_HAVE_CUDA
    throw Error("--backend cuda: no CUDA device is visible");
#else
    throw Error("--backend cuda: this fastmu was built without CUDA");
#endif
  }
  return requested;
}

int resolve_gpu_count(int requested) {
  const int visible = cuda::device_count();
  if (requested < 0) throw Error(fmt::format("--gpus: {} is negative", requested));
  if (requested > visible) {
    throw Error(fmt::format("--gpus: {} requested, {} CUDA device(s) visible", requested, visible));
  }
  return requested == 0 ? visible : requested;
}

namespace {

// Counts of every muon of a host result (before any compaction).
void tally(const TransportResult& r, TransportStats& st) {
  st.steps = r.total_steps();
  st.by_status = {};
  for (auto s : r.status) {
    if (s >= 0 && s < kMuonStatusCount) ++st.by_status[static_cast<std::size_t>(s)];
  }
}

// Keeps the status-0 rows of a full host result, in order, with their ids.
void keep_at_plane(TransportResult& r) {
  const auto at_plane = static_cast<std::int32_t>(MuonStatus::at_plane);
  MuonBatch& m = r.muons;
  std::size_t k = 0;
  r.id.clear();
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r.status[i] != at_plane) continue;
    m.px[k] = m.px[i], m.py[k] = m.py[i], m.pz[k] = m.pz[i];
    m.x[k] = m.x[i], m.y[k] = m.y[i], m.z[k] = m.z[i];
    m.pdg[k] = m.pdg[i], m.weight[k] = m.weight[i];
    r.status[k] = r.status[i], r.plane[k] = r.plane[i], r.steps[k] = r.steps[i];
    r.id.push_back(static_cast<std::int64_t>(r.first_id + i));
    ++k;
  }
  m.resize(k);
  r.status.resize(k), r.plane.resize(k), r.steps.resize(k);
}

std::vector<int> first_devices(int gpus) {
  std::vector<int> devices(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) devices[static_cast<std::size_t>(g)] = g;
  return devices;
}

}  // namespace

// The lanes run the step compiled for the geometry's features, as the GPU
// does: fewer branches, the same muons up to float rounding (other fused
// multiply-adds).
TransportResult transport_cpu_view(const TransportView& view, const MuonBatch& in, int threads,
                                   std::uint64_t first_id) {
  return with_step_features(view.features, [&](auto features) {
    return transport_cpu(TransportViewFor<decltype(features)::value>(view), in, threads, first_id);
  });
}

TransportResult transport(const TransportParams& params, const MuonBatch& in, Backend backend,
                          int threads, std::uint64_t first_id, TransportStats* stats, int gpus,
                          ResultRows rows) {
  TransportResult result;
  transport_into(result, params, in, backend, threads, first_id, stats, gpus, rows);
  return result;
}

void prepare_transport(const TransportParams& params, Backend backend, std::size_t batch,
                       int gpus) {
  if (resolve_backend(backend) != Backend::cuda) return;
  const ResidentGpus resident(params, first_devices(resolve_gpu_count(gpus)));
  trace("prepare: inputs resident on the GPUs");
  cuda::prepare_streamed(resident.targets(), batch);
  trace("prepare: streams ready, kernels loaded");
}

void transport_into(TransportResult& result, const TransportParams& params, const MuonBatch& in,
                    Backend backend, int threads, std::uint64_t first_id, TransportStats* stats,
                    int gpus, ResultRows rows) {
  backend = resolve_backend(backend);
  if (backend == Backend::cuda) gpus = resolve_gpu_count(gpus);
  const auto t0 = std::chrono::steady_clock::now();
  TransportStats st;
  if (backend == Backend::cuda && in.size() > 0) {
    // Every GPU takes chunks as it frees up; a muon keeps its id (its random
    // numbers) whichever GPU takes it, so the result is the same for any count.
    const ResidentGpus resident(params, first_devices(gpus));
    cuda::StreamedOptions options;
    options.at_plane_only = rows == ResultRows::at_plane;
    cuda::StreamedStats ss;
    cuda::transport_streamed(resident.targets(), in, first_id, options, result, &ss);
    st.kernel_seconds = ss.kernel_s;
    st.steps = ss.steps;
    std::copy(ss.by_status.begin(), ss.by_status.end(), st.by_status.begin());
  } else if (backend == Backend::cuda) {
    result = TransportResult{};
    result.first_id = first_id;
  } else {
    const HostTransportView host(params);
    result = transport_cpu_view(host.view, in, threads, first_id);
    tally(result, st);
    if (rows == ResultRows::at_plane) keep_at_plane(result);
  }
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (backend != Backend::cuda) st.kernel_seconds = st.seconds;
  st.backend = backend;
  st.gpus = backend == Backend::cuda ? gpus : 0;
  st.muons = in.size();
  if (stats) *stats = st;
}

void transport_on_device(const TransportParams& params, const float* rows, std::size_t n, int ncol,
                         const cuda::DeviceColumns& out, std::uint64_t first_id, void* stream) {
  resolve_backend(Backend::cuda);  // a clear error without CUDA or a GPU
  const ResidentGpus resident(params, {cuda::current_device()});
  cuda::transport_device(*resident.targets()[0].view, rows, n, ncol, out, first_id, stream);
}

#ifndef FASTMU_HAVE_CUDA
// Stubs: this build has no CUDA backend.
namespace cuda {
int device_count() { return 0; }
void set_device(int) { throw Error("this fastmu was built without CUDA"); }
int current_device() { throw Error("this fastmu was built without CUDA"); }
struct GpuStreams::Impl {};
GpuStreams::GpuStreams(int device) : device_(device) {
  throw Error("this fastmu was built without CUDA");
}
GpuStreams::~GpuStreams() = default;
void transport_streamed(const std::vector<GpuTarget>&, const MuonBatch&, std::uint64_t,
                        const StreamedOptions&, TransportResult&, StreamedStats*) {
  throw Error("this fastmu was built without CUDA");
}
void prepare_streamed(const std::vector<GpuTarget>&, std::size_t, const StreamedOptions&) {
  throw Error("this fastmu was built without CUDA");
}
const char* device_name() { return ""; }
void start_devices(int) {}
void stop_devices(const std::vector<int>&) {}
DeviceArena::~DeviceArena() = default;
const void* DeviceArena::copy_bytes(const void*, std::size_t) {
  throw Error("this fastmu was built without CUDA");
}
TransportResult transport(const TransportView&, const MuonBatch&, std::uint64_t, std::size_t,
                          GpuStreams*) {
  throw Error("this fastmu was built without CUDA");
}
void transport_device(const TransportView&, const float*, std::size_t, int, const DeviceColumns&,
                      std::uint64_t, void*) {
  throw Error("this fastmu was built without CUDA");
}
std::size_t first_bad_row(const float*, std::size_t, int, double, void*) {
  throw Error("this fastmu was built without CUDA");
}
void copy_to_host(void*, const void*, std::size_t, void*) {
  throw Error("this fastmu was built without CUDA");
}
WindowObjectiveResult window_objective(const TransportView&, const FieldParameterView&,
                                       const ObjectiveMuonsIn&, const WindowObjectiveOptions&,
                                       GpuStreams&) {
  throw Error("this fastmu was built without CUDA");
}
}  // namespace cuda
#endif

}  // namespace fastmu
