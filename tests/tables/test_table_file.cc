// HDF5 table files: round trip, and one-line errors for bad files.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include <unistd.h>

#include "SyntheticSamples.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/tables/TableBins.hh"
#include "fastmu/tables/TableFile.hh"

using namespace fastmu;
namespace fs = std::filesystem;

namespace {

const TableParams& small_table() {
  static const TableParams t = [] {
    test::SyntheticSource source;
    TableBuildOptions o;
    o.p_min = 1;
    o.p_max = 100;
    o.p_bins = 4;
    o.samples_per_bin = 5000;
    o.hist_bins = 16;
    o.seed = 42;
    return build_table(test::synthetic_metadata(), o, source);
  }();
  return t;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("fastmu_tables_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

// Copies `good` to `bad` and edits it with the HDF5 C API.
fs::path corrupt(const fs::path& good, const fs::path& bad,
                 const std::function<void(hid_t)>& edit) {
  fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
  const hid_t f = H5Fopen(bad.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  EXPECT_GE(f, 0);
  edit(f);
  H5Fclose(f);
  return bad;
}

std::string load_error(const fs::path& path, double step = 0) {
  try {
    load_table(path, step);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_one_line_naming(const std::string& msg, const fs::path& file, const std::string& what) {
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find(what), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

}  // namespace

TEST(TableFile, RoundTrip) {
  TempDir dir;
  const auto path = dir.path / "fe.h5";
  const TableParams& t = small_table();
  write_table_file(path, t);
  const TableParams r = load_table(path, 0.02);
  const auto &a = t.data(), &b = r.data();
  EXPECT_EQ(a.nx, b.nx);
  EXPECT_EQ(a.ny, b.ny);
  EXPECT_EQ(a.p_edges, b.p_edges);
  EXPECT_EQ(a.p_centres, b.p_centres);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.samples_per_bin, b.samples_per_bin);
  EXPECT_EQ(a.mean_loss, b.mean_loss);
  EXPECT_EQ(a.std_loss, b.std_loss);
  EXPECT_EQ(a.mean_kick, b.mean_kick);
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    ASSERT_EQ(a.cells[i].threshold, b.cells[i].threshold);
    ASSERT_EQ(a.cells[i].alias, b.cells[i].alias);
  }
  for (std::size_t i = 0; i < a.axes.size(); ++i) {
    EXPECT_EQ(a.axes[i].x_lo, b.axes[i].x_lo);
    EXPECT_EQ(a.axes[i].x_width, b.axes[i].x_width);
    EXPECT_EQ(a.axes[i].y_lo, b.axes[i].y_lo);
    EXPECT_EQ(a.axes[i].y_width, b.axes[i].y_width);
  }
  const auto &m = t.metadata(), &n = r.metadata();
  EXPECT_EQ(n.material, m.material);
  EXPECT_EQ(n.material_definition, m.material_definition);
  EXPECT_EQ(n.density_g_cm3, m.density_g_cm3);
  EXPECT_EQ(n.step_m, m.step_m);
  EXPECT_EQ(n.binning, m.binning);
  EXPECT_EQ(n.charge, m.charge);
  EXPECT_EQ(n.seed, 42u);
  EXPECT_EQ(n.generator, m.generator);
  EXPECT_EQ(n.created_utc, m.created_utc);
  EXPECT_EQ(n.created_utc.size(), 20u);  // 2026-11-22T03:00:00Z
  EXPECT_EQ(n.format_version, kTableFormatVersion);
  // The views agree.
  const TableView va = t.host_view(), vb = r.host_view();
  EXPECT_EQ(va.n_pbins, vb.n_pbins);
  EXPECT_EQ(va.inv_dp, vb.inv_dp);
  EXPECT_EQ(va.p_min, vb.p_min);
}

// A file without the alias tables (the cache's, the shipped ones) loads
// the same cells, rebuilt from its histograms, with or without keeping them.
TEST(TableFile, AliasTablesRebuiltFromTheHistograms) {
  TempDir dir;
  const TableParams& t = small_table();
  write_table_file(dir.path / "with.h5", t);
  write_table_file(dir.path / "without.h5", t, TableWriteOptions{.alias = false});
  EXPECT_LT(fs::file_size(dir.path / "without.h5"), fs::file_size(dir.path / "with.h5"));
  // Histograms stored otherwise than in deflated chunks (another writer).
  const auto contiguous =
      corrupt(dir.path / "without.h5", dir.path / "contiguous.h5", [&](hid_t h) {
        H5Ldelete(h, "histogram", H5P_DEFAULT);
        const hsize_t dims[3] = {4, 17, 17};
        const hid_t sp = H5Screate_simple(3, dims, nullptr);
        const hid_t d =
            H5Dcreate2(h, "histogram", H5T_STD_U32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data().counts.data());
        H5Dclose(d);
        H5Sclose(sp);
      });
  for (const auto& [file, histogram] :
       std::vector<std::pair<fs::path, bool>>{{dir.path / "without.h5", true},
                                              {dir.path / "without.h5", false},
                                              {contiguous, true},
                                              {contiguous, false}}) {
    SCOPED_TRACE(file.filename().string() + (histogram ? " with" : " without") + " histograms");
    TableLoadOptions load;
    load.histogram = histogram;
    const TableParams r = load_table(file, 0.02, load);
    EXPECT_EQ(r.has_histogram(), histogram);
    if (histogram) EXPECT_EQ(r.data().counts, t.data().counts);
    ASSERT_EQ(r.data().cells.size(), t.data().cells.size());
    for (std::size_t i = 0; i < r.data().cells.size(); ++i) {
      ASSERT_EQ(r.data().cells[i].threshold, t.data().cells[i].threshold) << i;
      ASSERT_EQ(r.data().cells[i].alias, t.data().cells[i].alias) << i;
    }
  }
}

TEST(TableFile, FirstBinsOnly) {
  TempDir dir;
  const TableParams& t = small_table();
  const int n = t.n_pbins();
  for (const bool alias : {true, false}) {
    const auto path = dir.path / (alias ? "with.h5" : "without.h5");
    write_table_file(path, t, TableWriteOptions{.alias = alias});
    for (const int bins : {1, n - 1, n, n + 3}) {
      SCOPED_TRACE(std::to_string(bins) + " bins, alias tables " + (alias ? "in" : "not in") +
                   " the file");
      TableLoadOptions load;
      load.bins = bins;
      if (!alias) {  // the cache's way: the alias tables only
        load.histogram = false;
        const TableParams cells_only = load_table(path, 0.02, load);
        const TableData want = table_bins(t.data(), 0, std::min(bins, n));
        ASSERT_EQ(cells_only.data().cells.size(), want.cells.size());
        EXPECT_FALSE(cells_only.has_histogram());
        for (std::size_t i = 0; i < want.cells.size(); ++i) {
          ASSERT_EQ(cells_only.data().cells[i].threshold, want.cells[i].threshold) << i;
          ASSERT_EQ(cells_only.data().cells[i].alias, want.cells[i].alias) << i;
        }
        load.histogram = true;
      }
      TableExtent extent;
      const TableParams r = load_table(path, 0.02, load, &extent);
      EXPECT_EQ(extent.n_pbins, n);
      EXPECT_EQ(extent.p_max, t.data().p_edges.back());
      const TableData want = table_bins(t.data(), 0, std::min(bins, n));
      const TableData& got = r.data();
      EXPECT_EQ(got.p_edges, want.p_edges);
      EXPECT_EQ(got.p_centres, want.p_centres);
      EXPECT_EQ(got.counts, want.counts);
      EXPECT_EQ(got.samples_per_bin, want.samples_per_bin);
      EXPECT_EQ(got.mean_loss, want.mean_loss);
      EXPECT_EQ(got.std_loss, want.std_loss);
      EXPECT_EQ(got.mean_kick, want.mean_kick);
      ASSERT_EQ(got.axes.size(), want.axes.size());
      for (std::size_t b = 0; b < got.axes.size(); ++b) {
        EXPECT_EQ(got.axes[b].x_lo, want.axes[b].x_lo);
        EXPECT_EQ(got.axes[b].y_width, want.axes[b].y_width);
      }
      ASSERT_EQ(got.cells.size(), want.cells.size());
      for (std::size_t i = 0; i < got.cells.size(); ++i) {
        ASSERT_EQ(got.cells[i].threshold, want.cells[i].threshold) << i;
        ASSERT_EQ(got.cells[i].alias, want.cells[i].alias) << i;
      }
    }
  }
}

// A histogram chunk whose stored bytes are damaged: one line naming the file
// and the dataset; the bins before it still load.
TEST(TableFile, CorruptChunkNamesFileAndDataset) {
  TempDir dir;
  const auto path = dir.path / "chunk.h5";
  write_table_file(path, small_table(), TableWriteOptions{.alias = false});
  haddr_t addr = 0;
  hsize_t size = 0;
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, "histogram", H5P_DEFAULT);
    const hsize_t at[3] = {2, 0, 0};  // bin 2's chunk
    ASSERT_GE(H5Dget_chunk_info_by_coord(d, at, nullptr, &addr, &size), 0);
    H5Dclose(d);
    H5Fclose(f);
  }
  ASSERT_GT(size, 4u);
  {
    // The last byte of the chunk: its Adler-32, which every inflater checks.
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(static_cast<std::streamoff>(addr + size - 1));
    const char c = static_cast<char>(io.get() ^ 0x20);
    io.seekp(static_cast<std::streamoff>(addr + size - 1));
    io.put(c);
  }
  TableLoadOptions load;
  load.bins = 2;
  for (const bool histogram : {true, false}) {
    load.histogram = histogram;
    const std::string with = histogram ? "with" : "without";
    try {
      load_table(path, 0.02, TableLoadOptions{.histogram = histogram});
      ADD_FAILURE() << "loaded " << with << " histograms";
    } catch (const Error& e) {
      expect_one_line_naming(e.what(), path, "dataset /histogram: corrupt");
    }
    EXPECT_EQ(load_table(path, 0.02, load).n_pbins(), 2) << with << " histograms";
  }
}

TEST(TableFile, MakeViewUsesTheCopier) {
  const TableParams& t = small_table();
  std::size_t copied = 0;
  const TableView v = t.make_view([&](const auto* p, std::size_t n) {
    copied += n * sizeof(*p);
    return p;
  });
  EXPECT_EQ(copied, t.device_bytes());
  EXPECT_EQ(v.n_pbins, 4);
  EXPECT_EQ(v.cells, t.data().cells.data());
}

TEST(TableFile, WriteFailureLeavesNoFile) {
  TempDir dir;
  EXPECT_THROW(write_table_file(dir.path / "missing_folder" / "t.h5", small_table()), Error);
  EXPECT_TRUE(fs::is_empty(dir.path));
}

TEST(TableFile, BadFilesGiveOneLineErrors) {
  TempDir dir;
  const auto good = dir.path / "good.h5";
  write_table_file(good, small_table());

  expect_one_line_naming(load_error(good, 0.01), good, "step_m");

  auto f = corrupt(good, dir.path / "missing.h5",
                   [](hid_t h) { H5Ldelete(h, "alias_index", H5P_DEFAULT); });
  expect_one_line_naming(load_error(f), f, "missing dataset /alias_index");

  f = corrupt(good, dir.path / "shape.h5", [](hid_t h) {
    H5Ldelete(h, "axes", H5P_DEFAULT);
    hsize_t dims[2] = {4, 3};
    const hid_t s = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(h, "axes", H5T_IEEE_F32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    float zeros[12] = {};
    H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros);
    H5Dclose(d);
    H5Sclose(s);
  });
  expect_one_line_naming(load_error(f), f, "dataset /axes has shape (4, 3), expected (4, 4)");

  f = corrupt(good, dir.path / "nan.h5", [](hid_t h) {
    const hid_t d = H5Dopen2(h, "momentum_centres", H5P_DEFAULT);
    double v[4] = {2, std::numeric_limits<double>::quiet_NaN(), 20, 50};
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
  });
  expect_one_line_naming(load_error(f), f, "momentum_centres has a NaN");

  f = corrupt(good, dir.path / "version.h5", [](hid_t h) {
    const hid_t a = H5Aopen(h, "format_version", H5P_DEFAULT);
    const int v = 99;
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
  });
  expect_one_line_naming(load_error(f), f, "format_version is 99");

  f = corrupt(good, dir.path / "noattr.h5", [](hid_t h) { H5Adelete(h, "step_m"); });
  expect_one_line_naming(load_error(f), f, "missing attribute step_m");

  f = corrupt(good, dir.path / "alias.h5", [](hid_t h) {
    const hid_t d = H5Dopen2(h, "alias_index", H5P_DEFAULT);
    std::vector<int> v(4 * 17 * 17, 100000);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
  });
  expect_one_line_naming(load_error(f), f, "alias_index");

  const auto text = dir.path / "text.h5";
  {
    std::FILE* fp = std::fopen(text.c_str(), "w");
    std::fputs("not hdf5\n", fp);
    std::fclose(fp);
  }
  expect_one_line_naming(load_error(text), text, "not an HDF5 file");
  expect_one_line_naming(load_error(dir.path / "absent.h5"), dir.path / "absent.h5",
                         "no such table file");
}
