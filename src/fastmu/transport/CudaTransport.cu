// The CUDA backend: each thread runs the same transport_step as the CPU
// (StepPhysics.hh) on one muon at a time, taking the next muon of its launch
// from a counter as soon as its muon is done (see MuonQueue); the muon's
// state lives in registers, and the views (geometry, field map, tables) in
// global memory.
#include "fastmu/transport/CudaTransport.hh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include "fastmu/core/Error.hh"
#include "fastmu/transport/MuonOrder.cuh"
#include "fastmu/transport/ResultColumns.hh"
#include "fastmu/transport/StepPhysics.hh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/WindowObjective.hh"

namespace fastmu::cuda {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(err));
  }
}
#define FASTMU_CUDA_CHECK(call) check((call), #call)

// Per-muon state in device memory, structure of arrays.
struct DeviceMuons {
  float *x, *y, *z, *px, *py, *pz;
  std::int32_t *pdg, *status, *plane, *steps;
};

// Muons handed out one at a time: a thread whose muon is done takes the
// launch's next one, so the lanes of a warp stay busy until the queue is
// empty. With one thread per muon a warp runs as long as its slowest muon and
// its other lanes idle: in the SHiP-like shield, with step lengths that vary
// by 50x between iron and air, 55 % of the lanes' time (step counts of 4 000
// muons in warps of 32). Random numbers are keyed by muon id and step, so
// the order in which threads take muons changes nothing in the results:
// `order` (MuonOrder.cuh) hands them out grouped by charge and momentum.
struct MuonQueue {
  unsigned long long* next;  // device counter, zero at launch
  std::size_t n;
  const std::uint32_t* order = nullptr;  // muon of each turn (null: id order)

  __device__ bool take(std::size_t& i) const {
    const auto k = static_cast<std::size_t>(atomicAdd(next, 1ull));
    if (k >= n) return false;
    i = order ? order[k] : k;
    return true;
  }
};

constexpr int kAliveStatus = static_cast<int>(MuonStatus::alive);

// Enough blocks of `block` threads to fill the current device with `kernel`
// (its occupancy), but no more than the muons need.
template <class Kernel>
unsigned queue_grid(Kernel kernel, int block, std::size_t n) {
  int device = 0, sms = 0, per_sm = 0;
  FASTMU_CUDA_CHECK(cudaGetDevice(&device));
  FASTMU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FASTMU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  const std::size_t full = static_cast<std::size_t>(std::max(sms, 1)) * std::max(per_sm, 1);
  return static_cast<unsigned>(std::min(full, (n + block - 1) / block));
}

// An 8-byte queue counter on `stream`, zeroed; freed (stream-ordered) with it.
struct QueueCounter {
  cudaStream_t stream;
  unsigned long long* next = nullptr;
  explicit QueueCounter(cudaStream_t s) : stream(s) {
    FASTMU_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&next), 8, stream));
    FASTMU_CUDA_CHECK(cudaMemsetAsync(next, 0, 8, stream));
  }
  ~QueueCounter() { cudaFreeAsync(next, stream); }
  QueueCounter(const QueueCounter&) = delete;
  QueueCounter& operator=(const QueueCounter&) = delete;
};

constexpr int kTransportBlock = 128;
// At least five blocks of the step loop per SM (at most 102 registers per
// thread): with the boundary search inlined the compiler would take ~120, and
// four blocks per SM cost the iron block 10 % (one H200); the few registers
// it spills are those of the rare boundary search.
constexpr int kTransportBlocksPerSm = 5;

__global__ void __launch_bounds__(kTransportBlock, kTransportBlocksPerSm)
    transport_kernel(const __grid_constant__ TransportView view, DeviceMuons m, MuonQueue queue,
                     std::uint64_t first_id) {
  MuonTrack t;
  std::size_t i = 0;
  for (bool busy = false;;) {
    if (!busy) {
      if (!queue.take(i)) return;
      t = MuonTrack{};
      t.r = Vec3f{m.x[i], m.y[i], m.z[i]};
      t.p = Vec3f{m.px[i], m.py[i], m.pz[i]};
      t.charge = charge_from_pdg(m.pdg[i]);
      busy = true;
    }
    transport_step(view, t, first_id + i);
    if (t.status == kAliveStatus) continue;
    m.x[i] = t.r.x, m.y[i] = t.r.y, m.z[i] = t.r.z;
    m.px[i] = t.p.x, m.py[i] = t.p.y, m.pz[i] = t.p.z;
    m.status[i] = t.status;
    m.plane[i] = t.plane;
    m.steps[i] = t.steps;
    busy = false;
  }
}

// Same as transport_kernel, for muons given as device rows (px,py,pz,x,y,z,pdg[,weight]).
__global__ void __launch_bounds__(kTransportBlock, kTransportBlocksPerSm)
    transport_rows_kernel(const __grid_constant__ TransportView view, const float* rows,
                          MuonQueue queue, int ncol, DeviceColumns out, std::uint64_t first_id) {
  MuonTrack t;
  std::size_t i = 0;
  std::int32_t pdg = 0;
  for (bool busy = false;;) {
    if (!busy) {
      if (!queue.take(i)) return;
      const float* row = rows + i * static_cast<std::size_t>(ncol);
      pdg = static_cast<std::int32_t>(lrintf(row[6]));
      t = MuonTrack{};
      t.p = Vec3f{row[0], row[1], row[2]};
      t.r = Vec3f{row[3], row[4], row[5]};
      t.charge = charge_from_pdg(pdg);
      busy = true;
    }
    transport_step(view, t, first_id + i);
    if (t.status == kAliveStatus) continue;
    out.id[i] = static_cast<std::int64_t>(first_id + i);
    out.px[i] = t.p.x, out.py[i] = t.p.y, out.pz[i] = t.p.z;
    out.x[i] = t.r.x, out.y[i] = t.r.y, out.z[i] = t.r.z;
    out.pdg[i] = pdg;
    out.weight[i] = ncol > 7 ? rows[i * static_cast<std::size_t>(ncol) + 7] : 1.0f;
    out.status[i] = t.status;
    out.plane[i] = t.plane;
    busy = false;
  }
}

