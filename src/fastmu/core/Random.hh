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
