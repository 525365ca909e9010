// MuonReader on HDF5 files of every layout a user's tool may write: rows
// read by positioned reads on all cores (contiguous or chunked, float32 or
// float64, with a user block), inflated on all cores (gzip, with or without
// shuffle, chunks of whole rows or of single columns as h5py makes them) and
// through H5Dread (big-endian, other filters) give the same muons, and a bad
// row is named by its number either way.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/io/Hdf5DeflatedRows.hh"
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

// How the reader is expected to read a layout.
enum class Way { positioned, deflated, h5dread };

struct Layout {
  const char* name;
  hid_t file_type;     // stored type
  hsize_t chunk_rows;  // 0: contiguous
  bool gzip;
  hsize_t user_block;
  Way way;
  bool shuffle = false;
  hsize_t chunk_cols = kCols;
  bool fletcher32 = false;  // a filter the reader leaves to HDF5
};

// The rows px..weight as `layout` stores them; the rows `bad` get pdg 11.
std::filesystem::path write_file(const Layout& l, const std::vector<hsize_t>& bad = {}) {
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
    const hsize_t chunk[2] = {l.chunk_rows, l.chunk_cols};
    H5Pset_chunk(dcpl.get(), 2, chunk);
    if (l.shuffle) H5Pset_shuffle(dcpl.get());
    if (l.gzip) H5Pset_deflate(dcpl.get(), 1);
    if (l.fletcher32) H5Pset_fletcher32(dcpl.get());
  }
  Handle ds(H5Dcreate2(file.get(), "muons", l.file_type, space.get(), H5P_DEFAULT, dcpl.get(),
                       H5P_DEFAULT));
  std::vector<double> v(kRows * kCols);
  for (hsize_t r = 0; r < kRows; ++r) {
    for (hsize_t c = 0; c < kCols; ++c) v[r * kCols + c] = value(r, c);
  }
  for (hsize_t r : bad) v[r * kCols + 6] = 11.0;
  EXPECT_GE(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
  return path;
}

