// Field maps: HDF5 loading and its errors, nearest and trilinear
// interpolation, the quadrant symmetry, and the sum with a volume's field.
#include <hdf5.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fastmu/core/Error.hh"
#include "fastmu/field/FieldMapParams.hh"

namespace fastmu {
namespace {

namespace fs = std::filesystem;

// A field linear in each coordinate (trilinear interpolation must be exact).
Vec3 linear_field(double x, double y, double z) {
  return {0.5 + 0.2 * x - 0.1 * y + 0.05 * z, -1.0 + 0.3 * y + 0.02 * x * z,
          0.1 * x - 0.2 * z + 0.01 * x * y};
}

struct MapFile {
  std::array<hsize_t, 4> shape{5, 4, 6, 3};
  std::array<double, 3> lo{0.0, 0.0, -1.0}, hi{2.0, 1.5, 4.0};
  std::function<Vec3(double, double, double)> field = linear_field;
  bool write_min = true, write_max = true;
  std::string dataset = "B";
  float poison = 0;  // written into the first value if non-zero

  void write(const fs::path& path) const {
    std::vector<float> b(shape[0] * shape[1] * shape[2] * shape[3]);
    for (hsize_t i = 0; i < shape[0]; ++i) {
      for (hsize_t j = 0; j < shape[1]; ++j) {
        for (hsize_t k = 0; k < shape[2]; ++k) {
          const double x = lo[0] + (hi[0] - lo[0]) * i / (shape[0] - 1);
          const double y = lo[1] + (hi[1] - lo[1]) * j / (shape[1] - 1);
          const double z = lo[2] + (hi[2] - lo[2]) * k / (shape[2] - 1);
          const Vec3 f = field(x, y, z);
          const double c[3] = {f.x, f.y, f.z};
          for (hsize_t q = 0; q < shape[3] && q < 3; ++q) {
            b[((i * shape[1] + j) * shape[2] + k) * shape[3] + q] = static_cast<float>(c[q]);
          }
        }
      }
    }
    if (poison != 0) b[0] = poison;
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(4, shape.data(), nullptr);
    const hid_t d = H5Dcreate2(f, dataset.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b.data());
    const hsize_t three = 3;
    const hid_t aspace = H5Screate_simple(1, &three, nullptr);
    auto attr = [&](const char* name, const std::array<double, 3>& v) {
      const hid_t a = H5Acreate2(d, name, H5T_IEEE_F64LE, aspace, H5P_DEFAULT, H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_DOUBLE, v.data());
      H5Aclose(a);
    };
    if (write_min) attr("min", lo);
    if (write_max) attr("max", hi);
    H5Sclose(aspace);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
  }
};

class FieldMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fastmu_field_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path path(const std::string& name) const { return dir_ / name; }

