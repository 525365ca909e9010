#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "SyntheticSamples.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableBins.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"

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
    if (value) setenv(n, value, 1);
    else unsetenv(n);
  }
  ~EnvGuard() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

fs::path temp_dir(const std::string& tag) {
  auto p = fs::temp_directory_path() / ("fastmu_cache_test_" + tag + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// Tiny tables made from the synthetic source: two momentum bins, 8 x 8 cells.
void use_small_synthetic_options(TableBuildOptions& o) {
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 1000;
  o.hist_bins = 8;
}

// A fresh cache folder whose build options make tiny synthetic tables, and
// the material they are filed under.
struct SyntheticCache {
  fs::path dir;
  test::SyntheticSource source;
  TableCache cache;
  Material fe;
  explicit SyntheticCache(const std::string& tag) : dir(temp_dir(tag)), cache(dir) {
    fs::create_directories(dir);
    use_small_synthetic_options(cache.build_options());
    fe.name = "G4_Fe";
  }
  ~SyntheticCache() { fs::remove_all(dir); }
};

// What the transport samples (alias cells, mean losses) is the same in both.
void expect_same_sampling(const TableParams& a, const TableParams& b) {
  EXPECT_EQ(a.data().mean_loss, b.data().mean_loss);
  ASSERT_EQ(a.data().cells.size(), b.data().cells.size());
  for (std::size_t c = 0; c < a.data().cells.size(); ++c) {
    ASSERT_EQ(a.data().cells[c].threshold, b.data().cells[c].threshold) << c;
    ASSERT_EQ(a.data().cells[c].alias, b.data().cells[c].alias) << c;
  }
}

}  // namespace

TEST(TableCache, FileNamesAndFolders) {
  // 16 hex digits of SHA-256("k") = 8254c329a92850f6...
  EXPECT_EQ(TableCache::file_name("G4_Fe", 0.02, "k"), "G4_Fe_step20mm_8254c329a92850f6_v1.h5");
  EXPECT_EQ(TableCache::file_name("G4_STAINLESS-STEEL", 0.0025, "k"),
            "G4_STAINLESS-STEEL_step2.5mm_8254c329a92850f6_v1.h5");
  EXPECT_EQ(TableCache::file_name("my steel/1", 0.1, "k"),
            "my_steel_1_step100mm_8254c329a92850f6_v1.h5");
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

TEST(TableCache, FindsExistingTablesByKey) {
  SyntheticCache c("find");
  auto& [dir, source, cache, fe] = c;
  const TableBuildOptions& o = cache.build_options();
  TableParams made = build_table(test::synthetic_metadata(), o, source);
  made.set_cache_key(TableCache::key(fe, o));
  write_table_file(cache.path_for(fe, 0.02), made);
  const auto t = cache.get(fe, 0.02, false);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->n_pbins(), 2);
  EXPECT_EQ(t->metadata().cache_key, TableCache::key(fe, o));
  EXPECT_EQ(cache.get(fe, 0.02, false).get(), t.get());  // memoised
  // A file under the right name but for another material is refused.
  Material cu;
  cu.name = "G4_Cu";
  fs::copy_file(cache.path_for(fe, 0.02), cache.path_for(cu, 0.02));
  EXPECT_THROW(cache.get(cu, 0.02, false), Error);
}

// The cache loads its tables without the histograms (the transport samples
// the alias tables only); preload() loads several files at once and get()
// then returns the same tables from memory; a missing or stale file is left
// to get().
TEST(TableCache, PreloadsCurrentFilesWithoutHistograms) {
  SyntheticCache c("preload");
  auto& [dir, source, cache, fe] = c;
  const TableBuildOptions& o = cache.build_options();
  const std::vector<double> steps{0.02, 0.01, 0.005};
  std::vector<TableParams> made;
  for (const double s : steps) {
    TableBuildOptions k = o;
    k.step_m = s;
    TableMetadata m = test::synthetic_metadata();
    m.step_m = s;
    made.push_back(build_table(m, k, source));
    made.back().set_cache_key(TableCache::key(fe, k));
    write_table_file(cache.path_for(fe, s), made.back());
  }
  std::vector<TableCache::TableRequest> want;
  for (const double s : steps) want.push_back({&fe, s, 0.0});
  want.push_back({&fe, 0.04, 0.0});  // not in the folder: left to get()
  want.push_back({&fe, 0.02, 0.0});  // asked twice
  cache.preload(want);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto t = cache.get(fe, steps[i], false);
    EXPECT_FALSE(t->has_histogram());
    EXPECT_TRUE(made[i].has_histogram());
    expect_same_sampling(*t, made[i]);
    EXPECT_EQ(cache.get(fe, steps[i], false).get(), t.get());  // memoised by preload
  }
  // A table without its histograms is not written back.
  EXPECT_THROW(write_table_file(dir / "copy.h5", *cache.get(fe, 0.02, false)), Error);
  EXPECT_TRUE(load_table(cache.path_for(fe, 0.02)).has_histogram());
}