const Layout kLayouts[] = {
    {"contiguous_f32", H5T_IEEE_F32LE, 0, false, 0, Way::positioned},
    {"contiguous_f64_userblock", H5T_IEEE_F64LE, 0, false, 1024, Way::positioned},
    {"chunked_f32", H5T_IEEE_F32LE, 999, false, 0, Way::positioned},
    {"chunked_f64_userblock", H5T_IEEE_F64LE, 1000, false, 512, Way::positioned},
    {"gzip_f32", H5T_IEEE_F32LE, 999, true, 0, Way::deflated},
    {"gzip_shuffle_f64", H5T_IEEE_F64LE, 1000, true, 0, Way::deflated, true},
    // h5py's chunks=True for (N, 8) float32: one column per chunk.
    {"gzip_shuffle_columns_f32", H5T_IEEE_F32LE, 977, true, 0, Way::deflated, true, 1},
    {"gzip_three_column_chunks_f32", H5T_IEEE_F32LE, 64, true, 512, Way::deflated, false, 3},
    {"gzip_one_chunk_f32", H5T_IEEE_F32LE, kRows, true, 0, Way::deflated, true},
    {"gzip_fletcher32_f32", H5T_IEEE_F32LE, 999, true, 0, Way::h5dread, false, kCols, true},
    {"big_endian_f32", H5T_IEEE_F32BE, 0, false, 0, Way::h5dread},
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
      EXPECT_EQ(!extents.empty(), l.way == Way::positioned);
      std::uint64_t rows = 0;
      for (const auto& e : extents) {
        EXPECT_EQ(e.first_row, rows);
        rows += e.rows;
      }
      if (l.way == Way::positioned) EXPECT_EQ(rows, kRows);
      const auto grid = io::h5::deflated_grid(ds.get(), f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
      EXPECT_EQ(grid.has_value(), l.way == Way::deflated);
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
    // Several bad rows in several chunks: the first in file order is named.
    const auto path = write_file(l, {4990, 4321, 4400});
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

// Every column of two batches, bit for bit.
void expect_same(const MuonBatch& a, const MuonBatch& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  auto bits = [](const auto& x, const auto& y, std::size_t n) {
    return n == 0 || std::memcmp(x.data(), y.data(), n * sizeof(x[0])) == 0;
  };
  const std::size_t n = a.size();
  EXPECT_TRUE(bits(a.px, b.px, n) && bits(a.py, b.py, n) && bits(a.pz, b.pz, n)) << what;
  EXPECT_TRUE(bits(a.x, b.x, n) && bits(a.y, b.y, n) && bits(a.z, b.z, n)) << what;
  EXPECT_TRUE(bits(a.pdg, b.pdg, n) && bits(a.weight, b.weight, n)) << what;
}

// The muons of rows [first, first + n) as `reader` gives them in reads of
// `step` rows after a seek.
MuonBatch read_rows(MuonReader& reader, std::uint64_t first, std::size_t n, std::size_t step) {
  reader.seek(first);
  MuonBatch all, part;
  all.resize(n);
  std::size_t at = 0;
  while (at < n && reader.read(std::min(step, n - at), part)) {
    for (std::size_t i = 0; i < part.size(); ++i, ++at) {
      all.px[at] = part.px[i], all.py[at] = part.py[i], all.pz[at] = part.pz[i];
      all.x[at] = part.x[i], all.y[at] = part.y[i], all.z[at] = part.z[i];
      all.pdg[at] = part.pdg[i], all.weight[at] = part.weight[i];
    }
  }
  all.resize(at);
  return all;
}

TEST(MuonReaderHdf5, InflatedRowsEqualTheUncompressedFileWithAnyThreadsAndReads) {
  // The reference: the same values stored uncompressed, read by positioned reads.
  for (hid_t type : {H5T_IEEE_F32LE, H5T_IEEE_F64LE}) {
    const bool f32 = type == H5T_IEEE_F32LE;
    const Layout plain{f32 ? "plain_f32" : "plain_f64", type, 0, false, 0, Way::positioned};
    const Layout packed[] = {
        {f32 ? "cols_f32" : "cols_f64", type, 977, true, 0, Way::deflated, true, 1},
        {f32 ? "rows_f32" : "rows_f64", type, 999, true, 0, Way::deflated, true},
    };
    const auto ref_path = write_file(plain);
    MuonReader ref_reader(ref_path, 1);
    const MuonBatch ref = read_rows(ref_reader, 0, kRows, kRows);
    ASSERT_EQ(ref.size(), kRows);
    for (const Layout& l : packed) {
      const auto path = write_file(l);
      for (int threads : {1, 4}) {
        MuonReader reader(path, threads);
        for (std::size_t step : {std::size_t(1), std::size_t(500), std::size_t(977),
                                 std::size_t(3001), std::size_t(100000)}) {
          const std::string what = fmt::format("{} threads {} reads of {}", l.name, threads, step);
          expect_same(read_rows(reader, 0, kRows, step), ref, what);
        }
        // Seeks into, back over and past a kept chunk.
        for (std::uint64_t first : {1234u, 1000u, 1954u, 0u, 4999u}) {
          MuonBatch part = read_rows(reader, first, 700, 350);
          MuonBatch want = read_rows(ref_reader, first, 700, 700);
          expect_same(part, want, fmt::format("{} from row {}", l.name, first));
        }
      }
      std::filesystem::remove(path);
    }
    std::filesystem::remove(ref_path);
  }
}

// `path` with chunk 3 (rows 2997..3996 in chunks of 999) overwritten with
// bytes that do not inflate.
void corrupt_chunk_3(const std::filesystem::path& path) {
  Handle file = io::h5::open_file(path.string());
  Handle ds(H5Dopen2(file.get(), "muons", H5P_DEFAULT));
  const hsize_t origin[2] = {3 * 999, 0};
  unsigned mask = 0;
  haddr_t addr = HADDR_UNDEF;
  hsize_t size = 0;
  ASSERT_GE(H5Dget_chunk_info_by_coord(ds.get(), origin, &mask, &addr, &size), 0);
  ASSERT_NE(addr, HADDR_UNDEF);
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  const std::vector<unsigned char> junk(size, 0xA5);
  std::fseek(f, static_cast<long>(addr), SEEK_SET);
  std::fwrite(junk.data(), 1, junk.size(), f);
  std::fclose(f);
}

// The message of the error reading the whole of `path` in reads of `step`.
std::string read_error(const std::filesystem::path& path, int threads, std::size_t step) {
  MuonReader reader(path, threads);
  MuonBatch part;
  try {
    while (reader.read(step, part)) {
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MuonReaderHdf5, ACorruptChunkIsNamedByItsRowsAfterAnyBadRowBeforeIt) {
  const Layout l{"corrupt_gzip", H5T_IEEE_F32LE, 999, true, 0, Way::deflated, true};
  auto path = write_file(l);
  corrupt_chunk_3(path);
  for (int threads : {1, 3}) {
    const std::string msg = read_error(path, threads, 2500);
    EXPECT_NE(msg.find(".h5: cannot read dataset 'muons' rows 2997..3996"), std::string::npos)
        << msg;
  }
  // A bad row before the corrupt chunk, in the same read: named first.
  path = write_file(l, {1500, 4500});
  corrupt_chunk_3(path);
  for (int threads : {1, 3}) {
    const std::string msg = read_error(path, threads, 5000);
    EXPECT_NE(msg.find(".h5 row 1500, column pdg"), std::string::npos) << msg;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace fastmu
