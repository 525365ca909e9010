// Streaming I/O: MuonReader/MuonWriter in chunks, and `fastmu run` whose
// output is the same file, byte for byte, for any chunk size, memory bound
// and MPI rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../SanitizerBuild.hh"
#include "TestTables.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/stream/MuonIO.hh"
#include "fastmu/transport/stream/MuonReader.hh"
#include "fastmu/transport/stream/MuonWriter.hh"

namespace fastmu {
namespace {

// A --max-memory bound just above what the tables and geometry take: the
// process's resident size, which AddressSanitizer's shadow memory inflates.
constexpr const char* kSmallMemoryBound =
    test::kUnderAsan ? " --max-memory 800MB" : " --max-memory 300MB";

std::filesystem::path work_dir() {
  const auto d = std::filesystem::temp_directory_path() / "fastmu_stream_run_test";
  std::filesystem::create_directories(d);
  return d;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// n muons, momenta 1..31 GeV/c (the slowest stop in 3 m of iron), both charges;
// a comment and a blank line in the middle.
void write_muon_csv(const std::filesystem::path& p, int n) {
  std::ofstream out(p);
  out << "# test muons\npx,py,pz,x,y,z,pdg,weight\n";
  for (int i = 0; i < n; ++i) {
    if (i == n / 2) out << "# half way\n\n";
    out << 0.001 * (i % 7) << ",-0.002," << 1 + (i * 37) % 31 << "," << 0.01 * (i % 5) << ",0,-0.5,"
        << (i % 2 ? -13 : 13) << "," << 0.5 + 0.25 * (i % 3) << "\n";
  }
}

TransportResult fake_result(std::size_t n, std::uint64_t first_id) {
  TransportResult r;
  r.first_id = first_id;
  for (std::size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(first_id + i);
    r.muons.push_back(f * 1e-3f, -f, 1.0f / (f + 1), f * 7.1f, 0.1f, 3.0f, i % 2 ? 13 : -13,
                      1.0 / 3 + f);
    r.status.push_back(static_cast<std::int32_t>((first_id + i) % 3 == 0 ? 1 : 0));
    r.plane.push_back(0);
    r.steps.push_back(5);
  }
  return r;
}

TransportResult slice(const TransportResult& r, std::size_t b, std::size_t e) {
  TransportResult s = fake_result(0, 0);
  s.first_id = r.first_id + b;
  for (std::size_t i = b; i < e; ++i) {
    const auto& m = r.muons;
    s.muons.push_back(m.px[i], m.py[i], m.pz[i], m.x[i], m.y[i], m.z[i], m.pdg[i], m.weight[i]);
    s.status.push_back(r.status[i]), s.plane.push_back(r.plane[i]), s.steps.push_back(r.steps[i]);
  }
  return s;
}

TEST(MuonWriter, SameBytesForAnySplitOfTheRows) {
  const auto dir = work_dir();
  // More than one HDF5 block, so that whole and partial blocks are exercised.
  const std::size_t n = MuonWriter::kRowsPerChunk * 2 + 1234;
  const TransportResult all = fake_result(n, 10);
  for (const char* ext : {".h5", ".csv"}) {
    const auto one = dir / (std::string("one") + ext);
    write_transport_result(one, all, false, false);
    for (std::size_t step : {std::size_t(1000), std::size_t(40000), n}) {
      const auto cut = dir / (std::string("cut") + ext);
      MuonWriter w(cut, OutputLayout{false, false});
      for (std::size_t b = 0; b < n; b += step) w.append(slice(all, b, std::min(n, b + step)));
      w.commit();
      EXPECT_EQ(slurp(cut), slurp(one)) << ext << " step " << step;
    }
    std::size_t kept = 0;
    for (auto s : all.status) kept += s == 0;
    const io::ColumnTable t = io::read_table(one);
    ASSERT_EQ(t.rows(), kept);
    EXPECT_EQ(t.at(0, 0), 10);  // ids are first_id + row; id 12 (status 1) is left out
    EXPECT_EQ(t.at(2, 0), 13);
    EXPECT_EQ(t.at(2, 2), -13.0f);           // py = -id, as float
    EXPECT_EQ(t.at(2, 8), 1.0 / 3 + 13.0f);  // weight keeps double precision
  }
}

// The rows of `r` as the writer encodes them (every row kept), written by
// HDF5's own filters: the dataset made as the writer makes it, grown and
// written a chunk at a time through H5Dwrite.
void write_with_hdf5_filters(const std::filesystem::path& path, const TransportResult& r,
                             bool with_plane, int level) {
  const hsize_t ncol = with_plane ? 11 : 10, n = r.size();
  std::vector<double> rows(n * ncol);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = r.muons;
    double* d = rows.data() + i * ncol;
    const double v[11] = {static_cast<double>(r.id_of(i)),
                          m.px[i],
                          m.py[i],
                          m.pz[i],
                          m.x[i],
                          m.y[i],
                          m.z[i],
                          static_cast<double>(m.pdg[i]),
                          m.weight[i],
                          static_cast<double>(r.status[i]),
                          static_cast<double>(r.plane[i])};
    std::copy(v, v + ncol, d);
  }
  io::h5::Handle file = io::h5::create_file(path.string());
  const hsize_t dims[2] = {0, ncol}, maxdims[2] = {H5S_UNLIMITED, ncol};
  io::h5::Handle space(H5Screate_simple(2, dims, maxdims));
  io::h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_obj_track_times(dcpl.get(), false);
  const hsize_t chunk[2] = {MuonWriter::kRowsPerChunk, ncol};
  H5Pset_chunk(dcpl.get(), 2, chunk);
  H5Pset_shuffle(dcpl.get());
  H5Pset_deflate(dcpl.get(), static_cast<unsigned>(level));
  io::h5::Handle ds(H5Dcreate2(file.get(), "muons", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                               dcpl.get(), H5P_DEFAULT));
  ASSERT_TRUE(ds.valid());
  io::h5::write_attribute(
      ds.get(), "columns",
      std::string("id,px,py,pz,x,y,z,pdg,weight,status") + (with_plane ? ",plane" : ""));
  for (hsize_t b = 0; b < n; b += MuonWriter::kRowsPerChunk) {
    const hsize_t k = std::min<hsize_t>(MuonWriter::kRowsPerChunk, n - b);
    const hsize_t grown[2] = {b + k, ncol}, start[2] = {b, 0}, count[2] = {k, ncol};
    ASSERT_GE(H5Dset_extent(ds.get(), grown), 0);
    io::h5::Handle fspace(H5Dget_space(ds.get()));
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    io::h5::Handle mspace(H5Screate_simple(2, count, nullptr));
    ASSERT_GE(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                       rows.data() + b * ncol),
              0);
  }
  ds.reset();
  H5Fflush(file.get(), H5F_SCOPE_GLOBAL);
}

// gzip chunks compressed on all threads and stored by H5Dwrite_chunk: the
// bytes HDF5's filters write, for any thread count and split of the rows.
TEST(MuonWriter, GzipChunksCompressedOnAllThreadsAreTheBytesOfHdf5sFilters) {
  const auto dir = work_dir();
  const std::size_t n = MuonWriter::kRowsPerChunk * 3 + 777;  // a partial last chunk
  TransportResult all = fake_result(n, 10);
  for (std::size_t i = 0; i < n; ++i) all.plane[i] = static_cast<std::int32_t>(i % 3);
  for (bool with_plane : {false, true}) {
    for (int level : {1, 6}) {
      const auto want = dir / "hdf5_filters.h5";
      write_with_hdf5_filters(want, all, with_plane, level);
      const std::string expected = slurp(want);
      ASSERT_FALSE(expected.empty());
      for (int threads : {1, 4}) {
        for (std::size_t step : {std::size_t(1000), std::size_t(70000)}) {
          const auto got = dir / "gzip_threads.h5";
          MuonWriter w(got, OutputLayout{true, with_plane},
                       io::h5::parse_compression("gzip:" + std::to_string(level)), threads);
          for (std::size_t b = 0; b < n; b += step) w.append(slice(all, b, std::min(n, b + step)));
          w.commit();
          EXPECT_EQ(w.rows(), n);
          EXPECT_TRUE(slurp(got) == expected) << "plane " << with_plane << " level " << level
                                              << " threads " << threads << " step " << step;
        }
      }
    }
  }
}

// MPI ranks' parts placed in the output at once, in any order (place_part),
// give the bytes of one writer; outputs that cannot be laid out (under one
// HDF5 chunk, compressed) say so and are joined in order.
TEST(MuonWriter, PartsPlacedInAnyOrderGiveTheOneWriterFile) {
  const auto dir = work_dir();
  const std::size_t n = MuonWriter::kRowsPerChunk * 3 + 777;
  const TransportResult all = fake_result(n, 0);
  const std::size_t cuts[] = {0, 5000, MuonWriter::kRowsPerChunk + 3, n};  // three parts
  for (const char* ext : {".h5", ".csv"}) {
    const auto one = dir / (std::string("whole") + ext);
    write_transport_result(one, all, false, false);
    std::vector<std::filesystem::path> parts;
    std::vector<std::uint64_t> rows, bytes;
    for (int p = 0; p < 3; ++p) {
      parts.push_back(dir / ("part" + std::to_string(p)));
      MuonWriter w(parts.back(), OutputLayout{}, {}, 2, MuonWriter::Mode::part, one);
      w.append(slice(all, cuts[p], cuts[p + 1]));
      w.commit();
      rows.push_back(w.rows());
      bytes.push_back(std::filesystem::file_size(parts.back()));
    }
    const auto joined = dir / (std::string("joined") + ext);
    MuonWriter out(joined, OutputLayout{});
    MuonWriter::PartLayout layout;
    ASSERT_TRUE(out.lay_out_parts(rows[0] + rows[1] + rows[2], layout)) << ext;
    const auto shipped = MuonWriter::PartLayout::from_bytes(layout.to_bytes());
    EXPECT_EQ(shipped.file, layout.file);
    EXPECT_EQ(shipped.chunk_offset, layout.chunk_offset);
    for (int p : {2, 0, 1}) {
      std::uint64_t rows_before = 0, bytes_before = 0;
      for (int q = 0; q < p; ++q) rows_before += rows[q], bytes_before += bytes[q];
      MuonWriter::place_part(shipped, parts[p], rows_before, bytes_before, 3);
    }
    out.commit();
    EXPECT_EQ(out.rows(), rows[0] + rows[1] + rows[2]);
    EXPECT_EQ(slurp(joined), slurp(one)) << ext;
  }
  MuonWriter small(dir / "small.h5", OutputLayout{});
  MuonWriter::PartLayout layout;
  EXPECT_FALSE(small.lay_out_parts(MuonWriter::kRowsPerChunk - 1, layout));
  MuonWriter packed(dir / "packed.h5", OutputLayout{}, io::h5::parse_compression("gzip"));
  EXPECT_FALSE(packed.lay_out_parts(n, layout));
}

TEST(MuonReader, ChunksMatchTheWholeFileAndErrorsNameTheLine) {
  const auto dir = work_dir();
  const auto csv = dir / "mu.csv";
  write_muon_csv(csv, 5000);
  const MuonBatch whole = read_muons(csv);
  ASSERT_EQ(whole.size(), 5000u);
  MuonReader reader(csv, 2);
  EXPECT_EQ(reader.rows(), 5000u);
  reader.seek(1234);
  MuonBatch part;
  std::size_t row = 1234;
  while (reader.read(777, part)) {
    for (std::size_t i = 0; i < part.size(); ++i, ++row) {
      ASSERT_EQ(part.pz[i], whole.pz[row]) << row;
      ASSERT_EQ(part.weight[i], whole.weight[row]) << row;
      ASSERT_EQ(part.pdg[i], whole.pdg[row]) << row;
    }
  }
  EXPECT_EQ(row, 5000u);

  // A bad value deep in the file: its line (header on line 2, two extra
  // lines half way) is named whatever the chunk.
  std::string text = slurp(csv);
  const std::size_t at = text.find("\n", text.find("\n", text.size() - 200) + 1);
  text.insert(at + 1, "0,0,5,0,0,0,11,1\n");
  std::ofstream(dir / "bad.csv") << text;
  const std::size_t bad_line = std::count(text.begin(), text.begin() + at + 1, '\n') + 1;
  for (std::size_t chunk : {std::size_t(100), std::size_t(100000)}) {
    MuonReader r(dir / "bad.csv", 2);
    std::string msg;
    try {
      while (r.read(chunk, part)) {
      }
    } catch (const Error& e) {
      msg = e.what();
    }
    EXPECT_NE(msg.find("bad.csv line " + std::to_string(bad_line) + ", column pdg"),
              std::string::npos)
        << msg;
  }
}

class StreamRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
    // One folder per test: ctest runs them in parallel.
    dir_ = work_dir() / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    table_ = test::test_table_cache().path_for(builtin_materials().find("G4_Fe"), 0.02);
    test::test_table("G4_Fe");
    std::ofstream(dir_ / "geo.json") << R"({
      "world": {"min": [-5, -5, -1], "max": [5, 5, 12], "material": "vacuum"},
      "volumes": [{"name": "slab", "shape": "box", "min": [-5, -5, 0], "max": [5, 5, 3],
                   "material": "G4_Fe", "field": [0, 1.5, 0]}],
      "sensitive_planes": [{"z": 10.0, "x": [-1, 1], "y": [-1, 1]}]})";
    write_muon_csv(dir_ / "mu.csv", 6000);
  }
  std::string args(const std::string& in, const std::filesystem::path& out) const {
    return " run --geometry '" + (dir_ / "geo.json").string() + "' --muons '" + in + "' --out '" +
           out.string() + "' --tables '" + table_.string() + "' --backend cpu --seed 3";
  }
  // `a` is the command after the binary (" run ..." or " physics ...").
  int run(const std::string& prefix, const std::string& a) const {
    const std::string cmd =
        prefix + std::string(FASTMU_BINARY) + a + " > '" + (dir_ / "log.txt").string() + "' 2>&1";
    return std::system(cmd.c_str());
  }
  std::string log() const { return slurp(dir_ / "log.txt"); }
  std::filesystem::path dir_, table_;
};

