// `fastmu tables build | info` end to end (skipped while the fastmu
// executable has not been built).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "fastmu/tables/TableFile.hh"

namespace fs = std::filesystem;

namespace {

struct Result {
  int status;
  std::string output;
};

// `prefix` goes before the executable (environment, mpirun).
Result run_with(const std::string& prefix, const std::string& args) {
  const std::string cmd = prefix + std::string(FASTMU_BINARY) + " " + args + " 2>&1";
  Result r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

Result run(const std::string& args) { return run_with("", args); }

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("fastmu_tables_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(TablesCli, BuildFromSamplesAndInfo) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const fs::path ref = fs::path(FASTMU_REFERENCE_DIR) / "sphere2cm_G4_Fe_p10GeV_mu-.f32";
  if (!fs::exists(ref)) GTEST_SKIP() << "no reference samples";
  const auto dir = temp_dir();
  const auto out = dir / "fe.h5";
  const auto r =
      run("tables build --material G4_Fe --step 0.02 --p-min 9.9 --p-max 10.1 --p-bins 1 "
          "--hist-bins 50 --from-samples " +
          ref.string() + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto t = fastmu::load_table(out, 0.02);
  EXPECT_EQ(t.data().samples_per_bin[0], 50000u);
  EXPECT_EQ(t.metadata().source_sha256.size(), 64u);
  EXPECT_NE(t.metadata().generator.find("sphere2cm_G4_Fe_p10GeV"), std::string::npos);
  const auto info = run("tables info " + out.string());
  ASSERT_EQ(info.status, 0) << info.output;
  EXPECT_NE(info.output.find("G4_Fe"), std::string::npos);
  EXPECT_NE(info.output.find("step:            0.02 m"), std::string::npos) << info.output;
  fs::remove_all(dir);
}

TEST(TablesCli, BadInputGivesOneLineAndNoFile) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const auto dir = temp_dir();
  const auto out = dir / "x.h5";
  auto r = run("tables build --material G4_Unobtainium --step 0.02 --samples-per-bin 10 --out " +
               out.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("G4_Unobtainium"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = run("tables info " + (dir / "absent.h5").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("absent.h5"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  fs::remove_all(dir);
}

// `fastmu tables list | prune` on a cache folder holding a table file this
// fastmu's cache does not read (no cache key) and a temporary file of a
// write whose process is gone.
TEST(TablesCli, ListAndPruneTheCacheFolder) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const fs::path ref = fs::path(FASTMU_REFERENCE_DIR) / "sphere2cm_G4_Fe_p10GeV_mu-.f32";
  if (!fs::exists(ref)) GTEST_SKIP() << "no reference samples";
  const auto dir = temp_dir() / "cache";
  fs::create_directories(dir);
  auto r = run("tables list --dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(": 0 ladders, 0.0 MB"), std::string::npos) << r.output;
  const auto entry = dir / "G4_Fe_step20mm_0123456789abcdef_v1.h5";
  r =
      run("tables build --material G4_Fe --step 0.02 --p-min 9.9 --p-max 10.1 --p-bins 1 "
          "--hist-bins 50 --from-samples " +
          ref.string() + " --out " + entry.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto partial = dir / ".G4_Fe_step20mm_0123456789abcdef_v1.h5.part999999999";
  std::ofstream(partial) << "partial";
  fs::last_write_time(partial, fs::file_time_type::clock::now() - std::chrono::hours(1));
  r = run("tables cache --dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 ladder,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("G4_Fe"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("9.9 - 10.1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("other format"), std::string::npos) << r.output;
  r = run("tables prune --dry-run --dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("would remove 2 files"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(entry));
  r = run("tables prune --dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("removed 2 files"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(entry));
  EXPECT_FALSE(fs::exists(partial));
  r = run("tables prune --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("current tables stay"), std::string::npos) << r.output;
  fs::remove_all(dir.parent_path());
}

// `fastmu run --p-max auto` (the default) with a row above what any table
// reaches: refused while the file is read for its top, before a table is
// built (none in the cache folder afterwards), in the transport's words.
TEST(TablesCli, RunRefusesARowAboveEveryTableBeforeBuilding) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const auto dir = temp_dir() / "check-first";
  fs::create_directories(dir / "cache");
  std::ofstream(dir / "slab.json")
      << R"({"world": {"min": [-5, -5, -1], "max": [5, 5, 3], "material": "G4_AIR"},
             "volumes": [{"name": "iron", "shape": "box", "min": [-5, -5, 0],
                          "max": [5, 5, 1], "material": "G4_Fe"}],
             "sensitive_planes": [{"z": 2.5, "x": [-2, 2], "y": [-2, 2]}]})";
  std::ofstream(dir / "muons.csv") << "px,py,pz,x,y,z,pdg,weight\n0,0,20,0,0,0,13,1\n"
                                      "0,0,1e20,0,0,0,-13,1\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r =
      run_with("FASTMU_CACHE=" + (dir / "cache").string() + " ",
               "run --geometry " + (dir / "slab.json").string() + " --muons " +
                   (dir / "muons.csv").string() + " --out " + (dir / "hits.csv").string());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.status, 0);
  EXPECT_NE(
      r.output.find("muons.csv line 3, |p| = 1e+20 GeV/c is above the tables' top 100000 GeV/c"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("building tables"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir / "cache"));
  EXPECT_FALSE(fs::exists(dir / "hits.csv"));
  EXPECT_LT(secs, 2.0);
  fs::remove_all(dir);
}

// `mpirun -np 2 fastmu tables build`: each rank builds its share of the
// momentum bins, rank 0 writes the one-process file, byte for byte (the same
// SOURCE_DATE_EPOCH stamps the same creation time on both).
TEST(TablesCli, TwoMpiRanksBuildTheOneProcessFile) {
#ifndef FASTMU_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  if (!fs::exists(FASTMU_MPIEXEC)) GTEST_SKIP() << FASTMU_MPIEXEC << " not found";
  // OpenMPI does not free all it allocates before exit: LeakSanitizer (the
  // sanitizer build) would fail the ranks, so leak checks are off for them.
  const std::string mpirun = "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" " +
                             std::string(FASTMU_MPIEXEC) +
                             " -np 2 --oversubscribe --allow-run-as-root ";
  const auto dir = temp_dir();
  const std::string fixed_time = "SOURCE_DATE_EPOCH=1795000000 ";
  // 5 bins over 2 ranks (3 + 2); all cores in one process, 1 thread per rank.
  const std::string build =
      "tables build --material G4_Fe --step 0.02 --p-min 1 --p-max 50 --p-bins 5 --hist-bins 20 "
      "--samples-per-bin 2000 --seed 7 --out ";
  const auto one = dir / "one.h5", two = dir / "two.h5";
  auto r = run_with(fixed_time, build + one.string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_with(fixed_time + mpirun, build + two.string() + " --threads 1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(2 ranks x 1 threads)"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(two), slurp(one));
  const auto t = fastmu::load_table(two, 0.02);
  EXPECT_EQ(t.n_pbins(), 5);
  EXPECT_EQ(t.metadata().seed, 7u);
  for (auto s : t.data().samples_per_bin) EXPECT_EQ(s, 2000u);
  // Adaptive binning: every rank runs the pilot, the same edges everywhere.
  const std::string adaptive =
      "tables build --material G4_Pb --step 0.05 --binning adaptive --p-min 1 --p-max 20 "
      "--epsilon 0.3 --pilot-probes 20 --pilot-muons 300 --hist-bins 16 --samples-per-bin 1000 "
      "--out ";
  r = run_with(fixed_time, adaptive + (dir / "a1.h5").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_with(fixed_time + mpirun, adaptive + (dir / "a2.h5").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(slurp(dir / "a2.h5"), slurp(dir / "a1.h5"));

  // Momentum bin 1 (rank 1's) has no samples in the file: one error line
  // from rank 0, a non-zero exit, no output file.
  r = run("physics sample --material G4_Fe --p 10 --step 0.02 --n 300 --out " +
          (dir / "p10.h5").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto bad = dir / "bad.h5";
  r = run_with(mpirun,
               "tables build --material G4_Fe --step 0.02 --p-min 9.95 --p-max 10.1 "
               "--p-bins 2 --hist-bins 10 --from-samples " +
                   (dir / "p10.h5").string() + " --out " + bad.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("momentum bin 1 "), std::string::npos) << r.output;
  const auto first = r.output.find("fastmu: error:");
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("fastmu: error:", first + 1), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(bad));
  fs::remove_all(dir);
#endif
}

// A `fastmu run` whose --p-max reaches above the cached ladder extends it in
// place: the cache's own files are not the command's inputs, so the longer
// file replaces the shorter one (and a lower --p-max then builds nothing).
TEST(TablesCli, RunExtendsTheCachedLadderInPlace) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const auto dir = temp_dir() / "extend";
  fs::create_directories(dir);
  const auto muons = dir / "mu.csv";
  std::ofstream(muons) << "px,py,pz,x,y,z,pdg\n0,0,2,0,0,-0.5,13\n";
  const auto geometry =
      fs::path(FASTMU_TEST_DATA_DIR) / ".." / ".." / "examples" / "iron_block.json";
  const std::string env =
      "FASTMU_CACHE='" + (dir / "cache").string() + "' FASTMU_CACHE_SAMPLES=500 ";
  const std::string args = "run --geometry '" + geometry.string() + "' --muons '" + muons.string() +
                           "' --out '" + (dir / "out.csv").string() +
                           "' --backend cpu --long-steps 0 --p-max ";
  auto r = run_with(env, args + "3");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_with(env, args + "8");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("extending"), std::string::npos) << r.output;
  r = run_with(env, args + "6");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("building"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("extending"), std::string::npos) << r.output;
  fs::remove_all(dir);
}
