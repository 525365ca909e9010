// A laboratory's muon flux from a small slant-depth table of standard rock
// (5000 sea-level muons, tables from the test cache): the outputs agree with
// each other (total flux against the integrals of its distributions, the
// vertical intensity two ways), the errors are finite, the table file reads
// back as written, the measured compilation is well formed and the vertical
// intensity lies within a loose factor of it, the flat laboratories' measured total fluxes agree
// within a stated tolerance (tables of 20000 muons of each site's rock
// preset), and bad input is refused before any table work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
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

// A table of `material` deep enough for SNOLAB's slant depths (5920 m.w.e.
// up to cos(theta) = 0.4: 14800 m.w.e.), 20000 muons: ~5 % statistical
// error at 6 km.w.e., ~1.5 s to build on two cores once the material's
// transport tables are in the test cache. Built once per material.
const SlantDepthTable& site_table(const std::string& material) {
  static std::map<std::string, SlantDepthTable> tables;
  auto it = tables.find(material);
  if (it == tables.end()) {
    MaterialLibrary materials;
    TableCache cache;
    SlantTableOptions o;
    o.muons = 20000;
    o.depth_max_mwe = 16000;
    o.seed = 11;
    it = tables
             .emplace(material,
                      slant_depth_table(material, materials, cache, o, Backend::cpu, 0, false))
             .first;
  }
  return it->second;
}

// One CSV line split at commas outside double quotes.
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

