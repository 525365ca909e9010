// The lane-parallel Philox of the CPU step loop must give bitwise the blocks of
// the scalar philox_block (the results must not depend on the backend).
#include <gtest/gtest.h>

#include <cstdint>

#include "fastmu/core/Random.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"

namespace fastmu {
namespace {

TEST(PhiloxBlocks, MatchScalarBlocks) {
  constexpr int kN = 8;
  for (std::uint64_t seed : {std::uint64_t{12345}, std::uint64_t{0xfedcba9876543210ull}}) {
    std::uint64_t id[kN];
    std::uint32_t counter[kN];
    for (int l = 0; l < kN; ++l) {
      id[l] = (static_cast<std::uint64_t>(l) << 33) + 977u * l + 3u;  // both id words vary
      counter[l] = 0xffffffffu - 131u * l;
    }
    Philox4 got[kN];
    philox_blocks<kN>(seed, id, counter, RngStream::fast_transport, got);
    for (int l = 0; l < kN; ++l) {
      const Philox4 want = philox_block(seed, id[l], counter[l], RngStream::fast_transport);
      for (int w = 0; w < 4; ++w)
        EXPECT_EQ(got[l].v[w], want.v[w]) << "lane " << l << " word " << w;
    }
  }
}

#ifdef FASTMU_CPU_FMA_DISPATCH
// The AVX2 version used by the CPU loop on AVX2 machines.
TEST(PhiloxBlocks, Avx2LanesMatchScalarBlocks) {
  if (!detail::cpu_has_avx2_fma()) GTEST_SKIP() << "no AVX2 on this CPU";
  constexpr int kN = detail::kLanes;
  const std::uint64_t seed = 0x0123456789abcdefull;
  std::uint64_t id[kN];
  std::uint32_t counter[kN];
  for (int l = 0; l < kN; ++l) {
    id[l] = 0xfffffffffull * static_cast<std::uint64_t>(l + 1);
    counter[l] = 7919u * static_cast<std::uint32_t>(l);
  }
  detail::LaneWords got;
  detail::LaneRandomAvx2::draw(seed, id, counter, got);
  for (int l = 0; l < kN; ++l) {
    const Philox4 want = philox_block(seed, id[l], counter[l], RngStream::fast_transport);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(got.w[w][l], want.v[w]) << "lane " << l << " word " << w;
  }
}
#endif

// The portable version (non-AVX2 CPUs) gives the same words.
TEST(PhiloxBlocks, PortableLanesMatchScalarBlocks) {
  constexpr int kN = detail::kLanes;
  const std::uint64_t seed = 42;
  std::uint64_t id[kN];
  std::uint32_t counter[kN];
  for (int l = 0; l < kN; ++l) {
    id[l] = 1000003ull * static_cast<std::uint64_t>(l) + (static_cast<std::uint64_t>(l) << 40);
    counter[l] = 17u * static_cast<std::uint32_t>(l);
  }
  detail::LaneWords got;
  detail::LaneRandomPortable::draw(seed, id, counter, got);
  for (int l = 0; l < kN; ++l) {
    const Philox4 want = philox_block(seed, id[l], counter[l], RngStream::fast_transport);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(got.w[w][l], want.v[w]) << "lane " << l << " word " << w;
  }
}

}  // namespace
}  // namespace fastmu
