// The fast transport's entry point: runs a batch of muons through a
// TransportParams on the CPU (all cores) or the GPU.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"

namespace fastmu {

enum class Backend { automatic, cpu, cuda };

// "auto" | "cpu" | "cuda"; throws fastmu::Error otherwise.
Backend parse_backend(const std::string& name);
const char* backend_name(Backend b);

// Whether this binary has the CUDA backend and a GPU is visible.
bool cuda_available();
// automatic -> cuda when available, else cpu; cuda without a GPU throws.
Backend resolve_backend(Backend requested);

// Which rows a transport returns: every muon, or only those that reached a
// sensitive plane (status 0, what `fastmu run` writes unless --all); the GPU
// compacts on the device, so the others never cross the bus.
enum class ResultRows { all, at_plane };

struct TransportStats {
  Backend backend = Backend::cpu;
  int gpus = 0;               // GPUs used (CUDA backend)
  double seconds = 0;         // wall time of the transport (views, copies, kernels)
  double kernel_seconds = 0;  // GPU: time with a transport kernel running; CPU: seconds
  std::uint64_t muons = 0;    // muons transported (all of them, kept or not)
  std::uint64_t steps = 0;    // muon-steps taken (all muons)
  std::array<std::uint64_t, kMuonStatusCount> by_status{};  // muons per final MuonStatus (all)
};

// Transports `in` (muon ids first_id, first_id + 1, ...) on `threads` CPU
// threads or `gpus` GPUs (0: all there are). The result does not depend on
// the thread count, the GPU count or how the muons are cut into batches; CPU
// and GPU agree up to float rounding (fused multiply-adds, SIMD vs scalar).
// With `rows` at_plane only status-0 rows come back, in id order, with their
// ids (TransportResult::id). On the GPU the inputs stay resident between
// calls with the same params (CudaSession.hh) and the batch streams through
// pinned buffers on several streams per GPU (cuda::transport_streamed).
// The CPU transport of a view (transport_cpu, CpuTransport.hh, compiled once
// here): callers that assemble their own view (a replaced field map) run the
// same instructions as transport(), so their results agree bit for bit.
TransportResult transport_cpu_view(const TransportView& view, const MuonBatch& in, int threads,
                                   std::uint64_t first_id = 0);

TransportResult transport(const TransportParams& params, const MuonBatch& in, Backend backend,
                          int threads = 0, std::uint64_t first_id = 0,
                          TransportStats* stats = nullptr, int gpus = 0,
                          ResultRows rows = ResultRows::all);

// The same, into `out`: its columns' memory is reused, so a caller that
// transports chunk after chunk into one result (a streaming run, an
// optimiser) pays no allocation or page faults after the first chunk.
void transport_into(TransportResult& out, const TransportParams& params, const MuonBatch& in,
                    Backend backend, int threads = 0, std::uint64_t first_id = 0,
                    TransportStats* stats = nullptr, int gpus = 0,
                    ResultRows rows = ResultRows::all);

// Does ahead of a transport what its first call would otherwise do: on the
// CUDA backend creates the GPUs' contexts, uploads `params` (kept resident,
// CudaSession.hh) and allocates the streams and buffers for batches of up to
// `batch` muons. Call it while the input is read; a no-op on the CPU.
void prepare_transport(const TransportParams& params, Backend backend, std::size_t batch,
                       int gpus = 0);

// The number of GPUs a run asking for `requested` (0: all) uses; throws
// fastmu::Error if more are asked for than are visible.
int resolve_gpu_count(int requested);

// Transports muons that live in GPU memory (row-major (n, ncol) float32,
// ncol 7 or 8: px,py,pz,x,y,z,pdg[,weight]) into device columns, without a
// host copy of the muons (cuda::transport_device). Throws fastmu::Error when
// this build has no CUDA or no GPU is visible.
void transport_on_device(const TransportParams& params, const float* rows, std::size_t n, int ncol,
                         const cuda::DeviceColumns& out, std::uint64_t first_id = 0,
                         void* stream = nullptr);

}  // namespace fastmu
