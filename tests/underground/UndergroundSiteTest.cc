// A laboratory's muon flux from a small slant-depth table of standard rock
// (5000 sea-level muons, tables from the test cache): the outputs agree with
// each other (total flux against the integrals of its distributions, the
// vertical intensity two ways), the errors are finite, the table file reads
// back as written, the vertical intensity lies within a loose factor of the
// measured compilation, and bad input is refused before any table work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/underground/Overburden.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"

namespace fastmu::underground {
namespace {

SlantTableOptions small_options() {
  SlantTableOptions o;
  o.muons = 5000;
  o.depth_max_mwe = 12000;
  o.seed = 7;
  return o;
}

const SlantDepthTable& rock_table() {
  static const SlantDepthTable t = [] {
    MaterialLibrary materials;
    TableCache cache;
    return slant_depth_table("StandardRock", materials, cache, small_options(), Backend::cpu, 0,
                             false);
  }();
  return t;
}

double integral(const Histogram& h, double scale = 1.0) {
  double s = 0;
  for (std::size_t b = 0; b < h.value.size(); ++b) {
    s += h.value[b] * (h.edges[b + 1] - h.edges[b]) * scale;
  }
  return s;
}

// Measured vertical intensities in rock (examples/underground).
struct Measured {
  double depth, intensity, error;
};
std::vector<Measured> measured_rock() {
  const std::filesystem::path path = std::filesystem::path(FASTMU_TEST_DATA_DIR) / ".." / ".." /
                                     "data" / "depth_intensity_measured.csv";
  std::ifstream f(path);
  std::vector<Measured> rows;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    auto col = [&](const std::string& name) {
      for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return cells.at(i);
      return std::string();
    };
    if (col("medium") != "rock") continue;
    rows.push_back({std::stod(col("depth_mwe")), std::stod(col("intensity")),
                    std::stod(col("intensity_err"))});
  }
  return rows;
}

TEST(UndergroundSite, OutputsAgreeWithEachOther) {
  const SlantDepthTable& t = rock_table();
  SiteOptions o;
  o.depth_mwe = 2000;
  const SiteFlux s = site_flux(t, o);
  std::printf(
      "2000 m.w.e.: horizontal %.3e +- %.1e, sphere %.3e +- %.1e cm^-2 s^-1, vertical "
      "%.3e +- %.1e cm^-2 s^-1 sr^-1, <E> %.1f +- %.1f GeV\n",
      s.horizontal, s.horizontal_err, s.sphere, s.sphere_err, s.vertical, s.vertical_err,
      s.mean_energy, s.mean_energy_err);
  ASSERT_GT(s.horizontal, 0);
  for (const double e : {s.horizontal_err, s.sphere_err, s.vertical_err, s.mean_energy_err}) {
    EXPECT_TRUE(std::isfinite(e) && e > 0);
  }
  EXPECT_LT(s.horizontal_err, 0.2 * s.horizontal);
  // The sphere counts inclined muons more than a horizontal surface does.
  EXPECT_GT(s.sphere, s.horizontal);
  EXPECT_LT(s.sphere, 2 * s.horizontal);
  // The distributions integrate to the total.
  EXPECT_NEAR(integral(s.zenith) / s.horizontal, 1.0, 1e-9);
  EXPECT_NEAR(integral(s.azimuth, 3.14159265358979323846 / 180) / s.horizontal, 1.0, 1e-9);
  EXPECT_NEAR(integral(s.energy) / s.horizontal, 1.0, 1e-3);
  // The flux falls towards the horizon at 2 km.w.e.: the top zenith bin
  // (vertical) holds more than the bottom one.
  EXPECT_GT(s.zenith.value.back(), s.zenith.value.front());
  double v = 0, ve = 0;
  vertical_intensity(t, 2000, v, ve);
  EXPECT_DOUBLE_EQ(v, s.vertical);
  // A muon of mean energy E at depth keeps ~E over the last few hundred
  // m.w.e.: the mean lies between 50 GeV and 1 TeV at 2 km.w.e.
  EXPECT_GT(s.mean_energy, 50);
  EXPECT_LT(s.mean_energy, 1000);
  for (std::size_t b = 0; b < s.zenith.error.size(); ++b)
    EXPECT_TRUE(std::isfinite(s.zenith.error[b]));
}

TEST(UndergroundSite, VerticalIntensityNearTheMeasuredCompilation) {
  const SlantDepthTable& t = rock_table();
  const auto rows = measured_rock();
  ASSERT_FALSE(rows.empty()) << "data/depth_intensity_measured.csv";
  int checked = 0;
  for (const Measured& m : rows) {
    if (m.depth < 500 || m.depth > 8000) continue;
    double v = 0, e = 0;
    vertical_intensity(t, m.depth, v, e);
    const double ratio = v / m.intensity;
    std::printf("%.0f m.w.e.: fastmu %.3e +- %.1e, measured %.3e +- %.1e, ratio %.2f\n", m.depth, v,
                e, m.intensity, m.error, ratio);
    // Small statistics and site rocks other than standard rock: a factor 2.
    EXPECT_GT(ratio, 0.5) << m.depth;
    EXPECT_LT(ratio, 2.0) << m.depth;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(UndergroundSite, TableFileReadsBack) {
  const SlantDepthTable& t = rock_table();
  const auto path = std::filesystem::temp_directory_path() / "fastmu_slant_table_test.bin";
  write_slant_table(path, t, "key one");
  SlantDepthTable back;
  ASSERT_TRUE(read_slant_table(path, "key one", back));
  EXPECT_EQ(back.e0, t.e0);
  EXPECT_EQ(back.end_depth, t.end_depth);
  EXPECT_EQ(back.energy, t.energy);
  EXPECT_EQ(back.depths, t.depths);
  SlantDepthTable other;
  EXPECT_FALSE(read_slant_table(path, "another key", other));
  std::filesystem::remove(path);
}

TEST(UndergroundSite, SurvivorsAndEnergiesAlongTheTable) {
  const SlantDepthTable& t = rock_table();
  // Fewer muons alive deeper; every energy positive and below E0.
  EXPECT_EQ(t.alive_at(0), t.size());
  EXPECT_GT(t.alive_at(1000), t.alive_at(3000));
  EXPECT_GT(t.alive_at(3000), t.alive_at(9000));
  for (std::size_t i = 0; i < t.alive_at(3000); ++i) {
    const double e = t.energy_at(i, 3000);
    ASSERT_GT(e, 0);
    ASSERT_LE(e, t.e0[i] * (1 + 1e-6));
  }
}

TEST(UndergroundSite, BadInputIsRefusedBeforeTables) {
  MaterialLibrary materials;
  OverburdenSpec s;
  s.depth_mwe = 3000;
  EXPECT_NO_THROW(resolve_overburden(s, materials, 20000));
  s.rock = "granite";
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);
  s.rock = "standard_rock";
  s.depth_mwe = 25000;
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);
  s.depth_mwe = 3000;
  s.rock_depth_m = 100;
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);
  s.rock_depth_m = 0;
  s.depths_mwe.assign(21, 1000.0);
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);
  s.depths_mwe.clear();
  s.rock = "sea_water";
  s.depth_mwe = 0;
  s.rock_depth_m = 2000;
  EXPECT_NEAR(resolve_overburden(s, materials, 20000).depth_mwe, 2080, 1e-9);
  s.composition = {{"O", 0.5}, {"Si", 0.5}};
  s.density = 2.6;
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);  // a named rock's name
  s.rock = "site_rock";
  EXPECT_EQ(resolve_overburden(s, materials, 20000).material, "site_rock");
  EXPECT_NO_THROW(resolve_overburden(s, materials, 20000));  // the same rock again
  s.density = 2.7;
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);  // redefined
  EXPECT_THROW(parse_composition("O:0.5,Si", "--composition"), Error);
  EXPECT_THROW(parse_composition("O:1.5", "--composition"), Error);
  SiteOptions o;
  o.depth_mwe = 3000;
  o.zenith_max_deg = 95;
  EXPECT_THROW(check_site_options(o, 20000), Error);
  SlantTableOptions t;
  t.muons = 10;
  EXPECT_THROW(check_slant_options(t), Error);
}

}  // namespace
}  // namespace fastmu::underground
