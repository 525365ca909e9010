// Chunks filtered by fastmu (Hdf5Deflate) and unfiltered by it (Hdf5Inflate)
// round-trip, and a chunk that would not shrink is left to HDF5.
#include "fastmu/io/Hdf5Deflate.hh"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fastmu/io/Hdf5Inflate.hh"

namespace {

std::vector<unsigned char> ramp_doubles(std::size_t n) {
  std::vector<unsigned char> bytes(n * sizeof(double));
  for (std::size_t i = 0; i < n; ++i) {
    const double v = 0.5 * static_cast<double>(i) - 3.0;
    std::memcpy(bytes.data() + i * sizeof(double), &v, sizeof v);
  }
  return bytes;
}

TEST(Hdf5Deflate, ChunksRoundTripWithAndWithoutShuffle) {
  // 1001 doubles and 3 bytes more: a partial element stays at the end.
  std::vector<unsigned char> plain = ramp_doubles(1001);
  plain.insert(plain.end(), {7, 8, 9});
  for (bool shuffled : {false, true}) {
    std::vector<unsigned char> stored, scratch, back(plain.size());
    ASSERT_TRUE(fastmu::io::h5::deflate_chunk(plain.data(), plain.size(), sizeof(double), shuffled,
                                              1, stored, scratch));
    EXPECT_LT(stored.size(), plain.size());
    ASSERT_TRUE(fastmu::io::h5::unfilter_chunk(stored.data(), stored.size(), 0, shuffled,
                                               sizeof(double), plain.size(), back.data(), scratch));
    EXPECT_EQ(back, plain) << "shuffled " << shuffled;
    // The wrong size is refused, not read past.
    std::vector<unsigned char> short_back(plain.size() - 8);
    EXPECT_FALSE(fastmu::io::h5::unfilter_chunk(stored.data(), stored.size(), 0, shuffled,
                                                sizeof(double), short_back.size(),
                                                short_back.data(), scratch));
  }
}

TEST(Hdf5Deflate, IncompressibleChunksAreLeftToHdf5) {
  std::mt19937_64 rng(5);
  std::vector<unsigned char> noise(1 << 16);
  for (auto& b : noise) b = static_cast<unsigned char>(rng());
  std::vector<unsigned char> stored, scratch;
  EXPECT_FALSE(fastmu::io::h5::deflate_chunk(noise.data(), noise.size(), sizeof(double), true, 1,
                                             stored, scratch));
}

}  // namespace
