// MuonReader on HDF5 files of every layout a user's tool may write: rows
// read by positioned reads on all cores (contiguous or chunked, float32 or
// float64, with a user block) and through H5Dread (compressed, big-endian)
// give the same muons, and a bad row is named by its number either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "fastmu/core/Error.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5RawRows.hh"
#include "fastmu/transport/stream/MuonReader.hh"

namespace fastmu {
namespace {

using io::h5::Handle;

constexpr hsize_t kRows = 5000;
constexpr hsize_t kCols = 8;

double value(hsize_t r, hsize_t c) {
  switch (c) {
    case 6:
      return r % 2 ? 13.0 : -13.0;
    case 7:
      return 0.5 + 0.25 * static_cast<double>(r % 3);
    default:
      return 0.001 * static_cast<double>(r) + static_cast<double>(c);
  }
}

struct Layout {
  const char* name;
  hid_t file_type;     // stored type
  hsize_t chunk_rows;  // 0: contiguous
  bool gzip;
  hsize_t user_block;
  bool positioned;  // expected to be read by positioned reads
};

// The rows px..weight as `layout` stores them; row `bad_row` gets pdg 11.
std::filesystem::path write_file(const Layout& l, hsize_t bad_row = kRows) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("fastmu_reader_h5_" + std::to_string(::getpid()) + "_" + l.name + ".h5");
  Handle fcpl(H5Pcreate(H5P_FILE_CREATE));
  if (l.user_block) H5Pset_userblock(fcpl.get(), l.user_block);
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT));
  EXPECT_TRUE(file.valid());
  const hsize_t dims[2] = {kRows, kCols};
  Handle space(H5Screate_simple(2, dims, nullptr));
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (l.chunk_rows) {
    const hsize_t chunk[2] = {l.chunk_rows, kCols};
    H5Pset_chunk(dcpl.get(), 2, chunk);
    if (l.gzip) H5Pset_deflate(dcpl.get(), 1);
  }
  Handle ds(H5Dcreate2(file.get(), "muons", l.file_type, space.get(), H5P_DEFAULT, dcpl.get(),
                       H5P_DEFAULT));
  std::vector<double> v(kRows * kCols);
  for (hsize_t r = 0; r < kRows; ++r) {
    for (hsize_t c = 0; c < kCols; ++c) v[r * kCols + c] = value(r, c);
  }
  if (bad_row < kRows) v[bad_row * kCols + 6] = 11.0;
  EXPECT_GE(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  return path;
}

const Layout kLayouts[] = {
    {"contiguous_f32", H5T_IEEE_F32LE, 0, false, 0, true},
    {"contiguous_f64_userblock", H5T_IEEE_F64LE, 0, false, 1024, true},
    {"chunked_f32", H5T_IEEE_F32LE, 999, false, 0, true},
    {"chunked_f64_userblock", H5T_IEEE_F64LE, 1000, false, 512, true},
    {"gzip_f32", H5T_IEEE_F32LE, 999, true, 0, false},
    {"big_endian_f32", H5T_IEEE_F32BE, 0, false, 0, false},
};

TEST(MuonReaderHdf5, EveryLayoutGivesTheSameMuons) {
  for (const Layout& l : kLayouts) {
    SCOPED_TRACE(l.name);
    const auto path = write_file(l);
    {
      Handle file = io::h5::open_file(path.string());
      Handle ds(H5Dopen2(file.get(), "muons", H5P_DEFAULT));
      const bool f32 = H5Tget_size(l.file_type) == 4;
      const auto extents =
          io::h5::raw_row_extents(file.get(), ds.get(), f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      EXPECT_EQ(!extents.empty(), l.positioned);
      std::uint64_t rows = 0;
      for (const auto& e : extents) {
        EXPECT_EQ(e.first_row, rows);
        rows += e.rows;
      }
      if (l.positioned) EXPECT_EQ(rows, kRows);
    }
    for (int threads : {1, 3}) {
      MuonReader reader(path, threads);
      ASSERT_EQ(reader.rows(), kRows);
      reader.seek(1234);
      MuonBatch part;
      hsize_t row = 1234;
      while (reader.read(777, part)) {
        for (std::size_t i = 0; i < part.size(); ++i, ++row) {
          const bool f32 = H5Tget_size(l.file_type) == 4;
          auto as_stored = [&](hsize_t c) {
            return f32 ? static_cast<double>(static_cast<float>(value(row, c))) : value(row, c);
          };
          ASSERT_EQ(part.px[i], static_cast<float>(as_stored(0))) << row;
          ASSERT_EQ(part.y[i], static_cast<float>(as_stored(4))) << row;
          ASSERT_EQ(part.z[i], static_cast<float>(as_stored(5))) << row;
          ASSERT_EQ(part.pdg[i], static_cast<std::int32_t>(value(row, 6))) << row;
          ASSERT_EQ(part.weight[i], as_stored(7)) << row;
        }
      }
      EXPECT_EQ(row, kRows);
    }
    std::filesystem::remove(path);
  }
}

TEST(MuonReaderHdf5, ABadRowIsNamedByItsNumber) {
  for (const Layout& l : kLayouts) {
    SCOPED_TRACE(l.name);
    const auto path = write_file(l, 4321);
    for (std::size_t chunk : {std::size_t(1000), std::size_t(100000)}) {
      MuonReader reader(path, 3);
      MuonBatch part;
      std::string msg;
      try {
        while (reader.read(chunk, part)) {
        }
      } catch (const Error& e) {
        msg = e.what();
      }
      EXPECT_NE(msg.find(".h5 row 4321, column pdg"), std::string::npos) << msg;
    }
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace fastmu
