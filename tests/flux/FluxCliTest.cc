// `fastmu flux` end to end (skipped while the fastmu executable has not been
// built): the muon file it writes, and one line for bad options.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Result {
  int status;
  std::string output;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(FASTMU_BINARY) + " " + args + " 2>&1";
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

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("fastmu_flux_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(FluxCli, WritesAMuonFile) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const auto dir = temp_dir();
  const auto out = dir / "mu.csv";
  const auto r = run("flux --n 1000 --seed 3 --area -1,1,-2,2 --z 5 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream f(out);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "px,py,pz,x,y,z,pdg,weight");
  int rows = 0;
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string cell;
    int col = 0;
    double pz = 0, z = 0;
    while (std::getline(ss, cell, ',')) {
      if (col == 2) pz = std::stod(cell);
      if (col == 5) z = std::stod(cell);
      ++col;
    }
    EXPECT_EQ(col, 8);
    EXPECT_LT(pz, 0);
    EXPECT_EQ(z, 5);
    ++rows;
  }
  EXPECT_EQ(rows, 1000);
  fs::remove_all(dir);
}

TEST(FluxCli, BadOptionsGiveOneLineAndNoFile) {
  if (!fs::exists(FASTMU_BINARY)) GTEST_SKIP() << "fastmu not built";
  const auto dir = temp_dir();
  const auto out = (dir / "mu.h5").string();
  for (const std::string args :
       {"--n 10 --e-min 0.05", "--n 10 --e-max 1e8", "--n 10 --zenith-max 89", "--n 10 --gamma -2",
        "--n 10 --area 1,0,0,1", "--n 10 --area 1,2,3", "--n 0", "--n 10 --bogus 1",
        "--n 10 --seed x"}) {
    const auto r = run("flux " + args + " --out " + out);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  const auto r = run("flux --n 10 --out " + (dir / "mu.txt").string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(".csv, .h5"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

}  // namespace