// The window objective's per-muon part (WindowObjective.hh): the muon with
// its tangents, then its contribution.
struct ObjectiveMuons {
  const float *x, *y, *z, *px, *py, *pz;
  const std::int32_t* pdg;
  const double* weight;
  double *value, *hard, *grad;
  std::int32_t *status, *steps;
};

// The value-only pass is compiled apart, without tangents, with the forward
// kernel's bound. With tangents: four blocks per SM (at most 128 registers;
// three or two blocks, measured on one H200, were 3-12 % slower).
template <int kMinBlocks, bool kGradient>
__global__ void __launch_bounds__(kTransportBlock, kMinBlocks)
    objective_kernel(const __grid_constant__ TransportView view,
                     const __grid_constant__ FieldParameterView fp, ObjectiveMuons m,
                     MuonQueue queue, std::uint64_t first_id, std::int32_t plane, double smoothing,
                     double max_tangent) {
  constexpr bool gradient = kGradient;
  MuonTrack t;
  FieldTangents tan;
  const std::int32_t np = gradient ? fp.n_params : 0;
  std::size_t i = 0;
  for (bool busy = false;;) {
    if (!busy) {
      if (!queue.take(i)) return;
      t = MuonTrack{};
      t.r = Vec3f{m.x[i], m.y[i], m.z[i]};
      t.p = Vec3f{m.px[i], m.py[i], m.pz[i]};
      t.charge = charge_from_pdg(m.pdg[i]);
      if (gradient) tan.reset(fp);
      busy = true;
    }
    if (gradient) {
      transport_step(view, t, first_id + i, tan);
    } else {
      transport_step(view, t, first_id + i);
    }
    if (t.status == kAliveStatus) continue;
    double hard;
    double grad[kMaxFieldParameters];
    m.value[i] =
        detail::window_contribution(t, view.planes[plane], plane, smoothing, m.weight[i],
                                    gradient ? &tan : nullptr, np, hard, grad, max_tangent);
    m.hard[i] = hard;
    for (std::int32_t k = 0; k < np; ++k) m.grad[i * static_cast<std::size_t>(np) + k] = grad[k];
    m.status[i] = t.status;
    m.steps[i] = t.steps;
    busy = false;
  }
}

// The block partial sums of an objective pass (detail::objective_block_sum, the
// same order as on the CPU): one thread per block and quantity.
__global__ void objective_sum_kernel(detail::ObjectiveColumns c, std::size_t blocks,
                                     double* partials) {
  const std::int32_t nq = detail::objective_sum_quantities(c.n_params);
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= blocks * static_cast<std::size_t>(nq)) return;
  const std::size_t b = t / static_cast<std::size_t>(nq);
  const auto q = static_cast<std::int32_t>(t % static_cast<std::size_t>(nq));
  partials[t] = detail::objective_block_sum(c, b, q);
}

// Device rows (px,py,pz,x,y,z,pdg[,weight]) into the objective's columns.
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

// Tally of a chunk (steps and muons per status, of every muon, kept or not)
// and, when compacting, the keep flag of each muon (status 0). Grid-stride so
// that every thread of a warp reaches the shuffles.
__global__ void tally_kernel(const std::int32_t* status, const std::int32_t* steps, std::size_t n,
                             std::int32_t* keep, unsigned long long* tally) {
  unsigned long long s = 0;
  unsigned c[5] = {0, 0, 0, 0, 0};
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::int32_t st = status[i];
    s += static_cast<unsigned long long>(steps[i]);
#pragma unroll
    for (int k = 0; k < 5; ++k) c[k] += st == k;
    if (keep) keep[i] = st == 0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_down_sync(0xffffffffu, s, o);
#pragma unroll
    for (int k = 0; k < 5; ++k) c[k] += __shfl_down_sync(0xffffffffu, c[k], o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (s) atomicAdd(tally, s);
#pragma unroll
    for (int k = 0; k < 5; ++k) {
      if (c[k]) atomicAdd(tally + 1 + k, static_cast<unsigned long long>(c[k]));
    }
  }
}

// Rows of a lane's device state block (capacity C muons per row): the first
// nine are what goes back to the host; pdg only comes in.
enum StateRow { kPx, kPy, kPz, kX, kY, kZ, kStatus, kPlane, kSteps, kPdg, kStateRows };
// The compacted block: the nine output rows of the kept muons, then their
// index in the chunk.
constexpr int kIndexRow = 9, kCompactRows = 10;

// Moves the kept muons' output rows to their place pos[i] (exclusive scan of
// keep), in chunk order; the last thread stores how many were kept.
__global__ void compact_kernel(const std::uint32_t* state, std::size_t cap,
                               const std::int32_t* keep, const std::int32_t* pos, std::size_t n,
                               std::uint32_t* compact, unsigned long long* count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == n - 1) *count = static_cast<unsigned long long>(pos[i] + keep[i]);
  if (!keep[i]) return;
  const std::size_t j = static_cast<std::size_t>(pos[i]);
#pragma unroll
  for (int r = 0; r < kSteps + 1; ++r) compact[r * cap + j] = state[r * cap + i];
  compact[kIndexRow * cap + j] = static_cast<std::uint32_t>(i);
}

constexpr std::size_t kBytesPerMuon = 10 * 4;

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: clear the sticky error
    return 0;
  }
  return n;
}

void set_device(int index) { FASTMU_CUDA_CHECK(cudaSetDevice(index)); }

int current_device() {
  int d = 0;
  FASTMU_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

const char* device_name() {
  static std::string name;
  if (name.empty() && device_count() > 0) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) name = prop.name;
  }
  return name.c_str();
}

void start_devices(int count) {
  for (int d = 0; d < count; ++d) {
    if (cudaSetDevice(d) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) cudaGetLastError();
  }
}

void stop_devices(const std::vector<int>& devices) {
  for (int d : devices) {
    if (cudaSetDevice(d) != cudaSuccess || cudaDeviceReset() != cudaSuccess) cudaGetLastError();
  }
}

DeviceArena::~DeviceArena() {
  for (void* p : blocks_) cudaFree(p);
}

