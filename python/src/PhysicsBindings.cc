// fastmu.physics: the detailed (slow, reference) engine: single-step sampling
// and slab transport, as (N, 7) arrays p0, px, py, pz, x, y, z.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/physics/DetailedEngine.hh"

namespace fastmu::python {

namespace {

static_assert(sizeof(MuonSample) == 7 * sizeof(double), "MuonSample must be 7 packed doubles");

// The samples as an (N, 7) float64 array that owns the vector (no copy).
py::array_t<double> samples_to_numpy(std::vector<MuonSample>&& samples) {
  auto* owner = new std::vector<MuonSample>(std::move(samples));
  py::capsule free_when_done(owner,
                             [](void* p) { delete static_cast<std::vector<MuonSample>*>(p); });
  const auto n = static_cast<py::ssize_t>(owner->size());
  return py::array_t<double>({n, py::ssize_t{7}}, reinterpret_cast<const double*>(owner->data()),
                             free_when_done);
}

void check_common(double p, double p_max, std::size_t n, int charge) {
  (void)n;
  if (!(p > 0)) throw Error("physics: p must be > 0 GeV/c, got " + std::to_string(p));
  if (!(p_max >= p)) throw Error("physics: p_max must be >= p, got " + std::to_string(p_max));
  if (charge != -1 && charge != 1)
    throw Error("physics: charge must be -1 or 1, got " + std::to_string(charge));
}

PhysicsOptions make_options(bool photonuclear, bool decay) {
  PhysicsOptions o;
  o.photonuclear = photonuclear;
  o.decay = decay;
  return o;
}

}  // namespace

void bind_physics(py::module_& m) {
  auto pm = m.def_submodule("physics", "The detailed physics engine (reference, slow)");
  pm.def(
      "sample",
      [](const std::string& material, double p, std::optional<double> p_max, double step,
         std::size_t n, int charge, std::uint64_t seed, int threads, bool photonuclear,
         bool decay) {
        const double p_hi = p_max.value_or(p);
        check_common(p, p_hi, n, charge);
        if (!(step > 0)) throw Error("physics: step must be > 0 m, got " + std::to_string(step));
        const Material& mat = python_materials().find(material);
        std::vector<MuonSample> out;
        {
          py::gil_scoped_release release;
          out = sample_single_step(mat, p, p_hi, step, n, charge, seed, threads,
                                   make_options(photonuclear, decay));
        }
        return samples_to_numpy(std::move(out));
      },
      py::arg("material"), py::arg("p"), py::arg("p_max") = py::none(), py::arg("step") = 0.02,
      py::arg("n") = 10000, py::arg("charge") = -1, py::arg("seed") = 1, py::arg("threads") = 0,
      py::arg("photonuclear") = false, py::arg("decay") = false,
      "Single-step samples: muons start at the centre of a sphere of radius `step` [m] of "
      "`material` with momentum (0, 0, p), p uniform in [p, p_max]; returns an (n, 7) array "
      "p0, px, py, pz, x, y, z where they leave it (stopped: px = py = pz = 0).");
  pm.def(
      "transport",
      [](const std::string& material, double thickness, double p, std::optional<double> p_max,
         std::size_t n, int charge, std::array<double, 3> field, std::uint64_t seed, int threads,
         bool photonuclear, bool decay) {
        const double p_hi = p_max.value_or(p);
        check_common(p, p_hi, n, charge);
        if (!(thickness > 0))
          throw Error("physics: thickness must be > 0 m, got " + std::to_string(thickness));
        const Material& mat = python_materials().find(material);
        std::vector<MuonSample> out;
        {
          py::gil_scoped_release release;
          out =
              transport_slab(mat, thickness, p, p_hi, n, charge, Vec3{field[0], field[1], field[2]},
                             seed, threads, make_options(photonuclear, decay));
        }
        return samples_to_numpy(std::move(out));
      },
      py::arg("material"), py::arg("thickness"), py::arg("p"), py::arg("p_max") = py::none(),
      py::arg("n") = 10000, py::arg("charge") = -1,
      py::arg("field") = std::array<double, 3>{0, 0, 0}, py::arg("seed") = 1,
      py::arg("threads") = 0, py::arg("photonuclear") = false, py::arg("decay") = false,
      "Slab transport with the detailed engine: muons from the origin along +z through "
      "`material` filling 0 <= z <= thickness [m] with a uniform field [T]; returns an (n, 7) "
      "array p0, px, py, pz, x, y, z where they leave it.");
}

}  // namespace fastmu::python
