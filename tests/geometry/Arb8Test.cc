// ARB8 and box containment, either vertex winding, twisted and collapsed faces.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/Arb8.hh"

namespace fastmu {
namespace {

using test::arb8_json;
using test::box_json;
using test::load;
using test::world_doc;

TEST(Box, ContainsItsInteriorAndSurfaceOnly) {
  auto doc = world_doc();
  doc["volumes"].push_back(box_json("b", {-1, -2, 0}, {1, 2, 5}));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  EXPECT_EQ(v.locate(0, 0, 2.5f).volume, 0);
  EXPECT_EQ(v.locate(0.99f, -1.99f, 4.99f).volume, 0);
  EXPECT_EQ(v.locate(1.0f, 0, 1).volume, 0);  // on the surface: closed solid
  EXPECT_EQ(v.locate(1.01f, 0, 1).volume, -1);
  EXPECT_EQ(v.locate(0, 2.01f, 1).volume, -1);
  EXPECT_EQ(v.locate(0, 0, -0.01f).volume, -1);
  EXPECT_EQ(v.locate(0, 0, 5.01f).volume, -1);
  // Materials: the world's is id 0, the volume's the next.
  EXPECT_EQ(v.locate(0, 0, 2.5f).material, 1);
  EXPECT_EQ(v.locate(5, 5, 5).material, 0);
  ASSERT_EQ(g.material_names().size(), 2u);
  EXPECT_EQ(g.material_names()[0], "G4_AIR");
  EXPECT_EQ(g.material_names()[1], "G4_Fe");
}

// A twisted ARB8: a square of half-side s rotated by `twist` between the faces.
std::vector<std::array<double, 2>> twisted_square(double s, double twist, bool clockwise) {
  std::vector<std::array<double, 2>> v;
  for (int face = 0; face < 2; ++face) {
    const double rot = face * twist;
    for (int i = 0; i < 4; ++i) {
      const int k = clockwise ? (4 - i) % 4 : i;
      const double phi = rot + (k + 0.5) * M_PI / 2;
      v.push_back({s * std::sqrt(2.0) * std::cos(phi), s * std::sqrt(2.0) * std::sin(phi)});
    }
  }
  return v;
}

// Reference: inside the square rotated by twist * t at height fraction t
// (the interpolated vertices of a twisted square form a smaller, rotated square).
bool in_twisted_square(double s, double twist, double zc, double dz, double x, double y, double z) {
  const double t = (z - (zc - dz)) / (2 * dz);
  if (t < 0 || t > 1) return false;
  // Interpolated corners: chord between the corner at angle phi and phi + twist.
  double cx[4], cy[4];
  for (int i = 0; i < 4; ++i) {
    const double p0 = (i + 0.5) * M_PI / 2, p1 = p0 + twist;
    const double r = s * std::sqrt(2.0);
    cx[i] = r * ((1 - t) * std::cos(p0) + t * std::cos(p1));
    cy[i] = r * ((1 - t) * std::sin(p0) + t * std::sin(p1));
  }
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    if ((cx[j] - cx[i]) * (y - cy[i]) - (cy[j] - cy[i]) * (x - cx[i]) < 0) return false;
  }
  return true;
}

class TwistedArb8 : public ::testing::TestWithParam<bool> {};

TEST_P(TwistedArb8, MatchesReferenceOnRandomPoints) {
  const bool clockwise = GetParam();
  const double s = 1.0, twist = 0.5, zc = 2.0, dz = 1.5;
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json("t", zc, dz, twisted_square(s, twist, clockwise)));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.5, 1.5), uz(0.0, 4.0);
  int inside = 0, checked = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = u(rng), y = u(rng), z = uz(rng);
    const bool ref = in_twisted_square(s, twist, zc, dz, x, y, z);
    const bool got = v.locate(float(x), float(y), float(z)).volume == 0;
    // Skip points within float rounding of the surface.
    const bool near = in_twisted_square(s, twist, zc, dz, x + 1e-5, y, z) !=
                          in_twisted_square(s, twist, zc, dz, x - 1e-5, y, z) ||
                      in_twisted_square(s, twist, zc, dz, x, y + 1e-5, z) !=
                          in_twisted_square(s, twist, zc, dz, x, y - 1e-5, z);
    if (near) continue;
    ++checked;
    inside += ref;
    ASSERT_EQ(got, ref) << "point " << x << ", " << y << ", " << z;
  }
  EXPECT_GT(checked, 19000);
  EXPECT_GT(inside, 3000);  // a real test of both outcomes
  EXPECT_LT(inside, checked - 3000);
}

INSTANTIATE_TEST_SUITE_P(Winding, TwistedArb8, ::testing::Values(false, true));

TEST(Arb8, TaperedFrustum) {
  // Square of half-side 1 at z = -1 narrowing to half-side 0.5 at z = +1.
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json(
      "f", 0, 1,
      {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}, {-0.5, -0.5}, {-0.5, 0.5}, {0.5, 0.5}, {0.5, -0.5}}));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  EXPECT_EQ(v.locate(0.95f, 0, -0.95f).volume, 0);
  EXPECT_EQ(v.locate(0.95f, 0, 0.95f).volume, -1);
  EXPECT_EQ(v.locate(0.74f, 0.74f, 0.0f).volume, 0);  // half-side 0.75 at z = 0
  EXPECT_EQ(v.locate(0.76f, 0.0f, 0.0f).volume, -1);
  EXPECT_EQ(v.locate(0.0f, 0.0f, 1.01f).volume, -1);
}