const void* DeviceArena::copy_bytes(const void* host, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* d = nullptr;
  FASTMU_CUDA_CHECK(cudaMalloc(&d, bytes));
  blocks_.push_back(d);
  FASTMU_CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

TransportResult transport(const TransportView& view, const MuonBatch& in, std::uint64_t first_id,
                          std::size_t max_chunk, KernelTiming* timing) {
  const std::size_t n = in.size();
  TransportResult out;
  out.first_id = first_id;
  out.muons = in;
  out.status.resize(n);
  out.plane.resize(n);
  out.steps.resize(n);
  transport_rows(view, in, 0, n, out, max_chunk, timing);
  return out;
}

void transport_rows(const TransportView& view, const MuonBatch& in, std::size_t first,
                    std::size_t last, TransportResult& out, std::size_t max_chunk,
                    KernelTiming* timing) {
  const std::size_t n = last - first;
  const std::uint64_t first_id = out.first_id + first;
  if (n == 0) return;

  if (max_chunk == 0) {
    // Half the free memory, at most 64 M muons per chunk (2.5 GB).
    std::size_t free_b = 0, total_b = 0;
    FASTMU_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    max_chunk = std::clamp<std::size_t>(free_b / 2 / kBytesPerMuon, 1 << 16, std::size_t(64) << 20);
  }
  const std::size_t chunk = std::min(n, max_chunk);

  DeviceMuons d{};
  float** fcols[6] = {&d.x, &d.y, &d.z, &d.px, &d.py, &d.pz};
  std::int32_t** icols[4] = {&d.pdg, &d.status, &d.plane, &d.steps};
  void* buffer = nullptr;
  FASTMU_CUDA_CHECK(cudaMalloc(&buffer, chunk * kBytesPerMuon + 8));
  auto* queue_next =
      reinterpret_cast<unsigned long long*>(static_cast<char*>(buffer) + chunk * kBytesPerMuon);
  struct Free {
    void* p;
    ~Free() { cudaFree(p); }
  } free_buffer{buffer};
  for (int c = 0; c < 6; ++c) *fcols[c] = static_cast<float*>(buffer) + c * chunk;
  for (int c = 0; c < 4; ++c)
    *icols[c] = reinterpret_cast<std::int32_t*>(static_cast<float*>(buffer) + (6 + c) * chunk);

  cudaEvent_t ev[4];
  for (auto& e : ev) FASTMU_CUDA_CHECK(cudaEventCreate(&e));
  struct Destroy {
    cudaEvent_t* e;
    ~Destroy() {
      for (int k = 0; k < 4; ++k) cudaEventDestroy(e[k]);
    }
  } destroy{ev};

  const float* src[6] = {in.x.data() + first,  in.y.data() + first,  in.z.data() + first,
                         in.px.data() + first, in.py.data() + first, in.pz.data() + first};
  float* dst[6] = {out.muons.x.data() + first,  out.muons.y.data() + first,
                   out.muons.z.data() + first,  out.muons.px.data() + first,
                   out.muons.py.data() + first, out.muons.pz.data() + first};
  std::int32_t* idst[3] = {out.status.data() + first, out.plane.data() + first,
                           out.steps.data() + first};
  const std::int32_t* pdg_src = in.pdg.data() + first;
  double kernel_ms = 0, transfer_ms = 0;
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    const std::size_t m = std::min(chunk, n - begin);
    FASTMU_CUDA_CHECK(cudaEventRecord(ev[0]));
    for (int c = 0; c < 6; ++c) {
      FASTMU_CUDA_CHECK(cudaMemcpy(*fcols[c], src[c] + begin, m * 4, cudaMemcpyHostToDevice));
    }
    FASTMU_CUDA_CHECK(cudaMemcpy(d.pdg, pdg_src + begin, m * 4, cudaMemcpyHostToDevice));
    FASTMU_CUDA_CHECK(cudaEventRecord(ev[1]));
    FASTMU_CUDA_CHECK(cudaMemsetAsync(queue_next, 0, 8));
    transport_kernel<<<queue_grid(transport_kernel, kTransportBlock, m), kTransportBlock>>>(
        view, d, MuonQueue{queue_next, m}, first_id + begin);
    FASTMU_CUDA_CHECK(cudaGetLastError());
    FASTMU_CUDA_CHECK(cudaEventRecord(ev[2]));
    for (int c = 0; c < 6; ++c) {
      FASTMU_CUDA_CHECK(cudaMemcpy(dst[c] + begin, *fcols[c], m * 4, cudaMemcpyDeviceToHost));
    }
    for (int c = 0; c < 3; ++c) {
      FASTMU_CUDA_CHECK(cudaMemcpy(idst[c] + begin, *icols[c + 1], m * 4, cudaMemcpyDeviceToHost));
    }
    FASTMU_CUDA_CHECK(cudaEventRecord(ev[3]));
    FASTMU_CUDA_CHECK(cudaEventSynchronize(ev[3]));
    float a = 0, b = 0, c = 0;
    FASTMU_CUDA_CHECK(cudaEventElapsedTime(&a, ev[0], ev[1]));
    FASTMU_CUDA_CHECK(cudaEventElapsedTime(&b, ev[1], ev[2]));
    FASTMU_CUDA_CHECK(cudaEventElapsedTime(&c, ev[2], ev[3]));
    transfer_ms += a + c;
    kernel_ms += b;
  }
  if (timing) {
    timing->kernel_s = kernel_ms * 1e-3;
    timing->transfer_s = transfer_ms * 1e-3;
  }
}

void transport_device(const TransportView& view, const float* rows, std::size_t n, int ncol,
                      const DeviceColumns& out, std::uint64_t first_id, void* stream) {
  if (ncol != 7 && ncol != 8) {
    throw Error("transport: muons need 7 or 8 columns (px,py,pz,x,y,z,pdg[,weight]), got " +
                std::to_string(ncol));
  }
  if (n == 0) return;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  QueueCounter counter(s);
  transport_rows_kernel<<<queue_grid(transport_rows_kernel, kTransportBlock, n), kTransportBlock, 0,
                          s>>>(view, rows, MuonQueue{counter.next, n}, ncol, out, first_id);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
}

// ---------------------------------------------------------------------------
// The streamed pipeline.

