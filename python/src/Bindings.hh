// Shared pieces of the pybind11 bindings: one bind_* function per fastmu
// module, the process-wide material library Python code sees, and helpers
// that hand C++ buffers to NumPy without copying them.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "fastmu/materials/Material.hh"

namespace fastmu::python {

namespace py = pybind11;

void bind_materials(py::module_& m);
void bind_physics(py::module_& m);
void bind_tables(py::module_& m);
void bind_geometry(py::module_& m);
void bind_field(py::module_& m);
void bind_transport(py::module_& m);
void bind_ship(py::module_& m);
void bind_flux(py::module_& m);
void bind_underground(py::module_& m);

// The built-in materials plus those added from Python with
// fastmu.materials.add_custom(); tables, geometries and the detailed engine
// called from Python look materials up here.
MaterialLibrary& python_materials();

// Moves `data` into a NumPy array of the given shape (C order) without a
// copy: the vector's buffer is owned by a capsule that NumPy frees.
template <class T>
py::array_t<T> adopt_vector(std::vector<T>&& data, std::vector<py::ssize_t> shape) {
  auto* owner = new std::vector<T>(std::move(data));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::move(shape), owner->data(), free_when_done);
}

// A C-contiguous array of T converted from any array-like (one copy only when
// the input is not already C-contiguous T).
template <class T>
using CArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

}  // namespace fastmu::python
