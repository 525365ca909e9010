// distance_to_next_volume and distance_to_world_exit against marching.
#include <random>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/ShipShield.hh"

namespace fastmu {
namespace {

TEST(Distance, WorldExitOfABox) {
  const GeometryParams g = test::load(test::world_doc());
  const GeometryView v = g.host_view();
  EXPECT_FLOAT_EQ(v.distance_to_world_exit({0, 0, 0}, {0, 0, 1}), 10.0f);
  EXPECT_FLOAT_EQ(v.distance_to_world_exit({9, 0, 0}, {1, 0, 0}), 1.0f);
  EXPECT_NEAR(v.distance_to_world_exit({0, 0, 0}, {0.6f, 0.8f, 0}), 12.5f, 1e-5);
  EXPECT_FLOAT_EQ(v.distance_to_next_volume({0, 0, 0}, {0, 0, -1}), 10.0f);  // no volumes
}

TEST(Distance, ToBoxesAndArb8s) {
  auto doc = test::world_doc();
  doc["volumes"].push_back(test::box_json("b", {-1, -1, 4}, {1, 1, 5}));
  doc["volumes"].push_back(test::arb8_json(
      "w", -5, 1, {{0, 0}, {0, 1}, {1, 0}, {1, 0}, {0, 0}, {0, 1}, {1, 0}, {1, 0}}));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  EXPECT_NEAR(v.distance_to_next_volume({0, 0, 0}, {0, 0, 1}), 4.0f, 1e-6);
  EXPECT_NEAR(v.distance_to_next_volume({0.2f, 0.2f, 0}, {0, 0, -1}), 4.0f, 1e-4);
  // Towards the wedge's slanted face x + y = 1 from (1, 1, -5) along -x: entry at x = 0.
  EXPECT_NEAR(v.distance_to_next_volume({1, 1.2f, -5}, {-1, 0, 0}), 11.0f,
              1e-4);  // misses: world exit
  EXPECT_NEAR(v.distance_to_next_volume({1, 0.5f, -5}, {-1, 0, 0}), 0.5f, 1e-4);
  EXPECT_EQ(v.distance_to_next_volume({0, 0, 4.5f}, {0, 0, 1}), 0.0f);  // inside a volume
}

TEST(Distance, ShipShieldRaysNeverCrossAVolume) {
  const GeometryParams g = test::load(make_ship_shield_json("warm"));
  const GeometryView v = g.host_view();
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1), uz(-1, 83);
  int tested = 0, long_flights = 0;
  for (int n = 0; n < 3000; ++n) {
    const Vec3f pos{3 * u(rng), 3 * u(rng), uz(rng)};
    if (v.locate(pos.x, pos.y, pos.z).volume >= 0) continue;
    Vec3f d{0.3f * u(rng), 0.3f * u(rng), u(rng) > -0.5f ? 1.f : -1.f};
    d = (1.0f / norm(d)) * d;
    const float dist = v.distance_to_next_volume(pos, d);
    ++tested;
    long_flights += dist > 1;
    // Every point before the distance is outside all volumes ...
    for (int k = 0; k < 200; ++k) {
      const float l = dist * (k + 0.5f) / 200;
      const Vec3f p = pos + l * d;
      ASSERT_EQ(v.locate_brute_force(p.x, p.y, p.z).volume, -1)
          << n << " at " << l << " of " << dist;
    }
    // ... and just beyond it is a volume or outside the world.
    const Vec3f q = pos + (dist + 2e-3f) * d;
    EXPECT_TRUE(!v.in_world(q.x, q.y, q.z) || v.locate_brute_force(q.x, q.y, q.z).volume >= 0)
        << n << " dist " << dist;
  }
  EXPECT_GT(tested, 1000);
  EXPECT_GT(long_flights, 100);
}

}  // namespace
}  // namespace fastmu