struct GpuLanes::Impl {
  struct Lane {
    cudaStream_t stream = nullptr;
    std::size_t cap = 0;                       // muons per chunk the buffers hold
    std::uint32_t* host_in = nullptr;          // pinned: px,py,pz,x,y,z,pdg rows
    std::uint32_t* host_out = nullptr;         // pinned: kCompactRows rows
    unsigned long long* host_small = nullptr;  // pinned: tally[6], count
    std::uint32_t* state = nullptr;            // device: kStateRows rows
    std::uint32_t* compact = nullptr;          // device: kCompactRows rows
    std::int32_t* keep = nullptr;              // device: flags, then their scan
    std::int32_t* pos = nullptr;
    unsigned long long* small = nullptr;  // device: tally[6], count, queue counter
    void* scan_temp = nullptr;
    std::size_t scan_bytes = 0;
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events;  // kernel start/end per chunk
    std::size_t events_used = 0;
    void* order_block = nullptr;  // device: the ordering's keys, indices and scratch
    MuonOrderBuffers order;
  };
  static constexpr int kSmall = 8;  // tally: steps, 5 statuses; the kept count; the queue

  // Device columns of the window objective, kept between passes (an
  // optimiser calls it with the same muons again and again).
  bool warmed = false;  // the streamed pipeline's kernels loaded (warm_up_kernels)

  struct ObjectiveBuffers {
    void* block = nullptr;
    std::size_t bytes = 0;
    float *x = nullptr, *y = nullptr, *z = nullptr, *px = nullptr, *py = nullptr, *pz = nullptr;
    std::int32_t *pdg = nullptr, *status = nullptr, *steps = nullptr;
    double *weight = nullptr, *value = nullptr, *hard = nullptr, *grad = nullptr;
    double* partials = nullptr;
    unsigned long long* counter = nullptr;
    MuonOrderBuffers order;  // in `block`
  } objective;

  // One block of device memory for an ordering of up to `cap` muons.
  static void* allocate_order(MuonOrderBuffers& b, std::size_t cap) {
    const std::size_t column = (cap * 4 + 255) / 256 * 256;
    b.scratch_bytes = MuonOrderBuffers::scratch_for(cap);
    void* block = nullptr;
    FASTMU_CUDA_CHECK(cudaMalloc(&block, 4 * column + b.scratch_bytes));
    carve_order(b, static_cast<char*>(block), column);
    return block;
  }
  static void carve_order(MuonOrderBuffers& b, char* at, std::size_t column) {
    b.keys[0] = reinterpret_cast<std::uint32_t*>(at);
    b.keys[1] = reinterpret_cast<std::uint32_t*>(at + column);
    b.index[0] = reinterpret_cast<std::uint32_t*>(at + 2 * column);
    b.index[1] = reinterpret_cast<std::uint32_t*>(at + 3 * column);
    b.scratch = at + 4 * column;
  }

  // Objective buffers for n muons and np parameters (the calling thread's
  // device must be `device`).
  ObjectiveBuffers& objective_buffers(std::size_t n, std::size_t np) {
    auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t nq = 3 + np, blocks = detail::objective_sum_blocks(n);
    const std::size_t order_scratch = MuonOrderBuffers::scratch_for(n);
    const std::size_t sizes[] = {6 * up(n * 4),
                                 3 * up(n * 4),
                                 3 * up(n * 8),
                                 up(n * np * 8),
                                 up(blocks * nq * 8),
                                 256,
                                 4 * up(n * 4) + up(order_scratch)};
    std::size_t bytes = 0;
    for (std::size_t b : sizes) bytes += b;
    ObjectiveBuffers& o = objective;
    if (bytes > o.bytes) {
      cudaFree(o.block);
      o = ObjectiveBuffers{};
      FASTMU_CUDA_CHECK(cudaMalloc(&o.block, bytes));
      o.bytes = bytes;
    }
    char* at = static_cast<char*>(o.block);
    auto take = [&](std::size_t b) {
      char* p = at;
      at += b;
      return p;
    };
    float** f[6] = {&o.x, &o.y, &o.z, &o.px, &o.py, &o.pz};
    for (float** c : f) *c = reinterpret_cast<float*>(take(up(n * 4)));
    o.pdg = reinterpret_cast<std::int32_t*>(take(up(n * 4)));
    o.status = reinterpret_cast<std::int32_t*>(take(up(n * 4)));
    o.steps = reinterpret_cast<std::int32_t*>(take(up(n * 4)));
    o.weight = reinterpret_cast<double*>(take(up(n * 8)));
    o.value = reinterpret_cast<double*>(take(up(n * 8)));
    o.hard = reinterpret_cast<double*>(take(up(n * 8)));
    o.grad = np ? reinterpret_cast<double*>(take(up(n * np * 8))) : nullptr;
    o.partials = reinterpret_cast<double*>(take(up(blocks * nq * 8)));
    o.counter = reinterpret_cast<unsigned long long*>(take(256));
    o.order.scratch_bytes = up(order_scratch);
    carve_order(o.order, take(4 * up(n * 4) + up(order_scratch)), up(n * 4));
    return o;
  }

  int device = 0;
  std::vector<Lane> lanes;
  cudaEvent_t origin = nullptr;

  void free_buffers(Lane& l) {
    cudaFreeHost(l.host_in), cudaFreeHost(l.host_out), cudaFreeHost(l.host_small);
    cudaFree(l.state), cudaFree(l.compact), cudaFree(l.keep), cudaFree(l.pos), cudaFree(l.small);
    cudaFree(l.scan_temp), cudaFree(l.order_block);
    l = Lane{l.stream,
             0,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             nullptr,
             0,
             std::move(l.events),
             0,
             nullptr,
             {}};
  }