TEST(Arb8, CollapsedEdgesAsGenericTrapAllows) {
  // Triangular prism: vertices 2 and 3 coincide on both faces.
  auto doc = world_doc();
  doc["volumes"].push_back(
      arb8_json("prism", 0, 1, {{0, 0}, {0, 1}, {1, 0}, {1, 0}, {0, 0}, {0, 1}, {1, 0}, {1, 0}}));
  // Pyramid: the upper face collapses to a point.
  doc["volumes"].push_back(arb8_json(
      "pyramid", 5, 1, {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  EXPECT_EQ(v.locate(0.2f, 0.2f, 0).volume, 0);
  EXPECT_EQ(v.locate(0.6f, 0.6f, 0).volume, -1);  // beyond the hypotenuse x + y = 1
  EXPECT_EQ(v.locate(0.45f, 0.45f, 0.5f).volume, 0);
  EXPECT_EQ(v.locate(0.9f, 0.0f, 4.1f).volume, 1);   // half-side 0.95 at z = 4.1
  EXPECT_EQ(v.locate(0.2f, 0.0f, 5.9f).volume, -1);  // half-side 0.05 at z = 5.9
  EXPECT_EQ(v.locate(0.04f, 0.04f, 5.9f).volume, 1);
}

TEST(Arb8, EntryDistanceMatchesMarching) {
  const double zc = 0, dz = 1.5;
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json("t", zc, dz, twisted_square(1.0, 0.6, false)));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  int hits = 0;
  for (int n = 0; n < 2000; ++n) {
    Vec3f pos{4 * u(rng), 4 * u(rng), 4 * u(rng)};
    if (v.locate(pos.x, pos.y, pos.z).volume >= 0) continue;
    // Aim near the solid so that about half the rays hit.
    Vec3f target{u(rng), u(rng), 1.5f * u(rng)};
    Vec3f d = target - pos;
    d = (1.0f / norm(d)) * d;
    const float got = arb8_entry_distance(g.host_view().arb8s[0], pos, d, 100.0f);
    // March in 1 mm steps.
    float ref = 100.0f;
    for (float l = 0; l < 12; l += 1e-3f) {
      const Vec3f p = pos + l * d;
      if (v.contains(0, p.x, p.y, p.z)) {
        ref = l;
        break;
      }
    }
    if (ref < 100) ++hits;
    if (ref < 100) {
      EXPECT_NEAR(got, ref, 2e-3) << n;
    } else {
      EXPECT_GE(got, 11.0f) << n;  // may graze a corner thinner than the march step
    }
  }
  EXPECT_GT(hits, 300);
}

TEST(PlanarArb8, FlaggedWhenEveryLateralFaceIsFlatAndTheEndsConvex) {
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json(
      "frustum", -6, 1,
      {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}, {-0.5, -0.5}, {-0.5, 0.5}, {0.5, 0.5}, {0.5, -0.5}}));
  doc["volumes"].push_back(arb8_json("twisted", -2, 1, twisted_square(1.0, 0.6, false)));
  doc["volumes"].push_back(
      arb8_json("prism", 2, 1, {{0, 0}, {0, 1}, {1, 0}, {1, 0}, {0, 0}, {0, 1}, {1, 0}, {1, 0}}));
  doc["volumes"].push_back(arb8_json(
      "pyramid", 6, 1, {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  EXPECT_EQ(v.arb8s[0].planar, 1);
  EXPECT_EQ(v.arb8s[1].planar, 0);  // twisted faces: the general path
  EXPECT_EQ(v.arb8s[2].planar, 1);  // a collapsed face has no plane
  EXPECT_EQ(v.arb8s[3].planar, 1);
}

// A sheared, unevenly tapered planar ARB8 (as the SHiP-like magnets):
// exit and entry distances as the general (twisted-face) solver finds them,
// and a safety that is a true lower bound, never below the general one.
TEST(PlanarArb8, DistancesAgreeWithTheGeneralSolver) {
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json("m", 0, 1.5,
                                     {{-0.8, -0.5},
                                      {-0.8, 0.5},
                                      {0.8, 0.5},
                                      {0.8, -0.5},
                                      {-0.3, -0.9},
                                      {-0.3, 0.9},
                                      {0.7, 0.9},
                                      {0.7, -0.9}}));
  const GeometryParams g = load(doc);
  const GeometryView v = g.host_view();
  const Arb8Shape& s = v.arb8s[0];
  ASSERT_EQ(s.planar, 1);
  const float diag = norm(v.volumes[0].hi - v.volumes[0].lo);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  auto direction = [&] {
    Vec3f d{u(rng), u(rng), u(rng)};
    return (1.0f / norm(d)) * d;
  };
  int inside = 0, entries = 0;
  for (int n = 0; n < 4000; ++n) {
    const Vec3f pos{1.2f * u(rng), 1.2f * u(rng), 2.0f * u(rng)};
    const Vec3f d = direction();
    if (v.contains(0, pos.x, pos.y, pos.z)) {
      ++inside;
      EXPECT_NEAR(arb8_planar_exit_distance(s, pos, d, 100.f), arb8_exit_distance(s, pos, d, 100.f),
                  2e-4f)
          << n;
      const float safety = arb8_planar_safety(s, pos);
      EXPECT_GE(safety, arb8_safety(s, pos, diag) - 1e-5f) << n;
      float nearest = 100.f;  // the safety sphere holds no surface point
      for (int k = 0; k < 64; ++k) {
        nearest = fminf(nearest, arb8_planar_exit_distance(s, pos, direction(), 100.f));
      }
      EXPECT_LE(safety, nearest + 1e-5f) << n;
    } else {
      const float want = arb8_entry_distance(s, pos, d, 100.f);
      entries += want < 100.f;
      EXPECT_NEAR(arb8_planar_entry_distance(s, pos, d, 100.f), want, 2e-4f) << n;
    }
  }
  EXPECT_GT(inside, 500);
  EXPECT_GT(entries, 300);
}

}  // namespace
}  // namespace fastmu
