// Underground and underwater laboratories for Python (python/fastmu/underground.py
// wraps this): one site's fluxes and distributions, as `fastmu underground`
// computes them, returned as the command's JSON text.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/underground/Underground.hh"

namespace fastmu::python {

namespace {

using namespace fastmu::underground;

// The request from the JSON text fastmu.underground() builds from its
// keyword arguments (every key present).
UndergroundRequest request_from_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  UndergroundRequest r;
  r.overburden.rock = j.at("rock").get<std::string>();
  r.overburden.density = j.at("density").get<double>();
  r.overburden.composition = j.at("composition").get<std::map<std::string, double>>();
  r.overburden.depth_mwe = j.at("depth").get<double>();
  r.overburden.rock_depth_m = j.at("rock_depth").get<double>();
  r.overburden.depths_mwe = j.at("depths").get<std::vector<double>>();
  r.site.zenith_max_deg = j.at("zenith_max").get<double>();
  r.site.zenith_bins = j.at("zenith_bins").get<int>();
  r.site.azimuth_bins = j.at("azimuth_bins").get<int>();
  r.site.energy_bins_per_decade = j.at("energy_bins").get<int>();
  r.table.muons = j.at("table_muons").get<std::size_t>();
  r.table.seed = j.at("seed").get<std::uint64_t>();
  r.backend = j.at("backend").get<std::string>();
  r.threads = j.at("threads").get<int>();
  r.progress = j.at("progress").get<bool>();
  r.terrain.height_map = j.at("terrain").get<std::string>();
  if (!r.terrain.height_map.empty()) {
    r.terrain.dataset = j.at("terrain_dataset").get<std::string>();
    r.terrain.x = j.at("terrain_x").get<std::array<double, 2>>();
    r.terrain.y = j.at("terrain_y").get<std::array<double, 2>>();
    r.terrain.lab = j.at("lab").get<std::array<double, 3>>();
  }
  return r;
}

std::string run(const std::string& request_json) {
  const UndergroundRequest r = request_from_json(request_json);
  std::string out;
  {
    py::gil_scoped_release release;
    TableCache cache;
    const UndergroundAnswer a = compute_underground(r, python_materials(), cache);
    out = underground_json(r, a).dump();
  }
  return out;
}

}  // namespace

void bind_underground(py::module_& m) {
  m.def("_underground", &run, py::arg("request_json"),
        "One laboratory's muon flux (fastmu.underground wraps this): request and answer as "
        "JSON text");
}

}  // namespace fastmu::python
