// What the cache folder holds (`fastmu tables list`) and its clean-up
// (`fastmu tables prune`): files made here from the synthetic source, keyed
// as the cache keys them, next to files of another engine version, an old
// key, a corrupt file and temporary files.
#include <gtest/gtest.h>

#include <chrono>

#include <fstream>

#include <unistd.h>

#include "SyntheticSamples.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/CacheListing.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"

using namespace fastmu;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path dir;
  explicit Folder(const std::string& tag)
      : dir(fs::temp_directory_path() / ("fastmu_listing_" + tag + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Folder() { fs::remove_all(dir); }
};

// Writes a tiny table for `step` keyed `key` where the cache would file it.
fs::path write_entry(const fs::path& dir, double step, const std::string& key) {
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 10;
  o.p_bins = 2;
  o.samples_per_bin = 200;
  o.hist_bins = 4;
  o.step_m = step;
  test::SyntheticSource source;
  TableMetadata m = test::synthetic_metadata();
  m.step_m = step;
  TableParams t = build_table(m, o, source);
  t.set_cache_key(key);
  const fs::path path = dir / TableCache::file_name("G4_Fe", step, key);
  write_table_file(path, t);
  return path;
}

std::vector<LadderRung> ladder() { return {{0.02, 0}, {0.01, 0}}; }

}  // namespace

TEST(CacheListing, GroupsLaddersAndSaysWhatThisVersionReads) {
  Folder f("list");
  const Material& fe = builtin_materials().find("G4_Fe");
  TableBuildOptions o;
  o.backend = "cpu";
  const auto lad = ladder();
  const fs::path a = write_entry(f.dir, 0.02, TableCache::key(fe, o, lad, 0));
  const fs::path b = write_entry(f.dir, 0.01, TableCache::key(fe, o, lad, 1));
  const fs::path c = write_entry(f.dir, 0.02, "material G4_Fe; fastmu 0.0.1 detailed engine x");
  const fs::path d =
      write_entry(f.dir, 0.04, TableCache::key(fe, o, lad, 0) + " bins 163 top 400; format 1");
  const fs::path bad = f.dir / "G4_Fe_step5mm_0123456789abcdef_v1.h5";
  std::ofstream(bad) << "not a table";
  std::ofstream(f.dir / "notes.txt") << "not the cache's";

  const std::vector<CacheEntry> entries = list_cache(f.dir);
  ASSERT_EQ(entries.size(), 4u);
  int current = 0, engine = 0, format = 0, unreadable = 0;
  for (const CacheEntry& e : entries) {
    switch (e.state) {
      case CacheEntryState::current:
        ++current;
        EXPECT_EQ(e.steps_m, (std::vector<double>{0.01, 0.02}));
        EXPECT_EQ(e.files.size(), 2u);
        EXPECT_NEAR(e.p_min, 1, 1e-12);
        EXPECT_NEAR(e.p_max, 10, 1e-12);
        EXPECT_EQ(e.bytes, fs::file_size(a) + fs::file_size(b));
        EXPECT_FALSE(e.created_utc.empty());
        break;
      case CacheEntryState::other_engine:
        ++engine;
        EXPECT_EQ(e.files, std::vector<fs::path>{c});
        break;
      case CacheEntryState::other_format:
        ++format;
        EXPECT_EQ(e.files, std::vector<fs::path>{d});
        break;
      case CacheEntryState::unreadable:
        ++unreadable;
        EXPECT_EQ(e.files, std::vector<fs::path>{bad});
        break;
    }
  }
  EXPECT_EQ(current + engine + format + unreadable, 4);
  EXPECT_EQ(current, 1);
  EXPECT_EQ(engine, 1);
  EXPECT_EQ(format, 1);
  EXPECT_EQ(unreadable, 1);
  EXPECT_TRUE(list_cache(f.dir / "absent").empty());
}

TEST(CacheListing, PruneRemovesWhatNoCurrentVersionReads) {
  Folder f("prune");
  const Material& fe = builtin_materials().find("G4_Fe");
  TableBuildOptions o;
  o.backend = "cpu";
  const fs::path keep = write_entry(f.dir, 0.02, TableCache::key(fe, o, ladder(), 0));
  const fs::path old = write_entry(f.dir, 0.01, "material G4_Fe; fastmu 0.0.1 detailed engine x");
  // A write whose process is gone, and one of this (running) process.
  const fs::path stale = f.dir / ("." + keep.filename().string() + ".part999999999");
  const fs::path live =
      f.dir / ("." + keep.filename().string() + ".part" + std::to_string(::getpid()));
  const fs::path fresh = f.dir / ("." + keep.filename().string() + ".part999999998");
  std::ofstream(stale) << "partial";
  std::ofstream(live) << "partial";
  std::ofstream(fresh) << "partial";
  // The gone process's file unwritten for an hour; the fresh one may be
  // another host's write in progress (the pid names a process of this host only).
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(1));
  std::ofstream(f.dir / "G4_Fe.lock") << "";

  const PruneResult dry = prune_cache(f.dir, true);
  EXPECT_EQ(dry.removed.size(), 2u);
  EXPECT_TRUE(fs::exists(old));
  EXPECT_TRUE(fs::exists(stale));

  const PruneResult r = prune_cache(f.dir);
  EXPECT_EQ(r.removed.size(), 2u);
  EXPECT_GT(r.bytes, 0u);
  EXPECT_FALSE(fs::exists(old));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(keep));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(f.dir / "G4_Fe.lock"));
  EXPECT_EQ(load_table(keep).metadata().cache_key, TableCache::key(fe, o, ladder(), 0));
  EXPECT_TRUE(prune_cache(f.dir).removed.empty());
}
