// The SHiP-like active muon shield of docs/ship-like-muon-shield.md
// as a geometry document (the same one examples/make_ship_geometry.py writes;
// a test checks that they agree).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fastmu {

// The parameter sets of the spec: "warm" (warm_baseline) and "hybrid"
// (hybrid_baseline); "warm_baseline"/"hybrid_baseline" are accepted too.
std::vector<std::string> ship_parameter_sets();

// The geometry JSON (interfaces.md) of one parameter set. `world_material` is
// the material outside the blocks and the concrete ("G4_AIR" or "vacuum").
// Throws fastmu::Error for an unknown set.
nlohmann::json make_ship_shield_json(const std::string& parameter_set,
                                     const std::string& world_material = "G4_AIR");

// One magnet's 15 parameters as in the spec: [zgap, dZ, dXIn, dXOut, dYIn,
// dYOut, gapIn, gapOut, xYokeIn, xYokeOut, dYYokeIn, dYYokeOut, midGapIn,
// midGapOut] in cm, then B in tesla.
using ShipMagnetParameters = std::array<double, 15>;

// The shield of arbitrary magnets (e.g. a design being optimised) in the same
// cavern, with the same plane; the spec's skipping rule applies.
nlohmann::json make_ship_shield_json(const std::vector<ShipMagnetParameters>& magnets,
                                     const std::string& world_material = "G4_AIR",
                                     const std::string& description = "SHiP-like muon shield");

// The magnets of a named parameter set (throws fastmu::Error if unknown).
const std::vector<ShipMagnetParameters>& ship_parameter_set(const std::string& parameter_set);

}  // namespace fastmu
