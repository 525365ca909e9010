// fastmu.FieldMap: a magnetic field map on a regular grid (tesla, metres),
// from a NumPy array or from HDF5 (interfaces.md "Field map").
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/field/FieldMapParams.hh"

namespace fastmu::python {

namespace {

FieldInterpolation parse_interpolation(const std::string& s) {
  if (s == "nearest") return FieldInterpolation::nearest;
  if (s == "linear") return FieldInterpolation::linear;
  throw Error("field map: interpolation must be 'nearest' or 'linear', got '" + s + "'");
}
FieldSymmetry parse_symmetry(const std::string& s) {
  if (s == "none") return FieldSymmetry::none;
  if (s == "quadrant") return FieldSymmetry::quadrant;
  throw Error("field map: symmetry must be 'none' or 'quadrant', got '" + s + "'");
}
const char* to_string(FieldInterpolation i) {
  return i == FieldInterpolation::nearest ? "nearest" : "linear";
}
const char* to_string(FieldSymmetry s) {
  return s == FieldSymmetry::quadrant ? "quadrant" : "none";
}

// Arguments taken as Python objects and checked here: a wrong type gives
// one line naming the argument, not pybind11's list of every argument.
std::array<double, 3> corner(const py::handle& v, const char* name) {
  std::array<double, 3> out{};
  bool ok = py::isinstance<py::sequence>(v) && !py::isinstance<py::str>(v) && py::len(v) == 3;
  for (std::size_t i = 0; ok && i < 3; ++i) {
    const py::handle x = v[py::int_(i)];
    ok = (py::isinstance<py::float_>(x) || py::isinstance<py::int_>(x) ||
          py::hasattr(x, "__float__")) &&
         !py::isinstance<py::bool_>(x);
    if (ok) {
      try {
        out[i] = x.cast<double>();
      } catch (const py::cast_error&) {
        ok = false;
      }
    }
  }
  if (!ok)
    throw Error(std::string("field map: ") + name + " must be 3 numbers (x, y, z) in metres");
  return out;
}

std::string text(const py::handle& v, const char* name) {
  if (!py::isinstance<py::str>(v))
    throw Error(std::string("field map: ") + name + " must be a string");
  return v.cast<std::string>();
}

std::shared_ptr<FieldMapParams> from_array(const py::object& field, const py::object& min,
                                           const py::object& max, const py::object& interp,
                                           const py::object& sym) {
  const auto lo = corner(min, "min"), hi = corner(max, "max");
  const std::string interpolation = text(interp, "interpolation"), symmetry = text(sym, "symmetry");
  CArray<float> b = CArray<float>::ensure(field);
  if (!b) {
    PyErr_Clear();
    throw Error("field map: B must be an array of numbers of shape (nx, ny, nz, 3)");
  }
  if (b.ndim() != 4 || b.shape(3) != 3) {
    std::string shape = "(";
    for (py::ssize_t i = 0; i < b.ndim(); ++i)
      shape += (i ? ", " : "") + std::to_string(b.shape(i));
    throw Error("field map: B must have shape (nx, ny, nz, 3), got " + shape + ")");
  }
  const std::array<std::size_t, 3> shape = {static_cast<std::size_t>(b.shape(0)),
                                            static_cast<std::size_t>(b.shape(1)),
                                            static_cast<std::size_t>(b.shape(2))};
  // The params own their values (they may be copied to a GPU): the one copy in.
  std::vector<float> values(b.data(), b.data() + b.size());
  return std::make_shared<FieldMapParams>(shape, std::move(values), lo, hi,
                                          parse_interpolation(interpolation),
                                          parse_symmetry(symmetry), "field map");
}

}  // namespace

void bind_field(py::module_& m) {
  py::class_<FieldMapParams, std::shared_ptr<FieldMapParams>>(
      m, "FieldMap",
      "Magnetic field B [T] on a regular grid of nx * ny * nz points spanning [min, max] [m] "
      "(grid points at both ends); zero outside. interpolation: 'nearest' | 'linear'; "
      "symmetry: 'none' | 'quadrant' (the map covers x >= 0, y >= 0).")
      .def(py::init(&from_array), py::arg("B"), py::arg("min"), py::arg("max"),
           py::arg("interpolation") = "linear", py::arg("symmetry") = "none")
      .def_static(
          "from_hdf5",
          [](const std::filesystem::path& file, const std::string& interpolation,
             const std::string& symmetry) {
            return std::make_shared<FieldMapParams>(FieldMapParams::from_hdf5(
                file, parse_interpolation(interpolation), parse_symmetry(symmetry)));
          },
          py::arg("path"), py::arg("interpolation") = "linear", py::arg("symmetry") = "none",
          "Loads dataset `B` and attributes `min`, `max` from an HDF5 file.")
      .def("save", &FieldMapParams::write_hdf5, py::arg("path"),
           "Writes the map as HDF5 (dataset `B`, attributes `min`, `max`), atomically.")
      .def_property_readonly("shape",
                             [](const FieldMapParams& f) {
                               return py::make_tuple(f.shape()[0], f.shape()[1], f.shape()[2]);
                             })
      .def_property_readonly("min", [](const FieldMapParams& f) { return f.lo(); })
      .def_property_readonly("max", [](const FieldMapParams& f) { return f.hi(); })
      .def_property_readonly("interpolation",
                             [](const FieldMapParams& f) { return to_string(f.interpolation()); })
      .def_property_readonly("symmetry",
                             [](const FieldMapParams& f) { return to_string(f.symmetry()); })
      .def_property_readonly(
          "B",
          [](py::object self) {
            // A read-only view of the stored values, kept alive by the FieldMap.
            const auto& f = self.cast<const FieldMapParams&>();
            const auto& s = f.shape();
            py::array_t<float> a({static_cast<py::ssize_t>(s[0]), static_cast<py::ssize_t>(s[1]),
                                  static_cast<py::ssize_t>(s[2]), py::ssize_t{3}},
                                 f.values().data(), self);
            a.attr("setflags")(py::arg("write") = false);
            return a;
          },
          "The field values (nx, ny, nz, 3) in tesla (read-only view).")
      .def(
          "__call__",
          [](const FieldMapParams& f, const CArray<float>& points) {
            if (points.ndim() < 1 || points.shape(points.ndim() - 1) != 3)
              throw Error("field map: points must have shape (..., 3)");
            std::vector<py::ssize_t> shape(points.shape(), points.shape() + points.ndim());
            py::array_t<float> out(shape);
            const FieldMapView v = f.host_view();
            const float* in = points.data();
            float* o = out.mutable_data();
            for (py::ssize_t i = 0; i < points.size() / 3; ++i) {
              const Vec3f b = v.at(in[3 * i], in[3 * i + 1], in[3 * i + 2]);
              o[3 * i] = b.x, o[3 * i + 1] = b.y, o[3 * i + 2] = b.z;
            }
            return out;
          },
          py::arg("points"), "B [T] at points (..., 3) [m], as the transport sees it.")
      .def("__repr__", [](const FieldMapParams& f) {
        return "FieldMap(shape=(" + std::to_string(f.shape()[0]) + ", " +
               std::to_string(f.shape()[1]) + ", " + std::to_string(f.shape()[2]) +
               ", 3), interpolation='" + to_string(f.interpolation()) + "', symmetry='" +
               to_string(f.symmetry()) + "')";
      });
}

}  // namespace fastmu::python
