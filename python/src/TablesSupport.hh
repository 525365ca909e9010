// Table building from Python (kept apart from the Table class bindings so the
// builder can follow the tables module's API on its own).
#pragma once

#include <pybind11/pybind11.h>

namespace fastmu::python {

void bind_table_builder(pybind11::module_& m);

}  // namespace fastmu::python
