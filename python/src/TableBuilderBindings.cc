// fastmu.build_table: tables from the detailed engine, GIL released.
#include <cstdint>
#include <memory>
#include <string>

#include "Bindings.hh"
#include "TablesSupport.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/MomentumBinning.hh"

namespace fastmu::python {

void bind_table_builder(py::module_& m) {
  m.def(
      "_build_table",
      [](const std::string& material, double step, double p_min, double p_max, int p_bins,
         const std::string& binning, long long samples_per_bin, int hist_bins, std::uint64_t seed,
         int threads, int charge, double epsilon, long long pilot_muons, int pilot_probes,
         bool progress) {
        if (samples_per_bin < 1) throw Error("samples_per_bin must be at least 1");
        if (pilot_muons < 1) throw Error("adaptive binning: --pilot-muons must be at least 1");
        TableBuildOptions o;
        o.step_m = step;
        o.p_min = p_min;
        o.p_max = p_max;
        o.p_bins = p_bins;
        o.binning = parse_momentum_binning(binning, "binning");
        o.samples_per_bin = static_cast<std::size_t>(samples_per_bin);
        o.hist_bins = hist_bins;
        o.seed = seed;
        o.threads = threads;
        o.charge = charge;
        o.epsilon = epsilon;
        o.pilot_muons = static_cast<std::size_t>(pilot_muons);
        o.pilot_probes = pilot_probes;
        const Material& mat = python_materials().find(material);
        py::gil_scoped_release release;
        return std::make_shared<TableParams>(build_table_with_engine(mat, o, progress));
      },
      py::arg("material"), py::arg("step"), py::arg("p_min"), py::arg("p_max"), py::arg("p_bins"),
      py::arg("binning"), py::arg("samples_per_bin"), py::arg("hist_bins"), py::arg("seed"),
      py::arg("threads"), py::arg("charge"), py::arg("epsilon"), py::arg("pilot_muons"),
      py::arg("pilot_probes"), py::arg("progress"));
}

}  // namespace fastmu::python
