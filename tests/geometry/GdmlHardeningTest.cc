// GDML reader and writer against what fuzzing and hostile files found: deeply
// nested expressions (a stack overflow before the nesting bound), one logical
// volume placed several times (a duplicate-name error before), and an export
// name without .gdml (its sidecar could clobber the user's JSON geometry).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/geometry/GdmlWriter.hh"

namespace fastmu {
namespace {

// A 20 m air world holding volume "v" (box "b", iron) placed by `physvols`;
// `defines` goes into <define>.
std::string doc(const std::string& defines, const std::string& physvols) {
  return "<?xml version=\"1.0\"?>\n<gdml>\n<define>" + defines +
         "</define>\n<materials/>\n<solids>\n"
         "<box name=\"wb\" lunit=\"m\" x=\"20\" y=\"20\" z=\"20\"/>\n"
         "<box name=\"b\" lunit=\"m\" x=\"1\" y=\"2\" z=\"3\"/>\n</solids>\n<structure>\n"
         "<volume name=\"v\"><materialref ref=\"G4_Fe\"/><solidref ref=\"b\"/></volume>\n"
         "<volume name=\"W\"><materialref ref=\"G4_AIR\"/><solidref ref=\"wb\"/>\n" +
         physvols +
         "</volume>\n</structure>\n"
         "<setup name=\"Default\" version=\"1.0\"><world ref=\"W\"/></setup>\n</gdml>\n";
}

std::string error_of(const std::string& text) {
  return test::error_of([&] { gdml_to_geometry_json(text, "t.gdml"); });
}

std::string repeat(const std::string& s, int n) {
  std::string r;
  for (int i = 0; i < n; ++i) r += s;
  return r;
}

TEST(GdmlHardening, DeepExpressionsFailWithOneLineNotACrash) {
  constexpr int kDeep = 100000;  // crashed the release binary (SIGSEGV) before the bound
  const std::string place = "<physvol><volumeref ref=\"v\"/></physvol>\n";
  const std::string parens = repeat("(", kDeep) + "1" + repeat(")", kDeep);
  const std::string signs = repeat("-", kDeep) + "1";
  const std::string powers = repeat("1^", kDeep) + "1";
  for (const std::string& expr : {parens, signs, powers}) {
    const std::string e = error_of(doc("\n<constant name=\"c\" value=\"" + expr + "\"/>", place));
    EXPECT_EQ(e.rfind("t.gdml:4: <constant>: expression nested too deeply", 0), 0u)
        << e.substr(0, 200);
    EXPECT_EQ(e.find('\n'), std::string::npos);
    EXPECT_LT(e.size(), 200u);  // the expression is cut, not echoed whole
  }
}

TEST(GdmlHardening, ModerateNestingStillEvaluates) {
  // 100 parentheses, a sign in each: -(-(...(2)...)) = 2, used as the x position in m.
  const std::string expr = repeat("-(", 100) + "2" + repeat(")", 100);
  const nlohmann::json g = gdml_to_geometry_json(
      doc("<constant name=\"c\" value=\"" + expr + "\"/>",
          "<physvol><volumeref ref=\"v\"/><position name=\"p\" unit=\"m\" x=\"c\"/></physvol>\n"),
      "t.gdml");
  ASSERT_EQ(g["volumes"].size(), 1u);
  EXPECT_EQ(g["volumes"][0]["min"][0].get<double>(), 1.5);
  EXPECT_EQ(g["volumes"][0]["max"][0].get<double>(), 2.5);
}

TEST(GdmlHardening, OneLogicalVolumePlacedSeveralTimes) {
  // Unnamed placements and a repeated physvol name: Geant4 accepts both.
  const nlohmann::json g = gdml_to_geometry_json(
      doc("",
          "<physvol><volumeref ref=\"v\"/><position name=\"p0\" unit=\"m\" x=\"-5\"/></physvol>\n"
          "<physvol><volumeref ref=\"v\"/><position name=\"p1\" unit=\"m\" x=\"0\"/></physvol>\n"
          "<physvol name=\"v_1\"><volumeref ref=\"v\"/><position name=\"p2\" unit=\"m\" "
          "x=\"5\"/></physvol>\n"),
      "t.gdml");
  ASSERT_EQ(g["volumes"].size(), 3u);
  EXPECT_EQ(g["volumes"][0]["name"], "v");
  EXPECT_EQ(g["volumes"][1]["name"], "v_1");
  EXPECT_EQ(g["volumes"][2]["name"], "v_1_1");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(g["volumes"][i]["min"][0].get<double>(), -5.5 + 5 * i);
    EXPECT_EQ(g["volumes"][i]["material"], "G4_Fe");
  }
  // And the result is a valid fastmu geometry (unique names, no overlap).
  EXPECT_EQ(test::error_of([&] {
              MaterialLibrary lib;
              GeometryParams::from_json(g, "t.gdml", lib);
            }),
            "");
}

TEST(GdmlHardening, ExportRefusesANameWithoutGdmlExtension) {
  // The sidecar of "g" would be "g.json": maybe the user's JSON geometry.
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_gdml_hardening";
  std::filesystem::create_directories(dir);
  const auto json_file = dir / "g.json";
  { std::ofstream(json_file) << "{\"keep\": true}\n"; }
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(
      gdml_to_geometry_json(doc("", "<physvol><volumeref ref=\"v\"/></physvol>\n"), "t.gdml"),
      "t.gdml", lib);
  const std::string e = test::error_of([&] { write_gdml(g, lib, dir / "g"); });
  EXPECT_NE(e.find("must end in .gdml"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir / "g"));
  std::ifstream in(json_file);
  const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "{\"keep\": true}\n");
  // Upper case is fine: the readers compare the extension case-blind.
  EXPECT_EQ(test::error_of([&] { write_gdml(g, lib, dir / "g.GDML"); }), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fastmu
