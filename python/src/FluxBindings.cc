// The sea-level cosmic-muon flux for Python (python/fastmu/flux.py wraps
// these): sampled muons with weights, and the parametrisation itself.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/flux/FluxSampler.hh"
#include "fastmu/flux/SeaLevelFlux.hh"

namespace fastmu::python {

namespace {

flux::FluxOptions flux_options(double e_min, double e_max, double zenith_max, double gamma,
                               double cos_power, const std::array<double, 4>& area, double z,
                               std::uint64_t seed, int threads) {
  flux::FluxOptions o;
  o.e_min = e_min;
  o.e_max = e_max;
  o.zenith_max = zenith_max;
  o.gamma = gamma;
  o.cos_power = cos_power;
  o.area = area;
  o.z = z;
  o.seed = seed;
  o.threads = threads;
  return o;
}

py::array_t<double> sample(std::size_t n, const flux::FluxOptions& o) {
  const flux::FluxSampler sampler(o);  // checks before the GIL is released
  std::vector<double> rows;
  {
    py::gil_scoped_release release;
    rows = sampler.sample_rows(n);
  }
  return adopt_vector(std::move(rows),
                      {static_cast<py::ssize_t>(n), py::ssize_t{flux::kFluxColumns}});
}

// Element-wise intensity of two arrays of one shape (broadcast in flux.py).
py::array_t<double> intensity(const CArray<double>& energy, const CArray<double>& cos_theta) {
  if (energy.size() != cos_theta.size()) {
    throw Error("flux_intensity: energy and zenith arrays differ in size");
  }
  const auto n = static_cast<std::size_t>(energy.size());
  std::vector<double> out(n);
  const double* e = energy.data();
  const double* c = cos_theta.data();
  for (std::size_t i = 0; i < n; ++i) out[i] = flux::sea_level_intensity(e[i], c[i]);
  return adopt_vector(std::move(out), {static_cast<py::ssize_t>(n)});
}

}  // namespace

void bind_flux(py::module_& m) {
  m.def(
      "_flux_sample",
      [](std::size_t n, double e_min, double e_max, double zenith_max, double gamma,
         double cos_power, std::array<double, 4> area, double z, std::uint64_t seed, int threads) {
        return sample(
            n, flux_options(e_min, e_max, zenith_max, gamma, cos_power, area, z, seed, threads));
      },
      py::arg("n"), py::arg("e_min"), py::arg("e_max"), py::arg("zenith_max"), py::arg("gamma"),
      py::arg("cos_power"), py::arg("area"), py::arg("z"), py::arg("seed"), py::arg("threads"));
  m.def(
      "_flux_rate",
      [](double e_min, double e_max, double zenith_max, std::array<double, 4> area) {
        flux::FluxOptions o;
        o.e_min = e_min;
        o.e_max = e_max;
        o.zenith_max = zenith_max;
        o.area = area;
        return flux::FluxSampler(o).expected_rate();
      },
      py::arg("e_min"), py::arg("e_max"), py::arg("zenith_max"), py::arg("area"));
  m.def("_flux_intensity", &intensity, py::arg("energy"), py::arg("cos_theta"));
  m.attr("_flux_charge_ratio") = flux::kChargeRatio;
}

}  // namespace fastmu::python