TEST_F(StreamRun, SameOutputForAnyChunkSizeAndMemoryBound) {
  const std::string in = (dir_ / "mu.csv").string();
  for (const char* ext : {".csv", ".h5"}) {
    const auto ref = dir_ / (std::string("ref") + ext);
    ASSERT_EQ(run("", args(in, ref) + " --chunk-rows 1000000"), 0) << log();
    const std::string expected = slurp(ref);
    EXPECT_GT(expected.size(), 1000u);
    for (const char* extra : {" --chunk-rows 999 --threads 1", kSmallMemoryBound}) {
      const auto out = dir_ / (std::string("out") + ext);
      ASSERT_EQ(run("", args(in, out) + extra), 0) << log();
      EXPECT_EQ(slurp(out), expected) << ext << extra;
    }
  }
  // Stopped muons are left out unless --all.
  EXPECT_LT(io::read_table(dir_ / "ref.csv").rows(), 6000u);
  // A bound that the tables alone exceed: one line, no output.
  const auto none = dir_ / "none.csv";
  std::filesystem::remove(none);
  EXPECT_NE(run("", args(in, none) + " --max-memory 1MB"), 0);
  EXPECT_NE(log().find("--max-memory"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(none));
}

#ifdef FASTMU_MPIEXEC
// The command prefix of two ranks on this machine (oversubscribed, as root in
// CI). OpenMPI does not free all it allocates before exit: LeakSanitizer (the
// sanitizer build) would fail the ranks, so leak checks are off for them.
std::string mpirun_two_ranks() {
  return "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" " + std::string(FASTMU_MPIEXEC) +
         " -np 2 --oversubscribe --allow-run-as-root ";
}
#endif

TEST_F(StreamRun, TwoMpiRanksWriteTheOneProcessFile) {
#ifndef FASTMU_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  if (!std::filesystem::exists(FASTMU_MPIEXEC)) GTEST_SKIP() << FASTMU_MPIEXEC << " not found";
  const std::string mpirun = mpirun_two_ranks();
  const std::string in = (dir_ / "mu.csv").string();
  for (const char* ext : {".h5", ".csv"}) {
    const auto one = dir_ / (std::string("one") + ext);
    const auto two = dir_ / (std::string("two") + ext);
    ASSERT_EQ(run("", args(in, one) + " --all"), 0) << log();
    ASSERT_EQ(run(mpirun, args(in, two) + " --all --threads 1 --chunk-rows 1000"), 0) << log();
    EXPECT_NE(log().find("x 2 ranks"), std::string::npos) << log();
    EXPECT_EQ(slurp(two), slurp(one)) << ext;
  }
  // Over one HDF5 chunk (2^15 rows), through vacuum: each rank writes its
  // part into the laid-out file at its place (--all: every muon, also the
  // few that decay on the way).
  write_muon_csv(dir_ / "many.csv", 40000);
  std::ofstream(dir_ / "empty.json") << R"({
    "world": {"min": [-5, -5, -1], "max": [5, 5, 12], "material": "vacuum"},
    "sensitive_planes": [{"z": 10.0, "x": [-5, 5], "y": [-5, 5]}]})";
  const std::string many = " run --geometry '" + (dir_ / "empty.json").string() + "' --muons '" +
                           (dir_ / "many.csv").string() + "' --backend cpu --all --out '";
  ASSERT_EQ(run("", many + (dir_ / "many1.h5").string() + "'"), 0) << log();
  ASSERT_EQ(run(mpirun, many + (dir_ / "many2.h5").string() + "' --threads 1"), 0) << log();
  EXPECT_EQ(io::read_table(dir_ / "many1.h5").rows(), 40000u);
  EXPECT_EQ(slurp(dir_ / "many2.h5"), slurp(dir_ / "many1.h5"));
  // `fastmu physics sample` spread over ranks: the one-process file.
  const std::string sample =
      " physics sample --material G4_Fe --p 5 --p-max 50 --step 0.02 --n 3000 --out '";
  ASSERT_EQ(run("", sample + (dir_ / "s1.h5").string() + "'"), 0) << log();
  ASSERT_EQ(run(mpirun, sample + (dir_ / "s2.h5").string() + "' --threads 1"), 0) << log();
  EXPECT_EQ(slurp(dir_ / "s2.h5"), slurp(dir_ / "s1.h5"));
  EXPECT_EQ(io::read_table(dir_ / "s2.h5").rows(), 3000u);

  // A bad row in rank 1's share: one error line, non-zero exit, no output.
  std::string text = slurp(dir_ / "mu.csv");
  text += "0,0,5,0,0,0,11,1\n";
  std::ofstream(dir_ / "bad.csv") << text;
  const auto bad_out = dir_ / "bad_out.h5";
  std::filesystem::remove(bad_out);
  EXPECT_NE(run(mpirun, args((dir_ / "bad.csv").string(), bad_out) + " --threads 1"), 0);
  EXPECT_NE(log().find("column pdg"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(bad_out));
  // Commands that are not split over ranks say so, once, instead of racing.
  EXPECT_NE(
      run(mpirun, " run --example iron-block --n 10 --no-plot --out-dir '" + dir_.string() + "'"),
      0);
  EXPECT_NE(log().find("--example: not split over MPI ranks"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "iron_block_fast.f32"));
  // Joined or not, no part files is left next to the output.
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".part"), std::string::npos) << e.path();
  }
