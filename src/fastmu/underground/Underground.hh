// One laboratory's answer, as `fastmu underground` and fastmu.underground()
// give it: the overburden resolved, the material's slant-depth table (from
// the cache or built), the site's fluxes and distributions, the vertical
// intensity at a list of depths, and what the model assumes, as JSON.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/underground/Overburden.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"

namespace fastmu {
class TableCache;
}

namespace fastmu::underground {

struct UndergroundRequest {
  OverburdenSpec overburden;
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
  double table_seconds = 0;        // loading or building the slant-depth table
  double table_build_seconds = 0;  // of which building (0: from the cache)
  double site_seconds = 0;         // the site's sums
  std::optional<SiteFlux> site;    // when a depth was given
  std::vector<DepthIntensityRow> depths;
};

// Checks every option (before any table is loaded or built), then computes.
UndergroundAnswer compute_underground(const UndergroundRequest& request, MaterialLibrary& materials,
                                      TableCache& cache);

// The answer with its units, the model's assumptions and the timings.
nlohmann::json underground_json(const UndergroundRequest& request, const UndergroundAnswer& a);

}  // namespace fastmu::underground
