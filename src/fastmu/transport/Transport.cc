#include "fastmu/transport/Transport.hh"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/transport/CpuTransport.hh"
#include "fastmu/transport/CudaTransport.hh"

namespace fastmu {

Backend parse_backend(const std::string& name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  throw Error("--backend: '" + name + "' is not one of auto, cpu, cuda");
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
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

// The CUDA backend on `gpus` GPUs: contiguous slices of the batch, one host
// thread per GPU, each GPU with its own copy of the views. A muon keeps its
// id (its row), hence its random numbers, whichever GPU takes it: the result
// is the same for any GPU count. Returns the longest GPU's kernel time.
double transport_cuda(const TransportParams& params, const MuonBatch& in, int gpus,
                      TransportResult& out) {
  const std::size_t n = in.size();
  gpus = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(gpus), std::max<std::size_t>(n, 1)));
  std::vector<double> kernel_s(static_cast<std::size_t>(gpus), 0.0);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(gpus));
  auto run_share = [&](int g) {
    try {
      cuda::set_device(g);
      cuda::DeviceArena arena;
      std::vector<MaterialTableView> table_views;
      const TransportView view = params.make_view(
          [&](const auto* p, std::size_t count) { return arena.copy(p, count); }, table_views);
      cuda::KernelTiming timing;
      const std::size_t begin = n * static_cast<std::size_t>(g) / static_cast<std::size_t>(gpus);
      const std::size_t end = n * static_cast<std::size_t>(g + 1) / static_cast<std::size_t>(gpus);
      cuda::transport_rows(view, in, begin, end, out, 0, &timing);
      kernel_s[static_cast<std::size_t>(g)] = timing.kernel_s;
    } catch (...) {
      errors[static_cast<std::size_t>(g)] = std::current_exception();
    }
  };
  if (gpus == 1) {
    run_share(0);
  } else {
    std::vector<std::thread> workers;
    for (int g = 0; g < gpus; ++g) workers.emplace_back(run_share, g);
    for (auto& w : workers) w.join();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return *std::max_element(kernel_s.begin(), kernel_s.end());
}

}  // namespace

TransportResult transport(const TransportParams& params, const MuonBatch& in, Backend backend,
                          int threads, std::uint64_t first_id, TransportStats* stats, int gpus) {
  backend = resolve_backend(backend);
  if (backend == Backend::cuda) gpus = resolve_gpu_count(gpus);
  const auto t0 = std::chrono::steady_clock::now();
  TransportResult result;
  double kernel_s = 0;
  if (backend == Backend::cuda) {
    const std::size_t n = in.size();
    result.first_id = first_id;
    result.muons.resize(n);  // kinematics written by the GPUs
    result.muons.pdg = in.pdg;
    result.muons.weight = in.weight;
    result.status.resize(n);
    result.plane.resize(n);
    result.steps.resize(n);
    kernel_s = transport_cuda(params, in, gpus, result);
  } else {
    const HostTransportView host(params);
    result = transport_cpu(host.view, in, threads, first_id);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) {
    stats->backend = backend;
    stats->gpus = backend == Backend::cuda ? gpus : 0;
    stats->seconds = seconds;
    stats->kernel_seconds = backend == Backend::cuda ? kernel_s : seconds;
    stats->steps = result.total_steps();
  }
  return result;
}

void transport_on_device(const TransportParams& params, const float* rows, std::size_t n,
                         int ncol, const cuda::DeviceColumns& out, std::uint64_t first_id,
                         void* stream) {
  resolve_backend(Backend::cuda);  // a clear error without CUDA or a GPU
  cuda::DeviceArena arena;
  std::vector<MaterialTableView> table_views;
  const TransportView view = params.make_view(
      [&](const auto* p, std::size_t count) { return arena.copy(p, count); }, table_views);
  cuda::transport_device(view, rows, n, ncol, out, first_id, stream);
}

#ifndef FASTMU_HAVE_CUDA
// Stubs: this build has no CUDA backend.
namespace cuda {
int device_count() { return 0; }
void set_device(int) { throw Error("this fastmu was built without CUDA"); }
const char* device_name() { return ""; }
DeviceArena::~DeviceArena() = default;
const void* DeviceArena::copy_bytes(const void*, std::size_t) {
  throw Error("this fastmu was built without CUDA");
}
TransportResult transport(const TransportView&, const MuonBatch&, std::uint64_t, std::size_t,
                          KernelTiming*) {
  throw Error("this fastmu was built without CUDA");
}
void transport_rows(const TransportView&, const MuonBatch&, std::size_t, std::size_t,
                    TransportResult&, std::size_t, KernelTiming*) {
  throw Error("this fastmu was built without CUDA");
}
void transport_device(const TransportView&, const float*, std::size_t, int, const DeviceColumns&,
                      std::uint64_t, void*) {
  throw Error("this fastmu was built without CUDA");
}
}  // namespace cuda
#endif

}  // namespace fastmu
