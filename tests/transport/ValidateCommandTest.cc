// `fastmu validate` bad inputs: one line naming what is wrong, non-zero exit,
// nothing written; all checked before any transport or table build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fastmu {
namespace {

std::filesystem::path work_dir() {
  const auto d = std::filesystem::temp_directory_path() / "fastmu_validate_command_test";
  std::filesystem::create_directories(d);
  return d;
}

struct Outcome {
  int rc;
  std::string log;
};

Outcome validate(const std::string& args) {
  const auto log = work_dir() / "log.txt";
  const std::string cmd =
      std::string(FASTMU_BINARY) + " validate " + args + " > '" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  return {rc, {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()}};
}

void expect_one_line_error(const Outcome& o, const std::string& needle) {
  EXPECT_NE(o.rc, 0) << o.log;
  EXPECT_NE(o.log.find(needle), std::string::npos) << o.log;
  EXPECT_EQ(std::count(o.log.begin(), o.log.end(), '\n'), 1) << o.log;
}

TEST(ValidateCommand, BadInputsGiveOneLineErrors) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir();
  const auto out = dir / "report";
  std::filesystem::remove_all(out);
  std::ofstream(dir / "geo.json") << R"({"world": {"min": [-1, -1, -1], "max": [1, 1, 1],
      "material": "G4_AIR"}, "volumes": []})";
  std::ofstream(dir / "muons.csv") << "px,py,pz,x,y,z,pdg\n0,0,10,0,0,0,13\n";
  std::ofstream(dir / "bad.json") << "{not json";
  std::ofstream(dir / "tol_key.json") << R"({"ks_p": 0.01})";
  std::ofstream(dir / "tol_neg.json") << R"({"ks_p_min": -1})";
  const std::string g = " --geometry '" + (dir / "geo.json").string() + "'";
  const std::string m = " --muons '" + (dir / "muons.csv").string() + "'";
  const std::string o = " --out-dir '" + out.string() + "'";

  expect_one_line_error(validate(m + o), "--geometry and --muons are required");
  expect_one_line_error(validate("--example nope" + o), "--example: 'nope'");
  expect_one_line_error(validate("--example ship" + g + o), "excludes --geometry");
  expect_one_line_error(validate(g + m), "--out-dir is required");
  expect_one_line_error(validate(g + m + o + " --tolerances '" + (dir / "bad.json").string() + "'"),
                        "not JSON");
  expect_one_line_error(
      validate(g + m + o + " --tolerances '" + (dir / "tol_key.json").string() + "'"),
      "unknown key 'ks_p'");
  expect_one_line_error(
      validate(g + m + o + " --tolerances '" + (dir / "tol_neg.json").string() + "'"),
      "'ks_p_min' must be a number >= 0");
  expect_one_line_error(validate(g + m + o + " --max-steps 0"), "--max-steps");
  expect_one_line_error(validate(" --geometry '" + (dir / "bad.json").string() + "'" + m + o),
                        "not JSON");
  EXPECT_FALSE(std::filesystem::exists(out / "summary.md"));
  EXPECT_FALSE(std::filesystem::exists(out / "fast.csv"));
}

}  // namespace
}  // namespace fastmu