  // At least `n` lanes whose buffers hold `cap` muons (the calling thread's
  // device must be `device`).
  void ensure(int n, std::size_t cap) {
    if (!origin) FASTMU_CUDA_CHECK(cudaEventCreate(&origin));
    while (static_cast<int>(lanes.size()) < n) {
      Lane l;
      FASTMU_CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
      lanes.push_back(std::move(l));
    }
    for (Lane& l : lanes) {
      if (l.cap >= cap) continue;
      free_buffers(l);
      const std::size_t row = cap * 4;
      FASTMU_CUDA_CHECK(
          cudaHostAlloc(reinterpret_cast<void**>(&l.host_in), 7 * row, cudaHostAllocPortable));
      FASTMU_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&l.host_out), kCompactRows * row,
                                      cudaHostAllocPortable));
      FASTMU_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&l.host_small), kSmall * 8,
                                      cudaHostAllocPortable));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.state, kStateRows * row));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.compact, kCompactRows * row));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.keep, row));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.pos, row));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.small, kSmall * 8));
      FASTMU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, l.scan_bytes, l.keep, l.pos,
                                                      static_cast<int>(cap), l.stream));
      FASTMU_CUDA_CHECK(cudaMalloc(&l.scan_temp, l.scan_bytes));
      l.order_block = allocate_order(l.order, cap);
      l.cap = cap;
    }
  }

  std::pair<cudaEvent_t, cudaEvent_t> next_events(Lane& l) {
    if (l.events_used == l.events.size()) {
      cudaEvent_t a = nullptr, b = nullptr;
      FASTMU_CUDA_CHECK(cudaEventCreate(&a));
      FASTMU_CUDA_CHECK(cudaEventCreate(&b));
      l.events.emplace_back(a, b);
    }
    return l.events[l.events_used++];
  }

  ~Impl() {
    cudaSetDevice(device);
    for (Lane& l : lanes) {
      free_buffers(l);
      for (auto& e : l.events) cudaEventDestroy(e.first), cudaEventDestroy(e.second);
      cudaStreamDestroy(l.stream);
    }
    if (origin) cudaEventDestroy(origin);
    cudaFree(objective.block);
  }
};

GpuLanes::GpuLanes(int device) : device_(device), impl_(std::make_unique<Impl>()) {
  impl_->device = device;
}
GpuLanes::~GpuLanes() = default;

namespace {

// Hands out the batch's rows in chunks of decreasing size ("guided"): each
// about the rest over twice the lanes, so that GPUs end together, but the
// first ones small and doubling, so that the first kernel starts early. Chunk
// k starts where chunk k - 1 ended; the results do not depend on the cut.
class ChunkQueue {
 public:
  static constexpr std::size_t kMin = 16384, kMax = std::size_t(1) << 20;
  // fixed > 0: chunks of that size (tests).
  ChunkQueue(std::size_t n, std::size_t workers, std::size_t fixed)
      : n_(n), workers_(std::max<std::size_t>(workers, 1)), fixed_(fixed) {
    cap_ = fixed ? fixed : std::clamp<std::size_t>(n / (2 * workers_), kMin, kMax);
    cap_ = std::max<std::size_t>(1, std::min(cap_, std::max<std::size_t>(n, 1)));
  }
  std::size_t capacity() const { return cap_; }
  // Every chunk but the last has at least `least` rows.
  std::size_t max_chunks() const {
    const std::size_t least = fixed_ ? fixed_ : std::min(cap_, kMin);
    return (n_ + least - 1) / least + 1;
  }
  bool take(std::size_t& k, std::size_t& begin, std::size_t& m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ >= n_) return false;
    const std::size_t rest = n_ - next_;
    if (fixed_) {
      m = fixed_;
    } else {
      m = std::min(std::max(rest / (2 * workers_), kMin), cap_);
      m = std::min(m, kMin << std::min<std::size_t>(index_, 16));
    }
    m = std::min(m, rest);
    k = index_++, begin = next_;
    next_ += m;
    return true;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    next_ = n_;
  }

 private:
  std::mutex mu_;
  std::size_t n_, workers_, fixed_, cap_ = 0, next_ = 0, index_ = 0;
};

// Chunk k's first output row is the sum of the kept counts of chunks < k, so a
// lane publishes its count and waits for those of the chunks before it (and
// for the output arrays to exist) before it unpacks.
class ChunkOrder {
 public:
  explicit ChunkOrder(std::size_t max_chunks) : count_(max_chunks, -1), offset_(max_chunks, 0) {}

  // Returns chunk k's first output row; throws Aborted when another lane failed.
  struct Aborted {};
  std::size_t publish_and_wait(std::size_t k, std::size_t kept) {
    std::unique_lock<std::mutex> lock(mu_);
    count_[k] = static_cast<std::int64_t>(kept);
    while (frontier_ < count_.size() && count_[frontier_] >= 0) {
      offset_[frontier_] = next_offset_;
      next_offset_ += static_cast<std::size_t>(count_[frontier_++]);
    }
    cv_.notify_all();
    cv_.wait(lock, [&] { return failed_ || (ready_ && frontier_ > k); });
    if (failed_) throw Aborted{};
    return offset_[k];
  }
  void set_ready() {
    notify([&] { ready_ = true; });
  }
  void fail() {
    notify([&] { failed_ = true; });
  }
  std::size_t total() const { return next_offset_; }

