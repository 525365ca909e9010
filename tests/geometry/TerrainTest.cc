// Terrain (a height map in the geometry JSON): location, ray distances and
// safety against a brute-force walk along the ray in double precision, at
// metre and at kilometre scale; the JSON and height-map checks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "GeometryTestUtil.hh"
#include "fastmu/io/Hdf5.hh"

namespace fastmu {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path d = fs::temp_directory_path() / fmt::format("fastmu_terrain_test_{}", getpid());
  fs::create_directories(d);
  return d;
}

// A height map with its extent, evaluated bilinearly in double.
struct RefMap {
  int nx = 9, ny = 7;
  double x0 = -40, x1 = 40, y0 = -30, y1 = 30;
  std::vector<double> h;

  double height(double x, double y) const {
    const double gx = (x - x0) / (x1 - x0) * (nx - 1), gy = (y - y0) / (y1 - y0) * (ny - 1);
    const int i = std::clamp(static_cast<int>(std::floor(gx)), 0, nx - 2);
    const int j = std::clamp(static_cast<int>(std::floor(gy)), 0, ny - 2);
    const double u = gx - i, v = gy - j;
    const double h00 = at(i, j), h10 = at(i + 1, j), h01 = at(i, j + 1), h11 = at(i + 1, j + 1);
    return (1 - u) * (1 - v) * h00 + u * (1 - v) * h10 + (1 - u) * v * h01 + u * v * h11;
  }
  double at(int i, int j) const { return h[static_cast<std::size_t>(j * nx + i)]; }
};

// Random hills between 0 and 20 m above `base`, written as CSV.
RefMap random_map(double base, double shift, std::uint32_t seed, const fs::path& csv) {
  RefMap m;
  m.x0 += shift, m.x1 += shift;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 20);
  std::ofstream out(csv);
  out << "# heights [m], rows along y\n";
  for (int j = 0; j < m.ny; ++j) {
    for (int i = 0; i < m.nx; ++i) {
      // Rounded to what a float holds, so that reference and geometry agree.
      const double h = static_cast<float>(base + u(rng));
      m.h.push_back(h);
      out << fmt::format("{}{:.9g}", i ? "," : "", h);
    }
    out << "\n";
  }
  return m;
}

// World of vacuum; the terrain's air (G4_AIR) above, 3 m of water, iron below.
nlohmann::json terrain_doc(const RefMap& m, const fs::path& file, double base) {
  const double cx = 0.5 * (m.x0 + m.x1);
  return {{"world",
           {{"min", {cx - 50, -50, base - 30}},
            {"max", {cx + 50, 50, base + 60}},
            {"material", "G4_Galactic"}}},
          {"terrain",
           {{"name", "hill"},
            {"height_map", file.string()},
            {"x", {m.x0, m.x1}},
            {"y", {m.y0, m.y1}},
            {"bottom", base - 20},
            {"top", base + 40},
            {"above", "G4_AIR"},
            {"layers", {{{"thickness", 3}, {"material", "G4_WATER"}}}},
            {"material", "G4_Fe"}}}};
}

// The material a point is in, from the reference surface.
std::string ref_material(const RefMap& m, double base, double x, double y, double z) {
  const bool in_box =
      x >= m.x0 && x <= m.x1 && y >= m.y0 && y <= m.y1 && z >= base - 20 && z <= base + 40;
  if (!in_box) return "G4_Galactic";
  const double h = m.height(x, y);
  return z > h ? "G4_AIR" : (z > h - 3 ? "G4_WATER" : "G4_Fe");
}

struct Scale {
  double base, shift, tol;
};