// The key changes with everything that makes a table.
TEST(TableCache, KeyCoversWhatMadeTheTable) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const TableBuildOptions base;
  const std::string k = TableCache::key(fe, base);
  EXPECT_NE(k.find("G4_Fe"), std::string::npos) << k;
  EXPECT_NE(k.find("detailed engine"), std::string::npos) << k;
  std::vector<TableBuildOptions> changed(8, base);
  changed[0].step_m = 0.05;
  changed[1].samples_per_bin = 2000;
  changed[2].p_bins = 40;
  changed[3].hist_bins = 50;
  changed[4].binning = MomentumBinning::uniform;
  changed[5].seed = 2;
  changed[6].charge = 1;
  changed[7].p_max = 100;
  for (const auto& o : changed) EXPECT_NE(TableCache::key(fe, o), k);
  Material denser = fe;
  denser.density_g_cm3 *= 1 + 1e-12;
  EXPECT_NE(TableCache::key(denser, base), k);
  Material other_i = fe;
  other_i.mean_excitation_ev += 1;
  EXPECT_NE(TableCache::key(other_i, base), k);
}

// A cached file whose stored key differs from the run's (here: made with
// fewer samples per bin, then copied under the run's name) is rebuilt, not used.
TEST(TableCache, RebuildsForeignEntries) {
  const auto dir = temp_dir("foreign");
  TableCache cache(dir);
  auto& o = cache.build_options();
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 300;
  o.hist_bins = 6;
  o.threads = 2;
  const Material& fe = builtin_materials().find("G4_Fe");
  const auto few = cache.get(fe, 0.02, false);
  const auto few_path = cache.path_for(fe, 0.02);
  o.samples_per_bin = 400;
  const auto path = cache.path_for(fe, 0.02);
  ASSERT_NE(path, few_path);
  fs::copy_file(few_path, path);
  TableCache fresh(dir);
  fresh.build_options() = o;
  const auto t = fresh.get(fe, 0.02, false);
  EXPECT_EQ(t->data().samples_per_bin[0], 400u);
  EXPECT_EQ(t->metadata().cache_key, TableCache::key(fe, [&] {
              TableBuildOptions k = o;
              k.step_m = 0.02;
              return k;
            }()));
  EXPECT_EQ(load_table(path, 0.02).data().samples_per_bin[0], 400u);  // rewritten
  EXPECT_EQ(few->data().samples_per_bin[0], 300u);
  fs::remove_all(dir);
}

