// The table cache: tables found by (material, step) in a folder, built with
// the detailed engine (and a progress bar) when missing.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "fastmu/tables/TableBuilder.hh"

namespace fastmu {

struct Material;

class TableCache {
 public:
  // The cache folder: $FASTMU_CACHE, else $XDG_CACHE_HOME/fastmu, else ~/.cache/fastmu.
  static std::filesystem::path default_dir();
  // Samples per momentum bin for tables the cache builds: $FASTMU_CACHE_SAMPLES
  // if set (tests and CI use a few thousand), else 1e6.
  static std::size_t default_samples_per_bin();
  // "<material>_step<mm>mm_v<format>.h5", e.g. "G4_Fe_step20mm_v1.h5".
  static std::string file_name(const std::string& material, double step_m);

  explicit TableCache(std::filesystem::path dir = default_dir());

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path path_for(const std::string& material, double step_m) const {
    return dir_ / file_name(material, step_m);
  }

  // The table of `material` for `step_m`: from memory, else from the cache
  // folder (validated; the step must match), else built with the engine using
  // `options` (their step_m is replaced by `step_m`; samples_per_bin is
  // default_samples_per_bin() unless set otherwise), written to the cache
  // folder, and returned. Thread-safe.
  std::shared_ptr<const TableParams> get(const Material& material, double step_m, bool progress = true);

  // Options the cache builds with (defaults: 95 log bins in [0.18, 400] GeV/c,
  // 100 x 100 histogram bins, default_samples_per_bin()).
  TableBuildOptions& build_options() { return options_; }

 private:
  std::filesystem::path dir_;
  TableBuildOptions options_;
  std::mutex mutex_;
  std::map<std::pair<std::string, double>, std::shared_ptr<const TableParams>> loaded_;
};

}  // namespace fastmu
