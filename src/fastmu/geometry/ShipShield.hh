// The SHiP-like active muon shield of docs/ship-like-muon-shield.md
// as a geometry document (the same one examples/make_ship_geometry.py writes;
// a test checks that they agree).
#pragma once

#include <array>
#include <cstdint>
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

// The magnets' fields as functions of their B columns, per volume of the
// geometry make_ship_shield_json(magnets) builds (in its volume order: eight
// blocks per magnet that is not skipped, then the cavern): the magnet whose B
// the volume's field depends on (-1: none), the field (T, as in the
// document) and its derivative with respect to that B (T per T). A block's
// field is linear in B on each side of 0 (the yoke dilution applies for
// B < 0); at B = 0 the derivative is that of B > 0.
struct ShipFieldParameters {
  std::vector<std::int32_t> volume_magnet;
  std::vector<std::array<double, 3>> field, dfield;
};
ShipFieldParameters ship_field_parameters(const std::vector<ShipMagnetParameters>& magnets);

// How the shield's volumes depend on chosen parameters ({magnet, column} of
// `magnets`; columns as ShipMagnetParameters): per volume of
// make_ship_shield_json(magnets) (its order, the cavern's boxes last) and
// per parameter k, at [v * n_params + k], dB/dtheta (T per cm of a dimension,
// T per T of B) and how theta moves the volume's ARB8 vertices, in the order
// the geometry stores them (counter-clockwise, Arb8Shape) [m per cm or per
// T]; zero for the cavern. zgap and dZ of a magnet move the magnets after it
// too. Throws fastmu::Error for a parameter outside the table.
struct ShipArb8Derivative {
  std::array<double, 8> x{}, y{};  // 4 vertices at z_lo, then 4 at z_hi
  double z_lo = 0, z_hi = 0;
};
struct ShipParameterTangents {
  std::size_t n_params = 0;
  std::vector<std::array<double, 3>> dfield;
  std::vector<ShipArb8Derivative> dshape;
};
ShipParameterTangents ship_parameter_tangents(const std::vector<ShipMagnetParameters>& magnets,
                                              const std::vector<std::array<int, 2>>& parameters);

// The magnets of a named parameter set (throws fastmu::Error if unknown).
const std::vector<ShipMagnetParameters>& ship_parameter_set(const std::string& parameter_set);

}  // namespace fastmu
