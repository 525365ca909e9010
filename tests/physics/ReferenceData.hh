// Helpers of the physics tests: the Geant4 reference files and quantiles.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fastmu::test {

inline std::filesystem::path reference_dir() { return FASTMU_REFERENCE_DIR; }

// Skips the current test (naming the path) when a reference file is absent.
#define FASTMU_REQUIRE_REFERENCE(path)                                                  \
  do {                                                                                  \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing reference " << (path); \
  } while (0)

struct RefRow {
  double p0, px, py, pz, x, y, z;
};

inline std::vector<RefRow> read_f32(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<RefRow> rows;
  float v[7];
  while (in.read(reinterpret_cast<char*>(v), sizeof v)) {
    rows.push_back({v[0], v[1], v[2], v[3], v[4], v[5], v[6]});
  }
  return rows;
}

// Linear-interpolated quantile (numpy's default), q in [0, 1].
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(pos);
  const double f = pos - i;
  return i + 1 < v.size() ? v[i] + f * (v[i + 1] - v[i]) : v.back();
}

// One row of dedx_mu-_per_process.csv (MeV cm2/g).
struct DedxRow {
  std::string material;
  double t_mev, p_gev, ioni, brems, pair, total;
};

inline std::vector<DedxRow> read_dedx_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<DedxRow> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    DedxRow r;
    std::string cell;
    std::getline(ss, r.material, ',');
    double* fields[] = {&r.t_mev, &r.p_gev, &r.ioni, &r.brems, &r.pair, &r.total};
    for (double* f : fields) {
      std::getline(ss, cell, ',');
      *f = std::stod(cell);
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace fastmu::test
