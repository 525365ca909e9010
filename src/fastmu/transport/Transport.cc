#include "fastmu/transport/Transport.hh"

#include <chrono>

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

TransportResult transport(const TransportParams& params, const MuonBatch& in, Backend backend,
                          int threads, std::uint64_t first_id, TransportStats* stats) {
  backend = resolve_backend(backend);
  const auto t0 = std::chrono::steady_clock::now();
  TransportResult result;
  double kernel_s = 0;
  if (backend == Backend::cuda) {
    cuda::DeviceArena arena;
    std::vector<MaterialTableView> table_views;
    const TransportView view = params.make_view(
        [&](const auto* p, std::size_t n) { return arena.copy(p, n); }, table_views);
    cuda::KernelTiming timing;
    result = cuda::transport(view, in, first_id, 0, &timing);
    kernel_s = timing.kernel_s;
  } else {
    const HostTransportView host(params);
    result = transport_cpu(host.view, in, threads, first_id);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) {
    stats->backend = backend;
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
const char* device_name() { return ""; }
DeviceArena::~DeviceArena() = default;
const void* DeviceArena::copy_bytes(const void*, std::size_t) {
  throw Error("this fastmu was built without CUDA");
}
TransportResult transport(const TransportView&, const MuonBatch&, std::uint64_t, std::size_t,
                          KernelTiming*) {
  throw Error("this fastmu was built without CUDA");
}
void transport_device(const TransportView&, const float*, std::size_t, int, const DeviceColumns&,
                      std::uint64_t, void*) {
  throw Error("this fastmu was built without CUDA");
}
}  // namespace cuda
#endif

}  // namespace fastmu
