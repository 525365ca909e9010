// The grid index gives the same answers as a search over all volumes.
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/ShipShield.hh"

namespace fastmu {
namespace {

void expect_grid_matches_brute_force(const GeometryParams& g, int n_points, unsigned seed) {
  const GeometryView v = g.host_view();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(v.world_lo.x, v.world_hi.x),
      uy(v.world_lo.y, v.world_hi.y), uz(v.world_lo.z, v.world_hi.z);
  int in_volumes = 0;
  for (int i = 0; i < n_points; ++i) {
    const float x = ux(rng), y = uy(rng), z = uz(rng);
    const LocateResult a = v.locate(x, y, z), b = v.locate_brute_force(x, y, z);
    ASSERT_EQ(a.volume, b.volume) << x << " " << y << " " << z;
    ASSERT_EQ(a.material, b.material);
    in_volumes += a.volume >= 0;
  }
  EXPECT_GT(in_volumes, 0);
  EXPECT_LT(in_volumes, n_points);
}

TEST(Grid, ManyRandomBoxesMatchBruteForce) {
  // A 12 x 12 x 12 lattice of boxes of random sizes within their lattice cell.
  auto doc = test::world_doc();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.05, 0.45);
  int n = 0;
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j < 12; ++j) {
      for (int k = 0; k < 12; ++k) {
        const double c[3] = {-9 + 1.6 * i, -9 + 1.6 * j, -9 + 1.6 * k};
        const double h[3] = {u(rng) * 1.6, u(rng) * 1.6, u(rng) * 1.6};
        doc["volumes"].push_back(test::box_json("b" + std::to_string(n++),
                                                {c[0] - h[0], c[1] - h[1], c[2] - h[2]},
                                                {c[0] + h[0], c[1] + h[1], c[2] + h[2]}));
      }
    }
  }
  const GeometryParams g = test::load(doc);
  // The index must not let the candidates grow with the number of volumes.
  EXPECT_LE(g.max_candidates_per_cell(), 8u);
  expect_grid_matches_brute_force(g, 200000, 1);
}

TEST(Grid, ShipShieldMatchesBruteForce) {
  for (const std::string set : {"warm", "hybrid"}) {
    const GeometryParams g = test::load(make_ship_shield_json(set));
    expect_grid_matches_brute_force(g, 100000, 2);
    // Points near the magnets, where the ARB8 tests matter.
    const GeometryView v = g.host_view();
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> ux(-2.5f, 2.5f), uz(0.f, 30.f);
    for (int i = 0; i < 100000; ++i) {
      const float x = ux(rng), y = ux(rng), z = uz(rng);
      ASSERT_EQ(v.locate(x, y, z).volume, v.locate_brute_force(x, y, z).volume) << set;
    }
  }
}

TEST(Grid, EmptyGeometryIsAllWorld) {
  const GeometryParams g = test::load(test::world_doc());
  const GeometryView v = g.host_view();
  EXPECT_EQ(v.locate(1, 2, 3).volume, -1);
  EXPECT_EQ(v.locate(1, 2, 3).material, 0);
  EXPECT_TRUE(v.in_world(10, -10, 0));
  EXPECT_FALSE(v.in_world(10.01f, 0, 0));
}

TEST(Grid, NonFinitePointsAreSafe) {
  auto doc = test::world_doc();
  doc["volumes"].push_back(test::box_json("b", {-1, -1, -1}, {1, 1, 1}));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(v.locate(nan, 0, 0).volume, -1);
  EXPECT_EQ(v.locate(0, 1e30f, 0).volume, -1);
  EXPECT_EQ(v.locate(0, 0, -inf).volume, -1);
  EXPECT_FALSE(v.in_world(nan, 0, 0));
}

}  // namespace
}  // namespace fastmu
