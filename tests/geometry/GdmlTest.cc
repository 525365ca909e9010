// GDML reader and writer: equality with the JSON form, Geant4's trd/trap
// vertex and physvol rotation conventions, one-line errors, round trips.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "GeometryTestUtil.hh"
#include "fastmu/geometry/GdmlReader.hh"
#include "fastmu/geometry/GdmlWriter.hh"
#include "fastmu/geometry/ShipShield.hh"

namespace fastmu {
namespace {

const std::filesystem::path kData = std::filesystem::path(FASTMU_TEST_DATA_DIR) / "gdml";

// A GDML document with `solids` and the placements `physvols` of volumes
// "v0", "v1"... (solid "s<i>", material G4_Fe) in a 20 m air world.
std::string gdml_doc(const std::string& solids, const std::string& physvols, int n_volumes,
                     const std::string& materials = "") {
  std::string vols;
  for (int i = 0; i < n_volumes; ++i) {
    vols += "<volume name=\"v" + std::to_string(i) +
            "\"><materialref ref=\"G4_Fe\"/><solidref ref=\"s" + std::to_string(i) +
            "\"/></volume>\n";
  }
  return "<?xml version=\"1.0\"?>\n<gdml>\n<define/>\n<materials>" + materials +
         "</materials>\n<solids>\n<box name=\"wb\" lunit=\"m\" x=\"20\" y=\"20\" z=\"20\"/>\n" +
         solids + "</solids>\n<structure>\n" + vols +
         "<volume name=\"W\"><materialref ref=\"G4_AIR\"/><solidref ref=\"wb\"/>\n" + physvols +
         "</volume>\n</structure>\n<setup name=\"Default\" version=\"1.0\"><world "
         "ref=\"W\"/></setup>\n</gdml>\n";
}

std::string gdml_error(const std::string& text) {
  return test::error_of([&] {
    MaterialLibrary lib;
    GeometryParams::from_json(gdml_to_geometry_json(text, "t.gdml"), "t.gdml", lib);
  });
}

template <class T>
bool same_bytes(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

TEST(Gdml, EqualsTheSameGeometryInJsonBitwise) {
  MaterialLibrary lib_g, lib_j;
  const GeometryParams g = geometry_from_gdml_file(kData / "slab_wedge.gdml", lib_g);
  const GeometryParams j = GeometryParams::from_json_file(kData / "slab_wedge.json", lib_j);
  const GeometryView vg = g.host_view(), vj = j.host_view();
  ASSERT_EQ(vg.num_volumes, 3);
  ASSERT_EQ(vg.num_volumes, vj.num_volumes);
  EXPECT_TRUE(same_bytes(vg.volumes, vj.volumes, 3));
  EXPECT_TRUE(same_bytes(vg.arb8s, vj.arb8s, 2));
  ASSERT_EQ(vg.num_planes, 1);
  EXPECT_TRUE(same_bytes(vg.planes, vj.planes, 1));
  EXPECT_EQ(g.world_lo(), j.world_lo());
  EXPECT_EQ(g.world_hi(), j.world_hi());
  EXPECT_EQ(g.material_names(), j.material_names());
  EXPECT_EQ(g.grid_shape(), j.grid_shape());
  EXPECT_EQ(lib_g.find("MySteel").definition(), lib_j.find("MySteel").definition());
  EXPECT_EQ(g.volumes()[0].field, (std::array<double, 3>{0, 1.5, 0}));
}

TEST(Gdml, TrdAndTrapFollowGeant4Vertices) {
  // G4Trap with theta = phi = alpha = 0 and x1 = x2, x3 = x4 is a trd; with
  // alpha1 = alpha2 = 45 deg the x of the +y edge shifts by +dy (G4Trap).
  const std::string solids =
      "<trd name=\"s0\" lunit=\"m\" x1=\"2\" x2=\"1\" y1=\"4\" y2=\"3\" z=\"2\"/>\n"
      "<trap name=\"s1\" lunit=\"m\" aunit=\"deg\" z=\"2\" theta=\"0\" phi=\"0\" y1=\"2\" x1=\"2\" "
      "x2=\"2\" alpha1=\"45\" y2=\"2\" x3=\"2\" x4=\"2\" alpha2=\"45\"/>\n";
  const std::string pv =
      "<physvol><volumeref ref=\"v0\"/><position name=\"a\" unit=\"m\" z=\"-5\"/></physvol>\n"
      "<physvol><volumeref ref=\"v1\"/><position name=\"b\" unit=\"m\" z=\"5\"/></physvol>\n";
  const nlohmann::json doc = gdml_to_geometry_json(gdml_doc(solids, pv, 2), "t.gdml");
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(doc, "t.gdml", lib);
  const auto& trd = g.volumes()[0];
  EXPECT_EQ(trd.shape, VolumeShape::arb8);
  EXPECT_DOUBLE_EQ(trd.dz, 1);
  EXPECT_DOUBLE_EQ(trd.z_center, -5);
  EXPECT_DOUBLE_EQ(trd.lo[0], -1);
  EXPECT_DOUBLE_EQ(trd.hi[1], 2);
  // At +dz the trd is 1 x 3.
  const auto& jv = doc["volumes"][0]["vertices"];
  EXPECT_DOUBLE_EQ(jv[6][0].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(jv[6][1].get<double>(), 1.5);
  // Trap: y = -1 edge spans x in [-2, 0], y = +1 edge [0, 2] (tan 45 = 1).
  const auto& tv = doc["volumes"][1]["vertices"];
  EXPECT_NEAR(tv[0][0].get<double>(), -2, 1e-12);
  EXPECT_NEAR(tv[1][0].get<double>(), 0, 1e-12);
  EXPECT_NEAR(tv[2][0].get<double>(), 2, 1e-12);
  EXPECT_NEAR(tv[3][0].get<double>(), 0, 1e-12);
  EXPECT_NEAR(g.volumes()[1].lo[0], -2, 1e-12);
  EXPECT_NEAR(g.volumes()[1].hi[0], 2, 1e-12);
}

TEST(Gdml, ZRotationTurnsTheSolidByMinusTheAngleAsGeant4) {
  // A 4 x 2 box placed with GDML rotation z = 90 deg (Geant4's frame
  // rotation): the solid turns by -90 deg, becoming 2 wide in x and 4 in y.
  const std::string solids = "<box name=\"s0\" lunit=\"m\" x=\"4\" y=\"2\" z=\"2\"/>\n";
  const std::string pv =
      "<physvol><volumeref ref=\"v0\"/><position name=\"a\" unit=\"m\" x=\"1\"/>"
      "<rotation name=\"r\" unit=\"deg\" z=\"90\"/></physvol>\n";
  const nlohmann::json doc = gdml_to_geometry_json(gdml_doc(solids, pv, 1), "t.gdml");
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(doc, "t.gdml", lib);
  const auto& v = g.volumes()[0];
  EXPECT_EQ(v.shape, VolumeShape::arb8);
  EXPECT_NEAR(v.lo[0], 0, 1e-12);
  EXPECT_NEAR(v.hi[0], 2, 1e-12);
  EXPECT_NEAR(v.lo[1], -2, 1e-12);
  EXPECT_NEAR(v.hi[1], 2, 1e-12);
  // Vertex 0, (-2, -1) in the solid, goes to (-1, 2) + (1, 0) under -90 deg.
  EXPECT_NEAR(doc["volumes"][0]["vertices"][0][0].get<double>(), 0, 1e-12);
  EXPECT_NEAR(doc["volumes"][0]["vertices"][0][1].get<double>(), 2, 1e-12);
}

TEST(Gdml, MaterialsByAtomCountsAndNistReferences) {
  const std::string mats =
      "<element name=\"Hyd\" Z=\"1\"><atom value=\"1\"/></element>"
      "<element name=\"Oxy\" Z=\"8\"><atom value=\"16\"/></element>"
      "<material name=\"Water2\"><D value=\"1000\" unit=\"kg/m3\"/><composite n=\"2\" ref=\"Hyd\"/>"
      "<composite n=\"1\" ref=\"Oxy\"/></material>"
      "<material name=\"Mix\"><D value=\"5\"/><fraction n=\"0.5\" ref=\"G4_Fe\"/>"
      "<fraction n=\"0.5\" ref=\"Water2\"/></material>";
  std::string text = gdml_doc("<box name=\"s0\" x=\"100\" y=\"100\" z=\"100\"/>",
                              "<physvol><volumeref ref=\"v0\"/></physvol>", 1, mats);
  const std::string fe = "<materialref ref=\"G4_Fe\"/>";
  text.replace(text.find(fe), fe.size(), "<materialref ref=\"Mix\"/>");
  const nlohmann::json doc = gdml_to_geometry_json(text, "t.gdml");
  const auto& mix = doc["materials"]["Mix"];
  EXPECT_DOUBLE_EQ(mix["density"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(mix["composition"]["Fe"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(mix["composition"]["H"].get<double>(), 0.5 * 2.0 / 18.0);
  EXPECT_DOUBLE_EQ(mix["composition"]["O"].get<double>(), 0.5 * 16.0 / 18.0);
  EXPECT_FALSE(doc["materials"].contains("Water2"));  // defined but unused
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(doc, "t.gdml", lib);
  EXPECT_EQ(g.volumes()[0].material, "Mix");
  EXPECT_NEAR(g.volumes()[0].hi[0], 0.05, 1e-15);  // default unit mm
}

TEST(Gdml, UnsupportedConstructsNameElementAndLine) {
  const std::string sphere = gdml_doc("<sphere name=\"s0\" rmax=\"10\"/>\n", "", 0);
  EXPECT_EQ(gdml_error(sphere),
            "t.gdml:7: <sphere>: unsupported solid (fastmu reads box, trd, trap and arb8)");
  const std::string tilt =
      gdml_doc("<box name=\"s0\" x=\"1\" y=\"1\" z=\"1\"/>\n",
               "<physvol><volumeref ref=\"v0\"/>\n<rotation name=\"r\" x=\"0.1\"/></physvol>\n", 1);
  EXPECT_NE(gdml_error(tilt).find(":13: <rotation>: rotation about x or y is not supported"),
            std::string::npos)
      << gdml_error(tilt);
  const std::string unit =
      gdml_doc("<box name=\"s0\" lunit=\"inch\" x=\"1\" y=\"1\" z=\"1\"/>\n", "", 0);
  EXPECT_NE(gdml_error(unit).find("unsupported length unit 'inch'"), std::string::npos);
  EXPECT_NE(gdml_error("<gdml><solids>").find("t.gdml:1: invalid XML"), std::string::npos);
  EXPECT_NE(gdml_error(gdml_doc("<box name=\"s0\" x=\"2*(1\" y=\"1\" z=\"1\"/>", "", 0))
                .find("unbalanced parenthesis in '2*(1'"),
            std::string::npos);
  EXPECT_NE(gdml_error(gdml_doc("<box name=\"s0\" x=\"1\" y=\"1\" z=\"1\"/>",
                                "<physvol><volumeref ref=\"nothere\"/></physvol>", 0))
                .find("unknown volume 'nothere'"),
            std::string::npos);
}

void expect_same_geometry(const GeometryParams& a, const GeometryParams& b,
                          const MaterialLibrary& la, const MaterialLibrary& lb) {
  const double tol = 1e-12;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(a.world_lo()[k], b.world_lo()[k], tol);
    EXPECT_NEAR(a.world_hi()[k], b.world_hi()[k], tol);
  }
  EXPECT_EQ(a.material_names(), b.material_names());
  for (const auto& m : a.material_names())
    EXPECT_EQ(la.find(m).definition(), lb.find(m).definition());
  ASSERT_EQ(a.volumes().size(), b.volumes().size());
  for (std::size_t i = 0; i < a.volumes().size(); ++i) {
    const VolumeDesc &va = a.volumes()[i], &vb = b.volumes()[i];
    EXPECT_EQ(va.name, vb.name);
    EXPECT_EQ(va.shape, vb.shape);
    EXPECT_EQ(va.material, vb.material);
    EXPECT_EQ(va.field, vb.field);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(va.lo[k], vb.lo[k], tol) << va.name;
      EXPECT_NEAR(va.hi[k], vb.hi[k], tol) << va.name;
    }
    if (va.shape == VolumeShape::arb8) {
      EXPECT_NEAR(va.z_center, vb.z_center, tol);
      EXPECT_NEAR(va.dz, vb.dz, tol);
      for (int k = 0; k < 8; ++k) {
        EXPECT_NEAR(va.vertices[k][0], vb.vertices[k][0], tol) << va.name << " vertex " << k;
        EXPECT_NEAR(va.vertices[k][1], vb.vertices[k][1], tol) << va.name << " vertex " << k;
      }
    }
  }
  const GeometryView wa = a.host_view(), wb = b.host_view();
  ASSERT_EQ(wa.num_planes, wb.num_planes);
  EXPECT_TRUE(same_bytes(wa.planes, wb.planes, static_cast<std::size_t>(wa.num_planes)));
}

TEST(Gdml, ExportImportRoundTripsTheShipShield) {
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_gdml_test";
  std::filesystem::create_directories(dir);
  nlohmann::json doc = make_ship_shield_json("warm");
  doc["materials"] = {
      {"ShieldSteel", {{"density", 7.8}, {"composition", {{"Fe", 0.985}, {"C", 0.015}}}}}};
  doc["volumes"][0]["material"] = "ShieldSteel";
  MaterialLibrary la, lb;
  const GeometryParams a = GeometryParams::from_json(doc, "ship", la);
  ASSERT_FALSE(a.sensitive_planes().empty());
  const auto out = dir / "ship.gdml";
  write_gdml(a, la, out);
  ASSERT_TRUE(std::filesystem::exists(std::filesystem::path(out.string() + ".json")));
  const GeometryParams b = load_geometry_file(out, lb);
  expect_same_geometry(a, b, la, lb);
  // The JSON test geometry too (custom material, field, box + arb8).
  MaterialLibrary lc, ld;
  const GeometryParams c = GeometryParams::from_json_file(kData / "slab_wedge.json", lc);
  write_gdml(c, lc, dir / "slab.gdml");
  const GeometryParams d = load_geometry_file(dir / "slab.gdml", ld);
  expect_same_geometry(c, d, lc, ld);
}

}  // namespace
}  // namespace fastmu