// Two geometries that define a custom material of the same name differently
// get different tables.
TEST(TableCache, SameNameOtherDefinitionGetsItsOwnTable) {
  const auto dir = temp_dir("custom");
  TableCache cache(dir);
  auto& o = cache.build_options();
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 300;
  o.hist_bins = 6;
  o.threads = 2;
  MaterialLibrary first, second;
  const Material& a = first.add_custom("my_steel", 7.9, {{"Fe", 0.7}, {"Cr", 0.2}, {"Ni", 0.1}});
  const Material& b = second.add_custom("my_steel", 2.0, {{"Fe", 0.5}, {"C", 0.5}});
  const auto ta = cache.get(a, 0.02, false);
  const auto tb = cache.get(b, 0.02, false);
  EXPECT_NE(ta.get(), tb.get());
  EXPECT_NE(cache.path_for(a, 0.02), cache.path_for(b, 0.02));
  EXPECT_NE(ta->metadata().material_definition, tb->metadata().material_definition);
  // Less material per step: less loss.
  EXPECT_LT(tb->data().mean_loss[1], 0.5 * ta->data().mean_loss[1]);
  // Back to the first definition: its own table again, from the file.
  TableCache again(dir);
  again.build_options() = o;
  expect_same_sampling(*again.get(a, 0.02, false), *ta);
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
  EXPECT_TRUE(fs::exists(cache.path_for(fe, 0.02)));
  EXPECT_EQ(t->data().samples_per_bin[0], 500u);
  // 2 cm of iron at a few GeV/c: ionisation loss about 25-30 MeV.
  const double mean_dp = t->data().mean_loss[1] * t->data().p_centres[1];
  EXPECT_GT(mean_dp, 0.015);
  EXPECT_LT(mean_dp, 0.05);
  const TableParams again = load_table(cache.path_for(fe, 0.02), 0.02);
  EXPECT_EQ(again.data().counts, t->data().counts);
  fs::remove_all(dir);
}

namespace {

// Engine tables on the CPU, small enough for a test: 8 log bins in [1, 100]
// GeV/c, a precision goal that takes a few rounds, a ladder with shorter,
// longer and long steps (0.32 m is more than 8 d: histories of its own).
void use_small_engine_options(TableBuildOptions& o) {
  o.p_min = 1;
  o.p_max = 100;
  o.p_bins = 8;
  o.samples_per_bin = 1200;
  o.min_samples = 200;
  o.loss_precision = 0.02;
  o.hist_bins = 6;
  o.threads = 2;
  o.backend = "cpu";
}

const std::vector<LadderRung> kSmallLadder{{0.02, 0},  {0.01, 0},  {0.04, 5},
                                           {0.08, 10}, {0.16, 20}, {0.32, 40}};

void expect_same_bins(const TableParams& a, const TableParams& b) {
  const TableData &x = a.data(), &y = b.data();
  EXPECT_EQ(x.p_edges, y.p_edges);
  EXPECT_EQ(x.p_centres, y.p_centres);
  EXPECT_EQ(x.samples_per_bin, y.samples_per_bin);
  EXPECT_EQ(x.mean_loss, y.mean_loss);
  EXPECT_EQ(x.std_loss, y.std_loss);
  EXPECT_EQ(x.mean_kick, y.mean_kick);
  EXPECT_EQ(x.counts, y.counts);
  ASSERT_EQ(x.cells.size(), y.cells.size());
  for (std::size_t c = 0; c < x.cells.size(); ++c) {
    ASSERT_EQ(x.cells[c].threshold, y.cells[c].threshold) << c;
    ASSERT_EQ(x.cells[c].alias, y.cells[c].alias) << c;
  }
  ASSERT_EQ(x.axes.size(), y.axes.size());
  for (std::size_t i = 0; i < x.axes.size(); ++i) {
    EXPECT_EQ(x.axes[i].x_lo, y.axes[i].x_lo);
    EXPECT_EQ(x.axes[i].x_width, y.axes[i].x_width);
    EXPECT_EQ(x.axes[i].y_lo, y.axes[i].y_lo);
    EXPECT_EQ(x.axes[i].y_width, y.axes[i].y_width);
  }
}

}  // namespace

