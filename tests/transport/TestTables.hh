// Reduced-statistics tables for the transport tests, built once per test run
// with the detailed engine (2e4 samples per momentum bin) in a temporary
// cache folder, or taken from $FASTMU_CACHE when set.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"

namespace fastmu::test {

inline TableCache& test_table_cache() {
  static TableCache* cache = [] {
    const bool user_cache = std::getenv("FASTMU_CACHE") != nullptr;
    const std::filesystem::path dir =
        user_cache ? TableCache::default_dir()
                   : std::filesystem::temp_directory_path() / "fastmu_transport_test_cache";
    std::filesystem::create_directories(dir);
    auto* c = new TableCache(dir);  // lives until exit
    if (std::getenv("FASTMU_CACHE_SAMPLES") == nullptr) c->build_options().samples_per_bin = 20000;
    // The tests' muons stay below 400 GeV/c (those deep underground use
    // caches of their own): the bins above would only cost CI time.
    c->build_options().p_top = 400.0;
    return c;
  }();
  return *cache;
}

inline std::shared_ptr<const TableParams> test_table(const std::string& material) {
  return test_table_cache().get(builtin_materials().find(material), 0.02, false);
}

}  // namespace fastmu::test