 private:
  template <class F>
  void notify(F f) {
    std::lock_guard<std::mutex> lock(mu_);
    f();
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::int64_t> count_;
  std::vector<std::size_t> offset_;
  std::size_t frontier_ = 0, next_offset_ = 0;
  bool ready_ = false, failed_ = false;
};

// Length of the union of [a, b) intervals.
double union_length(std::vector<std::pair<float, float>> iv) {
  std::sort(iv.begin(), iv.end());
  double total = 0, lo = 0, hi = 0;
  bool open = false;
  for (const auto& [a, b] : iv) {
    if (open && a <= hi) {
      hi = std::max<double>(hi, b);
      continue;
    }
    if (open) total += hi - lo;
    lo = a, hi = b, open = true;
  }
  if (open) total += hi - lo;
  return total;
}

// $FASTMU_TRACE_LANES=1: each streamed call prints to stderr where its host
// lanes spent their time (packing, waiting for the GPU, for the chunks before
// theirs, unpacking), to see what keeps a call above its kernel time.
class LaneTrace {
 public:
  enum Phase { pack, gpu, copy, order, unpack, kPhases };
  static bool enabled() {
    static const bool on = [] {
      const char* v = std::getenv("FASTMU_TRACE_LANES");
      return v && *v && std::string(v) != "0";
    }();
    return on;
  }
  explicit LaneTrace(bool on) : on_(on), t0_(Clock::now()) {}
  double now() const { return on_ ? std::chrono::duration<double>(Clock::now() - t0_).count() : 0; }
  // Adds [since, now) to `phase`; returns now.
  double add(Phase phase, double since) {
    if (!on_) return 0;
    const double t = now();
    std::lock_guard<std::mutex> lock(mu_);
    busy_[phase] += t - since;
    return t;
  }
  void chunk(double started, double finished) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++chunks_;
    first_done_ = chunks_ == 1 ? finished : std::min(first_done_, finished);
    last_start_ = std::max(last_start_, started);
  }
  void print(std::size_t n, int lanes, double kernel_s) const {
    if (!on_) return;
    std::fprintf(stderr,
                 "fastmu: lanes: %zu muons, %zu chunks on %d lanes, call %.4f s, kernels %.4f s; "
                 "lane-seconds packing %.4f, waiting for the GPU %.4f, for the copy back %.4f, "
                 "for earlier chunks %.4f, unpacking %.4f; first chunk done %.4f s, last "
                 "taken %.4f s\n",
                 n, chunks_, lanes, now(), kernel_s, busy_[pack], busy_[gpu], busy_[copy],
                 busy_[order], busy_[unpack], first_done_, last_start_);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  Clock::time_point t0_;
  mutable std::mutex mu_;
  double busy_[kPhases] = {};
  std::size_t chunks_ = 0;
  double first_done_ = 0, last_start_ = 0;
};

// Host threads do the packing and unpacking, one chunk in flight each: a
// lane mostly waits for its GPU work, so a core per lane, up to 12 per GPU
// (iron block, 4e6 muons, one H100: 6 lanes 1.70x the kernel time, 8 1.34-1.44x,
// 12 1.19-1.22x, 16 1.21-1.24x).
int lanes_for(std::size_t gpus, const StreamedOptions& options) {
  if (options.lanes_per_gpu > 0) return options.lanes_per_gpu;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp(hw / static_cast<int>(std::max<std::size_t>(gpus, 1)), 2, 12);
}

}  // namespace

namespace {

// A kernel is loaded on its first launch (CUDA's lazy module loading), a few
// ms each: the streamed pipeline's kernels are launched here once, on two
// zeroed muons or none, while a run still reads its first chunk.
void warm_up_kernels(const GpuTarget& g, GpuLanes::Impl& impl) {
  if (impl.warmed || impl.lanes.empty()) return;
  auto& L = impl.lanes[0];
  const std::size_t cap = L.cap, m = std::min<std::size_t>(2, cap);
  FASTMU_CUDA_CHECK(cudaMemsetAsync(L.state, 0, kStateRows * cap * 4, L.stream));
  FASTMU_CUDA_CHECK(cudaMemsetAsync(L.keep, 0, cap * 4, L.stream));
  auto* f = reinterpret_cast<float*>(L.state);
  auto* i32 = reinterpret_cast<std::int32_t*>(L.state);
  const DeviceMuons d{f + kX * cap,       f + kY * cap,      f + kZ * cap,     f + kPx * cap,
                      f + kPy * cap,      f + kPz * cap,     i32 + kPdg * cap, i32 + kStatus * cap,
                      i32 + kPlane * cap, i32 + kSteps * cap};
  const std::uint32_t* turn = nullptr;
  FASTMU_CUDA_CHECK(order_muons(d.px, d.py, d.pz, d.pdg, m, L.order, L.stream, &turn));
  FASTMU_CUDA_CHECK(cudaMemsetAsync(L.small + 7, 0, 8, L.stream));
  // No muon to take: the kernel loads and returns.
  transport_kernel<<<1, kTransportBlock, 0, L.stream>>>(*g.view, d,
                                                        MuonQueue{L.small + 7, 0, nullptr}, 0);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  tally_kernel<<<1, 256, 0, L.stream>>>(d.status, d.steps, 0, L.keep, L.small);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  std::size_t bytes = L.scan_bytes;
  FASTMU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(L.scan_temp, bytes, L.keep, L.pos,
                                                  static_cast<int>(m), L.stream));
  compact_kernel<<<1, 256, 0, L.stream>>>(L.state, cap, L.keep, L.pos, 0, L.compact, L.small + 6);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(L.stream));
  impl.warmed = true;
}

}  // namespace

