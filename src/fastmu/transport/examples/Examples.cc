#include "fastmu/transport/examples/Examples.hh"

#include <cmath>

#include <nlohmann/json.hpp>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/tables/TableCache.hh"

namespace fastmu {

nlohmann::json iron_block_geometry_json() {
  const double t = kIronBlockThickness;
  return {
      {"world",
       {{"min", {-21.0, -21.0, -1.0}}, {"max", {21.0, 21.0, t + 1.0}}, {"material", "vacuum"}}},
      {"volumes",
       {{{"name", "iron_block"},
         {"shape", "box"},
         {"min", {-20.0, -20.0, 0.0}},
         {"max", {20.0, 20.0, t}},
         {"material", "G4_Fe"}}}},
      {"sensitive_planes", {{{"z", t}, {"x", {-20.0, 20.0}}, {"y", {-20.0, 20.0}}}}},
  };
}

MuonBatch iron_block_muons(std::size_t n) {
  MuonBatch b;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b.px[i] = b.py[i] = 0.0f;
    b.pz[i] = static_cast<float>(kIronBlockMomentum);
    b.x[i] = b.y[i] = b.z[i] = 0.0f;
    b.pdg[i] = 13;
    b.weight[i] = 1.0;
  }
  return b;
}

MuonBatch ship_muons(std::size_t n, std::uint64_t seed) {
  const double p_lo = 1.0, p_hi = 350.0, mean_pt = 0.6;
  MuonBatch b;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, i, RngStream::muon_source);
    const double p = p_lo * std::exp(rng.uniform() * std::log(p_hi / p_lo));
    const double pt = std::fmin(-mean_pt * std::log(rng.uniform()), 0.99 * p);
    const double phi = constants::two_pi * rng.uniform();
    b.px[i] = static_cast<float>(pt * std::cos(phi));
    b.py[i] = static_cast<float>(pt * std::sin(phi));
    b.pz[i] = static_cast<float>(std::sqrt(p * p - pt * pt));
    b.x[i] = b.y[i] = b.z[i] = 0.0f;
    b.pdg[i] = i % 2 == 0 ? 13 : -13;
    b.weight[i] = 1.0;
  }
  return b;
}

TransportParams make_transport_params(const nlohmann::json& geometry, const std::string& source,
                                      MaterialLibrary& materials, const TableSet& tables,
                                      TableCache* cache, const StepOptions& options,
                                      const MaterialSteps& overrides) {
  return make_transport_params(std::make_shared<const GeometryParams>(
                                   GeometryParams::from_json(geometry, source, materials)),
                               materials, tables, cache, options, overrides);
}

namespace {

// The geometry's "steps", then the caller's overrides.
MaterialSteps material_steps_of(const GeometryParams& geo, const MaterialLibrary& materials,
                                const MaterialSteps& overrides) {
  MaterialSteps steps = geo.material_steps();
  for (const auto& [name, d] : overrides) steps[materials.find(name).name] = d;
  return steps;
}

// The ladder of `name` the cache provides: its step d (unless a table file
// gives it), the shorter steps, and the long steps (unless d is set for
// the material or given): d first, then the shorter, then the long ones.
std::vector<LadderRung> cache_ladder(const std::string& name, const Material& material,
                                     const TableSet& tables, const TableCache& cache,
                                     const StepOptions& options, const MaterialSteps& steps) {
  const bool given = tables.count(name) > 0;
  const double d =
      given ? tables.at(name)->metadata().step_m : material_step(material, options.step, steps);
  std::vector<LadderRung> ladder;
  if (!given) ladder.push_back({d, 0.0});
  for (const double s : ladder_steps(d, material.density_g_cm3)) ladder.push_back({s, 0.0});
  // A step set for this material (geometry or command line) is kept at
  // every momentum; table files given by the caller come without ladders.
  if (steps.count(name) || given) return ladder;
  // The long steps up to the grid's top: the cache serves those with bins
  // below the run's top (TableCache::get_ladder).
  for (const LongStep& s : long_steps(d, options.long_steps, cache.build_options().p_max)) {
    ladder.push_back({s.step, s.p_from});
  }
  return ladder;
}

}  // namespace

std::vector<TableCache::TableRequest> cache_tables_needed(
    const GeometryParams& geo, const MaterialLibrary& materials, const TableSet& tables,
    const TableCache& cache, const StepOptions& options, const MaterialSteps& overrides) {
  const MaterialSteps steps = material_steps_of(geo, materials, overrides);
  std::vector<TableCache::TableRequest> want;
  for (const auto& name : geo.material_names()) {
    if (is_vacuum_material(name)) continue;
    const Material& material = materials.find(name);
    const auto ladder = cache_ladder(name, material, tables, cache, options, steps);
    for (const LadderRung& r : ladder) want.push_back({&material, r.step_m, r.p_from, ladder});
  }
  return want;
}

TransportParams make_transport_params(std::shared_ptr<const GeometryParams> geo,
                                      const MaterialLibrary& materials, const TableSet& tables,
                                      TableCache* cache, const StepOptions& options,
                                      const MaterialSteps& overrides) {
  const std::string& source = geo->source();
  const MaterialSteps steps = material_steps_of(*geo, materials, overrides);
  TableSet all = tables;
  TableLadders shorter, longer;
  // Every table of the run from the cache, several files at once.
  if (cache)
    cache->preload(cache_tables_needed(*geo, materials, tables, *cache, options, overrides));
  for (const auto& name : geo->material_names()) {
    if (is_vacuum_material(name)) continue;
    if (!cache) {
      if (!all.count(name)) throw Error(source + ": no table for material '" + name + "'");
      continue;
    }
    const Material& material = materials.find(name);
    const auto ladder = cache_ladder(name, material, tables, *cache, options, steps);
    const auto got = cache->get_ladder(material, ladder);
    std::size_t k = 0;
    if (!all.count(name)) all[name] = got[k++];
    const double d = all[name]->metadata().step_m;
    for (; k < got.size(); ++k) {
      if (!got[k]) continue;  // a long step of faster muons than the run's
      (ladder[k].p_from > 0 || ladder[k].step_m > d ? longer : shorter)[name].push_back(got[k]);
    }
  }
  return TransportParams(std::move(geo), all, options, shorter, longer);
}

}  // namespace fastmu
