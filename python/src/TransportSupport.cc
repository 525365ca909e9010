#include "TransportSupport.hh"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::python {

TableCache& table_cache(const std::optional<std::filesystem::path>& dir) {
  static std::mutex mutex;
  static std::map<std::filesystem::path, std::unique_ptr<TableCache>> caches;
  const std::filesystem::path key = dir ? *dir : TableCache::default_dir();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = caches[key];
  if (!slot) slot = std::make_unique<TableCache>(key);
  return *slot;
}

namespace {
// One cache object per folder, shared by every call: its top is set and
// used under this lock.
std::mutex top_mutex;
}  // namespace

TransportParams make_params(const GeometryHandle& geometry,
                            const std::vector<std::shared_ptr<TableParams>>& given,
                            const CacheChoice& cache, const StepOptions& options, double p_top) {
  TableSet set;
  for (const auto& t : given) {
    if (!t) throw Error("tables: None in the list of tables");
    const std::string& name = t->metadata().material;
    if (!set.emplace(name, t).second) throw Error("tables: two tables for material '" + name + "'");
  }
  if (!cache.enabled) {
    return make_transport_params(geometry.params, geometry.materials, set, nullptr, options);
  }
  std::lock_guard<std::mutex> lock(top_mutex);
  TableCache& c = table_cache(cache.dir);
  c.build_options().p_top = p_top;
  return make_transport_params(geometry.params, geometry.materials, set, &c, options);
}

double tables_top_for(double p_max, double highest) {
  if (p_max == 0) return std::clamp(highest, 1.0, kCacheTopMomentum);
  if (!(p_max >= 1.0 && p_max <= kCacheTopMomentum)) {
    throw Error(fmt::format("p_max: {} is neither 'auto' nor a momentum in [1, {:g}] GeV/c", p_max,
                            kCacheTopMomentum));
  }
  return p_max;
}

namespace {

struct ResidentKey {
  std::shared_ptr<const GeometryParams> geometry;  // held: its address stays unique
  std::vector<std::shared_ptr<TableParams>> tables;
  bool cache_enabled = true;
  std::optional<std::filesystem::path> cache_dir;
  StepOptions options;
  double p_top = 0;

  bool operator==(const ResidentKey& o) const {
    return geometry == o.geometry && tables == o.tables && cache_enabled == o.cache_enabled &&
           p_top == o.p_top && cache_dir == o.cache_dir && options.step == o.options.step &&
           options.p_kill == o.options.p_kill && options.max_steps == o.options.max_steps &&
           options.seed == o.options.seed && options.long_steps == o.options.long_steps &&
           options.decay == o.options.decay;
  }
};

struct ResidentEntry {
  ResidentKey key;
  std::shared_ptr<const TransportParams> params;
};

constexpr std::size_t kResidentEntries = 8;
std::mutex resident_mutex;
std::vector<ResidentEntry> resident;  // most recent last
std::uint64_t builds = 0;

}  // namespace

std::shared_ptr<const TransportParams> resident_params(
    const GeometryHandle& geometry, const std::vector<std::shared_ptr<TableParams>>& given,
    const CacheChoice& cache, const StepOptions& options, double p_top) {
  if (cache.enabled && p_top > 0) {
    // Tops within one bin of the grid get the same tables: the same parameters.
    std::lock_guard<std::mutex> lock(top_mutex);
    TableBuildOptions o = table_cache(cache.dir).build_options();
    o.p_top = p_top;
    p_top = table_top_momentum(o);
  }
  ResidentKey key{geometry.params, given, cache.enabled, cache.dir, options, p_top};
  {
    std::lock_guard<std::mutex> lock(resident_mutex);
    for (std::size_t i = 0; i < resident.size(); ++i) {
      if (resident[i].key == key) {
        ResidentEntry hit = std::move(resident[i]);
        resident.erase(resident.begin() + static_cast<std::ptrdiff_t>(i));
        resident.push_back(hit);
        return hit.params;
      }
    }
  }
  // Built outside the lock: a table build may take minutes.
  auto params =
      std::make_shared<const TransportParams>(make_params(geometry, given, cache, options, p_top));
  std::lock_guard<std::mutex> lock(resident_mutex);
  ++builds;
  if (resident.size() >= kResidentEntries) resident.erase(resident.begin());
  resident.push_back(ResidentEntry{std::move(key), params});
  return params;
}

std::uint64_t resident_params_builds() {
  std::lock_guard<std::mutex> lock(resident_mutex);
  return builds;
}

}  // namespace fastmu::python
