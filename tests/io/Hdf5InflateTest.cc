// Inflating the chunks of compressed datasets: libdeflate (where fastmu is
// built with it) and zlib give the same bytes, and refuse the same broken
// streams.
#include "fastmu/io/Hdf5Inflate.hh"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using fastmu::io::h5::inflate_exact;

// A table-like chunk: uint32 counts of a peaked 2-D histogram, mostly zeros.
std::vector<unsigned char> counts_chunk(std::size_t cells, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> bytes(cells * 4);
  for (std::size_t i = 0; i < cells; ++i) {
    const std::uint32_t c = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % (1u << 20)) : 0;
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<unsigned char>(c >> (8 * b));
  }
  return bytes;
}

// zlib's compress2 at `level`: what H5Z's deflate filter stores.
std::vector<unsigned char> zlib_stream(const std::vector<unsigned char>& plain, int level) {
  uLongf size = compressBound(static_cast<uLong>(plain.size()));
  std::vector<unsigned char> out(size);
  EXPECT_EQ(compress2(out.data(), &size, plain.data(), static_cast<uLong>(plain.size()), level),
            Z_OK);
  out.resize(size);
  return out;
}

// What each inflater makes of `stored` into `bytes` bytes (empty: refused).
std::vector<std::vector<unsigned char>> inflate_both(const std::vector<unsigned char>& stored,
                                                     std::size_t bytes) {
  std::vector<std::vector<unsigned char>> got;
  for (const bool use_zlib : {true, false}) {
    std::vector<unsigned char> out(bytes, 0xAB);
    if (!inflate_exact(stored.data(), stored.size(), out.data(), bytes, use_zlib)) out.clear();
    got.push_back(std::move(out));
  }
  return got;
}

TEST(Hdf5Inflate, LibdeflateAndZlibGiveTheSameBytes) {
  if (!fastmu::io::h5::have_libdeflate()) GTEST_SKIP() << "built without libdeflate";
  for (const std::size_t cells : {std::size_t(1), std::size_t(101 * 101), std::size_t(1) << 18}) {
    for (const int level : {1, 4, 9}) {
      const std::vector<unsigned char> plain = counts_chunk(cells, cells + level);
      const auto got = inflate_both(zlib_stream(plain, level), plain.size());
      EXPECT_EQ(got[0], plain) << cells << " cells, level " << level << ", zlib";
      EXPECT_EQ(got[1], plain) << cells << " cells, level " << level << ", libdeflate";
    }
  }
}

TEST(Hdf5Inflate, BrokenStreamsAreRefusedByBoth) {
  const std::vector<unsigned char> plain = counts_chunk(101 * 101, 7);
  const std::vector<unsigned char> good = zlib_stream(plain, 4);
  std::vector<std::pair<const char*, std::vector<unsigned char>>> bad;
  auto checksum = good;
  checksum.back() ^= 0x01;  // Adler-32 of the plain bytes
  bad.emplace_back("checksum", checksum);
  bad.emplace_back("truncated", std::vector<unsigned char>(good.begin(), good.end() - 9));
  auto header = good;
  header[0] = 0x79;  // not deflate (method 9)
  bad.emplace_back("header", header);
  bad.emplace_back("empty", std::vector<unsigned char>());
  for (const auto& [what, stored] : bad) {
    for (const auto& got : inflate_both(stored, plain.size())) EXPECT_TRUE(got.empty()) << what;
  }
  // The right stream into the wrong size: too small or too large.
  for (const std::size_t bytes : {plain.size() - 4, plain.size() + 4}) {
    for (const auto& got : inflate_both(good, bytes)) EXPECT_TRUE(got.empty()) << bytes;
  }
  // Bytes after the stream's end are not read (HDF5's filter stops there).
  auto trailing = good;
  trailing.insert(trailing.end(), {1, 2, 3});
  for (const auto& got : inflate_both(trailing, plain.size())) EXPECT_EQ(got, plain);
}

}  // namespace
