// The CUDA backend: one thread per muon runs the same transport_step as the
// CPU (StepPhysics.hh) until its muon is done; the muon's state lives in
// registers, and the views (geometry, field map, tables) in global memory.
#include "fastmu/transport/CudaTransport.hh"

#include <algorithm>
#include <string>

#include <cuda_runtime.h>

#include "fastmu/core/Error.hh"
#include "fastmu/transport/StepPhysics.hh"
#include "fastmu/transport/TransportView.hh"

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

__global__ void transport_kernel(const __grid_constant__ TransportView view, DeviceMuons m,
                                 std::size_t n, std::uint64_t first_id) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  MuonTrack t;
  t.r = Vec3f{m.x[i], m.y[i], m.z[i]};
  t.p = Vec3f{m.px[i], m.py[i], m.pz[i]};
  t.charge = charge_from_pdg(m.pdg[i]);
  transport_muon(view, t, first_id + i);
  m.x[i] = t.r.x, m.y[i] = t.r.y, m.z[i] = t.r.z;
  m.px[i] = t.p.x, m.py[i] = t.p.y, m.pz[i] = t.p.z;
  m.status[i] = t.status;
  m.plane[i] = t.plane;
  m.steps[i] = t.steps;
}

// Same as transport_kernel, for muons given as device rows (px,py,pz,x,y,z,pdg[,weight]).
__global__ void transport_rows_kernel(const __grid_constant__ TransportView view, const float* rows,
                                      std::size_t n, int ncol, DeviceColumns out,
                                      std::uint64_t first_id) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* row = rows + i * static_cast<std::size_t>(ncol);
  const std::int32_t pdg = static_cast<std::int32_t>(lrintf(row[6]));
  MuonTrack t;
  t.p = Vec3f{row[0], row[1], row[2]};
  t.r = Vec3f{row[3], row[4], row[5]};
  t.charge = charge_from_pdg(pdg);
  transport_muon(view, t, first_id + i);
  out.id[i] = static_cast<std::int64_t>(first_id + i);
  out.px[i] = t.p.x, out.py[i] = t.p.y, out.pz[i] = t.p.z;
  out.x[i] = t.r.x, out.y[i] = t.r.y, out.z[i] = t.r.z;
  out.pdg[i] = pdg;
  out.weight[i] = ncol > 7 ? row[7] : 1.0f;
  out.status[i] = t.status;
  out.plane[i] = t.plane;
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

const char* device_name() {
  static std::string name;
  if (name.empty() && device_count() > 0) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) name = prop.name;
  }
  return name.c_str();
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
  FASTMU_CUDA_CHECK(cudaMalloc(&buffer, chunk * kBytesPerMuon));
  struct Free {
    void* p;
    ~Free() { cudaFree(p); }
  } free_buffer{buffer};
  for (int c = 0; c < 6; ++c) *fcols[c] = static_cast<float*>(buffer) + c * chunk;
  for (int c = 0; c < 4; ++c) *icols[c] = reinterpret_cast<std::int32_t*>(static_cast<float*>(buffer) + (6 + c) * chunk);

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
    const int block = 128;
    const unsigned grid = static_cast<unsigned>((m + block - 1) / block);
    transport_kernel<<<grid, block>>>(view, d, m, first_id + begin);
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
  const int block = 128;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  transport_rows_kernel<<<grid, block, 0, s>>>(view, rows, n, ncol, out, first_id);
  FASTMU_CUDA_CHECK(cudaGetLastError());
  FASTMU_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace fastmu::cuda
