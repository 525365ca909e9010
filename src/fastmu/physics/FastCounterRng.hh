// The random stream of CounterRng (Philox4x32-10 blocks of (seed, id,
// counter, stream), drawn word by word), generated in fewer instructions
// (for samplers that must reproduce CounterRng's stream; the detailed engine
// itself now draws from HistoryRng, cheaper still):
//  - the ten round keys are computed once per history, not per block;
//  - on x86-64 hosts one block is one SSE2 vector: both 32x32->64 products of
//    a Philox round are one pmuludq, the word permutation one pshufd
//    (about 7 instructions per round instead of ~14);
//  - the next block is computed one refill ahead (latency hiding).
// Elsewhere (device code, non-SSE2 hosts, or FASTMU_PHILOX_SCALAR defined to
// test it) the rounds are plain 64-bit multiplies with the cached keys.
// Bitwise the same words as CounterRng for the same (seed, id, stream); the
// samplers are templates on the generator, so either may drive them
// (tests/physics/FastCounterRngTest.cc checks the equality).
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"

#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(FASTMU_PHILOX_SCALAR)
#include <emmintrin.h>
#define FASTMU_PHILOX_SSE2 1
#endif

namespace fastmu {

class FastCounterRng {
 public:
  FASTMU_HD FastCounterRng(std::uint64_t seed, std::uint64_t id, RngStream stream) {
    std::uint32_t k0 = static_cast<std::uint32_t>(seed);
    std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
    ctr_[0] = 0;
    ctr_[1] = static_cast<std::uint32_t>(id);
    ctr_[2] = static_cast<std::uint32_t>(id >> 32);
    ctr_[3] = static_cast<std::uint32_t>(stream);
    for (int r = 0; r < kRounds; ++r) {
#ifdef FASTMU_PHILOX_SSE2
      key_[r] = _mm_set_epi32(0, static_cast<int>(k1), 0, static_cast<int>(k0));
#else
      key_[r][0] = k0;
      key_[r][1] = k1;
#endif
      k0 += kW0;
      k1 += kW1;
    }
  }

  // Uniform double in (0, 1) with 53 random bits (as CounterRng::uniform).
  FASTMU_HD double uniform() {
    const std::uint32_t hi = next_u32();
    const std::uint32_t lo = next_u32();
    return to_unit_open53(hi, lo);
  }

  FASTMU_HD FASTMU_FORCEINLINE std::uint32_t next_u32() {
    if (used_ == 4) {
      refill();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  static constexpr int kRounds = 10;
  static constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // Philox multipliers
  static constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // key increments

  // The next block is computed one refill ahead: its dependency chain (ten
  // multiply rounds) then overlaps the use of the current block instead of
  // stalling the sampler that asked for a word (worth ~5 % of the step time).
  FASTMU_HD void refill() {
    if (primed_) {
      for (int w = 0; w < 4; ++w) block_[w] = ahead_[w];
    } else {
      compute(block_);
      primed_ = true;
    }
    compute(ahead_);
  }

  // Block of the current counter into out; advances the counter.
  FASTMU_HD void compute(std::uint32_t* out) {
#ifdef FASTMU_PHILOX_SSE2
    // Lanes (c0, c1, c2, c3). A round: (c0, c2) x (M0, M1) -> products
    // (lo0, hi0, lo1, hi1); new state (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0).
    const __m128i mult = _mm_set_epi32(0, static_cast<int>(kM1), 0, static_cast<int>(kM0));
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ctr_));
    for (int r = 0; r < kRounds; ++r) {
      const __m128i prod = _mm_mul_epu32(x, mult);
      const __m128i odd = _mm_srli_epi64(x, 32);  // (c1, 0, c3, 0)
      x = _mm_xor_si128(_mm_shuffle_epi32(prod, _MM_SHUFFLE(0, 1, 2, 3)),
                        _mm_xor_si128(odd, key_[r]));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), x);
#else
    std::uint32_t c0 = ctr_[0], c1 = ctr_[1], c2 = ctr_[2], c3 = ctr_[3];
    for (int r = 0; r < kRounds; ++r) {
      const std::uint64_t p0 = std::uint64_t(kM0) * c0;
      const std::uint64_t p1 = std::uint64_t(kM1) * c2;
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ key_[r][0];
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ key_[r][1];
      c0 = n0;
      c1 = static_cast<std::uint32_t>(p1);
      c2 = n2;
      c3 = static_cast<std::uint32_t>(p0);
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
#endif
    ++ctr_[0];
  }

#ifdef FASTMU_PHILOX_SSE2
  __m128i key_[kRounds];
#else
  std::uint32_t key_[kRounds][2];
#endif
  alignas(16) std::uint32_t ctr_[4];
  alignas(16) std::uint32_t block_[4] = {};
  alignas(16) std::uint32_t ahead_[4] = {};
  bool primed_ = false;
  std::uint32_t used_ = 4;
};

}  // namespace fastmu