// The rows of a data/ compilation as column -> cell maps (# lines skipped).
std::vector<std::map<std::string, std::string>> data_rows(const std::string& file) {
  const std::filesystem::path path =
      std::filesystem::path(FASTMU_TEST_DATA_DIR) / ".." / ".." / "data" / file;
  std::ifstream f(path);
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = csv_cells(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

double integral(const Histogram& h, double scale = 1.0) {
  double s = 0;
  for (std::size_t b = 0; b < h.value.size(); ++b) {
    s += h.value[b] * (h.edges[b + 1] - h.edges[b]) * scale;
  }
  return s;
}

// Measured vertical intensities in the site's own rock
// (data/depth_intensity_measured.csv).
struct Measured {
  double depth, intensity, error;
};
std::vector<Measured> measured_rock() {
  std::vector<Measured> rows;
  for (const auto& row : data_rows("depth_intensity_measured.csv")) {
    if (row.at("medium") != "rock") continue;
    rows.push_back({std::stod(row.at("depth_mwe")), std::stod(row.at("intensity")),
                    std::stod(row.at("intensity_err"))});
  }
  return rows;
}

// A number cell read whole ("1.5e-7", not "1.5e-7x"); NaN when it is not one.
double number_cell(const std::string& cell) {
  std::size_t used = 0;
  try {
    const double v = std::stod(cell, &used);
    return used == cell.size() ? v : std::nan("");
  } catch (const std::exception&) {
    return std::nan("");
  }
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

// The measured compilation reads as the plots and the comparison above read
// it: every row has every column, a positive finite depth, intensity and
// error, a medium the plots know (rock or water/ice axis), and a source key
// that the header's source list cites.
TEST(UndergroundSite, MeasuredCompilationIsWellFormed) {
  const std::filesystem::path path = std::filesystem::path(FASTMU_TEST_DATA_DIR) / ".." / ".." /
                                     "data" / "depth_intensity_measured.csv";
  std::ifstream f(path);
  ASSERT_TRUE(f) << path;
  const std::set<std::string> media = {"rock",  "standard rock", "salt",
                                       "water", "sea water",     "ice"};
  const std::vector<std::string> columns = {"experiment",    "medium", "depth_mwe", "intensity",
                                            "intensity_err", "source", "read_at"};
  // A cited source is a comment line "#  key: ..." with a key such as gray2011.
  const std::regex cited(R"(^#\s+([a-z]+[0-9]{4}[a-z]?):)");
  std::set<std::string> keys;
  std::vector<std::string> header;
  int rows = 0;
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (std::regex_search(line, m, cited)) keys.insert(m[1]);
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = csv_cells(line);
    if (header.empty()) {
      header = cells;
      ASSERT_EQ(header, columns);
      continue;
    }
    ++rows;
    ASSERT_EQ(cells.size(), header.size()) << line;
    EXPECT_FALSE(cells[0].empty()) << line;
    EXPECT_TRUE(media.count(cells[1])) << "medium '" << cells[1] << "': " << line;
    for (int c = 2; c <= 4; ++c) {
      const double v = number_cell(cells[c]);
      EXPECT_TRUE(std::isfinite(v) && v > 0) << header[c] << " '" << cells[c] << "': " << line;
    }
    EXPECT_TRUE(keys.count(cells[5])) << "source '" << cells[5] << "' not cited above it";
    EXPECT_FALSE(cells[6].empty()) << line;
  }
  EXPECT_GE(rows, 5);
}

// The flat laboratories of data/underground_labs_measured.csv marked for the
// tests: fastmu's flux through a sphere (up to the measurement's zenith
// angle) against the measured total flux, in the site's rock preset at the
// compiled depth. Tolerance: the 20 % goal plus three statistical standard
// deviations of the small table plus the measurement's own error.
TEST(UndergroundSite, FlatLaboratoriesAgreeWithTheirMeasuredFlux) {
  int checked = 0;
  for (const auto& row : data_rows("underground_labs_measured.csv")) {
    if (row.at("test") != "yes") continue;
    MaterialLibrary materials;
    OverburdenSpec spec;
    spec.rock = row.at("rock");
    spec.depth_mwe = std::stod(row.at("depth_mwe"));
    const Overburden o = resolve_overburden(spec, materials, 16000);
    SiteOptions site;
    site.depth_mwe = o.depth_mwe;
    site.zenith_max_deg = std::stod(row.at("zenith_max_deg"));
    const SiteFlux s = site_flux(site_table(o.material), site);
    const double measured = std::stod(row.at("flux")), error = std::stod(row.at("flux_err"));
    const double ratio = s.sphere / measured;
    const double tolerance = 0.2 + 3 * s.sphere_err / s.sphere + error / measured;
    std::printf(
        "%s: %.0f m.w.e. of %s, fastmu %.3e +- %.1e, measured %.3e +- %.1e, ratio %.2f "
        "(tolerance %.2f)\n",
        row.at("lab").c_str(), o.depth_mwe, o.material.c_str(), s.sphere, s.sphere_err, measured,
        error, ratio, tolerance);
    EXPECT_LT(std::abs(ratio - 1), tolerance) << row.at("lab");
    ++checked;
  }
  // Boulby, SNOLAB, Soudan and SURF.
  EXPECT_GE(checked, 4);
}

// Vertical intensities measured at depths their authors converted to
// standard rock (data/depth_intensity_measured.csv, medium "standard rock":
// Barton & Stockel 0.07-2.2 km.w.e., Kolar Gold Fields 7.6 km.w.e.), against
// fastmu's in standard rock: within the 20 % goal plus three statistical
// deviations plus the measurement's error.
TEST(UndergroundSite, StandardRockDepthIntensityAgreesWithTheMeasurements) {
  const SlantDepthTable& t = site_table("StandardRock");
  int checked = 0;
  for (const auto& row : data_rows("depth_intensity_measured.csv")) {
    if (row.at("medium") != "standard rock") continue;
    const double depth = std::stod(row.at("depth_mwe"));
    const double measured = std::stod(row.at("intensity"));
    const double error = std::stod(row.at("intensity_err"));
    double v = 0, e = 0;
    vertical_intensity(t, depth, v, e);
    const double ratio = v / measured, tolerance = 0.2 + 3 * e / v + error / measured;
    std::printf(
        "%s %.0f m.w.e.: fastmu %.3e +- %.1e, measured %.3e +- %.1e, ratio %.2f (tolerance %.2f)\n",
        row.at("experiment").c_str(), depth, v, e, measured, error, ratio, tolerance);
    EXPECT_LT(std::abs(ratio - 1), tolerance) << row.at("experiment") << " " << depth;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// Norite's larger Z^2/A (radiative loss ~8 % above standard rock's) shortens
// the TeV muons' range: at SNOLAB's depth the flux is ~20 % lower than under
// standard rock (0.78 with 2e5-muon tables and default transport tables; 0.82
// with these 20000-muon ones, whose ratio scatters by ~6 %). Standard rock's
// own ratio, 1, fails.
TEST(UndergroundSite, NoriteShieldsMoreThanStandardRock) {
  SiteOptions site;
  site.depth_mwe = 5920;
  site.zenith_max_deg = 66.4218;
  const double norite = site_flux(site_table("Norite"), site).sphere;
  const double rock = site_flux(site_table("StandardRock"), site).sphere;
  std::printf("5920 m.w.e.: norite / standard rock %.3f\n", norite / rock);
  EXPECT_GT(norite / rock, 0.60);
  EXPECT_LT(norite / rock, 0.92);
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
  s.rock = "basalt";
  EXPECT_THROW(resolve_overburden(s, materials, 20000), Error);
  for (const char* preset : {"norite", "granite", "salt", "ice", "water"}) {
    s.rock = preset;
    EXPECT_NO_THROW(resolve_overburden(s, materials, 20000)) << preset;
  }
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
