// The one-line error for a material name the library does not know, with the
// nearest known names ("did you mean ...").
#pragma once

#include <string>

#include "fastmu/materials/Material.hh"

namespace fastmu {

// "unknown material 'X' (did you mean 'A' or 'B'?; known: ...)".
std::string unknown_material_message(const MaterialLibrary& library, const std::string& name);

}  // namespace fastmu
