// The SHiP-like shield of docs/ship-like-muon-shield.md for Python: its named
// parameter sets, the geometry of any parameter array (no JSON written by
// hand) and the synthetic muon flux of `fastmu run --example ship`.
#include <array>
#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::python {

namespace {

using ParamArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

ParamArray parameter_set(const std::string& name) {
  const auto& magnets = ship_parameter_set(name);
  ParamArray out({static_cast<py::ssize_t>(magnets.size()), py::ssize_t{15}});
  auto a = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    for (int k = 0; k < 15; ++k) a(i, k) = magnets[i][k];
  }
  return out;
}

std::vector<ShipMagnetParameters> magnets_of(const ParamArray& params) {
  if (params.ndim() != 2 || params.shape(1) != 15) {
    throw Error(
        "ship parameters: expected an array of shape (n_magnets, 15), got " +
        std::to_string(params.ndim()) + " dimensions" +
        (params.ndim() == 2 ? " with " + std::to_string(params.shape(1)) + " columns" : ""));
  }
  const auto a = params.unchecked<2>();
  std::vector<ShipMagnetParameters> magnets(static_cast<std::size_t>(params.shape(0)));
  for (std::size_t i = 0; i < magnets.size(); ++i) {
    for (int k = 0; k < 15; ++k) magnets[i][k] = a(i, k);  // finiteness: make_ship_shield_json
  }
  return magnets;
}

}  // namespace

void bind_ship(py::module_& m) {
  m.def("_ship_parameter_sets", &ship_parameter_sets);
  m.def("_ship_parameter_set", &parameter_set, py::arg("name"));
  m.def(
      "_ship_geometry_json",
      [](const ParamArray& params, const std::string& world_material) {
        return make_ship_shield_json(magnets_of(params), world_material).dump();
      },
      py::arg("params"), py::arg("world_material") = "G4_AIR");
  m.def(
      "_ship_field_parameters",
      [](const ParamArray& params) {
        const ShipFieldParameters f = ship_field_parameters(magnets_of(params));
        const auto nv = static_cast<py::ssize_t>(f.volume_magnet.size());
        py::array_t<std::int32_t> magnet(nv);
        py::array_t<double> field({nv, py::ssize_t{3}}), dfield({nv, py::ssize_t{3}});
        auto a = field.mutable_unchecked<2>();
        auto d = dfield.mutable_unchecked<2>();
        for (py::ssize_t v = 0; v < nv; ++v) {
          magnet.mutable_data()[v] = f.volume_magnet[static_cast<std::size_t>(v)];
          for (int k = 0; k < 3; ++k) {
            a(v, k) = f.field[static_cast<std::size_t>(v)][k];
            d(v, k) = f.dfield[static_cast<std::size_t>(v)][k];
          }
        }
        return py::make_tuple(magnet, field, dfield);
      },
      py::arg("params"),
      "Per volume of the shield's geometry: the magnet whose B its field depends on (-1: "
      "none), the field and its derivative with respect to that B.");
  m.def(
      "_ship_parameter_tangents",
      [](const ParamArray& params, const CArray<std::int32_t>& pairs) {
        if (pairs.ndim() != 2 || pairs.shape(1) != 2) {
          throw Error("ship parameter tangents: expected (n, 2) pairs of magnet and column");
        }
        std::vector<std::array<int, 2>> which(static_cast<std::size_t>(pairs.shape(0)));
        for (std::size_t k = 0; k < which.size(); ++k) {
          which[k] = {pairs.data()[2 * k], pairs.data()[2 * k + 1]};
        }
        const ShipParameterTangents t = ship_parameter_tangents(magnets_of(params), which);
        const auto np = static_cast<py::ssize_t>(t.n_params);
        const auto nv = np > 0 ? static_cast<py::ssize_t>(t.dfield.size()) / np : py::ssize_t{0};
        py::array_t<double> dfield({nv, np, py::ssize_t{3}}), dshape({nv, np, py::ssize_t{18}});
        double* f = dfield.mutable_data();
        double* s = dshape.mutable_data();
        for (std::size_t i = 0; i < t.dfield.size(); ++i) {
          for (int a = 0; a < 3; ++a) f[3 * i + a] = t.dfield[i][a];
          const ShipArb8Derivative& d = t.dshape[i];
          for (int v = 0; v < 8; ++v) s[18 * i + v] = d.x[v], s[18 * i + 8 + v] = d.y[v];
          s[18 * i + 16] = d.z_lo, s[18 * i + 17] = d.z_hi;
        }
        return py::make_tuple(dfield, dshape);
      },
      py::arg("params"), py::arg("pairs"),
      "Per volume and chosen (magnet, column): dB/dtheta (n_volumes, n, 3) and the ARB8's "
      "vertex derivatives (n_volumes, n, 18: x of the 8 vertices, y of the 8, z_lo, z_hi) in "
      "the geometry's vertex order.");
  m.def(
      "_ship_muons",
      [](std::size_t n, std::uint64_t seed) {
        const MuonBatch b = ship_muons(n, seed);
        py::array_t<float> out({static_cast<py::ssize_t>(n), py::ssize_t{8}});
        auto a = out.mutable_unchecked<2>();
        for (std::size_t i = 0; i < n; ++i) {
          a(i, 0) = b.px[i], a(i, 1) = b.py[i], a(i, 2) = b.pz[i];
          a(i, 3) = b.x[i], a(i, 4) = b.y[i], a(i, 5) = b.z[i];
          a(i, 6) = static_cast<float>(b.pdg[i]), a(i, 7) = static_cast<float>(b.weight[i]);
        }
        return out;
      },
      py::arg("n"), py::arg("seed"));
}

}  // namespace fastmu::python
