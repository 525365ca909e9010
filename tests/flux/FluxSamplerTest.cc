// Weighted samples of the sea-level flux: the weights estimate the rate, the
// weighted histograms the flux shape, and the rows do not depend on threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/flux/FluxSampler.hh"
#include "fastmu/flux/SeaLevelFlux.hh"

namespace {

using fastmu::flux::FluxOptions;
using fastmu::flux::FluxSampler;
using fastmu::flux::kFluxColumns;

constexpr double kMuonMass = 0.1056583755;

struct Sums {
  double w = 0, w2 = 0;
  void add(double x) {
    w += x;
    w2 += x * x;
  }
};

double energy_of(const double* r) {
  return std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + kMuonMass * kMuonMass);
}
double cos_zenith_of(const double* r) { return -r[2] / std::hypot(std::hypot(r[0], r[1]), r[2]); }

// The sum of the weights against the flux integral, within 5 sigma.
void expect_rate(const FluxOptions& o, std::size_t n) {
  const FluxSampler s(o);
  const auto rows = s.sample_rows(n);
  Sums sums;
  for (std::size_t i = 0; i < n; ++i) sums.add(rows[i * kFluxColumns + 7]);
  const double rate = s.expected_rate();
  EXPECT_NEAR(sums.w, rate, 5 * std::sqrt(sums.w2))
      << "gamma " << o.gamma << " cos^" << o.cos_power;
  EXPECT_LT(std::sqrt(sums.w2), 0.05 * rate);  // the test has power
}

TEST(FluxSampler, WeightsSumToTheRate) {
  FluxOptions o;
  expect_rate(o, 200000);
  o.gamma = 1.0;  // log-uniform energies
  o.cos_power = 1.0;
  expect_rate(o, 200000);
  o.gamma = 2.7;
  o.e_max = 1e7;
  o.zenith_max = 60;
  o.area = {-10, 30, 5, 7};
  expect_rate(o, 200000);
}

TEST(FluxSampler, WeightedHistogramsFollowTheFlux) {
  FluxOptions o;
  o.e_max = 1e5;
  const FluxSampler s(o);
  const std::size_t n = 400000;
  const auto rows = s.sample_rows(n);
  // Energy: 5 decades; zenith: 5 bands of cos(theta).
  std::vector<Sums> e_bins(5), c_bins(5);
  const double c_min = std::cos(o.zenith_max * M_PI / 180);
  for (std::size_t i = 0; i < n; ++i) {
    const double* r = &rows[i * kFluxColumns];
    const int eb = std::min(4, static_cast<int>(std::log10(energy_of(r))));
    const int cb = std::min(4, static_cast<int>(5 * (cos_zenith_of(r) - c_min) / (1 - c_min)));
    e_bins[eb].add(r[7]);
    c_bins[cb].add(r[7]);
  }
  for (int b = 0; b < 5; ++b) {
    FluxOptions ob = o;
    ob.e_min = std::pow(10.0, b);
    ob.e_max = std::pow(10.0, b + 1);
    const double want = FluxSampler(ob).expected_rate();
    EXPECT_NEAR(e_bins[b].w, want, 5 * std::sqrt(e_bins[b].w2)) << "energy decade " << b;
  }
  const auto rate_below = [&](double cos_lo) {
    FluxOptions oc = o;
    oc.zenith_max = std::acos(cos_lo) * 180 / M_PI;
    return FluxSampler(oc).expected_rate();
  };
  for (int b = 0; b < 5; ++b) {
    const double lo = c_min + b * (1 - c_min) / 5, hi = c_min + (b + 1) * (1 - c_min) / 5;
    const double want = rate_below(lo) - (b == 4 ? 0.0 : rate_below(hi));
    EXPECT_NEAR(c_bins[b].w, want, 5 * std::sqrt(c_bins[b].w2)) << "cos band " << b;
  }
}

TEST(FluxSampler, RowsAreDownwardMuonsInTheArea) {
  FluxOptions o;
  o.area = {2, 3, -4, -1};
  o.z = 7.5;
  const auto rows = FluxSampler(o).sample_rows(50000);
  std::size_t plus = 0, minus = 0;
  for (std::size_t i = 0; i < rows.size() / kFluxColumns; ++i) {
    const double* r = &rows[i * kFluxColumns];
    const double e = energy_of(r);
    ASSERT_GE(e, o.e_min * (1 - 1e-12));
    ASSERT_LE(e, o.e_max * (1 + 1e-12));
    ASSERT_LT(r[2], 0.0);
    ASSERT_GE(cos_zenith_of(r), std::cos(o.zenith_max * M_PI / 180) - 1e-12);
    ASSERT_TRUE(r[3] >= 2 && r[3] <= 3 && r[4] >= -4 && r[4] <= -1);
    ASSERT_EQ(r[5], 7.5);
    ASSERT_TRUE(r[6] == 13 || r[6] == -13);
    ASSERT_TRUE(std::isfinite(r[7]) && r[7] > 0);
    (r[6] < 0 ? plus : minus) += 1;
  }
  const double ratio = static_cast<double>(plus) / minus;
  EXPECT_NEAR(ratio, fastmu::flux::kChargeRatio, 0.05);
}

TEST(FluxSampler, SameRowsForAnyThreadCount) {
  FluxOptions o;
  o.seed = 42;
  o.threads = 1;
  const auto one = FluxSampler(o).sample_rows(100000);
  o.threads = 3;
  const auto three = FluxSampler(o).sample_rows(100000);
  EXPECT_EQ(one, three);
  o.seed = 43;
  EXPECT_NE(FluxSampler(o).sample_rows(1000),
            std::vector<double>(one.begin(), one.begin() + 1000 * kFluxColumns));
  // Muon i is the same in a shorter sample, its weight that of one in 10.
  o.seed = 42;
  const auto ten = FluxSampler(o).sample_rows(10);
  for (std::size_t k = 0; k < ten.size(); ++k) {
    if (k % kFluxColumns == 7) {
      EXPECT_NEAR(ten[k], one[k] * 10000, 1e-12 * ten[k]);
    } else {
      EXPECT_EQ(ten[k], one[k]);
    }
  }
}

TEST(FluxSampler, BadOptionsThrowOneLine) {
  const auto bad = [](auto change) {
    FluxOptions o;
    change(o);
    try {
      fastmu::flux::check_flux_options(o);
    } catch (const fastmu::Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      return msg;
    }
    return std::string("accepted");
  };
  EXPECT_NE(bad([](FluxOptions& o) { o.e_min = 0.1; }).find("--e-min"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.e_max = 2e7; }).find("--e-max"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.e_max = 0.5; }).find("--e-max"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.zenith_max = 90; }).find("--zenith-max"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.zenith_max = NAN; }).find("--zenith-max"),
            std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.gamma = -1; }).find("--gamma"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.cos_power = -1; }).find("--cos-power"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.area = {1, 0, 0, 1}; }).find("--area"), std::string::npos);
  EXPECT_NE(bad([](FluxOptions& o) { o.z = INFINITY; }).find("--z"), std::string::npos);
  EXPECT_EQ(bad([](FluxOptions&) {}), "accepted");
}

}  // namespace
