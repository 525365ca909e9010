// The random blocks of the CPU's lanes: one Philox4x32-10 block per lane and
// step, keyed by (seed, muon id, step index) exactly as step_random
// (StepPhysics.hh), drawn for all lanes at once and kept as structure of
// arrays (word w of lane l in words.w[w][l]) for the vectorised step.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#include <immintrin.h>
#define FASTMU_CPU_FMA_DISPATCH 1
#endif

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"

namespace fastmu::detail {

constexpr int kLanes = 8;  // muons advanced together by the CPU (one AVX2 register of floats)

struct LaneWords {
  alignas(32) std::uint32_t w[4][kLanes];
};

// Portable version: the scalar rounds for all lanes (philox_blocks; the
// compiler does not vectorise the 32 x 32 -> 64 multiplies on its own).
struct LaneRandomPortable {
  static FASTMU_FORCEINLINE void draw(std::uint64_t seed, const std::uint64_t* id,
                                      const std::uint32_t* counter, LaneWords& out) {
    Philox4 blocks[kLanes];
    philox_blocks<kLanes>(seed, id, counter, RngStream::fast_transport, blocks);
    for (int l = 0; l < kLanes; ++l) {
      for (int w = 0; w < 4; ++w) out.w[w][l] = blocks[l].v[w];
    }
  }
};

#ifdef FASTMU_CPU_FMA_DISPATCH
// The 8 lanes' blocks in AVX2 registers, one lane per 32-bit element:
// bitwise philox_blocks<8> (checked by the PhiloxBlocks tests). vpmuludq
// multiplies the even elements only, so each multiply is done for the even
// and the odd lanes and the 64-bit products are blended back into lo / hi
// words. (Scalar rounds for 8 lanes spill to the stack: 660 instead of 486
// instructions per iron-block step, callgrind.)
struct LaneRandomAvx2 {
  __attribute__((target("avx2"))) static FASTMU_FORCEINLINE __m256i mulhi_lo(__m256i x, __m256i m,
                                                                             __m256i& lo) {
    const __m256i even = _mm256_mul_epu32(x, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
    lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  }

  __attribute__((target("avx2"))) static void draw(std::uint64_t seed, const std::uint64_t* id,
                                                   const std::uint32_t* counter, LaneWords& out) {
    static_assert(kLanes == 8, "one lane per 32-bit element of a 256-bit register");
    alignas(32) std::uint32_t id_lo[kLanes], id_hi[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      id_lo[l] = static_cast<std::uint32_t>(id[l]);
      id_hi[l] = static_cast<std::uint32_t>(id[l] >> 32);
    }
    __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(counter));
    __m256i c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(id_lo));
    __m256i c2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(id_hi));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(RngStream::fast_transport));
    const __m256i m0 = _mm256_set1_epi64x(0xD2511F53), m1 = _mm256_set1_epi64x(0xCD9E8D57);
    std::uint32_t k0 = static_cast<std::uint32_t>(seed),
                  k1 = static_cast<std::uint32_t>(seed >> 32);
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
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.w[0]), c0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.w[1]), c1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.w[2]), c2);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.w[3]), c3);
  }
};

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

}  // namespace fastmu::detail
