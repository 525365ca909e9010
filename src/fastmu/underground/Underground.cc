#include "fastmu/underground/Underground.hh"

#include <optional>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/core/Version.hh"
#include "fastmu/geometry/HeightMap.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"

namespace fastmu::underground {

namespace {

nlohmann::json histogram_json(const Histogram& h) {
  return {{"edges", h.edges}, {"value", h.value}, {"error", h.error}};
}

// What the numbers assume, for a reader of the JSON.
nlohmann::json model_json(const SlantTableOptions& t) {
  return {
      {"surface_flux",
       "Guan et al. 2015 (arXiv:1509.06176): Gaisser's formula with the curved-Earth angle and "
       "a low-energy correction; conventional (pion and kaon) muons only, no prompt (charm) "
       "muons, no geomagnetic or solar modulation; used as the formula gives it up to the "
       "table's highest energy (above ~100 TeV an extrapolation: the knee and prompt muons are "
       "absent)"},
      {"surface_energy_range_gev", {t.e_min, t.e_max}},
      {"transport",
       "fastmu fast transport (tables to 100 TeV/c, decay in flight) along the slant depth; "
       "above 100 TeV/c the mean loss a + b E of the detailed engine at 100 TeV, no fluctuations"},
      {"not_included",
       "neutrino-induced muons (they dominate beyond ~13 km.w.e.); lateral displacement and "
       "angular deflection in the rock (a muon arrives along its sea-level direction); "
       "muons whose slant depth exceeds the table's reach (cos_cut)"},
      {"statistical_errors",
       "from the slant-depth table's muons (one standard deviation); the surface flux model's "
       "own uncertainty is not included (docs/cosmic-muons.md: its validity)"},
  };
}

// The terrain's site, checked (one line) before any table work; the
// overburden's depth becomes the vertical depth above the lab.
TerrainSite terrain_site(const UndergroundRequest& req, Overburden& o, const SiteOptions& site) {
  const TerrainRequest& t = req.terrain;
  if (req.overburden.depth_mwe != 0 || req.overburden.rock_depth_m != 0) {
    throw Error("terrain: give --terrain with --lab, not --depth or --rock-depth");
  }
  TerrainSite s;
  s.x_min = t.x[0], s.x_max = t.x[1], s.y_min = t.y[0], s.y_max = t.y[1];
  s.lab = t.lab;
  s.density = o.density;
  if (!(s.x_min < s.x_max) || !(s.y_min < s.y_max)) {
    throw Error(fmt::format(
        "terrain: --terrain-x {},{} and --terrain-y {},{} m must each be MIN,MAX with MIN < MAX",
        s.x_min, s.x_max, s.y_min, s.y_max));
  }
  s.map = read_height_map(t.height_map, t.dataset);
  check_terrain_site(s);
  o.depth_mwe = s.density * rock_path(s, {0.0, 0.0, 1.0}, req.table.depth_max_mwe / s.density);
  SiteOptions so = site;
  so.depth_mwe = o.depth_mwe;
  if (!(o.depth_mwe <= req.table.depth_max_mwe)) {
    throw Error(fmt::format("lab: the vertical depth exceeds the table's reach {} m.w.e.",
                            req.table.depth_max_mwe));
  }
  check_site_options(so, req.table.depth_max_mwe);
  return s;
}

}  // namespace

UndergroundAnswer compute_underground(const UndergroundRequest& req, MaterialLibrary& materials,
                                      TableCache& cache) {
  check_slant_options(req.table);
  UndergroundAnswer a;
  const bool terrain = !req.terrain.height_map.empty();
  std::optional<TerrainSite> tsite;
  if (terrain) {
    OverburdenSpec rock = req.overburden;  // the rock only: the depth comes from the terrain
    if (rock.depth_mwe == 0 && rock.rock_depth_m == 0) rock.depth_mwe = 1;
    a.overburden = resolve_overburden(rock, materials, req.table.depth_max_mwe);
    tsite = terrain_site(req, a.overburden, req.site);
  } else {
    a.overburden = resolve_overburden(req.overburden, materials, req.table.depth_max_mwe);
  }
  SiteOptions site = req.site;
  site.depth_mwe = a.overburden.depth_mwe > 0 ? a.overburden.depth_mwe : 1.0;
  check_site_options(site, req.table.depth_max_mwe);
  const Backend backend = resolve_backend(parse_backend(req.backend));
  a.backend = backend_name(backend);

  const auto t0 = SteadyClock::now();
  auto table = std::make_shared<SlantDepthTable>(
      slant_depth_table(a.overburden.material, materials, cache, req.table, backend, req.threads,
                        req.progress, &a.table_build_seconds));
  a.table_seconds = seconds_since(t0);
  a.table = table;

  const auto t1 = SteadyClock::now();
  if (tsite) {
    a.terrain = terrain_site_flux(*table, site, *tsite);
    a.site = a.terrain->flux;
  } else if (a.overburden.depth_mwe > 0) {
    a.site = site_flux(*table, site);
  }
  for (const double d : req.overburden.depths_mwe) {
    DepthIntensityRow row{d, 0, 0};
    vertical_intensity(*table, d, row.intensity, row.error);
    a.depths.push_back(row);
  }
  a.site_seconds = seconds_since(t1);
  return a;
}

nlohmann::json underground_json(const UndergroundRequest& req, const UndergroundAnswer& a) {
  nlohmann::json j;
  j["fastmu_version"] = FASTMU_VERSION;
  j["overburden"] = {{"material", a.overburden.material},
                     {"rock", a.overburden.description},
                     {"density_g_cm3", a.overburden.density},
                     {"depth_mwe", a.overburden.depth_mwe}};
  if (req.overburden.rock_depth_m > 0)
    j["overburden"]["rock_depth_m"] = req.overburden.rock_depth_m;
  if (a.terrain) {
    const TerrainRequest& t = req.terrain;
    j["terrain"] = {
        {"height_map", t.height_map},
        {"x_m", t.x},
        {"y_m", t.y},
        {"lab_m", t.lab},
        {"vertical_depth_m", a.overburden.depth_mwe / a.overburden.density},
        {"uncounted_solid_angle_fraction", a.terrain->uncounted},
        {"max_counted_slant_mwe", a.terrain->max_slant_mwe},
        {"note",
         "depth_mwe is the vertical depth above the lab; each direction's slant depth is the "
         "density times the path in rock up to the surface (bilinear in each cell; beyond the "
         "map's rectangle the edge's heights continue); the rock fills all below the surface, "
         "the air above is neglected; directions whose slant depth exceeds the table's reach "
         "are not counted (uncounted_solid_angle_fraction of the solid angle up to zenith_max)"}};
  }
  j["model"] = model_json(req.table);
  j["table"] = {{"muons", req.table.muons},
                {"seed", req.table.seed},
                {"depth_max_mwe", req.table.depth_max_mwe},
                {"backend", a.backend}};
  j["seconds"] = {
      {"table", a.table_seconds}, {"table_build", a.table_build_seconds}, {"site", a.site_seconds}};
  if (a.site) {
    const SiteFlux& s = *a.site;
    j["site"] = {
        {"depth_mwe", s.depth_mwe},
        {"zenith_max_deg", req.site.zenith_max_deg},
        {"flux_horizontal_cm2_s", {s.horizontal, s.horizontal_err}},
        {"flux_sphere_cm2_s", {s.sphere, s.sphere_err}},
        {"vertical_intensity_cm2_s_sr", {s.vertical, s.vertical_err}},
        {"mean_energy_gev", {s.mean_energy, s.mean_energy_err}},
        {"cos_cut", s.cos_cut},
        {"table_muons_used", s.muons_used},
        {"energy_spectrum_per_gev", histogram_json(s.energy)},
        {"zenith_per_cos", histogram_json(s.zenith)},
        {"azimuth_per_rad", histogram_json(s.azimuth)},
    };
    j["site"]["units"] =
        "flux_horizontal: cm^-2 s^-1 through a horizontal surface; flux_sphere: cm^-2 s^-1 "
        "through a sphere per unit cross section (the 4 pi integral of the intensity); "
        "vertical_intensity: cm^-2 s^-1 sr^-1; [value, error] pairs; the spectra and angular "
        "distributions are of the flux through a horizontal surface: energy edges in GeV, "
        "zenith edges in cos(theta), azimuth edges in degrees";
  }
  if (!a.depths.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& d : a.depths) rows.push_back({d.depth_mwe, d.intensity, d.error});
    j["depth_intensity"] = {{"columns", {"depth_mwe", "intensity", "intensity_err"}},
                            {"rows", rows}};
  }
  return j;
}

}  // namespace fastmu::underground