void prepare_streamed(const std::vector<GpuTarget>& gpus, std::size_t batch,
                      const StreamedOptions& options) {
  const int lanes = lanes_for(gpus.size(), options);
  const ChunkQueue queue(batch, gpus.size() * static_cast<std::size_t>(lanes), options.chunk);
  // Pinned allocations take a while: one host thread per GPU.
  std::vector<std::exception_ptr> errors(gpus.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        set_device(gpus[i].lanes->device());
        gpus[i].lanes->impl().ensure(lanes, queue.capacity());
        warm_up_kernels(gpus[i], gpus[i].lanes->impl());
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void transport_streamed(const std::vector<GpuTarget>& gpus, const MuonBatch& in,
                        std::uint64_t first_id, const StreamedOptions& options,
                        TransportResult& out, StreamedStats* stats) {
  const std::size_t n = in.size();
  const bool compact = options.at_plane_only;
  if (gpus.empty()) throw Error("transport_streamed: no GPU given");
  if (in.weight.size() != n || in.pdg.size() != n) {
    throw Error("transport: muon batch columns of different lengths");
  }
  const int lanes_per_gpu = lanes_for(gpus.size(), options);
  const std::size_t workers = gpus.size() * static_cast<std::size_t>(lanes_per_gpu);
  ChunkQueue queue(n, workers, options.chunk);
  const bool ordered = worth_ordering(in.px.data(), in.py.data(), in.pz.data(), in.pdg.data(), n);
  const std::size_t cap = queue.capacity();
  out.first_id = first_id;
  out.id.clear();
  for (const GpuTarget& g : gpus) {
    set_device(g.lanes->device());
    GpuLanes::Impl& impl = g.lanes->impl();
    impl.ensure(lanes_per_gpu, cap);
    for (int l = 0; l < lanes_per_gpu; ++l) {
      auto& lane = impl.lanes[static_cast<std::size_t>(l)];
      lane.events_used = 0;
      FASTMU_CUDA_CHECK(cudaMemsetAsync(lane.small, 0, GpuLanes::Impl::kSmall * 8, lane.stream));
    }
    FASTMU_CUDA_CHECK(cudaEventRecord(impl.origin, impl.lanes[0].stream));
  }

  ChunkOrder order(queue.max_chunks());
  LaneTrace trace(LaneTrace::enabled());
  std::exception_ptr setup_error;
  std::thread setup([&] {
    try {
      size_result_columns(out, n, compact ? nullptr : &in);
      order.set_ready();
    } catch (...) {
      setup_error = std::current_exception();
      order.fail();
    }
  });

  std::exception_ptr error;
  std::mutex error_mu;
  auto lane_loop = [&](const GpuTarget& g, int lane_index) {
    try {
      set_device(g.lanes->device());
      GpuLanes::Impl& impl = g.lanes->impl();
      auto& L = impl.lanes[static_cast<std::size_t>(lane_index)];
      const std::size_t cap = L.cap;
      const std::size_t pitch = cap * 4;
      std::size_t k = 0, b = 0, m = 0;
      while (queue.take(k, b, m)) {
        const double taken = trace.now();
        // Pack the chunk's input rows into pinned memory (px,py,pz,x,y,z,pdg).
        const void* src[7] = {in.px.data() + b, in.py.data() + b, in.pz.data() + b, in.x.data() + b,
                              in.y.data() + b,  in.z.data() + b,  in.pdg.data() + b};
        for (int r = 0; r < 7; ++r) std::memcpy(L.host_in + r * cap, src[r], m * 4);
        double t = trace.add(LaneTrace::pack, taken);
        FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(L.state, pitch, L.host_in, pitch, m * 4, 6,
                                            cudaMemcpyHostToDevice, L.stream));
        FASTMU_CUDA_CHECK(cudaMemcpyAsync(L.state + kPdg * cap, L.host_in + 6 * cap, m * 4,
                                          cudaMemcpyHostToDevice, L.stream));
        auto* f = reinterpret_cast<float*>(L.state);
        auto* i32 = reinterpret_cast<std::int32_t*>(L.state);
        const DeviceMuons d{f + kX * cap,      f + kY * cap,        f + kZ * cap,
                            f + kPx * cap,     f + kPy * cap,       f + kPz * cap,
                            i32 + kPdg * cap,  i32 + kStatus * cap, i32 + kPlane * cap,
                            i32 + kSteps * cap};
        const auto ev = impl.next_events(L);
        // The kernel time includes ordering the muons (a sort of 14-bit keys).
        FASTMU_CUDA_CHECK(cudaEventRecord(ev.first, L.stream));
        const std::uint32_t* turn = nullptr;
        if (ordered) {
          FASTMU_CUDA_CHECK(order_muons(d.px, d.py, d.pz, d.pdg, m, L.order, L.stream, &turn));
        }
        FASTMU_CUDA_CHECK(cudaMemsetAsync(L.small + 7, 0, 8, L.stream));
        transport_kernel<<<queue_grid(transport_kernel, kTransportBlock, m), kTransportBlock, 0,
                           L.stream>>>(*g.view, d, MuonQueue{L.small + 7, m, turn}, first_id + b);
        FASTMU_CUDA_CHECK(cudaGetLastError());
        FASTMU_CUDA_CHECK(cudaEventRecord(ev.second, L.stream));
        const unsigned tally_blocks =
            static_cast<unsigned>(std::min<std::size_t>((m + 255) / 256, 1024));
        tally_kernel<<<tally_blocks, 256, 0, L.stream>>>(d.status, d.steps, m,
                                                         compact ? L.keep : nullptr, L.small);
        FASTMU_CUDA_CHECK(cudaGetLastError());
        std::size_t kept = m;
        if (compact) {
          std::size_t bytes = L.scan_bytes;
          FASTMU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(L.scan_temp, bytes, L.keep, L.pos,
                                                          static_cast<int>(m), L.stream));
          compact_kernel<<<static_cast<unsigned>((m + 255) / 256), 256, 0, L.stream>>>(
              L.state, cap, L.keep, L.pos, m, L.compact, L.small + 6);
          FASTMU_CUDA_CHECK(cudaGetLastError());
          FASTMU_CUDA_CHECK(
              cudaMemcpyAsync(L.host_small + 6, L.small + 6, 8, cudaMemcpyDeviceToHost, L.stream));
          FASTMU_CUDA_CHECK(cudaStreamSynchronize(L.stream));
          t = trace.add(LaneTrace::gpu, t);
          kept = static_cast<std::size_t>(L.host_small[6]);
          if (kept > 0) {
            FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(L.host_out, pitch, L.compact, pitch, kept * 4,
                                                kCompactRows, cudaMemcpyDeviceToHost, L.stream));
          }
        } else {
          FASTMU_CUDA_CHECK(cudaMemcpy2DAsync(L.host_out, pitch, L.state, pitch, m * 4, kSteps + 1,
                                              cudaMemcpyDeviceToHost, L.stream));
        }
        FASTMU_CUDA_CHECK(cudaStreamSynchronize(L.stream));
        t = trace.add(compact ? LaneTrace::copy : LaneTrace::gpu, t);
        const std::size_t at = order.publish_and_wait(k, kept);
        t = trace.add(LaneTrace::order, t);
        // Unpack into the output rows [at, at + kept).
        float* fdst[6] = {out.muons.px.data(), out.muons.py.data(), out.muons.pz.data(),
                          out.muons.x.data(),  out.muons.y.data(),  out.muons.z.data()};
        std::int32_t* idst[3] = {out.status.data(), out.plane.data(), out.steps.data()};
        for (int r = 0; r < 6; ++r) std::memcpy(fdst[r] + at, L.host_out + r * cap, kept * 4);
        for (int r = 0; r < 3; ++r)
          std::memcpy(idst[r] + at, L.host_out + (kStatus + r) * cap, kept * 4);
        if (compact) {
          const std::uint32_t* idx = L.host_out + kIndexRow * cap;
          for (std::size_t j = 0; j < kept; ++j) {
            const std::size_t i = b + idx[j];
            out.id[at + j] = static_cast<std::int64_t>(first_id + i);
            out.muons.pdg[at + j] = in.pdg[i];
            out.muons.weight[at + j] = in.weight[i];
          }
        }  // else pdg and weight were copied by size_result_columns
        trace.chunk(taken, trace.add(LaneTrace::unpack, t));
      }
    } catch (const ChunkOrder::Aborted&) {
      // another lane failed and reports why
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      queue.stop();
      order.fail();
    }
  };

  std::vector<std::thread> threads;
  for (const GpuTarget& g : gpus) {
    for (int l = 0; l < lanes_per_gpu; ++l) threads.emplace_back(lane_loop, std::cref(g), l);
  }
  for (auto& t : threads) t.join();
  setup.join();
  if (error) std::rethrow_exception(error);
  if (setup_error) std::rethrow_exception(setup_error);

  // Tallies and kernel time (union of the chunks' kernel intervals per GPU).
  StreamedStats st;
  for (const GpuTarget& g : gpus) {
    set_device(g.lanes->device());
    GpuLanes::Impl& impl = g.lanes->impl();
    std::vector<std::pair<float, float>> iv;
    for (int l = 0; l < lanes_per_gpu; ++l) {
      auto& L = impl.lanes[static_cast<std::size_t>(l)];
      FASTMU_CUDA_CHECK(
          cudaMemcpyAsync(L.host_small, L.small, 6 * 8, cudaMemcpyDeviceToHost, L.stream));
      FASTMU_CUDA_CHECK(cudaStreamSynchronize(L.stream));
      st.steps += L.host_small[0];
      for (int s = 0; s < 5; ++s) st.by_status[static_cast<std::size_t>(s)] += L.host_small[1 + s];
      for (std::size_t e = 0; e < L.events_used; ++e) {
        float a = 0, b = 0;
        FASTMU_CUDA_CHECK(cudaEventElapsedTime(&a, impl.origin, L.events[e].first));
        FASTMU_CUDA_CHECK(cudaEventElapsedTime(&b, impl.origin, L.events[e].second));
        iv.emplace_back(a, b);
      }
    }
    st.kernel_s = std::max(st.kernel_s, union_length(std::move(iv)) * 1e-3);
  }
  trace.print(n, static_cast<int>(workers), st.kernel_s);
  if (compact) {
    const std::size_t total = order.total();
    MuonBatch& m = out.muons;
    m.px.resize(total), m.py.resize(total), m.pz.resize(total);
    m.x.resize(total), m.y.resize(total), m.z.resize(total);
    m.pdg.resize(total), m.weight.resize(total);
    out.status.resize(total), out.plane.resize(total), out.steps.resize(total),
        out.id.resize(total);
  }
  if (stats) *stats = st;
}

