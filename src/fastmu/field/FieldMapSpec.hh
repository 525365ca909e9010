// How a geometry refers to a field map (the JSON "field_map" object): the file
// and how to read it. Header-only so that geometry can carry it without
// depending on the field library.
#pragma once

#include <cstdint>
#include <filesystem>

namespace fastmu {

enum class FieldInterpolation : std::int32_t { nearest = 0, linear = 1 };

// interfaces.md "Field map": with `quadrant` the map covers x >= 0, y >= 0 and
// B(x, y, z) = (sx Bx, By, sz Bz)(|x|, |y|, z), sx = sign(x y), sz = sign(y).
enum class FieldSymmetry : std::int32_t { none = 0, quadrant = 1 };

struct FieldMapSpec {
  std::filesystem::path file;  // resolved relative to the geometry JSON's folder
  FieldInterpolation interpolation = FieldInterpolation::linear;
  FieldSymmetry symmetry = FieldSymmetry::none;
};

}  // namespace fastmu
