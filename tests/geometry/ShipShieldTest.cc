// The SHiP-like example: loads without overlaps, 8 blocks per magnet, fields
// as the spec says, and the C++ builder agrees with the committed JSON files
// that examples/make_ship_geometry.py writes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/ShipShield.hh"

namespace fastmu {
namespace {

// tests/data need not exist: resolve the path lexically.
const std::string kExamples =
    (std::filesystem::path(FASTMU_TEST_DATA_DIR) / "../../examples").lexically_normal().string();

// Numbers compared with a relative tolerance, everything else exactly.
void expect_same_json(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    EXPECT_NEAR(x, y, 1e-12 * (1 + std::abs(x))) << path;
    return;
  }
  ASSERT_EQ(a.type(), b.type()) << path;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (const auto& [k, v] : a.items()) {
      ASSERT_TRUE(b.contains(k)) << path << "." << k;
      expect_same_json(v, b.at(k), path + "." + k);
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (std::size_t i = 0; i < a.size(); ++i)
      expect_same_json(a[i], b[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(a, b) << path;
  }
}

TEST(ShipShield, CppAndPythonGeneratorsAgree) {
  for (const std::string set : {"warm", "hybrid"}) {
    std::ifstream in(kExamples + "/ship_" + set + ".json");
    ASSERT_TRUE(in) << "missing examples/ship_" << set
                    << ".json (run examples/make_ship_geometry.py)";
    const nlohmann::json committed = nlohmann::json::parse(in);
    expect_same_json(make_ship_shield_json(set), committed, "ship_" + set);
  }
}

TEST(ShipShield, EightBlocksPerMagnetAndNoOverlaps) {
  const std::map<std::string, int> magnets = {{"warm", 7}, {"hybrid", 5}};
  for (const auto& [set, n_magnets] : magnets) {
    const GeometryParams g = test::load(make_ship_shield_json(set));  // throws on overlaps
    std::map<std::string, int> blocks;
    int concrete = 0;
    for (const auto& v : g.volumes()) {
      if (v.name.rfind("magnet", 0) == 0) {
        ++blocks[v.name.substr(0, v.name.find('_'))];
        EXPECT_EQ(v.shape, VolumeShape::arb8);
        EXPECT_EQ(v.material, "G4_Fe");
      } else {
        ++concrete;
        EXPECT_EQ(v.material, "G4_CONCRETE");
      }
    }
    EXPECT_EQ(static_cast<int>(blocks.size()), n_magnets) << set;
    for (const auto& [m, n] : blocks) EXPECT_EQ(n, 8) << set << " " << m;
    EXPECT_EQ(concrete, 8);
    ASSERT_EQ(g.sensitive_planes().size(), 1u);
    const SensitivePlane p = g.sensitive_planes()[0];
    EXPECT_FLOAT_EQ(p.z, 82.0f);
    EXPECT_FLOAT_EQ(p.x_max, 2.0f);
    EXPECT_FLOAT_EQ(p.y_min, -3.0f);
    EXPECT_EQ(g.material_names()[0], "G4_AIR");
  }
}

TEST(ShipShield, FieldsAndPlacementFollowTheSpec) {
  const GeometryParams g = test::load(make_ship_shield_json("warm"));
  const GeometryView v = g.host_view();
  auto name_at = [&](float x, float y, float z) {
    const int i = v.locate(x, y, z).volume;
    return i < 0 ? std::string("world") : g.volumes()[i].name;
  };
  // Magnet 0 (hadron absorber) spans z in [0, 2.41]: cores |x| < 0.5, gap 2 cm, yokes 0.5 wide.
  EXPECT_EQ(name_at(0.25f, 0, 1), "magnet0_core_r");
  EXPECT_EQ(name_at(-0.25f, 0, 1), "magnet0_core_l");
  EXPECT_EQ(name_at(0.51f, 0, 1), "world");  // the gap
  EXPECT_EQ(name_at(0.8f, 0, 1), "magnet0_yoke_r");
  EXPECT_EQ(name_at(-0.8f, 0.1f, 1), "magnet0_yoke_l");
  EXPECT_EQ(name_at(0.6f, 1.5f, 1), "magnet0_top_r");
  EXPECT_EQ(name_at(-0.6f, 1.5f, 1), "magnet0_top_l");
  EXPECT_EQ(name_at(0.6f, -1.5f, 1), "magnet0_bottom_r");
  EXPECT_EQ(name_at(-0.6f, -1.5f, 1), "magnet0_bottom_l");
  const LocateResult core = v.locate(0.25f, 0, 1);
  EXPECT_FLOAT_EQ(core.field.y, 1.9f);
  EXPECT_FLOAT_EQ(v.locate(0.8f, 0, 1).field.y, -1.9f);    // d = 1
  EXPECT_FLOAT_EQ(v.locate(0.6f, 1.5f, 1).field.x, 1.9f);  // v = 1
  EXPECT_FLOAT_EQ(v.locate(-0.6f, 1.5f, 1).field.x, -1.9f);
  EXPECT_FLOAT_EQ(v.locate(0.6f, -1.5f, 1).field.x, -1.9f);
  EXPECT_FLOAT_EQ(v.locate(-0.6f, -1.5f, 1).field.x, 1.9f);
  // Magnet 1 starts after a 10 cm gap at z = 2.51.
  EXPECT_EQ(name_at(0.1f, 0, 2.45f), "world");
  EXPECT_EQ(name_at(0.1f, 0, 2.55f), "magnet1_core_r");
  // Magnet 5 has midGap 30 cm: nothing at x = 0 there; B < 0 reverses the core field.
  const VolumeDesc* m5 = nullptr;
  for (const auto& d : g.volumes()) {
    if (d.name == "magnet5_core_r") m5 = &d;
  }
  ASSERT_NE(m5, nullptr);
  EXPECT_NEAR(m5->z_center, 20.81 + 0.10 + 1.50, 1e-9);
  EXPECT_EQ(name_at(0.0f, 0, float(m5->z_center)), "world");
  EXPECT_EQ(name_at(0.35f, 0, float(m5->z_center)), "magnet5_core_r");
  EXPECT_FLOAT_EQ(v.locate(0.35f, 0, float(m5->z_center)).field.y, -1.9f);
  // Concrete outside the tunnel.
  EXPECT_EQ(name_at(-4.0f, 0, 10), "cavern0_left");
  EXPECT_EQ(name_at(0, 6.0f, 10), "cavern0_ceiling");
  EXPECT_EQ(name_at(-4.0f, 0, 30), "world");  // the tunnel widens at z = 18.378
  EXPECT_EQ(name_at(0, -3.5f, 30), "cavern1_floor");
}

TEST(ShipShield, HybridYokeDilution) {
  const GeometryParams g = test::load(make_ship_shield_json("hybrid"));
  // Magnet 3: B = -1.9 scaled by d = (xYokeIn + xYokeOut) / (dXIn + dXOut) in the cores,
  // -B / d = +1.9 in the yokes.
  const double d = (31.663 + 12.230) / (33.016 + 12.833);
  for (const auto& v : g.volumes()) {
    if (v.name == "magnet3_core_l") EXPECT_NEAR(v.field[1], -1.9 * d, 1e-12);
    if (v.name == "magnet3_yoke_r") EXPECT_NEAR(v.field[1], 1.9, 1e-12);
  }
}

TEST(ShipShield, CustomMagnetsAndSkippingRule) {
  // Row 1 has dZ < 1 cm: skipped, but its zgap + dZ (10 + 0.5 cm) still advance Z.
  const std::vector<ShipMagnetParameters> rows = {
      {0, 100, 40, 40, 50, 50, 5, 5, 40, 40, 40, 40, 0, 0, 1.7},
      {10, 0.5, 40, 40, 50, 50, 5, 5, 40, 40, 40, 40, 0, 0, 1.7},
      {20, 100, 30, 30, 40, 40, 5, 5, 30, 30, 30, 30, 0, 0, -1.7}};
  const nlohmann::json doc = make_ship_shield_json(rows, "G4_AIR", "test shield");
  const GeometryParams g = test::load(doc);
  EXPECT_EQ(g.volumes().size(), 16u + 8u);
  EXPECT_EQ(g.volumes()[0].name, "magnet0_core_r");
  EXPECT_EQ(g.volumes()[8].name, "magnet2_core_r");
  EXPECT_NEAR(g.volumes()[0].z_center, 1.0, 1e-12);
  EXPECT_NEAR(g.volumes()[8].z_center, (200 + 10 + 0.5 + 20 + 100) * 0.01, 1e-12);
  EXPECT_EQ(doc["description"], "test shield");
  EXPECT_THROW(ship_parameter_set("cold"), Error);
  EXPECT_EQ(ship_parameter_set("warm_baseline").size(), 7u);
}

TEST(ShipShield, VacuumOptionAndUnknownSet) {
  const GeometryParams g = test::load(make_ship_shield_json("warm", "vacuum"));
  EXPECT_EQ(g.material_names()[0], "G4_Galactic");
  EXPECT_EQ(test::error_of([] { make_ship_shield_json("cold"); }),
            "unknown SHiP parameter set 'cold' (expected warm or hybrid)");
}

}  // namespace
}  // namespace fastmu
