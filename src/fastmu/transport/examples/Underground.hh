// The underground example (`fastmu run --example underground`): the vertical
// muon intensity against depth in standard rock, from the sea-level flux.
//
// Sea-level muons (Guan et al. 2015, flux/SeaLevelFlux.hh) start vertically
// down into a column of standard rock 10 km.w.e. deep. Each carries the
// weight I(E, 0) / (N q(E)), q the density its energy was drawn from, so that
// the weights of the muons that reach depth h sum to the vertical intensity
// there, in cm^-2 s^-1 sr^-1. One transport gives every depth: a muon reaches
// h when it ends (stopped or decayed) below h or leaves the column's bottom.
// Published relations to compare with: Menon et al. (1967) and the world-data
// fit of Mei & Hime (2006), both for standard rock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fastmu/transport/MuonBatch.hh"

namespace fastmu {

struct UndergroundSetup {
  double depth_mwe = 10000;         // the column's depth [m.w.e. = hg/cm^2]
  double e_min = 100, e_max = 1e5;  // surface total energy range [GeV]
  double density = 2.65;            // standard rock [g/cm^3]
  double column_m() const { return depth_mwe * 1.0 / density; }  // [m] (1 m.w.e. = 100 g/cm^2)
};

// World of vacuum above a standard-rock column from z = 0 down to
// -column_m(), |x|, |y| <= 1 km (wide enough for the scattered muons).
nlohmann::json underground_geometry_json(const UndergroundSetup& s);

// n vertical muons (pz < 0) just above the rock at the origin, total energy
// log-uniform in [e_min, e_max] (equal numbers per decade: the deep points
// are fed by the highest energies), mu+ / mu- in the sea-level ratio, each
// weighted by its share of the vertical intensity [cm^-2 s^-1 sr^-1]; keyed
// by (seed, id).
MuonBatch underground_muons(const UndergroundSetup& s, std::size_t n, std::uint64_t seed);

struct DepthIntensity {
  double depth_mwe = 0;
  double intensity = 0, error = 0;  // cm^-2 s^-1 sr^-1
};

// The intensity at each depth [m.w.e.] from the transported muons (`z` the
// final heights, `status` as MuonStatus, `weight` the initial weights).
std::vector<DepthIntensity> depth_intensity(const std::vector<double>& depths_mwe,
                                            const UndergroundSetup& s, const MuonBatch& out,
                                            const std::vector<std::int32_t>& status);

// Menon et al., Proc. Phys. Soc. 90 (1967) 649: the vertical intensity deep
// underground, 9.8e-7 exp(-h / 810 m.w.e.) cm^-2 s^-1 sr^-1 (fitted to data
// below 3000 m.w.e., to ~9000 m.w.e.).
double menon_intensity(double depth_mwe);

}  // namespace fastmu
