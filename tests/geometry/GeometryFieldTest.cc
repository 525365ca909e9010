// A geometry's field map: path resolved next to the JSON file, loaded by the
// field library, and summed with the containing volume's uniform field.
#include <hdf5.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

namespace fs = std::filesystem;

Vec3 map_field(double x, double y, double z) {
  return {0.2 * x + 0.1, 0.3 * y - 1.0, 0.5 * z + 0.05 * x};
}

// A (5, 4, 6, 3) map of map_field over x in [0, 2], y in [0, 1.5], z in [-1, 4],
// written with the HDF5 C API.
void write_map(const fs::path& path) {
  const hsize_t dims[4] = {5, 4, 6, 3};
  const double lo[3] = {0, 0, -1}, hi[3] = {2, 1.5, 4};
  std::vector<float> b;
  for (hsize_t i = 0; i < dims[0]; ++i) {
    for (hsize_t j = 0; j < dims[1]; ++j) {
      for (hsize_t k = 0; k < dims[2]; ++k) {
        const Vec3 f = map_field(lo[0] + (hi[0] - lo[0]) * i / 4, lo[1] + (hi[1] - lo[1]) * j / 3,
                                 lo[2] + (hi[2] - lo[2]) * k / 5);
        b.insert(b.end(), {float(f.x), float(f.y), float(f.z)});
      }
    }
  }
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(4, dims, nullptr);
  const hid_t d = H5Dcreate2(f, "B", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b.data());
  const hsize_t three = 3;
  const hid_t aspace = H5Screate_simple(1, &three, nullptr);
  for (auto [name, v] : {std::pair{"min", lo}, std::pair{"max", hi}}) {
    const hid_t a = H5Acreate2(d, name, H5T_IEEE_F64LE, aspace, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, v);
    H5Aclose(a);
  }
  H5Sclose(aspace);
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

TEST(GeometryField, VolumeFieldPlusQuadrantMap) {
  const fs::path dir = fs::temp_directory_path() / "fastmu_geometry_field_test";
  fs::create_directories(dir / "maps");
  write_map(dir / "maps" / "map.h5");
  const nlohmann::json doc = {
      {"world", {{"min", {-5, -5, -5}}, {"max", {5, 5, 5}}, {"material", "G4_AIR"}}},
      {"volumes",
       {{{"name", "magnet"},
         {"shape", "box"},
         {"min", {-1, -1, 0}},
         {"max", {1, 1, 2}},
         {"material", "G4_Fe"},
         {"field", {0, 1.5, 0}}}}},
      {"field_map",
       {{"file", "maps/map.h5"}, {"interpolation", "linear"}, {"symmetry", "quadrant"}}}};
  std::ofstream(dir / "g.json") << doc.dump();
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json_file(dir / "g.json", lib);
  ASSERT_TRUE(g.field_map().has_value());
  const FieldMapParams map = FieldMapParams::from_spec(*g.field_map());
  const GeometryView gv = g.host_view();
  const FieldMapView mv = map.host_view();
  auto total = [&](float x, float y, float z) { return gv.locate(x, y, z).field + mv.at(x, y, z); };

  const Vec3 m = map_field(0.5, 0.5, 1.0);
  const Vec3f a = total(-0.5f, 0.5f, 1.0f);  // in the magnet, in the mirrored x < 0 quadrant
  EXPECT_NEAR(a.x, -m.x, 2e-6);              // sx = sign(x y) = -1
  EXPECT_NEAR(a.y, 1.5 + m.y, 2e-6);
  EXPECT_NEAR(a.z, m.z, 2e-6);  // sz = sign(y) = +1
  const Vec3f b = total(0.5f, -0.5f, 1.0f);
  EXPECT_NEAR(b.x, -m.x, 2e-6);
  EXPECT_NEAR(b.y, 1.5 + m.y, 2e-6);
  EXPECT_NEAR(b.z, -m.z, 2e-6);
  const Vec3f c = total(1.5f, 0.5f, 1.0f);  // map only
  EXPECT_NEAR(c.y, map_field(1.5, 0.5, 1.0).y, 2e-6);
  const Vec3f d = total(0.5f, 0.5f, -3.0f);  // neither
  EXPECT_EQ(d.x, 0.0f);
  EXPECT_EQ(d.y, 0.0f);
  EXPECT_EQ(d.z, 0.0f);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fastmu
