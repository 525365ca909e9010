// Counter-based random numbers (Philox4x32-10, Random123; Salmon et al., SC'11).
//
// Every random draw is a pure function of (seed, muon id, counter), so results
// do not depend on thread count, batch size, GPU count or scheduling order.
#pragma once

#include <cstdint>

#include <Random123/philox.h>

#include "fastmu/core/Macros.hh"

namespace fastmu {

// Stream tags keep the random sequences of different consumers independent
// even for the same (seed, muon id).
enum class RngStream : std::uint32_t {
  detailed_physics = 0x0d5e7a11u,
  fast_transport = 0x7a2b5f01u,
  table_build = 0x7ab1e001u,
  muon_source = 0x5005ce01u,
  cosmic_flux = 0xf1c05e01u,  // the sea-level flux generator (flux/)
  muon_decay = 0xdeca7001u,   // the fast transport's proper-time budget (one block per muon)
};

struct Philox4 {
  std::uint32_t v[4];
};

// One Philox4x32-10 block for (seed, id, counter, stream).
FASTMU_HD FASTMU_FORCEINLINE Philox4 philox_block(std::uint64_t seed, std::uint64_t id,
                                                  std::uint32_t counter, RngStream stream) {
  r123::Philox4x32 gen;
  const r123::Philox4x32::ctr_type ctr = {{counter, static_cast<std::uint32_t>(id),
                                           static_cast<std::uint32_t>(id >> 32),
                                           static_cast<std::uint32_t>(stream)}};
  const r123::Philox4x32::key_type key = {
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const auto r = gen(ctr, key);
  return {{r[0], r[1], r[2], r[3]}};
}

// kN Philox4x32-10 blocks at once, for one (seed, stream) and per-lane
// (id[l], counter[l]): bitwise the blocks of philox_block. The state is kept
// as structure of arrays, each round a plain loop over the lanes: the
// reference and portable form of the CPU loop's lane draw, which AVX2 CPUs
// replace by explicit vector code (CpuTransport.hh, LaneRandomAvx2; GCC 12
// does not vectorise these widening multiplies by itself). The round and key
// schedule are those of Random123's philox4x32_R.
template <int kN>
FASTMU_HD FASTMU_FORCEINLINE void philox_blocks(std::uint64_t seed, const std::uint64_t* id,
                                                const std::uint32_t* counter, RngStream stream,
                                                Philox4* out) {
  constexpr std::uint64_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // key increments
  std::uint32_t c0[kN], c1[kN], c2[kN], c3[kN];
  for (int l = 0; l < kN; ++l) {
    c0[l] = counter[l];
    c1[l] = static_cast<std::uint32_t>(id[l]);
    c2[l] = static_cast<std::uint32_t>(id[l] >> 32);
    c3[l] = static_cast<std::uint32_t>(stream);
  }
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (int l = 0; l < kN; ++l) {
      const std::uint64_t p0 = kM0 * c0[l];
      const std::uint64_t p1 = kM1 * c2[l];
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c0[l] = n0;
      c1[l] = static_cast<std::uint32_t>(p1);
      c2[l] = n2;
      c3[l] = static_cast<std::uint32_t>(p0);
    }
    k0 += kW0;
    k1 += kW1;
  }
  for (int l = 0; l < kN; ++l) out[l] = {{c0[l], c1[l], c2[l], c3[l]}};
}

// Uniform in (0, 1): never exactly 0 or 1, so log(u) is always finite.
FASTMU_HD FASTMU_FORCEINLINE double to_unit_open(std::uint32_t r) {
  return (static_cast<double>(r) + 0.5) * (1.0 / 4294967296.0);
}
FASTMU_HD FASTMU_FORCEINLINE float to_unit_open_f(std::uint32_t r) {
  // 24 significant bits keep the result strictly inside (0, 1) in float.
  return (static_cast<float>(r >> 8) + 0.5f) * (1.0f / 16777216.0f);
}
// Uniform in (0, 1) with 53 random bits from two words.
FASTMU_HD FASTMU_FORCEINLINE double to_unit_open53(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(hi) << 21) ^ (lo >> 11);
  return (static_cast<double>(bits & ((1ull << 53) - 1)) + 0.5) * (1.0 / 9007199254740992.0);
}

// Sequential generator for one history: draws from consecutive Philox blocks
// of (seed, id, stream). Used by the detailed engine, where the number of draws
// per history varies.
class CounterRng {
 public:
  FASTMU_HD CounterRng(std::uint64_t seed, std::uint64_t id, RngStream stream)
      : seed_(seed), id_(id), stream_(stream) {}

  // Uniform double in (0, 1) with 53 random bits.
  FASTMU_HD double uniform() {
    const std::uint32_t hi = next_u32();
    const std::uint32_t lo = next_u32();
    return to_unit_open53(hi, lo);
  }

  FASTMU_HD std::uint32_t next_u32() {
    if (used_ == 4) {
      block_ = philox_block(seed_, id_, counter_++, stream_);
      used_ = 0;
    }
    return block_.v[used_++];
  }

 private:
  std::uint64_t seed_;
  std::uint64_t id_;
  RngStream stream_;
  std::uint32_t counter_ = 0;
  std::uint32_t used_ = 4;
  Philox4 block_{};
};

}  // namespace fastmu
