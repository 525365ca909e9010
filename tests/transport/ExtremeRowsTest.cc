// Any finite muon row, through `fastmu run` on the CPU (CSV and HDF5): each
// ends in bounded time with an output whose rows carry a defined status and
// no NaN, or is refused with one line naming the row, leaving no output.
// Momenta above the tables' top are refused by default and end with status 5
// (above_tables) under --above-tables stop: never the top bin's loss.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "TestTables.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/io/Hdf5.hh"

namespace fastmu {
namespace {

struct ExtremeRow {
  const char* name;
  double px, py, pz, x, y, z;
  bool above_top;  // |p| above the given table's top (400 GeV/c)
  int status;      // the status it gets when transported (-1: above_top)
};

// One ordinary muon first (row 0), then the extreme one (row 1).
const std::vector<ExtremeRow>& rows() {
  static const std::vector<ExtremeRow> r = {
      {"pz 1e20", 0, 0, 1e20, 0, 0, -0.5, true, -1},
      {"pz 1e30", 0, 0, 1e30, 0, 0, -0.5, true, -1},
      {"pz 3e38", 0, 0, 3e38, 0, 0, -0.5, true, -1},
      {"pz -1e25", 0, 0, -1e25, 0, 0, -0.5, true, -1},
      {"px 1e30", 1e30, 0, 50, 0, 0, -0.5, true, -1},
      {"pz 1e15", 0, 0, 1e15, 0, 0, -0.5, true, -1},
      {"pz 1e4", 0, 0, 1e4, 0, 0, -0.5, true, -1},
      {"x 1e30", 0, 0, 50, 1e30, 0, -0.5, false, 2},
      {"z -1e30", 0, 0, 50, 0, 0, -1e30, false, 2},
      {"pz 1e-30", 0, 0, 1e-30, 0, 0, -0.5, false, 1},
      {"pz 1e-40", 0, 0, 1e-40, 0, 0, -0.5, false, 1},
      {"px 3e38 py 3e38", 3e38, 3e38, 0, 0, 0, -0.5, true, -1},
  };
  return r;
}

// One folder per format: ctest runs the two formats at once.
std::filesystem::path work_dir(const std::string& ext) {
  const auto d = std::filesystem::temp_directory_path() / ("fastmu_extreme_rows_test" + ext);
  std::filesystem::create_directories(d);
  return d;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `fastmu run` under a time limit: a hang fails the test instead of
// holding it up (timeout's exit status 124).
int run_limited(const std::string& args, const std::filesystem::path& log) {
  const std::string cmd = "timeout 60 " + std::string(FASTMU_BINARY) + " run " + args + " > '" +
                          log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
}

void write_csv(const std::filesystem::path& path, const ExtremeRow& e) {
  std::ofstream out(path);
  out.precision(17);
  out << "px,py,pz,x,y,z,pdg,weight\n0,0,50,0,0,-0.5,13,1\n"
      << e.px << ',' << e.py << ',' << e.pz << ',' << e.x << ',' << e.y << ',' << e.z << ",13,1\n";
}

void write_hdf5(const std::filesystem::path& path, const ExtremeRow& e) {
  const double data[2][8] = {{0, 0, 50, 0, 0, -0.5, 13, 1},
                             {e.px, e.py, e.pz, e.x, e.y, e.z, 13, 1}};
  using io::h5::Handle;
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  const hsize_t dims[2] = {2, 8};
  Handle space(H5Screate_simple(2, dims, nullptr));
  Handle set(H5Dcreate2(file.get(), "muons", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT));
  ASSERT_GE(H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
}

class ExtremeRows : public ::testing::TestWithParam<const char*> {};

TEST_P(ExtremeRows, EndInBoundedTimeWithAStatusOrOneLine) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const std::string ext = GetParam();
  const auto dir = work_dir(ext);
  // The top a refusal names: what any table reaches (kTopMomentum) for a row
  // above it, refused before the tables are looked up; else the given
  // table's last momentum edge.
  const auto top_for = [](const ExtremeRow& e) {
    const double p = std::hypot(e.px, e.py, e.pz);
    const double top = p > limits::kTopMomentum ? limits::kTopMomentum
                                                : test::test_table("G4_Fe")->data().p_edges.back();
    return fmt::format("above the tables' top {:g} GeV/c", top);
  };
  const auto table = test::test_table_cache().path_for(builtin_materials().find("G4_Fe"), 0.02);
  const auto geometry =
      std::filesystem::path(FASTMU_TEST_DATA_DIR) / ".." / ".." / "examples" / "iron_block.json";
  for (const ExtremeRow& e : rows()) {
    SCOPED_TRACE(e.name);
    const auto in = dir / ("in" + ext);
    const auto out = dir / ("out" + ext);
    if (ext == ".csv") {
      write_csv(in, e);
    } else {
      write_hdf5(in, e);
    }
    const std::string base = "--geometry '" + geometry.string() + "' --muons '" + in.string() +
                             "' --out '" + out.string() + "' --tables '" + table.string() +
                             "' --long-steps 0 --backend cpu --all";
    for (const char* policy : {"refuse", "stop"}) {
      SCOPED_TRACE(policy);
      std::filesystem::remove(out);
      const int rc = run_limited(base + " --above-tables " + policy, dir / "log.txt");
      const std::string log = slurp(dir / "log.txt");
      ASSERT_NE(rc, 124) << "hung: " << log;
      if (e.above_top && std::string(policy) == "refuse") {
        EXPECT_EQ(rc, 1) << log;
        // One line naming the file, the row and the tables' range.
        EXPECT_NE(log.find(ext == ".csv" ? "line 3" : "row 1"), std::string::npos) << log;
        EXPECT_NE(log.find(top_for(e)), std::string::npos) << log;
        EXPECT_FALSE(std::filesystem::exists(out));
        continue;
      }
      ASSERT_EQ(rc, 0) << log;
      const io::ColumnTable t = io::read_table(out);
      ASSERT_EQ(t.rows(), 2u);
      for (std::size_t r = 0; r < t.rows(); ++r) {
        for (std::size_t c = 0; c < t.columns.size(); ++c) EXPECT_TRUE(std::isfinite(t.at(r, c)));
      }
      const int status = static_cast<int>(t.at(1, t.require("status", "out")));
      EXPECT_EQ(status, e.above_top ? 5 : e.status);
      EXPECT_EQ(t.at(0, t.require("status", "out")), 0.0);  // the ordinary muon is unaffected
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ExtremeRows, ::testing::Values(".csv", ".h5"),
                         [](const auto& info) { return std::string(info.param + 1); });

}  // namespace
}  // namespace fastmu
