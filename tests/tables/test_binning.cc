#include <gtest/gtest.h>

#include <cmath>

#include "SyntheticSamples.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/TableParams.hh"
#include "fastmu/tables/TableSampling.hh"

using namespace fastmu;

TEST(MomentumBinning, LogAndUniformEdges) {
  const auto e = log_momentum_edges(0.18, 400, 95);
  ASSERT_EQ(e.size(), 96u);
  EXPECT_DOUBLE_EQ(e.front(), 0.18);
  EXPECT_DOUBLE_EQ(e.back(), 400);
  const double r = e[1] / e[0];
  for (int i = 1; i < 95; ++i) EXPECT_NEAR(e[i + 1] / e[i], r, 1e-12);
  const auto u = uniform_momentum_edges(1, 11, 5);
  ASSERT_EQ(u.size(), 6u);
  for (int i = 0; i <= 5; ++i) EXPECT_DOUBLE_EQ(u[i], 1 + 2 * i);
  EXPECT_THROW(log_momentum_edges(0, 400, 10), Error);
  EXPECT_THROW(log_momentum_edges(10, 1, 10), Error);
  EXPECT_THROW(uniform_momentum_edges(1, 2, 0), Error);
  EXPECT_EQ(parse_momentum_binning("adaptive"), MomentumBinning::adaptive);
  EXPECT_THROW(parse_momentum_binning("cubic"), Error);
}

// Phi(p) = -ln p + 0.5 / p^2: steep at low momentum, gentle at high momentum.
TEST(MomentumBinning, AdaptiveRespectsEpsilonAndNarrowsWherePhiIsSteep) {
  const auto probes = adaptive_probe_grid(0.2, 400, 5000);
  std::vector<double> phi(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i)
    phi[i] = -std::log(probes[i]) + 0.5 / (probes[i] * probes[i]);
  const double eps = 0.1;
  const auto e = adaptive_momentum_edges(probes, phi, eps);
  ASSERT_GE(e.size(), 3u);
  EXPECT_DOUBLE_EQ(e.front(), 0.2);
  EXPECT_DOUBLE_EQ(e.back(), 400);
  // Each bin's variation is within epsilon, and each bin is maximal: the next
  // probe beyond its upper edge would break the tolerance.
  std::size_t k = 0;
  for (std::size_t b = 0; b + 1 < e.size(); ++b) {
    while (probes[k] < e[b]) ++k;
    const std::size_t start = k;
    double dev = 0;
    std::size_t j = start;
    for (; j < probes.size() && probes[j] <= e[b + 1]; ++j)
      dev = std::max(dev, std::abs(phi[j] - phi[start]));
    EXPECT_LE(dev, eps) << "bin " << b;
    if (j < probes.size())
      EXPECT_GT(std::abs(phi[j] - phi[start]), eps) << "bin " << b << " not maximal";
  }
  // Narrow in ln p where |dPhi/d ln p| is large (low p), wide where it is ~1.
  const double w_first = std::log(e[1] / e[0]);
  // (the last bin is a remainder: look at the one before it)
  const double w_last = std::log(e[e.size() - 2] / e[e.size() - 3]);
  EXPECT_LT(w_first, 0.2 * w_last);
  EXPECT_NEAR(w_last, eps, 0.02);  // |dPhi/dln p| -> 1 at high p
}

TEST(MomentumBinning, AdaptiveNeverStalls) {
  // A jump larger than epsilon between two probes still yields bins.
  std::vector<double> probes{1, 2, 3, 4, 5};
  std::vector<double> phi{0, 0, 5, 5, 5};
  const auto e = adaptive_momentum_edges(probes, phi, 0.1);
  EXPECT_EQ(e, (std::vector<double>{1, 2, 3, 5}));
  EXPECT_THROW(adaptive_momentum_edges(probes, phi, 0), Error);
  std::vector<double> nan{0, NAN, 0, 0, 0};
  EXPECT_THROW(adaptive_momentum_edges(probes, nan, 0.1), Error);
}

TEST(MomentumBinning, AdaptiveTableFromPilot) {
  test::SyntheticSource source;
  TableBuildOptions o;
  o.binning = MomentumBinning::adaptive;
  o.p_min = 0.2;
  o.p_max = 100;
  o.epsilon = 0.3;
  o.pilot_muons = 400;
  o.pilot_probes = 200;
  o.samples_per_bin = 2000;
  o.hist_bins = 20;
  const TableParams t = build_table(test::synthetic_metadata(), o, source);
  const auto& e = t.data().p_edges;
  ASSERT_GE(t.n_pbins(), 5);
  EXPECT_DOUBLE_EQ(e.front(), 0.2);
  EXPECT_DOUBLE_EQ(e.back(), 100);
  // The synthetic Phi falls like -ln p (+ a 1/p^2 term at low p), so the bins
  // are about epsilon wide in ln p at high p and narrower at low p.
  EXPECT_LT(std::log(e[1] / e[0]), std::log(e.back() / e[e.size() - 2]));
  EXPECT_EQ(t.metadata().binning, MomentumBinning::adaptive);
  EXPECT_DOUBLE_EQ(t.metadata().epsilon, 0.3);
  // Adaptive tables are found by binary search over the edges.
  const TableView v = t.host_view();
  for (int b = 0; b < t.n_pbins(); ++b) {
    const float mid = static_cast<float>(std::sqrt(e[b] * e[b + 1]));
    EXPECT_EQ(find_momentum_bin(v, mid), b);
  }
}

TEST(MomentumBinning, UniformAndLogTablesIndexArithmetically) {
  for (auto binning : {MomentumBinning::uniform, MomentumBinning::log}) {
    test::SyntheticSource source;
    TableBuildOptions o;
    o.binning = binning;
    o.p_min = 1;
    o.p_max = 41;
    o.p_bins = 8;
    o.samples_per_bin = 500;
    o.hist_bins = 8;
    const TableParams t = build_table(test::synthetic_metadata(), o, source);
    const auto& e = t.data().p_edges;
    const TableView v = t.host_view();
    for (int b = 0; b < t.n_pbins(); ++b) {
      EXPECT_EQ(find_momentum_bin(v, static_cast<float>(0.5 * (e[b] + e[b + 1]))), b);
    }
    EXPECT_EQ(find_momentum_bin(v, 0.5f), 0);    // clamped below
    EXPECT_EQ(find_momentum_bin(v, 100.0f), 7);  // and above
    // Edges that do not follow the declared binning are refused.
    TableData d = t.data();
    d.p_edges[3] *= 1.01;
    EXPECT_THROW(TableParams(t.metadata(), d, "edited"), Error);
  }
}