// A cached ladder covers every request below its top (nothing built, the
// tables cut to the request's top); a higher top builds only the missing
// bins, and the extended files equal a ladder built to that top at once,
// bin for bin and bit for bit (each bin samples its own random stream).
TEST(TableCache, ExtendsLaddersBinForBin) {
  const auto dir = temp_dir("extend"), once_dir = temp_dir("once");
  const Material& fe = builtin_materials().find("G4_Fe");
  {
    TableCache cache(dir);
    use_small_engine_options(cache.build_options());
    cache.build_options().p_top = 6;  // edges 1 .. 10 GeV/c: 4 bins
    const auto low = cache.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(cache.builds().ladders, 1u);
    EXPECT_EQ(cache.builds().bins, 4u);
    EXPECT_EQ(low[0]->n_pbins(), 4);
    EXPECT_NEAR(low[0]->data().p_edges.back(), 10, 1e-9);
    ASSERT_TRUE(low[2]);  // 0.04 m from the bin at 5.6 GeV/c
    EXPECT_EQ(low[2]->n_pbins(), 1);
    for (std::size_t k = 3; k < low.size(); ++k) EXPECT_FALSE(low[k]) << k;
    cache.build_options().p_top = 100;  // 4 more bins
    const auto high = cache.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(cache.builds().ladders, 2u);
    EXPECT_EQ(cache.builds().bins, 8u);
    for (const auto& t : high) ASSERT_TRUE(t);
    EXPECT_EQ(high[5]->n_pbins(), 1);  // 0.32 m from 56 GeV/c
  }
  {
    TableCache once(once_dir);
    use_small_engine_options(once.build_options());
    once.build_options().p_top = 100;
    once.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(once.builds().bins, 8u);
  }
  TableCache probe(dir);
  use_small_engine_options(probe.build_options());
  for (const LadderRung& r : kSmallLadder) {
    const auto name =
        TableCache::file_name(fe.name, r.step_m,
                              TableCache::key(fe, probe.build_options(), kSmallLadder,
                                              static_cast<std::size_t>(&r - kSmallLadder.data())));
    SCOPED_TRACE(name);
    ASSERT_TRUE(fs::exists(dir / name));
    expect_same_bins(load_table(dir / name, r.step_m), load_table(once_dir / name, r.step_m));
  }
  // Lower and higher tops within what is built: nothing built.
  for (const double top : {20.0, 100.0, 1.5}) {
    TableCache again(dir);
    use_small_engine_options(again.build_options());
    again.build_options().p_top = top;
    const auto got = again.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(again.builds().ladders, 0u) << top;
    const double want_top = top == 20 ? 31.6227766 : top == 100 ? 100 : 1.77827941;
    EXPECT_NEAR(got[0]->data().p_edges.back(), want_top, 1e-6) << top;
    EXPECT_FALSE(got[0]->has_histogram());
  }
  fs::remove_all(dir);
  fs::remove_all(once_dir);
}

// A run whose top lies below a cached ladder's reads the files' bins up to
// its top only (the same tables as cut from the whole ones, and the line that
// the ladder covers it); a higher top later in the same process reads the
// rest, building nothing.
TEST(TableCache, LowerTopsReadOnlyTheirBins) {
  const auto dir = temp_dir("lowtop");
  const Material& fe = builtin_materials().find("G4_Fe");
  std::vector<std::shared_ptr<const TableParams>> whole;
  {
    TableCache maker(dir);
    use_small_engine_options(maker.build_options());
    whole = maker.get_ladder(fe, kSmallLadder, false);
  }
  TableCache cache(dir);
  use_small_engine_options(cache.build_options());
  cache.build_options().p_top = 6;  // 4 of the 8 bins
  testing::internal::CaptureStderr();
  const auto low = cache.get_ladder(fe, kSmallLadder, true);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("G4_Fe ladder to 10 GeV/c covered by cached ladder to 100 GeV/c"),
            std::string::npos)
      << said;
  EXPECT_EQ(low[0]->n_pbins(), 4);
  expect_same_sampling(*low[0], *first_table_bins(whole[0], 4));
  ASSERT_TRUE(low[2]);
  expect_same_sampling(*low[2], *first_table_bins(whole[2], 1));
  cache.build_options().p_top = 100;
  const auto high = cache.get_ladder(fe, kSmallLadder, false);
  EXPECT_EQ(cache.builds().ladders, 0u);
  for (std::size_t k = 0; k < high.size(); ++k) {
    ASSERT_TRUE(high[k]) << k;
    expect_same_sampling(*high[k], *whole[k]);
  }
  fs::remove_all(dir);
}