#endif
}

// `mpirun -np 2 fastmu run` with an empty table cache: the ranks build the
// missing tables (the material's step and its ladder) together, rank 0 writes
// each file once, and both the output and the cache files equal a
// one-process run's, byte for byte (SOURCE_DATE_EPOCH fixes the creation time).
TEST_F(StreamRun, TwoMpiRanksShareTheCacheBuilds) {
#ifndef FASTMU_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  if (!std::filesystem::exists(FASTMU_MPIEXEC)) GTEST_SKIP() << FASTMU_MPIEXEC << " not found";
  const std::string mpirun = mpirun_two_ranks();
  // A 2 mm step for iron: its table and one ladder entry (1 mm), 1000 samples
  // per momentum bin, the 95 bins up to 400 GeV/c (--p-max).
  const std::string base =
      " run --geometry '" + (dir_ / "geo.json").string() + "' --muons '" +
      (dir_ / "mu.csv").string() +
      "' --backend cpu --seed 5 --step 0.002 --long-steps 0 --p-max 400 --all --out '";
  const auto env = [&](const char* cache) {
    return "SOURCE_DATE_EPOCH=1795000000 FASTMU_CACHE_SAMPLES=1000 FASTMU_CACHE='" +
           (dir_ / cache).string() + "' ";
  };
  ASSERT_EQ(run(env("cache1"), base + (dir_ / "one.h5").string() + "'"), 0) << log();
  ASSERT_EQ(run(env("cache2") + mpirun, base + (dir_ / "two.h5").string() + "' --threads 1"), 0)
      << log();
  const std::string two_log = log();
  EXPECT_EQ(slurp(dir_ / "two.h5"), slurp(dir_ / "one.h5"));

  // The tables, and the lock file the builds took (TableCache.hh).
  const auto tables_in = [](const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(folder)) {
      const std::string name = e.path().filename().string();
      if (name != "G4_Fe.lock") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  EXPECT_TRUE(std::filesystem::exists(dir_ / "cache2" / "G4_Fe.lock"));
  const std::vector<std::string> names = tables_in(dir_ / "cache1");
  const std::vector<std::string> names2 = tables_in(dir_ / "cache2");
  ASSERT_EQ(names.size(), 2u);  // G4_Fe at 2 mm and 1 mm, no temporary files left
  EXPECT_EQ(names2, names);
  for (const auto& n : names) {
    EXPECT_EQ(slurp(dir_ / "cache2" / n), slurp(dir_ / "cache1" / n)) << n;
  }

  // The ladder's build reports the samples each rank histogrammed (as
  // received from that rank): both ranks sampled, 95 bins x 1000 histories
  // in all, each a sample of both steps.
  const std::string tag = "momentum bins shared by 2 processes (samples: ";
  int builds = 0;
  for (std::size_t at = two_log.find(tag); at != std::string::npos;
       at = two_log.find(tag, at + 1), ++builds) {
    unsigned long long a = 0, b = 0;
    ASSERT_EQ(std::sscanf(two_log.c_str() + at + tag.size(), "%llu, %llu)", &a, &b), 2) << two_log;
    EXPECT_GT(a, 0u) << two_log;
    EXPECT_GT(b, 0u) << two_log;
    EXPECT_EQ(a + b, 2u * 95000u) << two_log;
  }
  EXPECT_EQ(builds, 1) << two_log;

  // A second 2-rank run finds both tables: nothing is built.
  ASSERT_EQ(run(env("cache2") + mpirun, base + (dir_ / "three.h5").string() + "' --threads 1"), 0)
      << log();
  EXPECT_EQ(log().find("building tables"), std::string::npos) << log();
  EXPECT_EQ(slurp(dir_ / "three.h5"), slurp(dir_ / "one.h5"));
#endif
}

// FASTMU_PROGRESS=1 forces the bars on under mpirun: rank 0 alone draws, one
// bar per table build and one for the run, each over all ranks' work (its last
// line has the exact total), and the output is unchanged. (Whether a line in
// between already holds rank 1's count depends on timing: not checked here;
// tests/core/ProgressTest.cc checks the sum with a fake share.)
TEST_F(StreamRun, TwoMpiRanksDrawOneProgressBarOverAllRanks) {
#ifndef FASTMU_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  if (!std::filesystem::exists(FASTMU_MPIEXEC)) GTEST_SKIP() << FASTMU_MPIEXEC << " not found";
  const std::string mpirun = mpirun_two_ranks();
  const std::string base =
      " run --geometry '" + (dir_ / "geo.json").string() + "' --muons '" +
      (dir_ / "mu.csv").string() +
      "' --backend cpu --seed 5 --step 0.002 --long-steps 0 --p-max 400 --chunk-rows 1000 --out '";
  const std::string env =
      "FASTMU_CACHE_SAMPLES=200 FASTMU_CACHE='" + (dir_ / "cache").string() + "' ";
  ASSERT_EQ(
      run("FASTMU_PROGRESS=1 " + env + mpirun, base + (dir_ / "two.h5").string() + "' --threads 1"),
      0)
      << log();
  const std::string text = log();
  ASSERT_EQ(run("FASTMU_PROGRESS=0 " + env, base + (dir_ / "one.h5").string() + "'"), 0) << log();
  EXPECT_EQ(slurp(dir_ / "two.h5"), slurp(dir_ / "one.h5"));

  // The bars' lines (segments between carriage returns and newlines; the
  // summary on stdout may land between two redraws of the bar on stderr): no
  // bar of rank 1 or of a rank's share, and the finished bars show the exact
  // counts of all ranks: the 95 momentum bins of the ladder (2 mm and
  // 1 mm), 6000 muons.
  int other_bars = 0, tables_done = 0, runs_done = 0;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find_first_of("\r\n", begin)) != std::string::npos;
       begin = end + 1) {
    const std::string seg = text.substr(begin, end - begin);
    if (seg.find("(rank") != std::string::npos) ++other_bars;
    if (seg.rfind("tables  G4_Fe (2 steps, cpu) [", 0) == 0 &&
        seg.find("100.0%  95/95 ") != std::string::npos)
      ++tables_done;
    if (seg.rfind("run [", 0) == 0 && seg.find("100.0%  6000/6000 ") != std::string::npos)
      ++runs_done;
  }
  EXPECT_EQ(other_bars, 0) << text;
  EXPECT_GE(tables_done, 1) << text;
  EXPECT_GE(runs_done, 1) << text;

  // A bad row in rank 1's share with the bars on: one error line, a non-zero
  // exit, no hang (the ranks leave their bars at different times).
  std::string bad = slurp(dir_ / "mu.csv");
  bad += "0,0,5,0,0,0,11,1\n";
  std::ofstream(dir_ / "bad.csv") << bad;
  EXPECT_NE(
      run("FASTMU_PROGRESS=1 " + env + mpirun,
          " run --geometry '" + (dir_ / "geo.json").string() + "' --muons '" +
              (dir_ / "bad.csv").string() +
              "' --backend cpu --step 0.002 --long-steps 0 --p-max 400 --chunk-rows 500 --out '" +
              (dir_ / "bad.h5").string() + "' --threads 1"),
      0);
  EXPECT_NE(log().find("column pdg"), std::string::npos) << log();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.h5"));
#endif
}

}  // namespace
}  // namespace fastmu
