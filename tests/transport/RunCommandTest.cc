// `fastmu run` end to end: geometry JSON + muon CSV in, transport output out;
// bad input exits non-zero with one line and leaves no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "TestTables.hh"
#include "fastmu/io/ColumnTable.hh"

namespace fastmu {
namespace {

// One folder per test: ctest runs the tests of this file at once, and a
// shared log.txt would hold the other test's lines.
std::filesystem::path work_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto d = std::filesystem::temp_directory_path() / "fastmu_run_command_test" / info->name();
  std::filesystem::create_directories(d);
  return d;
}

int run(const std::string& args, const std::filesystem::path& log) {
  const std::string cmd =
      std::string(FASTMU_BINARY) + " run " + args + " > '" + log.string() + "' 2>&1";
  return std::system(cmd.c_str());
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(RunCommand, TransportsMuonsThroughMagnetisedSlab) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir();
  const auto table = test::test_table_cache().path_for(builtin_materials().find("G4_Fe"), 0.02);
  test::test_table("G4_Fe");  // makes sure the file exists
  std::ofstream(dir / "geo.json") << R"({
    "world": {"min": [-5, -5, -1], "max": [5, 5, 12], "material": "vacuum"},
    "volumes": [{"name": "slab", "shape": "box", "min": [-5, -5, 0], "max": [5, 5, 3],
                 "material": "G4_Fe", "field": [0, 1.5, 0]}],
    "sensitive_planes": [{"z": 10.0, "x": [-1, 1], "y": [-1, 1]}]})";
  std::ofstream(dir / "mu.csv") << "px,py,pz,x,y,z,pdg,weight\n"
                                   "0,0,20,0,0,-0.5,13,1.5\n0,0,20,0,0,-0.5,-13,2\n"
                                   "0,0,2,0,0,-0.5,13,1\n";
  const auto out = dir / "out.csv";
  std::filesystem::remove(out);
  const std::string args = "--geometry '" + (dir / "geo.json").string() + "' --muons '" +
                           (dir / "mu.csv").string() + "' --out '" + out.string() + "' --tables '" +
                           table.string() + "' --backend cpu --seed 5";
  ASSERT_EQ(run(args, dir / "log.txt"), 0) << slurp(dir / "log.txt");
  const io::ColumnTable t = io::read_table(out);
  ASSERT_EQ(t.rows(), 2u);  // the 2 GeV/c muon stops in the iron; only status 0 is written
  const int x = t.require("x", "out"), z = t.require("z", "out"), w = t.require("weight", "out");
  EXPECT_EQ(t.at(0, z), 10.0);
  // 3 m of 1.5 T: mu- bends towards +x, mu+ towards -x (B along +y, p along +z).
  EXPECT_GT(t.at(0, x), 0.3);
  EXPECT_LT(t.at(1, x), -0.3);
  EXPECT_EQ(t.at(0, w), 1.5);
  EXPECT_EQ(t.at(1, w), 2.0);

  // --all writes every muon with its status.
  ASSERT_EQ(run(args + " --all", dir / "log.txt"), 0);
  const io::ColumnTable all = io::read_table(out);
  ASSERT_EQ(all.rows(), 3u);
  EXPECT_EQ(all.at(2, all.require("status", "out")), 1);
  EXPECT_EQ(all.at(2, all.require("pz", "out")), 0.0);

  // Bad input: one line naming file, line and column; no output file.
  std::ofstream(dir / "bad.csv") << "px,py,pz,x,y,z,pdg\n0,0,20,0,0,0,11\n";
  const auto bad_out = dir / "bad_out.csv";
  std::filesystem::remove(bad_out);
  const std::string bad = "--geometry '" + (dir / "geo.json").string() + "' --muons '" +
                          (dir / "bad.csv").string() + "' --out '" + bad_out.string() +
                          "' --tables '" + table.string() + "' --backend cpu";
  EXPECT_NE(run(bad, dir / "log.txt"), 0);
  const std::string msg = slurp(dir / "log.txt");
  EXPECT_NE(msg.find("bad.csv line 2, column pdg"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(bad_out));
}

