// `fastmu tables build | info` end to end (skipped while the fastmu
// executable has not been built).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
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
