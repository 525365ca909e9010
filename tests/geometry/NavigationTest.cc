// distance_to_boundary (from inside volumes and from the world's material)
// and the isotropic safety, against marching and brute-force location.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/ShipShield.hh"

namespace fastmu {
namespace {

using test::arb8_json;
using test::box_json;
using test::world_doc;

// A square of half-side 1 at the bottom, turned by 0.6 rad and shrunk at the
// top: every lateral face is twisted.
nlohmann::json twisted_block(double zc, double dz) {
  std::vector<std::array<double, 2>> v;
  for (int f = 0; f < 2; ++f) {
    const double r = f == 0 ? std::sqrt(2.0) : 0.8 * std::sqrt(2.0), phi0 = f == 0 ? 0.0 : 0.6;
    for (int i = 0; i < 4; ++i) {
      const double p = phi0 + (i + 0.5) * M_PI / 2;
      v.push_back({r * std::cos(p), r * std::sin(p)});
    }
  }
  return arb8_json("twisted", zc, dz, v);
}

TEST(Navigation, ExitOfABox) {
  auto doc = world_doc();
  doc["volumes"].push_back(box_json("b", {-1, -2, 0}, {1, 2, 3}));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  EXPECT_FLOAT_EQ(v.distance_to_boundary({0, 0, 1}, {0, 0, 1}, 0), 2.0f);
  EXPECT_FLOAT_EQ(v.distance_to_boundary({0, 0, 1}, {0, 0, -1}, 0), 1.0f);
  EXPECT_NEAR(v.distance_to_boundary({0, 0, 1}, {0.6f, 0, 0.8f}, 0), 1.0f / 0.6f, 1e-5);
  // From the world's material: the entry into the box, or the world's exit.
  EXPECT_FLOAT_EQ(v.distance_to_boundary({0, 0, -4}, {0, 0, 1}, -1), 4.0f);
  EXPECT_FLOAT_EQ(v.distance_to_boundary({0, 0, -4}, {0, 0, -1}, -1), 6.0f);
  // Safety: nearest face inside; nearest box or cell face outside.
  EXPECT_FLOAT_EQ(v.safety({0.5f, 0, 1}, 0), 0.5f);
  EXPECT_LE(v.safety({0, 0, -4}, -1), 4.0f);
}

// In the world's material far from every volume the safety reaches past
// the grid cell (the cell's clearance) yet stays below the distance to the
// nearest volume.
TEST(Navigation, WorldSafetyReachesPastEmptyCells) {
  auto doc = world_doc();
  doc["volumes"].push_back(box_json("a", {-0.2, -0.2, -9.5}, {0.2, 0.2, -9.1}));
  doc["volumes"].push_back(box_json("b", {1, 1, -1}, {1.4, 1.4, -0.6}));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  const float cell = fmaxf(fmaxf(v.grid.cell.x, v.grid.cell.y), v.grid.cell.z);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-9.9f, 9.9f);
  int beyond_cell = 0;
  for (int n = 0; n < 4000; ++n) {
    const Vec3f p{u(rng), u(rng), u(rng)};
    if (v.locate(p.x, p.y, p.z).volume >= 0) continue;
    float nearest = 3e38f;
    for (int k = 0; k < v.num_volumes; ++k) {
      const VolumeRecord& r = v.volumes[k];
      const float dx = fmaxf(fmaxf(r.lo.x - p.x, p.x - r.hi.x), 0.f);
      const float dy = fmaxf(fmaxf(r.lo.y - p.y, p.y - r.hi.y), 0.f);
      const float dz = fmaxf(fmaxf(r.lo.z - p.z, p.z - r.hi.z), 0.f);
      nearest = fminf(nearest, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
    const float safety = v.safety(p, -1);
    ASSERT_LE(safety, nearest + 1e-5f) << n;
    beyond_cell += safety > cell;
  }
  EXPECT_GT(beyond_cell, 100);
}

// Along random rays from random points inside the twisted block, the exit
// distance matches a 0.5 mm march.
TEST(Navigation, ExitOfATwistedArb8MatchesMarching) {
  auto doc = world_doc();
  doc["volumes"].push_back(twisted_block(0, 1.5));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  int tested = 0;
  for (int n = 0; n < 3000 && tested < 600; ++n) {
    const Vec3f pos{u(rng), u(rng), 1.5f * u(rng)};
    if (v.locate(pos.x, pos.y, pos.z).volume != 0) continue;
    Vec3f d{u(rng), u(rng), u(rng)};
    d = (1.0f / norm(d)) * d;
    const float got = v.distance_to_boundary(pos, d, 0);
    float ref = -1;
    for (float l = 0; l < 6; l += 5e-4f) {
      const Vec3f p = pos + l * d;
      if (!v.contains(0, p.x, p.y, p.z)) {
        ref = l;
        break;
      }
    }
    ASSERT_GE(ref, 0.f);
    EXPECT_NEAR(got, ref, 6e-4) << n;
    ++tested;
  }
  EXPECT_EQ(tested, 600);
}

// The SHiP-like shield from inside its blocks and from the air between them:
// every point before distance_to_boundary has the start's location, a point
// just beyond has another; and no point within the safety has another.
TEST(Navigation, ShipShieldDistanceAndSafety) {
  const GeometryParams g = test::load(make_ship_shield_json("warm"));
  const GeometryView v = g.host_view();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1), uz(-1, 40);
  int in_volume = 0, in_world_material = 0, positive_safety = 0;
  for (int n = 0; n < 20000 && (in_volume < 400 || in_world_material < 400); ++n) {
    const Vec3f pos{2.5f * u(rng), 2.5f * u(rng), uz(rng)};
    if (!v.in_world(pos.x, pos.y, pos.z)) continue;
    const std::int32_t vol = v.locate_brute_force(pos.x, pos.y, pos.z).volume;
    (vol >= 0 ? in_volume : in_world_material)++;
    Vec3f d{0.5f * u(rng), 0.5f * u(rng), u(rng)};
    d = (1.0f / norm(d)) * d;
    const float dist = v.distance_to_boundary(pos, d, vol);
    for (int k = 0; k < 100; ++k) {
      const float l = dist * (k + 0.5f) / 100;
      const Vec3f p = pos + l * d;
      // Within float rounding of a shared face either side is allowed.
      ASSERT_EQ(v.locate_brute_force(p.x, p.y, p.z).volume, vol)
          << n << " at " << l << " of " << dist;
    }
    const Vec3f q = pos + (dist + 2e-3f) * d;
    EXPECT_TRUE(!v.in_world(q.x, q.y, q.z) || v.locate_brute_force(q.x, q.y, q.z).volume != vol)
        << n << " dist " << dist;

    const float safety = v.safety(pos, vol);
    positive_safety += safety > 1e-3f;
    EXPECT_LE(safety, dist + 1e-5f) << n;
    for (int k = 0; k < 20; ++k) {
      Vec3f w{u(rng), u(rng), u(rng)};
      w = (safety * 0.999f * std::sqrt(std::fabs(u(rng))) / norm(w)) * w;
      const Vec3f p = pos + w;
      ASSERT_EQ(v.locate_brute_force(p.x, p.y, p.z).volume, vol) << n << " safety " << safety;
    }
  }
  EXPECT_GE(in_volume, 400);
  EXPECT_GE(in_world_material, 400);
  EXPECT_GT(positive_safety,
            (in_volume + in_world_material) / 2);  // a bound that is not trivially 0
}

// The ARB8 safety is a true lower bound on the twisted block, and not
// uselessly small in its middle.
TEST(Navigation, TwistedArb8SafetyIsALowerBound) {
  auto doc = world_doc();
  doc["volumes"].push_back(twisted_block(0, 1.5));
  const GeometryParams g = test::load(doc);
  const GeometryView v = g.host_view();
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int n = 0; n < 400; ++n) {
    const Vec3f pos{u(rng), u(rng), 1.5f * u(rng)};
    if (v.locate(pos.x, pos.y, pos.z).volume != 0) continue;
    const float safety = v.safety(pos, 0);
    for (int k = 0; k < 200; ++k) {
      Vec3f d{u(rng), u(rng), u(rng)};
      d = (1.0f / norm(d)) * d;
      ASSERT_LE(safety, v.distance_to_boundary(pos, d, 0) + 1e-5f) << n;
    }
  }
  EXPECT_GT(v.safety({0, 0, 0}, 0), 0.2f);  // the centre: about 0.9 m from the faces
}

}  // namespace
}  // namespace fastmu
