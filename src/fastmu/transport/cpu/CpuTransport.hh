// The CPU backend: every muon of a batch transported to its end, muons shared
// among threads in chunks. Generic over the environment so that tests can run
// the same loop on toy geometries.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/cpu/CpuLaneRandom.hh"
#include "fastmu/transport/cpu/CpuLaneStepper.hh"

namespace fastmu {

namespace detail {

template <class Env>
void transport_chunk(const Env& env, const MuonBatch& in, TransportResult& out,
                     std::uint64_t first_id, std::size_t begin, std::size_t end) {
  transport_lanes<LaneRandomPortable>(env, in, out, first_id, begin, end);
}

// The same loop compiled for x86-64 CPUs with AVX2 and FMA (every x86 server
// CPU since 2013), chosen at run time: the default build stays portable
// (baseline x86-64, 4-float SIMD), while here the lanes fill one 8-float AVX2
// register, the float arithmetic gets fused multiply-adds and the random
// blocks come from AVX2 Philox. Results are bitwise reproducible on a given
// machine (for any thread count or batch size); between a machine with FMA
// and one without they differ by float rounding (fused vs separate rounding).
#ifdef FASTMU_CPU_FMA_DISPATCH
template <class Env>
__attribute__((target("avx2,fma"))) void transport_chunk_fma(const Env& env, const MuonBatch& in,
                                                             TransportResult& out,
                                                             std::uint64_t first_id,
                                                             std::size_t begin, std::size_t end) {
  transport_lanes<LaneRandomAvx2>(env, in, out, first_id, begin, end);
}
#endif

}  // namespace detail

template <class Env>
TransportResult transport_cpu(const Env& env, const MuonBatch& in, int threads,
                              std::uint64_t first_id = 0) {
  const std::size_t n = in.size();
  TransportResult out;
  out.first_id = first_id;
  out.muons = in;  // pdg and weight pass through; kinematics overwritten below
  out.status.resize(n);
  out.plane.resize(n);
  out.steps.resize(n);
#ifdef FASTMU_CPU_FMA_DISPATCH
  const bool fma = detail::cpu_has_avx2_fma();
#else
  const bool fma = false;
#endif
  // Chunks of a few thousand muons: enough work per chunk to hide the atomic,
  // small enough to balance threads when some muons stop early.
  parallel_for_chunks(n, threads, 4096, [&](std::size_t begin, std::size_t end) {
#ifdef FASTMU_CPU_FMA_DISPATCH
    if (fma) return detail::transport_chunk_fma(env, in, out, first_id, begin, end);
#endif
    detail::transport_chunk(env, in, out, first_id, begin, end);
  });
  (void)fma;
  return out;
}

}  // namespace fastmu
