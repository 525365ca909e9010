// End-to-end fidelity of the fast transport on the paper's first validation
// case: 50 GeV/c mu- through 10 m of iron, compared with the Geant4 slab
// sample. Tables come from the detailed engine with reduced statistics
// (2e4 samples per momentum bin), or from $FASTMU_CACHE when set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

std::filesystem::path reference_dir() {
  if (const char* env = std::getenv("FASTMU_REFERENCE_DIR")) return env;
  return FASTMU_REFERENCE_DIR;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(pos);
  const double f = pos - i;
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s / v.size());
}

struct SlabSummary {
  std::size_t n = 0, stopped = 0;
  std::vector<double> loss, x, px;  // of the muons that got through
};

TEST(IronBlock, FastTransportMatchesGeant4) {
  const auto ref_path = reference_dir() / "slab_G4_Fe_10m_50GeV_mu-.f32";
  const auto table = test::test_table("G4_Fe");
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 2024;
  const TransportParams params = make_transport_params(iron_block_geometry_json(), "iron-block",
                                                       materials, {{"G4_Fe", table}}, nullptr, opt);
  const std::size_t n = 100000;
  const TransportResult r = transport(params, iron_block_muons(n), Backend::cpu, 0);

  SlabSummary fast;
  fast.n = n;
  for (std::size_t i = 0; i < n; ++i) {
    // Stopped (1) or decayed (6: ~3e-5 of 50 GeV/c muons over 10 m): not through.
    const bool lost = r.status[i] == 1 || r.status[i] == 6;
    ASSERT_TRUE(r.status[i] == 0 || lost) << "muon " << i << " status " << r.status[i];
    if (lost) {
      ++fast.stopped;
      continue;
    }
    ASSERT_EQ(r.muons.z[i], 10.0f);
    const auto& m = r.muons;
    fast.loss.push_back(50.0 - std::sqrt(double(m.px[i]) * m.px[i] + double(m.py[i]) * m.py[i] +
                                         double(m.pz[i]) * m.pz[i]));
    fast.x.push_back(m.x[i]);
    fast.px.push_back(m.px[i]);
  }
  // Sanity independent of the reference: a 50 GeV/c muon loses ~18 GeV in 10 m
  // of iron (PDG: <dE/dx> ~ 1.5-2 GeV/m at these energies), few stop.
  EXPECT_GT(quantile(fast.loss, 0.5), 12.0);
  EXPECT_LT(quantile(fast.loss, 0.5), 25.0);
  EXPECT_LT(fast.stopped, n / 50);

  if (!std::filesystem::exists(ref_path)) {
    GTEST_SKIP() << "Geant4 reference " << ref_path << " not found";
  }
  const io::ColumnTable ref = io::read_table(ref_path);
  SlabSummary g4;
  g4.n = ref.rows();
  for (std::size_t i = 0; i < ref.rows(); ++i) {
    const double px = ref.at(i, 1), py = ref.at(i, 2), pz = ref.at(i, 3);
    if (px == 0 && py == 0 && pz == 0) {
      ++g4.stopped;
      continue;
    }
    g4.loss.push_back(ref.at(i, 0) - std::sqrt(px * px + py * py + pz * pz));
    g4.x.push_back(ref.at(i, 4));
    g4.px.push_back(px);
  }
  const double f_fast = double(fast.stopped) / fast.n, f_g4 = double(g4.stopped) / g4.n;
  std::printf("stopped fraction: fast %.5f  Geant4 %.5f\n", f_fast, f_g4);
  EXPECT_LE(std::fabs(f_fast - f_g4), std::max(0.05 * f_g4, 0.004));
  for (double q : {0.1, 0.5, 0.9}) {
    const double a = quantile(fast.loss, q), b = quantile(g4.loss, q);
    std::printf("loss q%.0f: fast %.3f  Geant4 %.3f GeV/c\n", 100 * q, a, b);
    EXPECT_NEAR(a, b, 0.03 * b) << "loss quantile " << q;
    const double xa = quantile(fast.x, q), xb = quantile(g4.x, q);
    std::printf("x q%.0f: fast %.4f  Geant4 %.4f m\n", 100 * q, xa, xb);
    EXPECT_NEAR(xa, xb, std::max(0.05 * std::fabs(xb), 0.01)) << "x quantile " << q;
    const double pa = quantile(fast.px, q), pb = quantile(g4.px, q);
    std::printf("px q%.0f: fast %.4f  Geant4 %.4f GeV/c\n", 100 * q, pa, pb);
    EXPECT_NEAR(pa, pb, std::max(0.05 * std::fabs(pb), 0.02)) << "px quantile " << q;
  }
  std::printf("x rms: fast %.4f  Geant4 %.4f m\n", rms(fast.x), rms(g4.x));
  EXPECT_NEAR(rms(fast.x), rms(g4.x), 0.07 * rms(g4.x));
}

}  // namespace
}  // namespace fastmu
