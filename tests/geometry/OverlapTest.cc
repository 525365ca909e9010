// Overlap detection: overlaps found, touching volumes accepted.
#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/OverlapCheck.hh"

namespace fastmu {
namespace {

using test::arb8_json;
using test::box_json;
using test::load;
using test::load_error;
using test::world_doc;

TEST(Overlap, BoxesOverlappingOrTouching) {
  auto doc = world_doc();
  doc["volumes"].push_back(box_json("a", {0, 0, 0}, {1, 1, 1}));
  doc["volumes"].push_back(box_json("b", {1, 0, 0}, {2, 1, 1}));  // touches a at x = 1
  doc["volumes"].push_back(box_json("c", {0, 0, 1}, {2, 1, 2}));  // touches a and b at z = 1
  doc["volumes"].push_back(box_json("d", {1, 1, 1}, {2, 2, 2}));  // touches c along y = 1
  EXPECT_NO_THROW(load(doc));
  doc["volumes"].push_back(box_json("e", {1.5, 0.5, 1.5}, {3, 3, 3}));  // into c and d
  EXPECT_EQ(load_error(doc), "geom.json: volumes 'c' and 'e' overlap");
}

TEST(Overlap, Arb8AgainstArb8AndBox) {
  // Two wedges sharing the slanted face x + y = 1 (touching), then one moved into the other.
  const std::vector<std::array<double, 2>> lower_left = {{0, 0}, {0, 1}, {1, 0}, {1, 0},
                                                         {0, 0}, {0, 1}, {1, 0}, {1, 0}};
  const std::vector<std::array<double, 2>> upper_right = {{1, 1}, {1, 0}, {0, 1}, {0, 1},
                                                          {1, 1}, {1, 0}, {0, 1}, {0, 1}};
  auto doc = world_doc();
  doc["volumes"].push_back(arb8_json("w1", 0, 1, lower_left));
  doc["volumes"].push_back(arb8_json("w2", 0, 1, upper_right));
  doc["volumes"].push_back(box_json("lid", {0, 0, 1}, {1, 1, 2}));    // touches both at z = 1
  doc["volumes"].push_back(box_json("side", {1, 0, -1}, {2, 1, 1}));  // touches w2 along x = 1
  EXPECT_NO_THROW(load(doc));

  auto moved = doc;
  moved["volumes"][1]["vertices"][2] = {-0.1, 1};  // the lower face of w2 now crosses x + y = 1
  EXPECT_EQ(load_error(moved), "geom.json: volumes 'w1' and 'w2' overlap");

  auto into_box = doc;
  into_box["volumes"][3]["min"] = {0.95, 0.5, -1};  // into w2 (x + y > 1), clear of w1
  EXPECT_EQ(load_error(into_box), "geom.json: volumes 'w2' and 'side' overlap");
}

TEST(Overlap, ShearedArb8MeetsABoxOnlyMidway) {
  // A unit cross-section sheared from x in [0, 1] at z = -1 to x in [2, 3] at
  // z = +1: neither face meets the wall x in [1.2, 1.8], the middle does.
  auto doc = world_doc();
  doc["volumes"].push_back(
      arb8_json("shear", 0, 1, {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {2, 0}, {2, 1}, {3, 1}, {3, 0}}));
  doc["volumes"].push_back(box_json("wall", {3, 0, -1}, {4, 1, 1}));  // touches the upper edge only
  EXPECT_NO_THROW(load(doc));
  doc["volumes"][1]["min"] = {1.2, 0, -1};
  doc["volumes"][1]["max"] = {1.8, 1, 1};
  EXPECT_EQ(load_error(doc), "geom.json: volumes 'shear' and 'wall' overlap");
}

TEST(Overlap, FunctionIsSymmetricAndPrunesByBoundingBox) {
  VolumeDesc a, b;
  a.shape = b.shape = VolumeShape::box;
  a.lo = {0, 0, 0}, a.hi = {1, 1, 1};
  b.lo = {0.5, 0.5, 0.999}, b.hi = {2, 2, 2};
  EXPECT_TRUE(volumes_overlap(a, b));
  EXPECT_TRUE(volumes_overlap(b, a));
  b.lo[2] = 1.0;
  EXPECT_FALSE(volumes_overlap(a, b));
  EXPECT_FALSE(volumes_overlap(b, a));
}

}  // namespace
}  // namespace fastmu

namespace fastmu {
namespace {

// Many volumes side by side in one z range, and stacked in z: the check pairs
// only neighbours (a uniform grid of the bounding boxes), so 10500 of them
// load at once, and the one overlap among them is named.
TEST(Overlap, ManyVolumesSideBySideAndStacked) {
  const int k = 100;  // k x k boxes of 5 cm at a 10 cm pitch
  auto doc = test::world_doc();
  doc["world"]["min"] = {-1, -1, -1};
  doc["world"]["max"] = {0.1 * k + 1, 0.1 * k + 1, 30};
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      doc["volumes"].push_back(test::box_json("b" + std::to_string(i) + "_" + std::to_string(j),
                                              {0.1 * i, 0.1 * j, 0},
                                              {0.1 * i + 0.05, 0.1 * j + 0.05, 1}));
    }
  }
  for (int s = 0; s < 500; ++s) {  // slabs over the whole grid, 1 cm each
    doc["volumes"].push_back(test::box_json("s" + std::to_string(s), {-0.5, -0.5, 2 + 0.01 * s},
                                            {0.1 * k, 0.1 * k, 2.01 + 0.01 * s}));
  }
  EXPECT_NO_THROW(test::load(doc));
  doc["volumes"].push_back(test::box_json("late", {5.04, 5.04, 0.5}, {5.08, 5.08, 0.6}));
  EXPECT_EQ(test::load_error(doc), "geom.json: volumes 'b50_50' and 'late' overlap");
  doc["volumes"].back() = test::box_json("late", {3, 3, 5.005}, {4, 4, 5.006});
  EXPECT_EQ(test::load_error(doc), "geom.json: volumes 's300' and 'late' overlap");
}

}  // namespace
}  // namespace fastmu
