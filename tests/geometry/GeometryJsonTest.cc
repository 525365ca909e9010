// JSON reading: accepted documents and one-line errors naming file and path.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "GeometryTestUtil.hh"

namespace fastmu {
namespace {

using test::arb8_json;
using test::box_json;
using test::load;
using test::load_error;
using test::world_doc;

::testing::AssertionResult has(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos && message.find('\n') == std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "message '" << message << "' lacks '" << part << "'";
}

TEST(GeometryJson, ReadsTheInterfaceExample) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "world": {"min": [-20, -20, -1], "max": [20, 20, 100], "material": "G4_AIR"},
    "volumes": [
      {"name": "slab", "shape": "box", "min": [-20, -20, 0], "max": [20, 20, 5],
       "material": "G4_Fe", "field": [0, 1.7, 0]},
      {"name": "core", "shape": "arb8", "z_center": 10.0, "dz": 2.5,
       "vertices": [[-1, -1], [-1, 1], [1, 1], [1, -1], [-2, -2], [-2, 2], [2, 2], [2, -2]],
       "material": "my_steel", "field": [0, -1.7, 0]}
    ],
    "sensitive_planes": [{"z": 5.0, "x": [-20, 20], "y": [-20, 20]}, {"z": 50.0}],
    "materials": {"my_steel": {"density": 7.9, "composition": {"Fe": 0.7, "Cr": 0.2, "Ni": 0.1}}}
  })");
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(doc, "geom.json", lib);
  EXPECT_TRUE(lib.contains("my_steel"));
  EXPECT_NEAR(lib.find("my_steel").density_g_cm3, 7.9, 1e-12);
  ASSERT_EQ(g.volumes().size(), 2u);
  EXPECT_EQ(g.material_names(), (std::vector<std::string>{"G4_AIR", "G4_Fe", "my_steel"}));
  const GeometryView v = g.host_view();
  const LocateResult slab = v.locate(3, 4, 2.5f);
  EXPECT_EQ(slab.volume, 0);
  EXPECT_FLOAT_EQ(slab.field.y, 1.7f);
  const LocateResult core = v.locate(0, 0, 10);
  EXPECT_EQ(core.volume, 1);
  EXPECT_EQ(core.material, 2);
  EXPECT_FLOAT_EQ(core.field.y, -1.7f);
  ASSERT_EQ(g.sensitive_planes().size(), 2u);
  EXPECT_FLOAT_EQ(g.sensitive_planes()[1].z, 50.0f);
  EXPECT_FLOAT_EQ(g.sensitive_planes()[1].x_min, -20.0f);  // defaults to the world
  EXPECT_FALSE(g.field_map().has_value());
  // Loading the same document again into the same library reuses my_steel.
  EXPECT_NO_THROW(GeometryParams::from_json(doc, "geom.json", lib));
  doc["materials"]["my_steel"]["density"] = 8.0;
  EXPECT_TRUE(
      has(test::error_of([&] { GeometryParams::from_json(doc, "geom.json", lib); }),
          "geom.json: materials.my_steel: material 'my_steel' is already defined differently"));
}

TEST(GeometryJson, VacuumAliasAndDefaults) {
  auto doc = world_doc("vacuum");
  doc["volumes"].push_back(
      {{"shape", "box"}, {"min", {0, 0, 0}}, {"max", {1, 1, 1}}, {"material", "G4_Pb"}});
  const GeometryParams g = load(doc);
  EXPECT_EQ(g.material_names()[0], "G4_Galactic");
  EXPECT_EQ(g.volumes()[0].name, "volumes[0]");
  EXPECT_EQ(g.volumes()[0].field, (std::array<double, 3>{0, 0, 0}));
}

TEST(GeometryJson, PerMaterialSteps) {
  auto doc = world_doc("vacuum");
  doc["steps"] = {{"G4_W", 0.004}, {"vacuum", 0.5}};
  const GeometryParams g = load(doc);
  EXPECT_EQ(g.material_steps().at("G4_W"), 0.004);
  EXPECT_EQ(g.material_steps().at("G4_Galactic"), 0.5);  // canonical name
  doc["steps"] = {{"G4_W", -1.0}};
  EXPECT_TRUE(
      has(load_error(doc), "geom.json: steps.G4_W: step -1 m is not a length in (0, 1000] m"));
  doc["steps"] = {{"G4_Unobtainium", 0.01}};
  EXPECT_TRUE(has(load_error(doc), "unknown material 'G4_Unobtainium'"));
}

