// The transport parameters a Python call runs with: the geometry, the tables
// given, the rest from the table cache (as `fastmu run` does).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "GeometryHandle.hh"
#include "fastmu/transport/TransportParams.hh"

namespace fastmu {
class TableCache;
}  // namespace fastmu

namespace fastmu::python {

// Where missing tables come from: the default cache folder, a given folder,
// or nowhere (a missing table is then an error).
struct CacheChoice {
  bool enabled = true;
  std::optional<std::filesystem::path> dir;  // default_dir() when empty
};

// Tables `given` first (a second table for one material is an error), then
// the cache up to `p_top` GeV/c (0: as far as the cache's grid, 100 TeV/c;
// as `fastmu run --p-max`), built with the detailed engine where the cached
// ones do not cover it. Call without the GIL.
TransportParams make_params(const GeometryHandle& geometry,
                            const std::vector<std::shared_ptr<TableParams>>& given,
                            const CacheChoice& cache, const StepOptions& options, double p_top = 0);

// make_params, kept resident per (geometry, tables, cache, step options):
// a repeated call (a loop, an optimiser) reuses the tables, the geometry
// views and their logs instead of rebuilding them. Holds the last few.
std::shared_ptr<const TransportParams> resident_params(
    const GeometryHandle& geometry, const std::vector<std::shared_ptr<TableParams>>& given,
    const CacheChoice& cache, const StepOptions& options, double p_top = 0);

// The top momentum of a transport's tables for `p_max` (0: auto, the
// muons' highest |p| `highest`), in [1, kCacheTopMomentum] GeV/c; throws
// fastmu::Error for a p_max outside that range.
double tables_top_for(double p_max, double highest);
// How many times resident_params has built (not reused) parameters.
std::uint64_t resident_params_builds();

// The process-wide cache object of a folder (tables stay loaded between calls).
TableCache& table_cache(const std::optional<std::filesystem::path>& dir);

}  // namespace fastmu::python
