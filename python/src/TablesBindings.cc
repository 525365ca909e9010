// fastmu.Table, fastmu.load_table and the table builder: one material's
// histogram tables for one step length (the paper's offline phase).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "Bindings.hh"
#include "TablesSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/TableFile.hh"
#include "fastmu/tables/TableSampling.hh"
#include "fastmu/transport/step/MaterialTable.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu::python {

namespace {

py::dict table_info(const TableParams& t) {
  const TableMetadata& m = t.metadata();
  const TableData& d = t.data();
  py::dict info;
  info["material"] = m.material;
  info["material_definition"] = m.material_definition;
  info["density"] = m.density_g_cm3;
  info["step"] = m.step_m;
  info["binning"] = to_string(m.binning);
  info["p_min"] = d.p_edges.front();
  info["p_max"] = d.p_edges.back();
  info["p_bins"] = d.n_pbins();
  info["hist_bins"] = d.nx;
  info["charge"] = m.charge;
  info["seed"] = m.seed;
  info["generator"] = m.generator;
  info["source_sha256"] = m.source_sha256;
  info["created_utc"] = m.created_utc;
  info["epsilon"] = m.epsilon;
  info["tail_fraction"] = m.tail_fraction;
  info["format_version"] = m.format_version;
  std::uint64_t samples = 0;
  for (auto s : d.samples_per_bin) samples += s;
  info["samples"] = samples;
  info["device_bytes"] = t.device_bytes();
  return info;
}

// A read-only NumPy view of one of the table's vectors, kept alive by the Table.
template <class T>
py::array_t<T> view(const py::object& owner, const std::vector<T>& v,
                    std::vector<py::ssize_t> shape) {
  py::array_t<T> a(std::move(shape), v.data(), owner);
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

const TableParams& params_of(const py::object& self) { return self.cast<const TableParams&>(); }

// Draws (loss fraction -dPz/P, kick fraction dPt/P) for momenta p with the
// transport's own step code (choose_bin: stochastic bin interpolation;
// apply_table_interaction: alias draw, jitter) for a full step along +z; draw i uses
// the Philox block (seed, i, 0) of the transport's stream.
py::array_t<float> sample_table(const TableParams& t, const CArray<float>& p, std::uint64_t seed) {
  const TableView v = t.host_view();
  const MaterialTableArrays logs(v);
  const MaterialTableView mv = logs.make_view(v, [](const auto* q, std::size_t) { return q; });
  const py::ssize_t n = p.size();
  py::array_t<float> out({n, py::ssize_t{2}});
  const float* pin = p.data();
  float* o = out.mutable_data();
  {
    py::gil_scoped_release release;
    for (py::ssize_t i = 0; i < n; ++i) {
      const Philox4 r =
          philox_block(seed, static_cast<std::uint64_t>(i), 0, RngStream::fast_transport);
      const std::int32_t bin = choose_bin(mv, pin[i], to_unit_open_f(r.v[3]));
      const Vec3f after = apply_table_interaction(mv, bin, pin[i], Vec3f{0.f, 0.f, 1.f}, 1.0f, r);
      const bool stopped = after.x == 0.f && after.y == 0.f && after.z == 0.f;
      o[2 * i] = stopped ? 1.0f : 1.0f - after.z / pin[i];
      o[2 * i + 1] = stopped ? 0.0f : std::sqrt(after.x * after.x + after.y * after.y) / pin[i];
    }
  }
  return out;
}

}  // namespace

void bind_tables(py::module_& m) {
  py::class_<TableParams, std::shared_ptr<TableParams>>(
      m, "Table",
      "One material's histogram tables for one step length (immutable). Build with "
      "fastmu.build_table(...) or fastmu.load_table(path).")
      .def(
          "save",
          [](const TableParams& t, const std::filesystem::path& path) {
            py::gil_scoped_release release;
            write_table_file(path, t);
          },
          py::arg("path"), "Writes the table as HDF5 (atomically).")
      .def_property_readonly("info", &table_info,
                             "Metadata as a dict: material, density, step, binning, p_min, p_max, "
                             "p_bins, hist_bins, charge, seed, generator, samples, created_utc...")
      .def_property_readonly("material", [](const TableParams& t) { return t.metadata().material; })
      .def_property_readonly("step", [](const TableParams& t) { return t.metadata().step_m; })
      .def_property_readonly(
          "p_edges",
          [](py::object self) {
            const auto& d = params_of(self).data();
            return view(self, d.p_edges, {static_cast<py::ssize_t>(d.p_edges.size())});
          },
          "Momentum-bin edges [GeV/c].")
      .def_property_readonly(
          "p_centres",
          [](py::object self) {
            const auto& d = params_of(self).data();
            return view(self, d.p_centres, {d.n_pbins()});
          },
          "Sample-weighted momentum of each bin [GeV/c].")
      .def_property_readonly(
          "mean_loss",
          [](py::object self) {
            const auto& d = params_of(self).data();
            return view(self, d.mean_loss, {d.n_pbins()});
          },
          "Mean fractional loss <-dPz/P> per step, per momentum bin.")
      .def_property_readonly("std_loss",
                             [](py::object self) {
                               const auto& d = params_of(self).data();
                               return view(self, d.std_loss, {d.n_pbins()});
                             })
      .def_property_readonly(
          "mean_kick",
          [](py::object self) {
            const auto& d = params_of(self).data();
            return view(self, d.mean_kick, {d.n_pbins()});
          },
          "Mean fractional transverse kick <dPt/P> per step, per momentum bin.")
      .def_property_readonly("samples_per_bin",
                             [](py::object self) {
                               const auto& d = params_of(self).data();
                               return view(self, d.samples_per_bin, {d.n_pbins()});
                             })
      .def_property_readonly(
          "counts",
          [](py::object self) {
            const TableParams& t = params_of(self);
            if (!t.has_histogram()) {
              throw Error(
                  "this table was loaded without its histograms; load its file with "
                  "fastmu.tables.load_table");
            }
            const auto& d = t.data();
            return view(self, d.counts, {d.n_pbins(), d.nx + 1, d.ny + 1});
          },
          "The histograms (p_bins, nx + 1, ny + 1); index 0 on an axis is the zero-loss/zero-kick "
          "bin.")
      .def(
          "sample",
          [](const TableParams& t, const CArray<float>& p, std::uint64_t seed) {
            return sample_table(t, p, seed);
          },
          py::arg("p"), py::arg("seed") = 1,
          "Draws one full step's (loss fraction -dPz/P, kick fraction dPt/P) for each momentum in "
          "`p` [GeV/c], as the fast transport does; returns an (n, 2) float32 array.")
      .def("__repr__", [](const TableParams& t) {
        return "Table('" + t.metadata().material +
               "', step=" + std::to_string(t.metadata().step_m) + " m, " +
               std::to_string(t.n_pbins()) + " momentum bins)";
      });

  m.def(
      "load_table",
      [](const std::filesystem::path& path, double expected_step) {
        py::gil_scoped_release release;
        return std::make_shared<TableParams>(load_table(path, expected_step));
      },
      py::arg("path"), py::arg("step") = 0.0,
      "Loads and validates a table file; with step > 0 the file's step must match it.");

  bind_table_builder(m);
}

}  // namespace fastmu::python
