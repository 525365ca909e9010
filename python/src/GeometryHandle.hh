// What a Python fastmu.Geometry holds: the validated geometry and the
// material library it was parsed with (built-ins, materials added from
// Python, and the ones its JSON defines), which transport needs to build
// tables for custom materials.
#pragma once

#include <memory>

#include "fastmu/geometry/GeometryParams.hh"
#include "fastmu/materials/Material.hh"

namespace fastmu::python {

struct GeometryHandle {
  MaterialLibrary materials;
  std::shared_ptr<const GeometryParams> params;
};

}  // namespace fastmu::python