WindowObjectiveResult window_objective(const TransportView& view, const FieldParameterView& fp,
                                       const ObjectiveMuonsIn& in,
                                       const WindowObjectiveOptions& options, GpuLanes& lanes) {
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
  auto& o = lanes.impl().objective_buffers(n, np);
  if (in.host) {
    const MuonBatch& b = *in.host;
    const std::pair<float*, const float*> f[6] = {{o.x, b.x.data()},   {o.y, b.y.data()},
                                                  {o.z, b.z.data()},   {o.px, b.px.data()},
                                                  {o.py, b.py.data()}, {o.pz, b.pz.data()}};
    for (const auto& [dst, src] : f) {
      FASTMU_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * 4, cudaMemcpyHostToDevice, s));
    }
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(o.pdg, b.pdg.data(), n * 4, cudaMemcpyHostToDevice, s));
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(o.weight, b.weight.data(), n * 8, cudaMemcpyHostToDevice, s));
  } else {
    const unsigned grid = static_cast<unsigned>((n + 255) / 256);
    unpack_rows_kernel<<<grid, 256, 0, s>>>(in.rows, n, in.ncol, o.x, o.y, o.z, o.px, o.py, o.pz,
                                            o.pdg, o.weight);
    FASTMU_CUDA_CHECK(cudaGetLastError());
  }
  ObjectiveMuons m{o.x,      o.y,     o.z,    o.px,   o.py,     o.pz,   o.pdg,
                   o.weight, o.value, o.hard, o.grad, o.status, o.steps};
  // Host muons: ordered unless they are a beam of identical muons; device
  // rows: always (they are not looked at on the host).
  const std::uint32_t* turn = nullptr;
  const MuonBatch* hb = in.host;
  if (!hb || worth_ordering(hb->px.data(), hb->py.data(), hb->pz.data(), hb->pdg.data(), n)) {
    FASTMU_CUDA_CHECK(order_muons(o.px, o.py, o.pz, o.pdg, n, o.order, s, &turn));
  }
  FASTMU_CUDA_CHECK(cudaMemsetAsync(o.counter, 0, 8, s));
  auto launch = [&](auto kernel) {
    kernel<<<queue_grid(kernel, kTransportBlock, n), kTransportBlock, 0, s>>>(
        view, fp, m, MuonQueue{o.counter, n, turn}, options.first_id, options.plane,
        options.smoothing, options.max_tangent);
  };
  if (options.gradient) {
    launch(objective_kernel<4, true>);
  } else {
    launch(objective_kernel<kTransportBlocksPerSm, false>);
  }
  FASTMU_CUDA_CHECK(cudaGetLastError());
  // The totals: block partial sums on the device, the blocks added on the host.
  const detail::ObjectiveColumns cols{o.value, o.hard, o.grad, o.steps, n, r.n_params};
  const std::size_t blocks = detail::objective_sum_blocks(n);
  const std::size_t nq = static_cast<std::size_t>(detail::objective_sum_quantities(r.n_params));
  objective_sum_kernel<<<static_cast<unsigned>((blocks * nq + 127) / 128), 128, 0, s>>>(
      cols, blocks, o.partials);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  std::vector<double> partials(blocks * nq);
  FASTMU_CUDA_CHECK(
      cudaMemcpyAsync(partials.data(), o.partials, partials.size() * 8, cudaMemcpyDeviceToHost, s));
  if (options.per_muon) {
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.muon_value.data(), o.value, n * sizeof(double),
                                      cudaMemcpyDeviceToHost, s));
    if (np) {
      FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.muon_grad.data(), o.grad, n * np * sizeof(double),
                                        cudaMemcpyDeviceToHost, s));
    }
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.status.data(), o.status, n * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, s));
    FASTMU_CUDA_CHECK(cudaMemcpyAsync(r.muon_steps.data(), o.steps, n * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, s));
  }
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
  detail::sum_objective_partials(r, partials.data(), blocks);
  return r;
}

}  // namespace fastmu::cuda
