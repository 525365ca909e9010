// FastCounterRng must give bitwise the stream of CounterRng (the detailed
// engine's output is a pure function of (seed, muon id) either way).
#include <gtest/gtest.h>

#include <cstdint>

#include "fastmu/core/Random.hh"
#include "fastmu/physics/FastCounterRng.hh"
#include "fastmu/physics/RandomDistributions.hh"

namespace fastmu {
namespace {

TEST(FastCounterRng, SameWordsAsCounterRng) {
  const std::uint64_t seeds[] = {0, 1, 7, 0xffffffffull, 0x123456789abcdef0ull, ~0ull};
  const std::uint64_t ids[] = {0, 1, 12345, 0xffffffffull, 0x100000000ull, ~0ull};
  const RngStream streams[] = {RngStream::detailed_physics, RngStream::fast_transport,
                               RngStream::table_build, RngStream::muon_source,
                               RngStream::cosmic_flux};
  for (std::uint64_t seed : seeds) {
    for (std::uint64_t id : ids) {
      for (RngStream stream : streams) {
        CounterRng ref(seed, id, stream);
        FastCounterRng fast(seed, id, stream);
        for (int i = 0; i < 203; ++i) {  // crosses many blocks, ends mid-block
          ASSERT_EQ(ref.next_u32(), fast.next_u32())
              << "seed " << seed << " id " << id << " word " << i;
        }
      }
    }
  }
}

TEST(FastCounterRng, SameVariatesAsCounterRng) {
  // Mixed 32- and 64-bit draws through the distributions the engine uses.
  for (std::uint64_t id = 0; id < 200; ++id) {
    CounterRng ref(42, id, RngStream::detailed_physics);
    FastCounterRng fast(42, id, RngStream::detailed_physics);
    for (int i = 0; i < 20; ++i) {
      ASSERT_EQ(ref.uniform(), fast.uniform());
      ASSERT_EQ(random::exponential(ref), random::exponential(fast));
      ASSERT_EQ(random::poisson(7.5, ref), random::poisson(7.5, fast));
      ASSERT_EQ(random::normal(ref), random::normal(fast));
    }
  }
}

}  // namespace
}  // namespace fastmu
