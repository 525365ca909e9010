// `fastmu validate`: bad inputs give one line naming what is wrong, a non-zero
// exit and nothing written, all checked before any transport or table build;
// a machine without matplotlib still gets the checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fastmu {
namespace {

// One folder per test: ctest runs the tests of this file at the same time.
std::filesystem::path work_dir() {
  const auto d = std::filesystem::temp_directory_path() / "fastmu_validate_command_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(d);
  return d;
}

struct Outcome {
  int rc;
  std::string log;
};

Outcome validate(const std::string& args, const std::string& env = "") {
  const auto log = work_dir() / "log.txt";
  const std::string cmd = env + " " + std::string(FASTMU_BINARY) + " validate " + args + " > '" +
                          log.string() + "' 2>&1";
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

// Without matplotlib the report skips its PNGs but still judges: an import
// error of the plotting once read as "checks failed".
TEST(ValidateCommand, JudgesWithoutMatplotlib) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const auto dir = work_dir() / "no_matplotlib";
  const auto out = dir / "report";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "shadow" / "matplotlib");
  std::ofstream(dir / "shadow" / "matplotlib" / "__init__.py")
      << "raise ImportError('matplotlib hidden by the test')\n";
  std::ofstream(dir / "geo.json") << R"({"world": {"min": [-1, -1, -1], "max": [1, 1, 1],
      "material": "G4_AIR"}, "volumes": []})";
  {
    std::ofstream m(dir / "muons.csv");
    m << "px,py,pz,x,y,z,pdg\n";
    for (int i = 0; i < 200; ++i) m << "0,0,10,0,0,0," << (i % 2 ? -13 : 13) << "\n";
  }
  const Outcome o =
      validate(" --geometry '" + (dir / "geo.json").string() + "' --muons '" +
                   (dir / "muons.csv").string() + "' --out-dir '" + out.string() + "'",
               "PYTHONPATH='" + (dir / "shadow").string() + "'");
  EXPECT_EQ(o.rc, 0) << o.log;
  EXPECT_NE(o.log.find("validate: all checks passed"), std::string::npos) << o.log;
  std::ifstream in(out / "summary.md");
  const std::string md{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(md.find("**PASSED**"), std::string::npos) << md;
  EXPECT_NE(md.find("Plots skipped: matplotlib is not installed"), std::string::npos) << md;
  EXPECT_FALSE(std::filesystem::exists(out / "status.png"));
}

// A folder whose python3 imports nothing (a venv or pyenv shim without NumPy).
std::filesystem::path python_without_numpy(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto python = dir / "python3";
  std::ofstream(python) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  return dir;
}

// The first python3 on PATH lacks NumPy, a later one has it: validate uses
// the later one and gives a verdict; none has it, or FASTMU_PYTHON does not:
// one line naming what is missing, before any transport.
TEST(ValidateCommand, FindsPythonWithNumpyOnPath) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  if (std::system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 has no NumPy";
  }
  const auto dir = work_dir();
  const auto shim = python_without_numpy(dir / "shim");
  const auto out = dir / "report";
  std::filesystem::remove_all(out);
  const std::string args = "--example iron-block --n 200 --out-dir '" + out.string() + "'";
  const std::string path = "PATH='" + shim.string() + ":/usr/bin:/bin'";
  const Outcome found = validate(args, path);
  EXPECT_NE(found.log.find("summary.md"), std::string::npos) << found.log;
  EXPECT_TRUE(std::filesystem::exists(out / "summary.json")) << found.log;

  std::filesystem::remove_all(out);
  const Outcome none = validate(args, "PATH='" + shim.string() + "'");
  expect_one_line_error(none, "no python3 on PATH imports numpy");
  EXPECT_NE(none.log.find((shim / "python3").string() + " lacks numpy"), std::string::npos)
      << none.log;
  const Outcome env = validate(args, path + " FASTMU_PYTHON=" + (shim / "python3").string());
  expect_one_line_error(env, "FASTMU_PYTHON");
  EXPECT_FALSE(std::filesystem::exists(out / "fast.csv"));  // refused before the transport
}

}  // namespace
}  // namespace fastmu
