// Random stream of one muon history in the detailed engine: a xoroshiro128+
// generator (D. Blackman, S. Vigna, "Scrambled linear pseudorandom number
// generators", ACM TOMS 47 (2021) 36; rotations 24, 16, 37) whose 128-bit
// state is one Philox4x32-10 block of (seed, history id, 0, stream).
//
// Why: drawing every word from Philox cost ~20 instructions a word (a block
// of ten multiply rounds per four words), the largest single item of a
// single-step muon (~45 words). Here a word is one generator step (~8
// instructions) and Philox runs once per history. Draws stay a pure function
// of (seed, id, stream), so results stay independent of threads and order.
// Quality: the upper 53 bits of xoroshiro128+ pass BigCrush; only its lowest
// bits are weak, and next_u32() returns the upper 32 bits. Histories start
// from independent random states of a sequence of period 2^128 - 1: for N
// histories of L draws, the chance that any two overlap is ~N^2 L / 2^128
// (1e9 histories of 1e6 draws: 3e-15).
// A different stream from CounterRng/FastCounterRng (same distributions).
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"

namespace fastmu {

class HistoryRng {
 public:
  FASTMU_HD HistoryRng(std::uint64_t seed, std::uint64_t id, RngStream stream) {
    const Philox4 b = philox_block(seed, id, 0, stream);
    s0_ = (static_cast<std::uint64_t>(b.v[1]) << 32) | b.v[0];
    s1_ = (static_cast<std::uint64_t>(b.v[3]) << 32) | b.v[2];
    if ((s0_ | s1_) == 0)
      s0_ = 0x9E3779B97F4A7C15ull;  // the one invalid state (probability 2^-128)
  }

  FASTMU_HD FASTMU_FORCEINLINE std::uint64_t next_u64() {
    const std::uint64_t a = s0_;
    std::uint64_t b = s1_;
    const std::uint64_t out = a + b;
    b ^= a;
    s0_ = rotl(a, 24) ^ b ^ (b << 16);
    s1_ = rotl(b, 37);
    return out;
  }

  // The upper (strong) half of one output.
  FASTMU_HD FASTMU_FORCEINLINE std::uint32_t next_u32() {
    return static_cast<std::uint32_t>(next_u64() >> 32);
  }

  // Uniform double in (0, 1) with 53 random bits (as CounterRng::uniform).
  FASTMU_HD double uniform() {
    return (static_cast<double>(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }

 private:
  FASTMU_HD static FASTMU_FORCEINLINE std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
  }
  std::uint64_t s0_;
  std::uint64_t s1_;
};

}  // namespace fastmu