TEST(GeometryJson, ErrorsNameTheFileAndPath) {
  {
    auto doc = world_doc();
    doc["volumes"].push_back(
        arb8_json("a", 0, 1, {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}, {0, 1}, {1, 1}}));
    EXPECT_TRUE(
        has(load_error(doc), "geom.json: volumes[0].vertices: expected 8 [x, y] pairs, got 7"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(
        arb8_json("a", 0, 0, {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 0}}));
    EXPECT_TRUE(has(load_error(doc), "geom.json: volumes[0].dz: 0 m is not in (0, 1e5] m"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 1}, "G4_Unobtainium"));
    EXPECT_TRUE(
        has(load_error(doc), "geom.json: volumes[0].material: unknown material 'G4_Unobtainium'"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 1}));
    doc["volumes"][0]["feild"] = {0, 1, 0};
    EXPECT_TRUE(has(load_error(doc), "geom.json: volumes[0]: unknown key 'feild'"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 1}));
    doc["volumes"][0]["min"] = "zero";
    EXPECT_TRUE(has(load_error(doc), "geom.json: volumes[0].min: expected [x, y, z], got string"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 1}));
    doc["volumes"][0]["field"] = {0, "1", 0};
    EXPECT_TRUE(
        has(load_error(doc), "geom.json: volumes[0].field[1]: expected a number, got string"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {0, 1, 1}));
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: volumes[0]: degenerate box: min x (0) must be < max x (0)"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 11}));
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: volumes[0]: volume 'b' extends outside the world (z in [0, 11]"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back({{"name", "s"}, {"shape", "sphere"}, {"material", "G4_Fe"}});
    EXPECT_TRUE(has(load_error(doc), "geom.json: volumes[0].shape: unknown shape 'sphere'"));
  }
  {
    auto doc = world_doc();
    doc.erase("world");
    EXPECT_TRUE(has(load_error(doc), "geom.json: (top level): missing key 'world'"));
  }
  {
    auto doc = world_doc();
    doc["world"]["max"][2] = -10;
    EXPECT_TRUE(has(load_error(doc), "geom.json: world: min z (-10) must be < max z (-10)"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(box_json("b", {0, 0, 0}, {1, 1, 1}));
    doc["volumes"].push_back(box_json("b", {2, 0, 0}, {3, 1, 1}));
    EXPECT_TRUE(has(load_error(doc), "geom.json: volumes[1].name: duplicate name 'b'"));
  }
  {
    auto doc = world_doc();
    // Bow-tie face: vertices out of rotational order.
    doc["volumes"].push_back(
        arb8_json("x", 0, 1, {{0, 0}, {2, 1}, {0, 1}, {1, 0}, {0, 0}, {2, 1}, {0, 1}, {1, 0}}));
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: volumes[0] ('x'): the cross-section at z = -1 m is not a convex"));
  }
  {
    auto doc = world_doc();
    // Faces wound in opposite directions.
    doc["volumes"].push_back(
        arb8_json("x", 0, 1, {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}, {1, 0}, {1, 1}, {0, 1}}));
    EXPECT_TRUE(has(
        load_error(doc),
        "geom.json: volumes[0] ('x'): the faces at -dz and +dz are wound in opposite directions"));
  }
  {
    auto doc = world_doc();
    doc["volumes"].push_back(
        arb8_json("flat", 0, 1, {{0, 0}, {0, 0}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}}));
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: volumes[0] ('flat'): degenerate arb8: both faces have zero area"));
  }
  {
    auto doc = world_doc();
    doc["sensitive_planes"] = {{{"z", 20}}};
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: sensitive_planes[0].z: plane at z = 20 is outside the world"));
  }
  {
    auto doc = world_doc();
    doc["sensitive_planes"] = {{{"z", 2}, {"x", {1, -1}}}};
    EXPECT_TRUE(has(load_error(doc), "geom.json: sensitive_planes[0].x: window min must be < max"));
  }
  {
    auto doc = world_doc();
    doc["materials"] = {{"m", {{"density", -1}, {"composition", {{"Fe", 1}}}}}};
    EXPECT_TRUE(has(load_error(doc),
                    "geom.json: materials.m.density: -1 g/cm3 is not in [1e-25, 1000] g/cm3"));
  }
  {
    auto doc = world_doc();
    doc["field_map"] = {{"file", "no_such_map.h5"}};
    EXPECT_TRUE(
        has(load_error(doc), "geom.json: field_map.file: field map 'no_such_map.h5' not found"));
  }
  {
    auto doc = world_doc();
    doc["field_map"] = {{"file", "x.h5"}, {"interpolation", "cubic"}};
    EXPECT_TRUE(has(load_error(doc), "geom.json: field_map"));
  }
}

TEST(GeometryJson, FileErrorsAndFieldMapPathRelativeToTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_geometry_json_test";
  std::filesystem::create_directories(dir);
  MaterialLibrary lib;
  {
    std::ofstream(dir / "bad.json") << "{\"world\": {\n  \"min\": [0, 0, 0],,\n}";
    const std::string e =
        test::error_of([&] { GeometryParams::from_json_file(dir / "bad.json", lib); });
    EXPECT_TRUE(has(e, "bad.json: invalid JSON"));
    EXPECT_TRUE(has(e, "line 2"));
  }
  EXPECT_TRUE(
      has(test::error_of([&] { GeometryParams::from_json_file(dir / "missing.json", lib); }),
          "missing.json: cannot open geometry file"));
  {
    std::ofstream(dir / "map.h5")
        << "placeholder";  // existence is checked here, content by the field library
    auto doc = world_doc();
    doc["field_map"] = {{"file", "map.h5"}, {"interpolation", "nearest"}, {"symmetry", "quadrant"}};
    std::ofstream(dir / "g.json") << doc.dump();
    const GeometryParams g = GeometryParams::from_json_file(dir / "g.json", lib);
    ASSERT_TRUE(g.field_map().has_value());
    EXPECT_EQ(g.field_map()->file, dir / "map.h5");
    EXPECT_EQ(g.field_map()->interpolation, FieldInterpolation::nearest);
    EXPECT_EQ(g.field_map()->symmetry, FieldSymmetry::quadrant);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fastmu
