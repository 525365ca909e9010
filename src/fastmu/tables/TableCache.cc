#include "fastmu/tables/TableCache.hh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/TableFile.hh"

namespace fastmu {

std::filesystem::path TableCache::default_dir() {
  if (const char* d = std::getenv("FASTMU_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "fastmu";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "fastmu";
  return std::filesystem::temp_directory_path() / "fastmu-cache";
}

std::size_t TableCache::default_samples_per_bin() {
  const char* s = std::getenv("FASTMU_CACHE_SAMPLES");
  if (!s || !*s) return 1'000'000;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= 1) || v > 1e10) {
    throw Error(std::string("environment variable FASTMU_CACHE_SAMPLES='") + s +
                "' is not a positive number of samples");
  }
  return static_cast<std::size_t>(v);
}

std::string TableCache::file_name(const std::string& material, double step_m) {
  // Only characters that are safe in file names on every system.
  std::string safe = material;
  for (char& c : safe) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  }
  return fmt::format("{}_step{:g}mm_v{}.h5", safe, step_m * 1e3, kTableFormatVersion);
}

TableCache::TableCache(std::filesystem::path dir) : dir_(std::move(dir)) {
  options_.samples_per_bin = default_samples_per_bin();
}

std::shared_ptr<const TableParams> TableCache::get(const Material& material, double step_m,
                                                   bool progress) {
  if (!(step_m > 0) || !std::isfinite(step_m)) throw Error("table cache: step must be positive");
  std::lock_guard<std::mutex> lock(mutex_);
  const auto key = std::make_pair(material.name, step_m);
  if (auto it = loaded_.find(key); it != loaded_.end()) return it->second;

  const auto path = path_for(material.name, step_m);
  std::shared_ptr<const TableParams> table;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    table = std::make_shared<const TableParams>(load_table(path, step_m));
    if (table->metadata().material != material.name) {
      throw Error(path.string() + ": attribute material is '" + table->metadata().material +
                  "', expected '" + material.name + "'");
    }
  } else {
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw Error("table cache: cannot create folder '" + dir_.string() + "': " + ec.message());
    TableBuildOptions o = options_;
    o.step_m = step_m;
    if (progress) {
      std::fprintf(stderr, "fastmu: building tables for %s, step %g m -> %s\n", material.name.c_str(),
                   step_m, path.c_str());
    }
    table = std::make_shared<const TableParams>(build_table_with_engine(material, o, progress));
    write_table_file(path, *table);
  }
  loaded_.emplace(key, table);
  return table;
}

}  // namespace fastmu
