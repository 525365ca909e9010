// The order in which a launch's threads take their muons (MuonQueue): muons
// of the same charge and similar momentum next to each other, so that the
// threads of a warp take similar steps. A warp runs every step kind any of
// its threads needs (boundary search, field sub-steps, long steps); in id order
// a SHiP-like warp has 9 of 32 threads active on average and waits for
// instructions 63 % of the time (Nsight Compute, BENCHMARKS.md).
//
// Only the order of work changes: a muon's history depends on its id and
// initial state alone (random numbers keyed by id and step), and results are
// written at the muon's own index, so the output is bitwise the same.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace fastmu::cuda {

// Bits of the sort key: charge (1), ln(|p| / 1 MeV/c) in tenths (10), the
// octant of the transverse direction (3). (An 8-bit key, charge and ln|p|
// only, one radix pass, cost as much and gained less: BENCHMARKS.md.)
inline constexpr int kOrderKeyBits = 14;

__device__ __forceinline__ std::uint32_t muon_order_key(float px, float py, float pz,
                                                        std::int32_t pdg) {
  const float p = sqrtf(px * px + py * py + pz * pz);
  const float lnp = logf(fmaxf(p, 1e-3f)) + 6.9077553f;  // >= 0
  const auto pbin = static_cast<std::uint32_t>(fminf(lnp * 10.0f, 1023.0f));
  // atan2 in [-pi, pi] -> octant 0..7 (a transverse momentum of zero: 4).
  const float turn = atan2f(py, px) * 0.15915494f + 0.5f;  // [0, 1]
  const auto octant = static_cast<std::uint32_t>(fminf(turn * 8.0f, 7.0f));
  return (pdg > 0 ? 1u << 13 : 0u) | pbin << 3 | octant;
}

// Whether ordering can help a host batch: false for a beam of identical
// muons (a pencil beam, the iron block), judged from up to 1 024 rows spread
// over the batch. A wrong guess costs time only, never results.
inline bool worth_ordering(const float* px, const float* py, const float* pz,
                           const std::int32_t* pdg, std::size_t n) {
  if (n < 2) return false;
  const std::size_t stride = n > 1024 ? n / 1024 : 1;
  for (std::size_t i = stride; i < n; i += stride) {
    if (px[i] != px[0] || py[i] != py[0] || pz[i] != pz[0] || pdg[i] != pdg[0]) return true;
  }
  return false;
}

// Device buffers of one ordering of up to `capacity` muons: keys and indices
// twice (the radix sort's double buffers) and the sort's scratch space. The
// caller owns the memory; scratch_for() says how much of it the sort needs.
struct MuonOrderBuffers {
  std::uint32_t* keys[2] = {nullptr, nullptr};
  std::uint32_t* index[2] = {nullptr, nullptr};
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;

  // Scratch bytes the sort needs for `capacity` muons.
  static std::size_t scratch_for(std::size_t capacity);
};

// The order of the n muons whose momenta and codes are given (device
// columns), on `stream`: sets `order` to the device array of n muon indices
// (one of b.index) in which a launch should take them. Stable: equal keys
// keep id order. Returns a CUDA error code, cudaSuccess when all went well.
cudaError_t order_muons(const float* px, const float* py, const float* pz, const std::int32_t* pdg,
                        std::size_t n, MuonOrderBuffers& b, cudaStream_t stream,
                        const std::uint32_t** order);

// Points the buffers of `b` into `at`: keys and indices in four columns of
// `column` bytes each, then the scratch space (b.scratch_bytes).
void carve_order(MuonOrderBuffers& b, char* at, std::size_t column);

// One block of device memory for an ordering of up to `cap` muons, carved
// into `b`; the caller frees it (cudaFree).
void* allocate_order(MuonOrderBuffers& b, std::size_t cap);

}  // namespace fastmu::cuda
