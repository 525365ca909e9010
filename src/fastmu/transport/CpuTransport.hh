// The CPU backend: every muon of a batch transported to its end, muons shared
// among threads in chunks. Generic over the environment so that tests can run
// the same loop on toy geometries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#include <immintrin.h>  // LaneRandomAvx2
#endif

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/StepPhysics.hh"

namespace fastmu {

namespace detail {

constexpr std::size_t kLanes = 8;  // muons advanced in turn inside a chunk

// The random blocks of the kLanes lanes' steps: portable version (the
// compiler does not vectorise the 32 x 32 -> 64 multiplies here on its own).
struct LaneRandomPortable {
  static FASTMU_FORCEINLINE void draw(std::uint64_t seed, const std::uint64_t* id,
                                      const std::uint32_t* counter, Philox4* out) {
    philox_blocks<kLanes>(seed, id, counter, RngStream::fast_transport, out);
  }
};

// Muons [begin, end) of `in` transported to their end, written into `out`.
// Inside a chunk, kLanes muons advance step by step in turn, each step split
// into plan (stop checks, material, bin, random numbers) and finish (move and
// interaction): the alias cells of all lanes are prefetched between the two
// phases, so their cache misses overlap instead of stalling each muon in turn
// (-25 % CPU time per step measured on the iron block). Each muon's history,
// and so the result, is unchanged.
// LaneRandom::draw gives the lanes' random blocks (bitwise philox_blocks).
template <class LaneRandom, class Env>
FASTMU_FORCEINLINE void transport_chunk_body(const Env& env, const MuonBatch& in,
                                             TransportResult& out, std::uint64_t first_id,
                                             std::size_t begin, std::size_t end) {
  MuonBatch& o = out.muons;
  for (std::size_t base = begin; base < end; base += kLanes) {
    const std::size_t lanes = std::min(kLanes, end - base);
    MuonTrack t[kLanes];
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t i = base + l;
      t[l].r = Vec3f{in.x[i], in.y[i], in.z[i]};
      t[l].p = Vec3f{in.px[i], in.py[i], in.pz[i]};
      t[l].charge = charge_from_pdg(in.pdg[i]);
    }
    StepPlan plan[kLanes];
    bool go[kLanes];
    std::uint64_t id[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) id[l] = first_id + base + l;
    for (bool any = true; any;) {
      // The random blocks of all lanes' steps in one vectorised pass (those
      // of finished or vacuum lanes go unused: cheaper than branching).
      std::uint32_t counter[kLanes];
      for (std::size_t l = 0; l < kLanes; ++l) counter[l] = static_cast<std::uint32_t>(t[l].steps);
      Philox4 rn[kLanes];
      LaneRandom::draw(env.options.seed, id, counter, rn);
      // Plan every lane's step and prefetch its table cell, then finish them:
      // the cells arrive while the other lanes compute.
      for (std::size_t l = 0; l < lanes; ++l) {
        go[l] = t[l].status == static_cast<std::int32_t>(MuonStatus::alive) &&
                plan_step(env, t[l], [&] { return rn[l]; }, plan[l]);
        if (go[l] && plan[l].table != nullptr) __builtin_prefetch(planned_cell(plan[l]));
      }
      any = false;
      for (std::size_t l = 0; l < lanes; ++l) {
        if (go[l]) {
          finish_step(env, t[l], plan[l]);
          any = true;
        }
      }
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t i = base + l;
      o.x[i] = t[l].r.x, o.y[i] = t[l].r.y, o.z[i] = t[l].r.z;
      o.px[i] = t[l].p.x, o.py[i] = t[l].p.y, o.pz[i] = t[l].p.z;
      out.status[i] = t[l].status;
      out.plane[i] = t[l].plane;
      out.steps[i] = t[l].steps;
    }
  }
}

template <class Env>
void transport_chunk(const Env& env, const MuonBatch& in, TransportResult& out,
                     std::uint64_t first_id, std::size_t begin, std::size_t end) {
  transport_chunk_body<LaneRandomPortable>(env, in, out, first_id, begin, end);
}

// The same loop compiled for x86-64 CPUs with AVX2 and FMA (every x86 server
// CPU since 2013), chosen at run time: the default build stays portable
// (baseline x86-64), but the step's float arithmetic (RK4, rotations, the
// inline exp / log / sincos polynomials of FastMath.hh) gets fused
// multiply-adds and VEX encoding: -15 to -20 % time per step measured on
// the iron block. Results are bitwise reproducible on a given machine (for
// any thread count or batch size); between a machine with FMA and one
// without they differ by float rounding (fused vs separate rounding).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define FASTMU_CPU_FMA_DISPATCH 1

// The 8 lanes' Philox4x32-10 blocks in AVX2 registers, one lane per 32-bit
// element: bitwise philox_blocks<8> (checked by PhiloxBlocks tests). With it
// the iron-block step takes 486 instead of 660 instructions (callgrind: the
// scalar rounds, 8 lanes unrolled, spilled to the stack). vpmuludq multiplies
// the even elements only, so each multiply is done for the even and the odd
// lanes and the 64-bit products are blended back into lo / hi words.
struct LaneRandomAvx2 {
  __attribute__((target("avx2"))) static FASTMU_FORCEINLINE __m256i mulhi_lo(__m256i x, __m256i m,
                                                                            __m256i& lo) {
    const __m256i even = _mm256_mul_epu32(x, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
    lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  }

  __attribute__((target("avx2"))) static void draw(
      std::uint64_t seed, const std::uint64_t* id, const std::uint32_t* counter, Philox4* out) {
    static_assert(kLanes == 8, "one lane per 32-bit element of a 256-bit register");
    alignas(32) std::uint32_t w[4][kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      w[1][l] = static_cast<std::uint32_t>(id[l]);
      w[2][l] = static_cast<std::uint32_t>(id[l] >> 32);
    }
    __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(counter));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[1]));
    __m256i c2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[2]));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(RngStream::fast_transport));
    const __m256i m0 = _mm256_set1_epi64x(0xD2511F53), m1 = _mm256_set1_epi64x(0xCD9E8D57);
    std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      __m256i lo0, lo1;
      const __m256i hi0 = mulhi_lo(c0, m0, lo0);
      const __m256i hi1 = mulhi_lo(c2, m1, lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c3 = lo0;
      k0 += 0x9E3779B9u;  // Philox key schedule (philox_blocks)
      k1 += 0xBB67AE85u;
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[0]), c0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[1]), c1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[2]), c2);
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[3]), c3);
    for (std::size_t l = 0; l < kLanes; ++l) out[l] = {{w[0][l], w[1][l], w[2][l], w[3][l]}};
  }
};

template <class Env>
__attribute__((target("avx2,fma"))) void transport_chunk_fma(const Env& env, const MuonBatch& in,
                                                             TransportResult& out,
                                                             std::uint64_t first_id,
                                                             std::size_t begin, std::size_t end) {
  transport_chunk_body<LaneRandomAvx2>(env, in, out, first_id, begin, end);
}

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
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