  std::string load_error(const MapFile& m) {
    m.write(path("m.h5"));
    try {
      FieldMapParams::from_hdf5(path("m.h5"));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(FieldMapTest, LinearInterpolationIsExactForLinearFields) {
  MapFile m;
  m.field = [](double x, double y, double z) {
    return Vec3{0.5 + 0.2 * x - 0.1 * y + 0.05 * z, -1.0 + 0.3 * y, 0.1 * x - 0.2 * z};
  };
  m.write(path("m.h5"));
  const FieldMapParams p = FieldMapParams::from_hdf5(path("m.h5"), FieldInterpolation::linear);
  const FieldMapView v = p.host_view();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> ux(0, 2), uy(0, 1.5), uz(-1, 4);
  for (int i = 0; i < 2000; ++i) {
    const double x = ux(rng), y = uy(rng), z = uz(rng);
    const Vec3 ref = m.field(x, y, z);
    const Vec3f got = v.at(float(x), float(y), float(z));
    ASSERT_NEAR(got.x, ref.x, 2e-6);
    ASSERT_NEAR(got.y, ref.y, 2e-6);
    ASSERT_NEAR(got.z, ref.z, 2e-6);
  }
  // Also exact for products of different coordinates (trilinear terms).
  MapFile t;
  t.write(path("t.h5"));
  const FieldMapParams pt = FieldMapParams::from_hdf5(path("t.h5"));
  for (int i = 0; i < 2000; ++i) {
    const double x = ux(rng), y = uy(rng), z = uz(rng);
    const Vec3 ref = linear_field(x, y, z);
    const Vec3f got = pt.host_view().at(float(x), float(y), float(z));
    ASSERT_NEAR(got.y, ref.y, 2e-6);
    ASSERT_NEAR(got.z, ref.z, 2e-6);
  }
  // Grid corners, and zero outside the map.
  EXPECT_NEAR(v.at(2, 1.5f, 4).x, m.field(2, 1.5, 4).x, 1e-6);
  EXPECT_EQ(v.at(2.01f, 1, 1).x, 0.0f);
  EXPECT_EQ(v.at(1, -0.01f, 1).y, 0.0f);
  EXPECT_EQ(v.at(1, 1, 4.01f).z, 0.0f);
}

TEST_F(FieldMapTest, NearestTakesTheClosestGridPoint) {
  MapFile m;
  m.write(path("m.h5"));
  const FieldMapParams p = FieldMapParams::from_hdf5(path("m.h5"), FieldInterpolation::nearest);
  const FieldMapView v = p.host_view();
  // Spacing 0.5 in x, 0.5 in y, 1 in z: (0.74, 0.26, 0.4) -> node (0.5, 0.5, 0).
  const Vec3 ref = linear_field(0.5, 0.5, 0.0);
  const Vec3f got = v.at(0.74f, 0.26f, 0.4f);
  EXPECT_NEAR(got.x, ref.x, 1e-6);
  EXPECT_NEAR(got.y, ref.y, 1e-6);
  EXPECT_NEAR(got.z, ref.z, 1e-6);
  const Vec3 ref2 = linear_field(1.0, 0.0, 1.0);
  EXPECT_NEAR(v.at(0.76f, 0.24f, 0.6f).x, ref2.x, 1e-6);
}

TEST_F(FieldMapTest, QuadrantSymmetry) {
  MapFile m;
  m.lo = {0.0, 0.0, -1.0};
  m.write(path("m.h5"));
  const FieldMapParams p =
      FieldMapParams::from_hdf5(path("m.h5"), FieldInterpolation::linear, FieldSymmetry::quadrant);
  const FieldMapView v = p.host_view();
  const float x = 0.7f, y = 0.4f, z = 1.3f;
  const Vec3f q = v.at(x, y, z);
  const Vec3 ref = linear_field(x, y, z);
  EXPECT_NEAR(q.x, ref.x, 2e-6);
  // B(x, y, z) = (sx Bx, By, sz Bz)(|x|, |y|, z), sx = sign(x y), sz = sign(y).
  const Vec3f a = v.at(-x, y, z), b = v.at(-x, -y, z), c = v.at(x, -y, z);
  EXPECT_FLOAT_EQ(a.x, -q.x);
  EXPECT_FLOAT_EQ(a.y, q.y);
  EXPECT_FLOAT_EQ(a.z, q.z);
  EXPECT_FLOAT_EQ(b.x, q.x);
  EXPECT_FLOAT_EQ(b.y, q.y);
  EXPECT_FLOAT_EQ(b.z, -q.z);
  EXPECT_FLOAT_EQ(c.x, -q.x);
  EXPECT_FLOAT_EQ(c.y, q.y);
  EXPECT_FLOAT_EQ(c.z, -q.z);
  EXPECT_EQ(v.at(-2.1f, 0.1f, 0).y, 0.0f);  // mirrored map ends at |x| = 2
  EXPECT_EQ(v.region_lo().x, -2.0f);
  EXPECT_EQ(v.region_lo().y, -1.5f);
  // Without symmetry the x < 0 side is outside the map.
  const FieldMapParams plain = FieldMapParams::from_hdf5(path("m.h5"));
  EXPECT_EQ(plain.host_view().at(-x, y, z).y, 0.0f);
}

TEST_F(FieldMapTest, LoadErrorsAreOneLineAndNameTheFile) {
  const std::string f = path("m.h5").string();
  {
    MapFile m;
    m.dataset = "Bfield";
    EXPECT_EQ(load_error(m), f + ": dataset 'B' is missing");
  }
  {
    MapFile m;
    m.write_max = false;
    EXPECT_EQ(load_error(m), f + ": attribute 'max' is missing");
  }
  {
    MapFile m;
    m.shape = {4, 4, 4, 2};
    EXPECT_EQ(load_error(m), f + ": dataset 'B' has shape (4, 4, 4, 2), expected (nx, ny, nz, 3)");
  }
  {
    MapFile m;
    m.shape = {4, 1, 4, 3};
    m.hi[1] = 1.0;
    EXPECT_EQ(load_error(m), f + ": B: need at least 2 grid points along y, got 1");
  }
  {
    MapFile m;
    m.poison = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(load_error(m), f + ": B[0, 0, 0, 0] is not in [-1000, 1000] T");
  }
  {
    MapFile m;
    m.hi[2] = m.lo[2];
    EXPECT_EQ(load_error(m), f + ": min z (-1) must be < max z (-1)");
  }
  {
    std::ofstream(path("text.h5")) << "not hdf5";
    try {
      FieldMapParams::from_hdf5(path("text.h5"));
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path("text.h5").string() + ": not a readable HDF5 file");
    }
  }
  // Same checks from arrays.
  EXPECT_THROW(FieldMapParams({2, 2, 2}, std::vector<float>(23), {0, 0, 0}, {1, 1, 1},
                              FieldInterpolation::linear, FieldSymmetry::none),
               Error);
  EXPECT_THROW(FieldMapParams({2, 2, 2}, std::vector<float>(24), {-1, 0, 0}, {1, 1, 1},
                              FieldInterpolation::linear, FieldSymmetry::quadrant),
               Error);
}

TEST_F(FieldMapTest, ArraysRoundTripThroughHdf5) {
  std::vector<float> b(3 * 3 * 2 * 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * static_cast<float>(i);
  const FieldMapParams p({3, 3, 2}, b, {-1, -1, 0}, {1, 1, 2}, FieldInterpolation::nearest,
                         FieldSymmetry::none);
  p.write_hdf5(path("rt.h5"));
  const FieldMapParams q = FieldMapParams::from_hdf5(path("rt.h5"), FieldInterpolation::nearest);
  EXPECT_EQ(q.shape(), p.shape());
  EXPECT_EQ(q.values(), p.values());
  EXPECT_EQ(q.lo(), p.lo());
  EXPECT_EQ(q.hi(), p.hi());
  // Node (2, 1, 1) = x 1, y 0, z 2: values 3 * ((2 * 3 + 1) * 2 + 1) + c.
  const Vec3f n = q.host_view().at(1, 0, 2);
  EXPECT_FLOAT_EQ(n.x, 0.1f * 45);
  EXPECT_FLOAT_EQ(n.z, 0.1f * 47);
}

}  // namespace
}  // namespace fastmu
