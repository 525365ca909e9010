// The SHiP-like shield's parameters as the objective takes them: the fields
// of a design (ship_field_parameters) and, for chosen (magnet, column)
// pairs, how each volume's field and vertices move with them
// (ship_parameter_tangents), one parameter per pair.
#pragma once

#include <array>
#include <vector>

#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/transport/gradient/Objective.hh"

namespace fastmu {

FieldParameters ship_objective_parameters(const std::vector<ShipMagnetParameters>& magnets,
                                          const std::vector<std::array<int, 2>>& pairs);

// The fields of `magnets` with one parameter per magnet, its B column
// (each volume's dB/dB_m from ship_field_parameters).
FieldParameters ship_field_objective_parameters(const std::vector<ShipMagnetParameters>& magnets);

// Every (magnet, column) pair of `n_magnets` magnets, magnets in order.
std::vector<std::array<int, 2>> ship_every_column(std::size_t n_magnets);

}  // namespace fastmu