// --decay on (the default) | off: 1 GeV/c muons over 5 km of vacuum (decay
// length 6.2 km) decay on the way with status 6, and not at all with off; a
// bad value is one line.
TEST(RunCommand, DecayOption) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir();
  std::ofstream(dir / "vacuum.json") << R"({
    "world": {"min": [-20, -20, -1], "max": [20, 20, 6000], "material": "vacuum"},
    "sensitive_planes": [{"z": 5000, "x": [-20, 20], "y": [-20, 20]}]})";
  {
    std::ofstream mu(dir / "beam.csv");
    mu << "px,py,pz,x,y,z,pdg\n";
    for (int i = 0; i < 400; ++i) mu << "0,0,1,0,0,0," << (i % 2 ? 13 : -13) << "\n";
  }
  const auto out = dir / "decay_out.csv";
  const std::string args = "--geometry '" + (dir / "vacuum.json").string() + "' --muons '" +
                           (dir / "beam.csv").string() + "' --out '" + out.string() +
                           "' --backend cpu --all";
  auto decayed = [&](const std::string& extra) {
    EXPECT_EQ(run(args + extra, dir / "log.txt"), 0) << slurp(dir / "log.txt");
    const io::ColumnTable t = io::read_table(out);
    const int status = t.require("status", "out");
    int k = 0;
    for (std::size_t i = 0; i < t.rows(); ++i) k += t.at(i, status) == 6;
    return k;
  };
  // Survival exp(-5000 / 6233) = 0.448: 221 of 400 decay, +- 10.
  const int on = decayed("");
  EXPECT_NEAR(on, 221, 40);
  EXPECT_EQ(decayed(" --decay on"), on);
  EXPECT_NE(slurp(dir / "log.txt").find(std::to_string(on) + " decayed"), std::string::npos);
  EXPECT_EQ(decayed(" --decay off"), 0);

  std::filesystem::remove(out);
  EXPECT_NE(run(args + " --decay maybe", dir / "log.txt"), 0);
  const std::string msg = slurp(dir / "log.txt");
  EXPECT_NE(msg.find("--decay"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), msg.size() - 1) << msg;  // one line
  EXPECT_FALSE(std::filesystem::exists(out));
}

// What a new user trips over: an output extension fastmu does not write,
// an --out-dir not made yet, a geometry without a plane to reach.
TEST(RunCommand, RefusesUnknownOutputExtension) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir();
  std::ofstream(dir / "geo.json") << R"({"world": {"min": [-1, -1, -1], "max": [1, 1, 1],
      "material": "vacuum"}, "volumes": []})";
  std::ofstream(dir / "mu.csv") << "px,py,pz,x,y,z,pdg\n0,0,20,0,0,-0.5,13\n";
  const auto out = dir / "hits.txt";
  std::filesystem::remove(out);
  const int rc = run("--geometry '" + (dir / "geo.json").string() + "' --muons '" +
                         (dir / "mu.csv").string() + "' --out '" + out.string() + "'",
                     dir / "log.txt");
  const std::string log = slurp(dir / "log.txt");
  EXPECT_NE(rc, 0) << log;
  EXPECT_NE(log.find("unknown extension '.txt'"), std::string::npos) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RunCommand, WarnsWithoutSensitivePlanes) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir();
  const auto table = test::test_table_cache().path_for(builtin_materials().find("G4_Fe"), 0.02);
  test::test_table("G4_Fe");
  std::ofstream(dir / "geo.json") << R"({
    "world": {"min": [-5, -5, -1], "max": [5, 5, 12], "material": "vacuum"},
    "volumes": [{"name": "slab", "shape": "box", "min": [-5, -5, 0], "max": [5, 5, 1],
                 "material": "G4_Fe"}]})";
  std::ofstream(dir / "mu.csv") << "px,py,pz,x,y,z,pdg\n0,0,20,0,0,-0.5,13\n";
  const std::string args = "--geometry '" + (dir / "geo.json").string() + "' --muons '" +
                           (dir / "mu.csv").string() + "' --out '" + (dir / "out.csv").string() +
                           "' --tables '" + table.string() + "' --backend cpu";
  ASSERT_EQ(run(args, dir / "log.txt"), 0) << slurp(dir / "log.txt");
  EXPECT_NE(slurp(dir / "log.txt").find("has no sensitive planes"), std::string::npos)
      << slurp(dir / "log.txt");
}

TEST(RunCommand, ExampleCreatesItsOutDir) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir() / "new" / "folder";
  std::filesystem::remove_all(work_dir() / "new");
  const int rc =
      run("--example iron-block --n 100 --n-detailed 0 --no-plot --backend cpu "
          "--out-dir '" +
              dir.string() + "'",
          work_dir() / "log.txt");
  ASSERT_EQ(rc, 0) << slurp(work_dir() / "log.txt");
  EXPECT_TRUE(std::filesystem::exists(dir / "iron_block_fast.f32"));
}

}  // namespace
}  // namespace fastmu
