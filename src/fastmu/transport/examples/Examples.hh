// The built-in example workloads of `fastmu run --example` and `fastmu bench`:
//  - iron-block: mu- of 50 GeV/c along +z through 10 m of iron (the paper's
//    first validation case and the Geant4 reference slab sample);
//  - ship: the SHiP-like active muon shield (specs/ship-like-muon-shield.md)
//    with its synthetic muon flux.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/MuonBatch.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/step/StepLengths.hh"

namespace fastmu {

inline constexpr double kIronBlockThickness = 10.0;  // m
inline constexpr double kIronBlockMomentum = 50.0;   // GeV/c

// World of vacuum around an iron slab 0 <= z <= 10 m (|x|, |y| <= 20 m) with a
// sensitive plane at its exit face z = 10 m covering the slab.
nlohmann::json iron_block_geometry_json();
// n mu- at the origin with p = (0, 0, 50 GeV/c).
MuonBatch iron_block_muons(std::size_t n);

// The synthetic SHiP flux: mu+ and mu- alternately (even id mu-), from the
// origin, |p| log-uniform in [1, 350] GeV/c, pt exponential with mean 0.6 GeV/c
// (capped at 0.99 |p|), azimuth uniform; keyed by (seed, id) as every draw.
MuonBatch ship_muons(std::size_t n, std::uint64_t seed);

// The geometry (parsed with the `materials` that it may extend) plus tables
// from `tables` first, then from `cache` for the rest (null: none). A
// material's step (StepLengths.hh) is its table's in `tables`, else
// `overrides`' or the geometry's "steps" entry (`overrides` first), else the
// mass-thickness criterion for the reference step options.step. With a
// cache, each material also gets its ladder of shorter tables.
TransportParams make_transport_params(std::shared_ptr<const GeometryParams> geometry,
                                      const MaterialLibrary& materials, const TableSet& tables,
                                      TableCache* cache, const StepOptions& options,
                                      const MaterialSteps& overrides = {});
// The tables make_transport_params asks `cache` for (each material's step,
// its ladder and its long steps), for TableCache::preload.
std::vector<TableCache::TableRequest> cache_tables_needed(
    const GeometryParams& geometry, const MaterialLibrary& materials, const TableSet& tables,
    const TableCache& cache, const StepOptions& options, const MaterialSteps& overrides = {});
// Same from a JSON document.
TransportParams make_transport_params(const nlohmann::json& geometry, const std::string& source,
                                      MaterialLibrary& materials, const TableSet& tables,
                                      TableCache* cache, const StepOptions& options,
                                      const MaterialSteps& overrides = {});

}  // namespace fastmu
