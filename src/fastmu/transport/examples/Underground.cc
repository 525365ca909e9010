#include "fastmu/transport/examples/Underground.hh"

#include <cmath>

#include <nlohmann/json.hpp>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/flux/SeaLevelFlux.hh"

namespace fastmu {

namespace {
constexpr double kHalfWidth = 1000.0;  // m
constexpr double kPerM2ToPerCm2 = 1e-4;
}  // namespace

nlohmann::json underground_geometry_json(const UndergroundSetup& s) {
  const double h = s.column_m(), w = kHalfWidth;
  return {
      {"world", {{"min", {-w, -w, -h - 1.0}}, {"max", {w, w, 1.0}}, {"material", "vacuum"}}},
      {"volumes",
       {{{"name", "rock"},
         {"shape", "box"},
         {"min", {-w, -w, -h}},
         {"max", {w, w, 0.0}},
         {"material", "StandardRock"}}}},
  };
}

MuonBatch underground_muons(const UndergroundSetup& s, std::size_t n, std::uint64_t seed) {
  const double log_range = std::log(s.e_max / s.e_min);
  const double plus_fraction = flux::kChargeRatio / (1.0 + flux::kChargeRatio);
  MuonBatch b;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, i, RngStream::muon_source);
    const double e = s.e_min * std::exp(rng.uniform() * log_range);
    const double density = 1.0 / (e * log_range);  // q(E) of the log-uniform draw
    b.px[i] = b.py[i] = 0.0f;
    b.pz[i] = -static_cast<float>(std::sqrt(e * e - constants::muon_mass * constants::muon_mass));
    b.x[i] = b.y[i] = 0.0f;
    b.z[i] = 0.5f;
    b.pdg[i] = rng.uniform() < plus_fraction ? -13 : 13;
    b.weight[i] = flux::sea_level_intensity(e, 1.0) * kPerM2ToPerCm2 / (density * double(n));
  }
  return b;
}

std::vector<DepthIntensity> depth_intensity(const std::vector<double>& depths_mwe,
                                            const UndergroundSetup& s, const MuonBatch& out,
                                            const std::vector<std::int32_t>& status) {
  std::vector<DepthIntensity> rows;
  for (const double h : depths_mwe) {
    const double z = -h / s.density;  // the depth's height [m]
    double sum = 0, sum2 = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      // Stopped (1) or decayed (6) below z, or anything else that went on
      // (left the column's bottom: the world).
      const bool ended = status[i] == 1 || status[i] == 6;
      if (ended && !(out.z[i] < z)) continue;
      sum += out.weight[i];
      sum2 += out.weight[i] * out.weight[i];
    }
    rows.push_back({h, sum, std::sqrt(sum2)});
  }
  return rows;
}

double menon_intensity(double depth_mwe) { return 9.8e-7 * std::exp(-depth_mwe / 810.0); }

}  // namespace fastmu
