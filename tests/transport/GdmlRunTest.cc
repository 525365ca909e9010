// `fastmu run` gives bitwise the same output for a geometry in GDML (boxes,
// arb8, trd, own material, field, sidecar plane) as for the same in JSON,
// and `fastmu geometry export --gdml` writes a file that runs the same too.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "TestTables.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu {
namespace {

const std::filesystem::path kData = std::filesystem::path(FASTMU_TEST_DATA_DIR) / "gdml";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int fastmu(const std::string& args, const std::filesystem::path& log) {
  const std::string cmd =
      std::string(FASTMU_BINARY) + " " + args + " > '" + log.string() + "' 2>&1";
  return std::system(cmd.c_str());
}

TEST(GdmlRun, SameOutputAsJsonBitwise) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_gdml_run_test";
  std::filesystem::create_directories(dir);
  // Tables for the file's own steel and for iron, reduced statistics.
  MaterialLibrary lib;
  lib.add_custom("MySteel", 7.85, {{"Fe", 0.98}, {"C", 0.02}});
  test::test_table_cache().get(lib.find("MySteel"), 0.02, false);
  test::test_table("G4_Fe");
  const std::string tables =
      "--tables '" + test::test_table_cache().path_for(lib.find("MySteel"), 0.02).string() + "' '" +
      test::test_table_cache().path_for(builtin_materials().find("G4_Fe"), 0.02).string() + "'";
  std::ofstream mu(dir / "mu.csv");
  mu << "px,py,pz,x,y,z,pdg,weight\n";
  for (int i = 0; i < 40; ++i) {
    mu << 0.01 * (i % 7 - 3) << ",0," << 10 + i << ",0," << 0.02 * (i % 5 - 2) << ",-0.5,"
       << (i % 2 ? 13 : -13) << ",1\n";
  }
  mu.close();
  // The GDML geometry is copied with its sidecar; the export of the JSON
  // geometry is a third input.
  std::filesystem::copy_file(kData / "slab_wedge.gdml", dir / "g.gdml",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(kData / "slab_wedge.gdml.json", dir / "g.gdml.json",
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(fastmu("geometry export --geometry '" + (kData / "slab_wedge.json").string() +
                       "' --gdml '" + (dir / "exported.gdml").string() + "'",
                   dir / "log_export.txt"),
            0)
      << slurp(dir / "log_export.txt");
  std::string outputs[3];
  const std::filesystem::path geoms[3] = {kData / "slab_wedge.json", dir / "g.gdml",
                                          dir / "exported.gdml"};
  for (int k = 0; k < 3; ++k) {
    const auto out = dir / ("out" + std::to_string(k) + ".csv");
    std::filesystem::remove(out);
    const std::string args = "run --geometry '" + geoms[k].string() + "' --muons '" +
                             (dir / "mu.csv").string() + "' --out '" + out.string() + "' " +
                             tables + " --backend cpu --seed 11 --all";
    ASSERT_EQ(fastmu(args, dir / "log.txt"), 0) << slurp(dir / "log.txt");
    outputs[k] = slurp(out);
  }
  EXPECT_GT(outputs[0].size(), 40u * 10);
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
}

TEST(GdmlRun, BadGdmlGivesOneLineAndNoOutput) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_gdml_run_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.gdml")
      << "<?xml version=\"1.0\"?>\n<gdml>\n<solids>\n<tube name=\"t\"/>\n</solids>\n</gdml>\n";
  std::ofstream(dir / "mu1.csv") << "px,py,pz,x,y,z,pdg,weight\n0,0,10,0,0,0,13,1\n";
  const auto out = dir / "bad_out.csv";
  std::filesystem::remove(out);
  EXPECT_NE(fastmu("run --geometry '" + (dir / "bad.gdml").string() + "' --muons '" +
                       (dir / "mu1.csv").string() + "' --out '" + out.string() + "' --backend cpu",
                   dir / "log_bad.txt"),
            0);
  const std::string log = slurp(dir / "log_bad.txt");
  EXPECT_NE(log.find("bad.gdml:4: <tube>: unsupported solid"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace fastmu
