#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/TableSampling.hh"

using namespace fastmu;

namespace {

// Vose's construction written the plain way (one store and load of the large
// cell's probability per step, the counts turned into doubles first): the
// tables files and builds made before must come out bit for bit.
std::vector<AliasCell> plain_vose(const std::vector<std::uint32_t>& counts) {
  const std::size_t n = counts.size();
  std::vector<double> scaled(n);
  double total = 0;
  for (std::uint32_t c : counts) total += static_cast<double>(c);
  std::vector<AliasCell> out(n);
  if (total <= 0) {
    for (std::size_t i = 0; i < n; ++i) out[i] = {i == 0 ? 1.0f : 0.0f, 0};
    return out;
  }
  std::vector<std::int32_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = static_cast<double>(counts[i]) * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::int32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::int32_t s = small.back(), l = large.back();
    small.pop_back();
    out[s] = {static_cast<float>(scaled[s]), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::int32_t i : large) out[i] = {1.0f, i};
  for (std::int32_t i : small) out[i] = {1.0f, i};
  return out;
}

void expect_same_cells(const std::vector<AliasCell>& a, const std::vector<AliasCell>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].threshold, b[i].threshold) << "cell " << i;
    ASSERT_EQ(a[i].alias, b[i].alias) << "cell " << i;
  }
}

}  // namespace

// From counts or from the same weights as doubles, the cells are those of
// the plain construction, bit for bit: peaked histograms of a table's size
// (a large cell topping up thousands), flat, sparse, huge and empty ones.
TEST(AliasTable, CountsGiveThePlainConstructionBitForBit) {
  std::mt19937_64 rng(3);
  std::vector<std::vector<std::uint32_t>> cases;
  for (const std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(101 * 101)}) {
    std::vector<std::uint32_t> peaked(n), flat(n), sparse(n), huge(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = (static_cast<double>(i % 101) - 30.0) / 4.0;
      peaked[i] = static_cast<std::uint32_t>(1e6 * std::exp(-0.5 * x * x) * (rng() % 3));
      flat[i] = 1000 + static_cast<std::uint32_t>(rng() % 7);
      sparse[i] = rng() % 50 == 0 ? static_cast<std::uint32_t>(rng() % 100000) : 0;
      huge[i] = 0xffffffffu - static_cast<std::uint32_t>(rng() % 1000);
    }
    cases.insert(cases.end(), {peaked, flat, sparse, huge, std::vector<std::uint32_t>(n, 0)});
  }
  // A sum past 2^53, where adding doubles in order rounds.
  std::vector<std::uint32_t> past(std::size_t(1) << 21 | 4096);
  for (auto& c : past) c = 0xffffffffu - static_cast<std::uint32_t>(rng() % 1000);
  cases.push_back(past);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const auto& counts = cases[c];
    const std::vector<AliasCell> want = plain_vose(counts);
    std::vector<AliasCell> from_counts(counts.size()), from_doubles(counts.size());
    build_alias_table(std::span<const std::uint32_t>(counts), from_counts);
    const std::vector<double> w(counts.begin(), counts.end());
    build_alias_table(std::span<const double>(w), from_doubles);
    expect_same_cells(from_counts, want);
    expect_same_cells(from_doubles, want);
  }
}

TEST(AliasTable, ImpliedProbabilitiesAreExact) {
  std::vector<double> w{5, 0, 1, 3, 0.25, 7, 0, 2};
  std::vector<AliasCell> cells(w.size());
  build_alias_table(w, cells);
  std::vector<double> p(w.size());
  alias_probabilities(cells, p);
  double total = 0;
  for (double x : w) total += x;
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(p[i], w[i] / total, 1e-7) << i;
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_GE(cells[i].threshold, 0.0f);
    EXPECT_LE(cells[i].threshold, 1.0f);
    EXPECT_GE(cells[i].alias, 0);
    EXPECT_LT(cells[i].alias, static_cast<int>(w.size()));
  }
}

TEST(AliasTable, DegenerateInputs) {
  std::vector<AliasCell> cells(3);
  std::vector<double> zero{0, 0, 0};
  build_alias_table(zero, cells);
  std::vector<double> p(3);
  alias_probabilities(cells, p);
  EXPECT_DOUBLE_EQ(p[0], 1.0);
  std::vector<double> single{0, 4, 0};
  build_alias_table(single, cells);
  alias_probabilities(cells, p);
  EXPECT_NEAR(p[1], 1.0, 1e-7);
  std::vector<double> bad{1, -1, 0};
  EXPECT_THROW(build_alias_table(bad, cells), Error);
  std::vector<double> nan{1, NAN, 0};
  EXPECT_THROW(build_alias_table(nan, cells), Error);
}

// sample_bin draws cells with the histogram's frequencies (chi-square test
// over a 2-D histogram of 11 x 11 cells with a floor row and column).
TEST(AliasTable, SampleBinFrequenciesMatchHistogram) {
  TableView t;
  t.n_pbins = 1;
  t.nx = t.ny = 10;
  const int ncell = t.cells_per_bin();
  std::vector<double> w(ncell);
  for (int ix = 0; ix <= t.nx; ++ix) {
    for (int iy = 0; iy <= t.ny; ++iy) {
      w[ix * (t.ny + 1) + iy] =
          ix == 0 ? 3.0 : std::exp(-0.5 * std::pow((ix - 6) / 2.0, 2)) * (iy + 1);
    }
  }
  w[5] = 0;  // a zero cell must never be drawn
  std::vector<AliasCell> cells(ncell);
  build_alias_table(w, cells);
  HistAxes axes{-5.0f, 0.5f, -8.0f, 0.25f};
  float edges[2] = {1, 2}, centres[1] = {1.5f};
  t.p_edges = edges;
  t.p_centres = centres;
  t.axes = &axes;
  t.cells = cells.data();

  const int n = 400000;
  std::vector<double> seen(ncell, 0);
  for (int i = 0; i < n; ++i) {
    const Philox4 r = philox_block(11, i, 0, RngStream::table_build);
    const SampledLoss s = sample_bin(t, 0, r.v[0], 0.5f, 0.5f);  // bin centres: exact cell
    const int ix =
        s.loss_frac == 0
            ? 0
            : static_cast<int>(std::floor((std::log(s.loss_frac) - axes.x_lo) / axes.x_width)) + 1;
    const int iy =
        s.kick_frac == 0
            ? 0
            : static_cast<int>(std::floor((std::log(s.kick_frac) - axes.y_lo) / axes.y_width)) + 1;
    ASSERT_GE(ix, 0);
    ASSERT_LE(ix, t.nx);
    ASSERT_GE(iy, 0);
    ASSERT_LE(iy, t.ny);
    seen[ix * (t.ny + 1) + iy] += 1;
  }
  EXPECT_EQ(seen[5], 0);
  double total = 0;
  for (double x : w) total += x;
  double chi2 = 0;
  int ndf = -1;
  for (int c = 0; c < ncell; ++c) {
    const double e = n * w[c] / total;
    if (e < 5) continue;
    chi2 += (seen[c] - e) * (seen[c] - e) / e;
    ++ndf;
  }
  ASSERT_GT(ndf, 50);
  // Mean ndf, sd sqrt(2 ndf): 5 sigma is a loose but meaningful bound.
  EXPECT_LT(chi2, ndf + 5 * std::sqrt(2.0 * ndf)) << "ndf " << ndf;
}
