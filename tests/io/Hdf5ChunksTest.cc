#include "fastmu/io/Hdf5Chunks.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "fastmu/io/Hdf5.hh"

namespace fs = std::filesystem;
using fastmu::io::h5::Handle;

namespace {

// A rows x cols float32 dataset "d" in a new file: chunked by `chunk_rows`
// rows with the given filters, or contiguous when chunk_rows == 0.
fs::path write_dataset(const std::string& name, const std::vector<float>& v, hsize_t rows,
                       hsize_t cols, hsize_t chunk_rows, bool shuffle, bool deflate) {
  const fs::path path = fs::temp_directory_path() /
                        ("fastmu_h5chunks_" + std::to_string(::getpid()) + "_" + name + ".h5");
  Handle file = fastmu::io::h5::create_file(path.string());
  const hsize_t dims[2] = {rows, cols};
  Handle space(H5Screate_simple(2, dims, nullptr));
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (chunk_rows > 0) {
    const hsize_t chunk[2] = {chunk_rows, cols};
    H5Pset_chunk(dcpl.get(), 2, chunk);
    if (shuffle) H5Pset_shuffle(dcpl.get());
    if (deflate) H5Pset_deflate(dcpl.get(), 4);
  }
  Handle ds(H5Dcreate2(file.get(), "d", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(),
                       H5P_DEFAULT));
  EXPECT_GE(H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  return path;
}

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.25f * static_cast<float>(i) - 17.0f;
  return v;
}

// Reads dataset "d" with read_deflated_chunks; false if it declined.
bool read_parallel(const fs::path& path, std::vector<float>& out, int threads) {
  Handle file = fastmu::io::h5::open_file(path.string());
  Handle ds(H5Dopen2(file.get(), "d", H5P_DEFAULT));
  return fastmu::io::h5::read_deflated_chunks(ds.get(), H5T_NATIVE_FLOAT, sizeof(float), out.data(),
                                              path.c_str(), threads);
}

}  // namespace

TEST(Hdf5Chunks, ShuffledDeflatedChunksReadAsHdf5WritesThem) {
  // 10 rows in chunks of 3: the last chunk is partial.
  const std::vector<float> v = ramp(10 * 7);
  const fs::path path = write_dataset("shuffled", v, 10, 7, 3, true, true);
  for (int threads : {1, 4}) {
    std::vector<float> out(v.size(), -1.0f);
    ASSERT_TRUE(read_parallel(path, out, threads));
    EXPECT_EQ(out, v) << threads << " threads";
  }
  fs::remove(path);
}

TEST(Hdf5Chunks, FirstRowsOnly) {
  // 10 rows of 7 in chunks of 3: 4 rows end inside the second chunk.
  const std::vector<float> v = ramp(10 * 7);
  const fs::path path = write_dataset("rows", v, 10, 7, 3, true, true);
  Handle file = fastmu::io::h5::open_file(path.string());
  Handle ds(H5Dopen2(file.get(), "d", H5P_DEFAULT));
  for (const std::uint64_t rows : {0, 1, 3, 4, 10, 12}) {
    const std::size_t kept = std::min<std::uint64_t>(rows, 10) * 7;
    std::vector<float> out(kept + 5, -1.0f);  // nothing written past the rows
    ASSERT_TRUE(fastmu::io::h5::read_deflated_chunks(ds.get(), H5T_NATIVE_FLOAT, sizeof(float),
                                                     out.data(), path.c_str(), 2, rows));
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + kept),
              std::vector<float>(v.begin(), v.begin() + kept))
        << rows << " rows";
    EXPECT_EQ(std::vector<float>(out.begin() + kept, out.end()), std::vector<float>(5, -1.0f));
  }
  fs::remove(path);
}

TEST(Hdf5Chunks, DeflateWithoutShuffle) {
  const std::vector<float> v = ramp(8 * 5);
  const fs::path path = write_dataset("deflate", v, 8, 5, 2, false, true);
  std::vector<float> out(v.size(), -1.0f);
  ASSERT_TRUE(read_parallel(path, out, 2));
  EXPECT_EQ(out, v);
  fs::remove(path);
}

TEST(Hdf5Chunks, OtherLayoutsAreLeftToH5Dread) {
  const std::vector<float> v = ramp(6 * 4);
  std::vector<float> out(v.size());
  for (const auto& [name, chunk, shuffle, deflate] :
       {std::tuple{"contiguous", 0, false, false}, std::tuple{"plain_chunks", 2, false, false},
        std::tuple{"shuffle_only", 2, true, false}}) {
    const fs::path path =
        write_dataset(name, v, 6, 4, static_cast<hsize_t>(chunk), shuffle, deflate);
    EXPECT_FALSE(read_parallel(path, out, 2)) << name;
    fs::remove(path);
  }
}
