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
// the cache, built with the detailed engine when missing. Call without the GIL.
TransportParams make_params(const GeometryHandle& geometry,
                            const std::vector<std::shared_ptr<TableParams>>& given,
                            const CacheChoice& cache, const StepOptions& options);

// make_params, kept resident per (geometry, tables, cache, step options):
// a repeated call (a loop, an optimiser) reuses the tables, the geometry
// views and their logs instead of rebuilding them. Holds the last few.
std::shared_ptr<const TransportParams> resident_params(
    const GeometryHandle& geometry, const std::vector<std::shared_ptr<TableParams>>& given,
    const CacheChoice& cache, const StepOptions& options);
// How many times resident_params has built (not reused) parameters.
std::uint64_t resident_params_builds();

// The process-wide cache object of a folder (tables stay loaded between calls).
TableCache& table_cache(const std::optional<std::filesystem::path>& dir);

}  // namespace fastmu::python
