// One laboratory's answer, as `fastmu underground` and fastmu.underground()
// give it: the overburden resolved, the material's slant-depth table (from
// the cache or built), the site's fluxes and distributions, the vertical
// intensity at a list of depths, and what the model assumes, as JSON.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/underground/Overburden.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"
#include "fastmu/underground/TerrainSite.hh"

namespace fastmu {
class TableCache;
}

namespace fastmu::underground {

// A laboratory under a terrain instead of a flat depth: the height map (as
// the geometry's `terrain` reads it) over its x-y rectangle, the lab below
// the surface; the rock (overburden.rock, its density) fills all below it.
struct TerrainRequest {
  std::string height_map;  // CSV or HDF5 file; empty: a flat overburden
  std::string dataset = "height";
  std::array<double, 2> x{0, 0}, y{0, 0};  // the map's rectangle [m]
  std::array<double, 3> lab{0, 0, 0};      // [m], in the map's coordinates
};

struct UndergroundRequest {
  OverburdenSpec overburden;
  TerrainRequest terrain;
  SiteOptions site;  // its depth_mwe comes from the overburden
  SlantTableOptions table;
  std::string backend = "auto";  // auto | cpu | cuda
  int threads = 0;               // CPU threads (0: all)
  bool progress = true;
};

struct DepthIntensityRow {
  double depth_mwe = 0, intensity = 0, error = 0;  // cm^-2 s^-1 sr^-1
};

struct UndergroundAnswer {
  Overburden overburden;
  std::shared_ptr<const SlantDepthTable> table;
  std::string table_file;
  std::string backend;
  double table_seconds = 0;                // loading or building the slant-depth table
  double table_build_seconds = 0;          // of which building (0: from the cache)
  double site_seconds = 0;                 // the site's sums
  std::optional<SiteFlux> site;            // when a depth (or a terrain) was given
  std::optional<TerrainSiteFlux> terrain;  // under a terrain: its site and what is not counted
  std::vector<DepthIntensityRow> depths;
};

// Checks every option (before any table is loaded or built), then computes.
UndergroundAnswer compute_underground(const UndergroundRequest& request, MaterialLibrary& materials,
                                      TableCache& cache);

// The answer with its units, the model's assumptions and the timings.
nlohmann::json underground_json(const UndergroundRequest& request, const UndergroundAnswer& a);

}  // namespace fastmu::underground
