// HistoryRng (xoroshiro128+ seeded by one Philox block per history): a pure
// function of (seed, id, stream), its reference output, distinct histories
// uncorrelated, and uniform words (bit balance, chi-square, moments).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "fastmu/core/Random.hh"
#include "fastmu/physics/HistoryRng.hh"

namespace fastmu {
namespace {

TEST(HistoryRng, PureFunctionOfSeedIdStream) {
  HistoryRng a(42, 7, RngStream::detailed_physics), b(42, 7, RngStream::detailed_physics);
  HistoryRng c(42, 8, RngStream::detailed_physics), d(43, 7, RngStream::detailed_physics);
  HistoryRng e(42, 7, RngStream::fast_transport);
  int same_c = 0, same_d = 0, same_e = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next_u64();
    ASSERT_EQ(x, b.next_u64());
    same_c += x == c.next_u64();
    same_d += x == d.next_u64();
    same_e += x == e.next_u64();
  }
  EXPECT_EQ(same_c + same_d + same_e, 0);
}

TEST(HistoryRng, StateIsThePhiloxBlockAndStepIsXoroshiro128Plus) {
  // Reference recurrence written out independently (Blackman & Vigna, a=24, b=16, c=37).
  const Philox4 blk = philox_block(5, 9, 0, RngStream::detailed_physics);
  std::uint64_t s0 = (std::uint64_t(blk.v[1]) << 32) | blk.v[0];
  std::uint64_t s1 = (std::uint64_t(blk.v[3]) << 32) | blk.v[2];
  HistoryRng rng(5, 9, RngStream::detailed_physics);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t out = s0 + s1;
    s1 ^= s0;
    s0 = ((s0 << 24) | (s0 >> 40)) ^ s1 ^ (s1 << 16);
    s1 = (s1 << 37) | (s1 >> 27);
    ASSERT_EQ(rng.next_u64(), out) << i;
  }
}

TEST(HistoryRng, WordsAreUniform) {
  // Bits of next_u32 over many short histories (as the engine uses it: ~50 words each).
  const int histories = 20000, words = 50;
  std::vector<long> ones(32, 0);
  std::vector<long> bins(256, 0);
  double sum = 0, sum2 = 0;
  long lag_sum = 0;
  for (int h = 0; h < histories; ++h) {
    HistoryRng rng(1, h, RngStream::detailed_physics);
    std::uint32_t prev = 0;
    for (int w = 0; w < words; ++w) {
      const std::uint32_t x = rng.next_u32();
      for (int b = 0; b < 32; ++b) ones[b] += (x >> b) & 1u;
      ++bins[x >> 24];
      const double u = to_unit_open(x);
      sum += u;
      sum2 += u * u;
      if (w > 0)
        lag_sum += ((x ^ prev) >> 31) & 1u;  // top bits of consecutive words differ half the time
      prev = x;
    }
  }
  const double n = double(histories) * words;
  for (int b = 0; b < 32; ++b) EXPECT_NEAR(ones[b] / n, 0.5, 5 * 0.5 / std::sqrt(n)) << "bit " << b;
  double chi2 = 0;
  for (long c : bins) chi2 += (c - n / 256) * (c - n / 256) / (n / 256);
  EXPECT_LT(chi2, 255 + 6 * std::sqrt(2 * 255.0));  // ~6 sigma
  EXPECT_NEAR(sum / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(sum2 / n - (sum / n) * (sum / n), 1.0 / 12, 2e-3);
  const double pairs = double(histories) * (words - 1);
  EXPECT_NEAR(lag_sum / pairs, 0.5, 5 * 0.5 / std::sqrt(pairs));
}

TEST(HistoryRng, FirstWordsOfNeighbouringHistoriesAreUncorrelated) {
  // Histories differ only in id: their k-th words must not be correlated.
  const int histories = 100000;
  for (int k : {0, 1, 5}) {
    double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
    for (int h = 0; h < histories; ++h) {
      HistoryRng a(3, h, RngStream::detailed_physics), b(3, h + 1, RngStream::detailed_physics);
      for (int i = 0; i < k; ++i) {
        a.next_u64();
        b.next_u64();
      }
      const double x = a.uniform(), y = b.uniform();
      sx += x;
      sy += y;
      sxy += x * y;
      sxx += x * x;
      syy += y * y;
    }
    const double n = histories;
    const double cov = sxy / n - sx / n * sy / n;
    const double corr = cov / std::sqrt((sxx / n - sx * sx / n / n) * (syy / n - sy * sy / n / n));
    EXPECT_LT(std::abs(corr), 5 / std::sqrt(n)) << "word " << k;
  }
}

}  // namespace
}  // namespace fastmu
