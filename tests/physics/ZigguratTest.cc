// The ziggurat normal and exponential deviates must follow their
// distributions: layer tables consistent (equal areas), binned CDF against
// the exact one (chi-square), moments, and the tails (which take the slow
// paths: wedges and the exact tail beyond R).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "fastmu/core/Random.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/Ziggurat.hh"

namespace fastmu {
namespace {

TEST(Ziggurat, LayersHaveEqualAreas) {
  using namespace random::zig_detail;
  const auto& n = normal_layers();
  // Layer i: width x[i], height f[i+1] - f[i]. Equal by construction up to
  // rounding, except the top layer, closed at the mode: there the published
  // R, V leave a mismatch of ~1e-9 relative (a negligible bias).
  for (int i = 1; i < kNormalLayers; ++i) {
    const double tol = (i == kNormalLayers - 1 ? 3e-9 : 1e-12) * kNormalV;
    EXPECT_NEAR(n.x[i] * (n.f[i + 1] - n.f[i]), kNormalV, tol) << "normal layer " << i;
  }
  const auto& e = exponential_layers();
  for (int i = 1; i < kExpLayers; ++i) {
    const double tol = (i == kExpLayers - 1 ? 3e-9 : 1e-12) * kExpV;
    EXPECT_NEAR(e.x[i] * (e.f[i + 1] - e.f[i]), kExpV, tol) << "exponential layer " << i;
  }
  // Base layers: rectangle up to R plus the tail beyond R.
  const double normal_tail = std::sqrt(std::numbers::pi / 2) * std::erfc(kNormalR / std::sqrt(2.0));
  EXPECT_NEAR(kNormalR * n.f[1] + normal_tail, kNormalV, 1e-12);
  EXPECT_NEAR(kExpR * e.f[1] + std::exp(-kExpR), kExpV, 1e-12);
}

// Chi-square of n samples binned by the exact CDF into equiprobable bins.
template <class Draw, class Cdf>
double chi2_equiprobable(int n, int bins, Draw draw, Cdf cdf) {
  std::vector<long> c(bins, 0);
  for (int i = 0; i < n; ++i) {
    const int b = std::min(bins - 1, static_cast<int>(cdf(draw()) * bins));
    ++c[b];
  }
  double chi2 = 0;
  const double e = double(n) / bins;
  for (long v : c) chi2 += (v - e) * (v - e) / e;
  return chi2;
}

TEST(Ziggurat, NormalFollowsItsDistribution) {
  HistoryRng rng(11, 0, RngStream::detailed_physics);
  const int n = 2000000, bins = 1000;
  const double chi2 = chi2_equiprobable(
      n, bins, [&] { return random::ziggurat_normal(rng); },
      [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); });
  EXPECT_LT(chi2, (bins - 1) + 5 * std::sqrt(2.0 * (bins - 1)));
  // Moments and tails (beyond R = 3.44 only the tail algorithm returns values).
  double s1 = 0, s2 = 0, s4 = 0;
  long beyond_r = 0, beyond_2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = random::ziggurat_normal(rng);
    s1 += x;
    s2 += x * x;
    s4 += x * x * x * x;
    beyond_r += std::abs(x) > random::zig_detail::kNormalR;
    beyond_2 += std::abs(x) > 2.0;
  }
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n));
  const double p_r = std::erfc(random::zig_detail::kNormalR / std::sqrt(2.0));
  EXPECT_NEAR(beyond_r / double(n), p_r, 5 * std::sqrt(p_r / n));
  const double p_2 = std::erfc(2.0 / std::sqrt(2.0));
  EXPECT_NEAR(beyond_2 / double(n), p_2, 5 * std::sqrt(p_2 / n));
}

TEST(Ziggurat, ExponentialFollowsItsDistribution) {
  HistoryRng rng(12, 0, RngStream::detailed_physics);
  const int n = 2000000, bins = 1000;
  const double chi2 = chi2_equiprobable(
      n, bins, [&] { return random::ziggurat_exponential(rng); },
      [](double x) { return -std::expm1(-x); });
  EXPECT_LT(chi2, (bins - 1) + 5 * std::sqrt(2.0 * (bins - 1)));
  double s1 = 0, s2 = 0;
  long beyond_r = 0, beyond_12 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = random::ziggurat_exponential(rng);
    ASSERT_GE(x, 0.0);
    s1 += x;
    s2 += x * x;
    beyond_r += x > random::zig_detail::kExpR;
    beyond_12 += x > 12.0;
  }
  EXPECT_NEAR(s1 / n, 1.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 2.0, 5 * std::sqrt(20.0 / n));
  const double p_r = std::exp(-random::zig_detail::kExpR);
  EXPECT_NEAR(beyond_r / double(n), p_r, 5 * std::sqrt(p_r / n));
  EXPECT_LE(beyond_12,
            5 + 5 * std::sqrt(n * std::exp(-12.0)));  // tail continues past R (~12 expected)
  EXPECT_GE(beyond_12, 1);
}

TEST(Ziggurat, WorksWith32BitGenerators) {
  // CounterRng has no next_u64: two words are combined; same distribution.
  CounterRng rng(13, 0, RngStream::detailed_physics);
  const int n = 400000;
  double s1 = 0, s2 = 0, e1 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = random::ziggurat_normal(rng);
    s1 += x;
    s2 += x * x;
    e1 += random::ziggurat_exponential(rng);
  }
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(e1 / n, 1.0, 5 / std::sqrt(double(n)));
}

}  // namespace
}  // namespace fastmu
