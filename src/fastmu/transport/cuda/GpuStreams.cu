#include "fastmu/transport/cuda/GpuStreams.cuh"

#include <cub/device/device_scan.cuh>

#include "fastmu/core/CudaCheck.cuh"
#include "fastmu/transport/gradient/WindowObjective.hh"

namespace fastmu::cuda {
namespace {

// Frees a slot's buffers; keeps its stream and events.
void free_buffers(StreamSlot& s) {
  cudaFreeHost(s.host_in), cudaFreeHost(s.host_out), cudaFreeHost(s.host_counters);
  cudaFree(s.state), cudaFree(s.compact), cudaFree(s.keep), cudaFree(s.pos), cudaFree(s.counters);
  cudaFree(s.scan_temp), cudaFree(s.order_block);
  StreamSlot bare;
  bare.stream = s.stream;
  bare.events = std::move(s.events);
  s = std::move(bare);
}

template <class T>
void allocate_pinned(T*& p, std::size_t bytes) {
  FASTMU_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), bytes, cudaHostAllocPortable));
}

void allocate_buffers(StreamSlot& s, std::size_t cap) {
  const std::size_t row = cap * 4;
  allocate_pinned(s.host_in, kInputRows * row);
  allocate_pinned(s.host_out, kCompactRows * row);
  allocate_pinned(s.host_counters, sizeof(SlotCounters));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.state, kStateRows * row));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.compact, kCompactRows * row));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.keep, row));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.pos, row));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.counters, sizeof(SlotCounters)));
  FASTMU_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, s.scan_bytes, s.keep, s.pos,
                                                  static_cast<int>(cap), s.stream));
  FASTMU_CUDA_CHECK(cudaMalloc(&s.scan_temp, s.scan_bytes));
  s.order_block = allocate_order(s.order, cap);
  s.cap = cap;
}

constexpr std::size_t round_up_256(std::size_t b) { return (b + 255) / 256 * 256; }

}  // namespace

void GpuStreams::Impl::ensure(int n, std::size_t cap) {
  if (!origin) FASTMU_CUDA_CHECK(cudaEventCreate(&origin));
  while (static_cast<int>(slots.size()) < n) {
    StreamSlot s;
    FASTMU_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    slots.push_back(std::move(s));
  }
  for (StreamSlot& s : slots) {
    if (s.cap >= cap) continue;
    free_buffers(s);
    allocate_buffers(s, cap);
  }
}

std::pair<cudaEvent_t, cudaEvent_t> GpuStreams::Impl::next_events(StreamSlot& s) {
  if (s.events_used == s.events.size()) {
    cudaEvent_t a = nullptr, b = nullptr;
    FASTMU_CUDA_CHECK(cudaEventCreate(&a));
    FASTMU_CUDA_CHECK(cudaEventCreate(&b));
    s.events.emplace_back(a, b);
  }
  return s.events[s.events_used++];
}

ObjectiveBuffers& GpuStreams::Impl::objective_buffers(std::size_t n, std::size_t np) {
  const auto up = round_up_256;
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

GpuStreams::Impl::~Impl() {
  cudaSetDevice(device);
  for (StreamSlot& s : slots) {
    free_buffers(s);
    for (auto& e : s.events) cudaEventDestroy(e.first), cudaEventDestroy(e.second);
    cudaStreamDestroy(s.stream);
  }
  if (origin) cudaEventDestroy(origin);
  cudaFree(objective.block);
}

GpuStreams::GpuStreams(int device) : device_(device), impl_(std::make_unique<Impl>()) {
  impl_->device = device;
}
GpuStreams::~GpuStreams() = default;

}  // namespace fastmu::cuda
