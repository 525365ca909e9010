#include "TransportSupport.hh"

#include <map>
#include <mutex>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Examples.hh"

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

TransportParams make_params(const GeometryHandle& geometry,
                            const std::vector<std::shared_ptr<TableParams>>& given,
                            const CacheChoice& cache, const StepOptions& options) {
  TableSet set;
  for (const auto& t : given) {
    if (!t) throw Error("tables: None in the list of tables");
    const std::string& name = t->metadata().material;
    if (!set.emplace(name, t).second) throw Error("tables: two tables for material '" + name + "'");
  }
  TableCache* c = cache.enabled ? &table_cache(cache.dir) : nullptr;
  return make_transport_params(geometry.params, geometry.materials, set, c, options);
}

}  // namespace fastmu::python
