#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"
#include "SyntheticSamples.hh"

using namespace fastmu;
namespace fs = std::filesystem;

namespace {

struct EnvGuard {
  std::string name;
  std::string old;
  bool had;
  EnvGuard(const char* n, const char* value) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (had) old = o;
    if (value) setenv(n, value, 1); else unsetenv(n);
  }
  ~EnvGuard() {
    if (had) setenv(name.c_str(), old.c_str(), 1); else unsetenv(name.c_str());
  }
};

fs::path temp_dir(const std::string& tag) {
  auto p = fs::temp_directory_path() / ("fastmu_cache_test_" + tag + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

}  // namespace

TEST(TableCache, FileNamesAndFolders) {
  EXPECT_EQ(TableCache::file_name("G4_Fe", 0.02), "G4_Fe_step20mm_v1.h5");
  EXPECT_EQ(TableCache::file_name("G4_STAINLESS-STEEL", 0.0025), "G4_STAINLESS-STEEL_step2.5mm_v1.h5");
  EXPECT_EQ(TableCache::file_name("my steel/1", 0.1), "my_steel_1_step100mm_v1.h5");
  {
    EnvGuard a("FASTMU_CACHE", "/some/where");
    EXPECT_EQ(TableCache::default_dir(), fs::path("/some/where"));
  }
  {
    EnvGuard a("FASTMU_CACHE", nullptr);
    EnvGuard b("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(TableCache::default_dir(), fs::path("/xdg/fastmu"));
  }
  {
    EnvGuard a("FASTMU_CACHE", nullptr);
    EnvGuard b("XDG_CACHE_HOME", nullptr);
    EnvGuard c("HOME", "/home/me");
    EXPECT_EQ(TableCache::default_dir(), fs::path("/home/me/.cache/fastmu"));
  }
  {
    EnvGuard a("FASTMU_CACHE_SAMPLES", "2500");
    EXPECT_EQ(TableCache::default_samples_per_bin(), 2500u);
  }
  {
    EnvGuard a("FASTMU_CACHE_SAMPLES", "many");
    EXPECT_THROW(TableCache::default_samples_per_bin(), Error);
  }
  {
    EnvGuard a("FASTMU_CACHE_SAMPLES", nullptr);
    EXPECT_EQ(TableCache::default_samples_per_bin(), 1000000u);
  }
}

TEST(TableCache, FindsExistingTablesByMaterialAndStep) {
  const auto dir = temp_dir("find");
  fs::create_directories(dir);
  test::SyntheticSource source;
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 1000;
  o.hist_bins = 8;
  write_table_file(dir / TableCache::file_name("G4_Fe", 0.02),
                   build_table(test::synthetic_metadata(), o, source));
  TableCache cache(dir);
  Material fe;
  fe.name = "G4_Fe";
  const auto t = cache.get(fe, 0.02, false);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->n_pbins(), 2);
  EXPECT_EQ(cache.get(fe, 0.02, false).get(), t.get());  // memoised
  // A file under the right name but for another material is refused.
  Material cu;
  cu.name = "G4_Cu";
  fs::copy_file(dir / TableCache::file_name("G4_Fe", 0.02), dir / TableCache::file_name("G4_Cu", 0.02));
  EXPECT_THROW(cache.get(cu, 0.02, false), Error);
  fs::remove_all(dir);
}

// Builds a missing table with the detailed engine (tiny settings).
TEST(TableCache, BuildsMissingTablesWithTheEngine) {
  const auto dir = temp_dir("build");
  TableCache cache(dir);
  auto& o = cache.build_options();
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 500;
  o.hist_bins = 10;
  o.threads = 2;
  const Material& fe = builtin_materials().find("G4_Fe");
  const auto t = cache.get(fe, 0.02, false);
  ASSERT_TRUE(t);
  EXPECT_TRUE(fs::exists(dir / "G4_Fe_step20mm_v1.h5"));
  EXPECT_EQ(t->data().samples_per_bin[0], 500u);
  // 2 cm of iron at a few GeV/c: ionisation loss about 25-30 MeV.
  const double mean_dp = t->data().mean_loss[1] * t->data().p_centres[1];
  EXPECT_GT(mean_dp, 0.015);
  EXPECT_LT(mean_dp, 0.05);
  const TableParams again = load_table(dir / "G4_Fe_step20mm_v1.h5", 0.02);
  EXPECT_EQ(again.data().counts, t->data().counts);
  fs::remove_all(dir);
}