// Two processes asking for the same missing ladder at once: one builds it,
// the other waits on the entry's lock and then finds it covered (two caches
// in two threads lock as two processes do).
TEST(TableCache, SecondProcessWaitsForTheFirstBuild) {
  const auto dir = temp_dir("lock");
  const Material& fe = builtin_materials().find("G4_Fe");
  TableCache a(dir), b(dir);
  for (TableCache* c : {&a, &b}) {
    use_small_engine_options(c->build_options());
    c->build_options().p_top = 6;
    c->build_options().threads = 1;
  }
  std::vector<std::shared_ptr<const TableParams>> ta, tb;
  std::thread other([&] { tb = b.get_ladder(fe, kSmallLadder, false); });
  ta = a.get_ladder(fe, kSmallLadder, false);
  other.join();
  EXPECT_EQ(a.builds().ladders + b.builds().ladders, 1u);
  expect_same_sampling(*ta[0], *tb[0]);
  fs::remove_all(dir);
}

// A file made before tops left the key (its key names the top) under the
// name of a current entry is never read as current: the ladder is built.
TEST(TableCache, OldKeysWithTheTopAreNotRead) {
  const auto dir = temp_dir("oldkey");
  fs::create_directories(dir);
  const Material& fe = builtin_materials().find("G4_Fe");
  TableCache cache(dir);
  TableBuildOptions& o = cache.build_options();
  use_small_synthetic_options(o);
  o.backend = "cpu";
  o.samples_per_bin = 200;
  o.threads = 2;
  test::SyntheticSource source;
  TableParams made = build_table(test::synthetic_metadata(), o, source);
  TableBuildOptions k = o;
  k.step_m = 0.02;
  made.set_cache_key(TableCache::key(fe, k) + " top 10");
  write_table_file(cache.path_for(fe, 0.02), made);
  const auto t = cache.get(fe, 0.02, false);
  EXPECT_EQ(cache.builds().ladders, 1u);
  EXPECT_EQ(t->metadata().cache_key, TableCache::key(fe, k));
  EXPECT_EQ(load_table(cache.path_for(fe, 0.02)).metadata().cache_key, TableCache::key(fe, k));
  fs::remove_all(dir);
}

// Tables shipped with fastmu serve where the cache folder lacks them, read
// in place (nothing written to the cache): only those that carry the key
// the cache would give a build of its own and hold the whole grid.
TEST(TableCache, ShippedTablesServeWhereTheCacheLacksThem) {
  const auto shipped = temp_dir("shipped"), partial = temp_dir("partial"), dir = temp_dir("user");
  const Material& fe = builtin_materials().find("G4_Fe");
  std::vector<std::shared_ptr<const TableParams>> made;
  {
    TableCache maker(shipped, {});
    use_small_engine_options(maker.build_options());
    made = maker.get_ladder(fe, kSmallLadder, false);
    TableCache low(partial, {});
    use_small_engine_options(low.build_options());
    low.build_options().p_top = 6;
    low.get_ladder(fe, kSmallLadder, false);
  }
  for (const double top : {100.0, 6.0}) {
    TableCache cache(dir, shipped);
    use_small_engine_options(cache.build_options());
    cache.build_options().p_top = top;
    cache.build_options().threads = 1;
    const auto got = cache.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(cache.builds().ladders, 0u) << top;
    EXPECT_EQ(cache.builds().shipped, top == 100 ? kSmallLadder.size() : 3u) << top;
    if (top == 100) {
      for (std::size_t k = 0; k < got.size(); ++k) expect_same_sampling(*got[k], *made[k]);
    } else {
      EXPECT_EQ(got[0]->n_pbins(), 4);  // cut to the request's top, as from the cache
    }
    EXPECT_FALSE(fs::exists(dir) && !fs::is_empty(dir)) << "the cache folder stays empty";
  }
  // Other settings (a seed) or a file short of the grid's top: built instead.
  {
    TableCache cache(dir, shipped);
    use_small_engine_options(cache.build_options());
    cache.build_options().seed = 7;
    cache.build_options().p_top = 6;
    cache.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(cache.builds().ladders, 1u);
    EXPECT_EQ(cache.builds().shipped, 0u);
  }
  fs::remove_all(dir);
  {
    TableCache cache(dir, partial);
    use_small_engine_options(cache.build_options());
    cache.build_options().p_top = 6;
    cache.get_ladder(fe, kSmallLadder, false);
    EXPECT_EQ(cache.builds().ladders, 1u);
    EXPECT_EQ(cache.builds().shipped, 0u);
  }
  for (const auto& d : {shipped, partial, dir}) fs::remove_all(d);
}
