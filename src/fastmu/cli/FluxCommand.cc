// `fastmu flux`: muons sampled from the sea-level cosmic-muon flux
// (src/fastmu/flux, docs/cosmic-muons.md), written as a muon input file
// (px,py,pz,x,y,z,pdg,weight) that `fastmu run --muons` reads.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/flux/FluxSampler.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/ColumnTable.hh"

namespace fastmu::cli {
namespace {

struct FluxArgs {
  std::size_t n = 0;
  std::string out;
  std::vector<double> area = {-0.5, 0.5, -0.5, 0.5};
  flux::FluxOptions options;
};

// The output's folder and format, checked before any sampling.
void check_output(const std::string& out) {
  if (out.empty()) throw Error("flux: --out is required");
  const std::string ext = std::filesystem::path(out).extension().string();
  if (ext != ".csv" && ext != ".h5" && ext != ".hdf5") {
    throw Error(fmt::format("flux: --out {}: the extension must be .csv, .h5 or .hdf5", out));
  }
  io::AtomicOutput probe(out);  // throws naming the path if it cannot be written
}

void run_flux(FluxArgs& a) {
  mpi::require_one_process("flux", "run it as one process (it uses every core)");
  if (a.n == 0) throw Error("flux: --n must be at least 1");
  check_output(a.out);
  for (int k = 0; k < 4; ++k) a.options.area[k] = a.area[k];
  const flux::FluxSampler sampler(a.options);  // checks the options

  io::ColumnTable table;
  table.columns = {"px", "py", "pz", "x", "y", "z", "pdg", "weight"};
  {
    ProgressBar bar("flux", a.n);
    table.values = sampler.sample_rows(a.n, &bar);
  }
  io::write_table(a.out, table, "muons");

  double sum = 0.0;
  for (std::size_t i = 0; i < a.n; ++i) sum += table.values[i * flux::kFluxColumns + 7];
  const auto& o = sampler.options();
  std::printf("wrote %zu muons to %s: E %g..%g GeV, zenith 0..%g deg, %g m^2 at z = %g m\n", a.n,
              a.out.c_str(), o.e_min, o.e_max, o.zenith_max, sampler.area_m2(), o.z);
  std::printf("sum of weights %.6g /s; the flux integral over this range and area %.6g /s\n", sum,
              sampler.expected_rate());
}

}  // namespace

void register_flux_command(CLI::App& app) {
  auto a = std::make_shared<FluxArgs>();
  auto& o = a->options;
  auto* cmd = app.add_subcommand(
      "flux",
      "Sample muons from the sea-level cosmic-muon flux (Guan et al. 2015), with weights in "
      "muons per second through the area (docs/cosmic-muons.md)");
  cmd->add_option("--n", a->n, "number of muons")->required();
  cmd->add_option("--out", a->out, "output muon file: .csv or .h5 (px,py,pz,x,y,z,pdg,weight)")
      ->required();
  cmd->add_option("--e-min", o.e_min, "lowest total energy [GeV]")->capture_default_str();
  cmd->add_option("--e-max", o.e_max, "highest total energy [GeV], at most 1e7")
      ->capture_default_str();
  cmd->add_option("--zenith-max", o.zenith_max, "largest zenith angle [degrees], at most 85")
      ->capture_default_str();
  cmd->add_option("--gamma", o.gamma,
                  "energies are drawn from E^-gamma (the flux falls as ~E^-2.7 to E^-3.7: a "
                  "smaller gamma gives high energies more muons, each of smaller weight)")
      ->capture_default_str();
  cmd->add_option("--cos-power", o.cos_power,
                  "cos(zenith) is drawn from cos^k (0: uniform in cos(zenith))")
      ->capture_default_str();
  cmd->add_option("--area", a->area, "X0,X1,Y0,Y1: the horizontal rectangle the muons cross [m]")
      ->expected(4)
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--z", o.z, "height of the rectangle [m] (z is up; muons move down)")
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "random seed")->capture_default_str();
  cmd->add_option("--threads", o.threads, "CPU threads (0: all)")->capture_default_str();
  cmd->callback([a] { run_flux(*a); });
}

}  // namespace fastmu::cli
