// Sampling a table reproduces the samples it was built from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "SyntheticSamples.hh"
#include "TableQuantiles.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/TableSampling.hh"

using namespace fastmu;

namespace {

struct Fixture {
  static constexpr std::size_t kSamples = 200000;
  test::SyntheticSource source;
  TableBuildOptions options;
  TableParams table;

  static TableBuildOptions make_options() {
    TableBuildOptions o;
    o.p_min = 0.3;
    o.p_max = 300;
    o.p_bins = 12;
    o.samples_per_bin = kSamples;
    o.hist_bins = 100;
    return o;
  }
  Fixture()
      : options(make_options()), table(build_table(test::synthetic_metadata(), options, source)) {}
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

}  // namespace

TEST(TableFidelity, HistogramCountsAllSamples) {
  const auto& t = fixture().table;
  const auto& d = t.data();
  ASSERT_EQ(t.n_pbins(), 12);
  for (int b = 0; b < t.n_pbins(); ++b) {
    std::uint64_t sum = 0;
    for (int c = 0; c < d.cells_per_bin(); ++c) sum += d.counts[b * d.cells_per_bin() + c];
    EXPECT_EQ(sum, Fixture::kSamples);
    EXPECT_EQ(d.samples_per_bin[b], Fixture::kSamples);
    EXPECT_GT(d.p_centres[b], d.p_edges[b]);
    EXPECT_LT(d.p_centres[b], d.p_edges[b + 1]);
    // Alias tables are exact to float precision.
    std::vector<double> p(d.cells_per_bin());
    alias_probabilities(std::span(d.cells.data() + b * d.cells_per_bin(), d.cells_per_bin()), p);
    for (int c = 0; c < d.cells_per_bin(); ++c) {
      ASSERT_NEAR(p[c], double(d.counts[b * d.cells_per_bin() + c]) / Fixture::kSamples, 2e-7);
    }
  }
}

// Per momentum bin, the quantiles q10..q99 of -dPz/P and dPt/P of the table
// agree with those of the generating samples within 2 %: exactly computed
// table quantiles for q10..q99, and quantiles of 1e6 draws with sample_bin
// for q10..q90 (at q99 the draws' own noise is ~1-2 % for these heavy tails,
// so there they are compared with the exact table quantile within 4 sigma).
TEST(TableFidelity, QuantilesReproduced) {
  const auto& f = fixture();
  const auto& d = f.table.data();
  const TableView v = f.table.host_view();
  const std::size_t n_draw = 1000000;
  const double qs[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
  for (int b = 0; b < f.table.n_pbins(); ++b) {
    const auto samples = f.source.bin_samples(b, d.p_edges[b], d.p_edges[b + 1], Fixture::kSamples);
    std::vector<double> loss, kick;
    for (const auto& s : samples) {
      loss.push_back((s.p0 - s.pz) / s.p0);
      kick.push_back(std::hypot(s.px, s.py) / s.p0);
    }
    std::vector<double> tloss, tkick;
    tloss.reserve(n_draw);
    tkick.reserve(n_draw);
    for (std::size_t i = 0; i < n_draw; ++i) {
      const Philox4 r = philox_block(99, i, b, RngStream::fast_transport);
      const SampledLoss s =
          sample_bin(v, b, r.v[0], to_unit_open_f(r.v[1]), to_unit_open_f(r.v[2]));
      tloss.push_back(s.loss_frac);
      tkick.push_back(s.kick_frac);
    }
    for (double q : qs) {
      const std::vector<double>* data[2] = {&loss, &kick};
      const std::vector<double>* drawn[2] = {&tloss, &tkick};
      for (int axis = 0; axis < 2; ++axis) {
        const char* name = axis == 0 ? "loss" : "kick";
        const double dq = test::sample_quantile(*data[axis], q);
        const double exact = test::table_quantile(f.table, b, axis, q);
        const double sampled = test::sample_quantile(*drawn[axis], q);
        EXPECT_NEAR(exact / dq, 1.0, 0.02) << "bin " << b << " " << name << " q" << q;
        if (q <= 0.9) {
          EXPECT_NEAR(sampled / dq, 1.0, 0.02) << "bin " << b << " " << name << " q" << q;
        } else {
          // sd of a sample quantile: sqrt(q (1 - q) / n) / density (density
          // in ln from the exact quantiles at q -+ 0.002).
          const double dlnx = std::log(test::table_quantile(f.table, b, axis, q + 0.002) /
                                       test::table_quantile(f.table, b, axis, q - 0.002));
          const double sd = std::sqrt(q * (1 - q) / n_draw) * dlnx / 0.004;
          EXPECT_NEAR(std::log(sampled / exact), 0.0, 4 * sd + 1e-3)
              << "bin " << b << " " << name << " q" << q;
        }
      }
    }
  }
}

namespace {

// Exact mean of -dPz/P in bin b of the table (alias probabilities times the
// mean of exp over each log bin, as sample_bin's uniform jitter gives).
double table_bin_mean_loss(const TableParams& t, int b) {
  const auto& d = t.data();
  const int cpb = d.cells_per_bin();
  std::vector<double> p(cpb);
  alias_probabilities(std::span(d.cells.data() + b * cpb, cpb), p);
  const HistAxes a = d.axes[b];
  double mean = 0;
  for (int c = 0; c < cpb; ++c) {
    const int ix = c / (d.ny + 1);
    if (ix == 0) continue;
    const double lo = a.x_lo + (ix - 1) * double(a.x_width);
    mean += p[c] * std::exp(lo) * std::expm1(a.x_width) / a.x_width;
  }
  return mean;
}

}  // namespace

// With stochastic interpolation between neighbouring bins, the mean loss vs p
// has no steps at the bin edges: on a fine grid it changes by < 1 % between
// neighbouring points, where picking the bin alone jumps by far more.
TEST(TableFidelity, InterpolationLeavesNoSteps) {
  const auto& t = fixture().table;
  const auto& d = t.data();
  const TableView v = t.host_view();
  std::vector<double> m(t.n_pbins());
  for (int b = 0; b < t.n_pbins(); ++b) {
    m[b] = table_bin_mean_loss(t, b);
    // The table's mean agrees with that of its samples (binning + jitter bias < 1 %).
    EXPECT_NEAR(m[b] / d.mean_loss[b], 1.0, 0.01) << "bin " << b;
  }
  const int n_u = 4000;
  auto mean_at = [&](float p, bool interpolate) {
    double sum = 0;
    for (int k = 0; k < n_u; ++k) {
      const float u = (k + 0.5f) / n_u;
      sum += m[interpolate ? choose_interpolated_bin(v, p, u) : find_momentum_bin(v, p)];
    }
    return sum / n_u;
  };
  const double lo = d.p_centres.front(), hi = d.p_centres.back();
  const int n_grid = 3000;
  double max_jump = 0, max_jump_plain = 0;
  double prev = mean_at(lo, true), prev_plain = mean_at(lo, false);
  for (int k = 1; k <= n_grid; ++k) {
    const float p = static_cast<float>(lo * std::pow(hi / lo, double(k) / n_grid));
    const double cur = mean_at(p, true), cur_plain = mean_at(p, false);
    max_jump = std::max(max_jump, std::abs(cur / prev - 1));
    max_jump_plain = std::max(max_jump_plain, std::abs(cur_plain / prev_plain - 1));
    prev = cur;
    prev_plain = cur_plain;
  }
  EXPECT_LT(max_jump, 0.01);
  EXPECT_GT(max_jump_plain, 0.2);  // the test can see steps: without interpolation they are there
}

// The interpolation picks the upper neighbour with probability
// ln(p / c_b) / ln(c_b+1 / c_b), checked by drawing.
TEST(TableFidelity, InterpolationWeights) {
  const auto& t = fixture().table;
  const TableView v = t.host_view();
  const auto& c = t.data().p_centres;
  const int b = 5;
  const double p = c[b] * std::pow(c[b + 1] / c[b], 0.3);
  int up = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const int got = choose_interpolated_bin(
        v, static_cast<float>(p),
        to_unit_open_f(philox_block(3, i, 0, RngStream::fast_transport).v[0]));
    ASSERT_TRUE(got == b || got == b + 1);
    up += got == b + 1;
  }
  EXPECT_NEAR(double(up) / n, 0.3, 4 * std::sqrt(0.3 * 0.7 / n) + 1e-4);
}