void check_against_brute_force(const Scale& sc, std::uint32_t seed) {
  const fs::path csv = temp_dir() / fmt::format("hills_{}.csv", seed);
  const RefMap m = random_map(sc.base, sc.shift, seed, csv);
  const GeometryParams g = test::load(terrain_doc(m, csv, sc.base));
  const GeometryView view = g.host_view();
  const auto& names = g.material_names();
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<double> ux(m.x0 - 5, m.x1 + 5), uy(m.y0 - 5, m.y1 + 5),
      uz(sc.base - 25, sc.base + 45), unit(-1, 1);
  int located = 0, rays = 0, mismatches = 0;
  for (int n = 0; n < 400; ++n) {
    const double x = static_cast<float>(ux(rng)), y = static_cast<float>(uy(rng)),
                 z = static_cast<float>(uz(rng));
    const std::string want = ref_material(m, sc.base, x, y, z);
    const double h = m.height(x, y);
    if (std::abs(z - h) < sc.tol || std::abs(z - h + 3) < sc.tol) continue;  // on a surface
    const Vec3f p{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
    const LocateResult loc = view.locate(p.x, p.y, p.z);
    ASSERT_EQ(names[loc.material], want) << x << " " << y << " " << z;
    EXPECT_EQ(view.locate_brute_force(p.x, p.y, p.z).volume, loc.volume);
    ++located;
    // A random direction: the first change of material along it, walked in
    // 2 mm steps and bisected, against distance_to_boundary; the safety is
    // a lower bound of it.
    Vec3f d{static_cast<float>(unit(rng)), static_cast<float>(unit(rng)),
            static_cast<float>(unit(rng))};
    const float len = std::sqrt(dot(d, d));
    if (len < 0.1f) continue;
    d = (1.f / len) * d;
    const double limit = view.distance_to_world_exit(p, d);
    auto material_at = [&](double t) {
      return ref_material(m, sc.base, x + t * d.x, y + t * d.y, z + t * d.z);
    };
    double t_ref = limit;
    for (double t = 2e-3; t < limit; t += 2e-3) {
      if (material_at(t) != want) {
        double lo = t - 2e-3, hi = t;
        for (int it = 0; it < 40; ++it) {
          const double mid = 0.5 * (lo + hi);
          (material_at(mid) == want ? lo : hi) = mid;
        }
        t_ref = hi;
        break;
      }
    }
    const float t = view.distance_to_boundary(p, d, loc.volume);
    ++rays;
    if (std::abs(t - t_ref) > sc.tol) {
      ++mismatches;
      ADD_FAILURE() << "ray from (" << x << ", " << y << ", " << z << ") dir (" << d.x << ", "
                    << d.y << ", " << d.z << "): " << t << " vs " << t_ref;
    }
    EXPECT_LE(view.safety(p, loc.volume), t_ref + sc.tol);
  }
  EXPECT_GT(located, 300);
  EXPECT_GT(rays, 250);
  EXPECT_EQ(mismatches, 0);
}

TEST(Terrain, LocationAndDistancesMatchBruteForce) {
  check_against_brute_force({0, 0, 1e-3}, 11);
  check_against_brute_force({0, 0, 1e-3}, 12);
}

// Around x = 1 km, z = 2 km the float ulp is 0.12 mm.
TEST(Terrain, LocationAndDistancesMatchBruteForceAtKilometres) {
  check_against_brute_force({2000, 1000, 2e-3}, 13);
}

// The slabs part the terrain's box: every point is in exactly one of them
// and a thin box inside the box is refused as an overlap.
TEST(Terrain, SlabsAndOverlaps) {
  const fs::path csv = temp_dir() / "overlap.csv";
  const RefMap m = random_map(0, 0, 5, csv);
  nlohmann::json doc = terrain_doc(m, csv, 0);
  const GeometryParams g = test::load(doc);
  ASSERT_EQ(g.volumes().size(), 3u);
  EXPECT_EQ(g.volumes()[0].name, "hill.above");
  EXPECT_EQ(g.volumes()[1].name, "hill.layers[0]");
  EXPECT_EQ(g.volumes()[2].name, "hill.below");
  EXPECT_EQ(g.volumes()[2].shape, VolumeShape::terrain);
  // (json::array: a braced single object would be that object under clang)
  doc["volumes"] = nlohmann::json::array({test::box_json("cave", {0, 0, -5}, {1, 1, -4})});
  EXPECT_NE(test::load_error(doc).find("volumes 'cave' and 'hill"), std::string::npos);
  doc["volumes"] = nlohmann::json::array({test::box_json("outside", {45, 0, 0}, {46, 1, 1})});
  EXPECT_EQ(test::load_error(doc), "");
  // Air of the world's material: no volume for it.
  doc["terrain"].erase("above");
  EXPECT_EQ(test::load(doc).volumes().size(), 3u);  // (the box, the layer, the iron)
}

// The same heights as a 2-D HDF5 dataset give the same geometry.
TEST(Terrain, Hdf5HeightMap) {
  const fs::path csv = temp_dir() / "same.csv", h5 = temp_dir() / "same.h5";
  const RefMap m = random_map(0, 0, 7, csv);
  {
    io::h5::Handle f = io::h5::create_file(h5.string());
    io::h5::write_dataset<double>(f.get(), "height", {7, 9}, m.h.data());
  }
  nlohmann::json doc = terrain_doc(m, h5, 0);
  const GeometryParams a = test::load(terrain_doc(m, csv, 0)), b = test::load(doc);
  EXPECT_EQ(a.terrain_heights(), b.terrain_heights());
  doc["terrain"]["dataset"] = "heights";
  const std::string e = test::load_error(doc);
  EXPECT_EQ(e, h5.string() + ": dataset 'heights' not found");
}

// Every bad height map or terrain entry gives one line naming the file.
TEST(Terrain, BadFilesGiveOneLine) {
  const fs::path dir = temp_dir();
  const RefMap m = random_map(0, 0, 3, dir / "good.csv");
  auto error_with = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return test::load_error(terrain_doc(m, dir / name, 0));
  };
  auto expect_line = [](const std::string& e, const std::string& part) {
    EXPECT_NE(e.find(part), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  };
  expect_line(test::load_error(terrain_doc(m, dir / "missing.csv", 0)),
              (dir / "missing.csv").string() + ": height map not found");
  expect_line(error_with("ragged.csv", "1,2,3\n1,2\n"),
              "ragged.csv: line 2: expected 3 heights (as the first row), got 2");
  expect_line(error_with("nan.csv", "1,2\n1,nan\n"),
              "nan.csv: line 2, column 2: height nan m is not in [-1e5, 1e5] m");
  expect_line(error_with("text.csv", "1,2\n1,x\n"),
              "text.csv: line 2, column 2: 'x' is not a number");
  expect_line(error_with("row.csv", "1,2,3\n"), "row.csv: height map has 3 x 1 nodes");
  expect_line(error_with("empty.csv", ""), "empty.csv: height map has 0 x 0 nodes");
  std::ofstream(dir / "not.h5") << "1,2\n3,4\n";
  expect_line(test::load_error(terrain_doc(m, dir / "not.h5", 0)), "not.h5");
  {
    io::h5::Handle f = io::h5::create_file((dir / "flat.h5").string());
    const double v[3] = {1, 2, 3};
    io::h5::write_dataset<double>(f.get(), "height", {3}, v);
  }
  expect_line(test::load_error(terrain_doc(m, dir / "flat.h5", 0)),
              "flat.h5: dataset 'height' has 1 dimensions, expected 2 (ny, nx)");
  nlohmann::json doc = terrain_doc(m, dir / "good.csv", 0);
  doc["terrain"]["x"] = {40, -40};
  expect_line(test::load_error(doc), "geom.json: terrain.x: min (40) must be < max (-40)");
  doc = terrain_doc(m, dir / "good.csv", 0);
  doc["terrain"]["bottom"] = 5;
  expect_line(test::load_error(doc), "geom.json: terrain: bottom (5) must be below the lowest");
  doc = terrain_doc(m, dir / "good.csv", 0);
  doc["terrain"]["layers"][0]["thickness"] = 0;
  expect_line(test::load_error(doc), "geom.json: terrain.layers[0].thickness: must be > 0");
}

}  // namespace
}  // namespace fastmu
