// Tables built from the Geant4 reference samples (--from-samples) reproduce
// them. Skipped when the reference folder is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "TableQuantiles.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/tables/FileSampleSource.hh"
#include "fastmu/tables/TableSampling.hh"

using namespace fastmu;
namespace fs = std::filesystem;

namespace {

fs::path reference(const std::string& name) { return fs::path(FASTMU_REFERENCE_DIR) / name; }

std::vector<float> read_f32(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<float> v(fs::file_size(p) / 4);
  in.read(reinterpret_cast<char*>(v.data()), v.size() * 4);
  return v;
}

double quantile(std::vector<double> v, double q) {
  const std::size_t k = static_cast<std::size_t>(q * (v.size() - 1));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

}  // namespace

class ReferenceTables : public ::testing::TestWithParam<const char*> {};

TEST_P(ReferenceTables, QuantilesOfGeant4SamplesReproduced) {
  const std::string p_str = GetParam();
  const auto path = reference("sphere2cm_G4_Fe_p" + p_str + "GeV_mu-.f32");
  if (!fs::exists(path)) GTEST_SKIP() << "no reference file " << path;
  const double p = std::stod(p_str);
  FileSampleSource source(path);
  EXPECT_EQ(source.size(), 50000u);
  TableBuildOptions o;
  o.p_min = p * 0.99;
  o.p_max = p * 1.01;
  o.p_bins = 1;
  TableMetadata meta;
  meta.material = "G4_Fe";
  meta.generator = source.generator();
  const TableParams t = build_table(meta, o, source);
  ASSERT_EQ(t.data().samples_per_bin[0], 50000u);
  EXPECT_NEAR(t.data().p_centres[0], p, 1e-4 * p);

  const auto raw = read_f32(path);
  std::vector<double> loss, kick;
  for (std::size_t i = 0; i + 7 <= raw.size(); i += 7) {
    loss.push_back((double(raw[i]) - raw[i + 3]) / raw[i]);
    kick.push_back(std::hypot(double(raw[i + 1]), double(raw[i + 2])) / raw[i]);
  }
  const TableView v = t.host_view();
  std::vector<double> tl, tk;
  for (int i = 0; i < 400000; ++i) {
    const Philox4 r = philox_block(5, i, 0, RngStream::fast_transport);
    const SampledLoss s = sample_bin(v, 0, r.v[0], to_unit_open_f(r.v[1]), to_unit_open_f(r.v[2]));
    tl.push_back(s.loss_frac);
    tk.push_back(s.kick_frac);
  }
  // Exact table quantiles for q10..q99, drawn ones for q10..q90 (see test_fidelity.cc).
  for (double q : {0.10, 0.25, 0.50, 0.75, 0.90, 0.99}) {
    EXPECT_NEAR(test::table_quantile(t, 0, 0, q) / quantile(loss, q), 1.0, 0.02) << "loss q" << q;
    EXPECT_NEAR(test::table_quantile(t, 0, 1, q) / quantile(kick, q), 1.0, 0.02) << "kick q" << q;
    if (q > 0.9) continue;
    EXPECT_NEAR(quantile(tl, q) / quantile(loss, q), 1.0, 0.02) << "loss q" << q;
    EXPECT_NEAR(quantile(tk, q) / quantile(kick, q), 1.0, 0.02) << "kick q" << q;
  }
}

INSTANTIATE_TEST_SUITE_P(Fe2cm, ReferenceTables, ::testing::Values("0.5", "10", "100", "300"));

TEST(ReferenceTablesErrors, EmptyMomentumBinIsAnError) {
  const auto path = reference("sphere2cm_G4_Fe_p10GeV_mu-.f32");
  if (!fs::exists(path)) GTEST_SKIP();
  FileSampleSource source(path);
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 100;
  o.p_bins = 4;
  TableMetadata meta;
  meta.material = "G4_Fe";
  try {
    build_table(meta, o, source);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no samples"), std::string::npos) << e.what();
  }
}
