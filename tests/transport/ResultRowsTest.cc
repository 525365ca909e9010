// ResultRows::at_plane on the CPU backend: the status-0 rows of the full
// result, in id order with their ids, and stats that count every muon.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

// Iron-block muons of 2..61 GeV/c: the slower ones stop in the 10 m of iron,
// so both kept and dropped rows occur.
MuonBatch mixed_muons(std::size_t n) {
  MuonBatch m = iron_block_muons(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.pz[i] = 2.0f + static_cast<float>(i % 60);
    m.weight[i] = 0.5 + static_cast<double>(i);
  }
  return m;
}

TEST(ResultRows, AtPlaneIsTheFilteredFullResult) {
  MaterialLibrary materials;
  const TransportParams params = make_transport_params(
      iron_block_geometry_json(), "iron-block", materials, {}, &test::test_table_cache(), {});
  const std::size_t n = 3000;
  const std::uint64_t first_id = 1000;
  const MuonBatch muons = mixed_muons(n);
  TransportStats all_st, kept_st;
  const TransportResult all = transport(params, muons, Backend::cpu, 2, first_id, &all_st);
  const TransportResult kept =
      transport(params, muons, Backend::cpu, 1, first_id, &kept_st, 0, ResultRows::at_plane);
  EXPECT_TRUE(all.id.empty());
  EXPECT_EQ(all.id_of(7), first_id + 7);

  std::size_t j = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all.status[i] != 0) continue;
    ASSERT_LT(j, kept.size());
    EXPECT_EQ(kept.id_of(j), first_id + i);
    EXPECT_EQ(kept.muons.pz[j], all.muons.pz[i]);
    EXPECT_EQ(kept.muons.x[j], all.muons.x[i]);
    EXPECT_EQ(kept.muons.weight[j], all.muons.weight[i]);
    EXPECT_EQ(kept.plane[j], all.plane[i]);
    EXPECT_EQ(kept.steps[j], all.steps[i]);
    ++j;
  }
  EXPECT_EQ(j, kept.size());
  EXPECT_GT(kept.size(), n / 10);
  EXPECT_LT(kept.size(), n * 9 / 10);

  // The stats count every muon, whichever rows come back.
  EXPECT_EQ(kept_st.muons, n);
  EXPECT_EQ(kept_st.steps, all.total_steps());
  EXPECT_EQ(kept_st.by_status, all_st.by_status);
  EXPECT_EQ(std::accumulate(kept_st.by_status.begin(), kept_st.by_status.end(), std::uint64_t{0}),
            n);
  EXPECT_EQ(kept_st.by_status[0], kept.size());
}

}  // namespace
}  // namespace fastmu
