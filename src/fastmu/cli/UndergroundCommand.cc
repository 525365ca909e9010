// `fastmu underground`: the muon flux in a laboratory under a flat overburden
// of rock, water or ice (src/fastmu/underground, docs/underground.md): total
// flux through a horizontal surface and through a sphere, vertical intensity,
// mean energy, energy spectrum, zenith and azimuth distributions with their
// statistical errors (JSON, CSV, PNG), the vertical intensity at a list of
// depths, and optionally the underground muons as a muon file.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/cli/PythonScripts.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Timing.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/underground/Underground.hh"

namespace fastmu::cli {
namespace {

using namespace fastmu::underground;

struct UndergroundArgs {
  UndergroundRequest req;
  std::string composition;
  std::string out_dir = ".";
  std::string name = "underground";
  std::string muons_out;
  std::size_t muons_n = 100000;
  double muons_half_width = 0.5;
  bool no_plot = false;
};

// scripts/plot_underground.py; a missing interpreter or script is a warning
// (the numbers are written either way).
void plot(const std::vector<std::string>& args, const std::filesystem::path& png) {
  try {
    const PythonScript script = find_script("plot_underground.py", {"numpy", "matplotlib"});
    if (run_script(script, args) != 0) {
      std::fprintf(stderr, "fastmu: warning: plotting failed: no %s\n", png.c_str());
    } else {
      std::printf("wrote %s\n", png.c_str());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "fastmu: warning: %s: no plot\n", e.what());
  }
}

// The measured vertical intensities drawn with a depth list.
std::filesystem::path measured_compilation() { return data_dir() / "depth_intensity_measured.csv"; }

void write_histogram(const std::filesystem::path& path, const Histogram& h, const std::string& lo,
                     const std::string& hi, const std::string& value) {
  io::ColumnTable t;
  t.columns = {lo, hi, value, value + "_err"};
  for (std::size_t b = 0; b < h.value.size(); ++b) {
    t.values.insert(t.values.end(), {h.edges[b], h.edges[b + 1], h.value[b], h.error[b]});
  }
  io::write_table(path, t);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  io::AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path());
    f << text;
    io::close_checked(f, path);
  }
  out.commit();
}

// Checks the output folder and the muon file before any table work.
void check_outputs(const UndergroundArgs& a) {
  if (!std::filesystem::is_directory(a.out_dir)) {
    throw Error(fmt::format("underground: --out-dir '{}' is not a folder", a.out_dir));
  }
  if (a.name.empty() || a.name.find('/') != std::string::npos) {
    throw Error(fmt::format("underground: --name '{}' must be a plain file stem", a.name));
  }
  io::AtomicOutput probe(std::filesystem::path(a.out_dir) / (a.name + ".json"));
  if (!a.muons_out.empty() && !a.req.terrain.height_map.empty()) {
    throw Error("underground: --muons-out is for a flat overburden, not with --terrain");
  }
  if (!a.muons_out.empty()) {
    const std::string ext = std::filesystem::path(a.muons_out).extension().string();
    if (ext != ".csv" && ext != ".h5" && ext != ".hdf5") {
      throw Error(fmt::format(
          "underground: --muons-out {}: the extension must be .csv, .h5 or .hdf5", a.muons_out));
    }
    io::AtomicOutput muons_probe(a.muons_out);
    if (a.muons_n < 1 || a.muons_n > 100'000'000) {
      throw Error(fmt::format("underground: --muons-n {} is outside [1, 1e8]", a.muons_n));
    }
    if (!(a.muons_half_width > 0) || !(a.muons_half_width <= 1e4)) {
      throw Error(fmt::format("underground: --muons-half-width {} m is outside (0, 1e4]",
                              a.muons_half_width));
    }
  }
}

void print_site(const SiteFlux& s, const Overburden& o) {
  std::printf("site: %.1f m.w.e. of %s (%s, %.3g g/cm3)\n", s.depth_mwe, o.material.c_str(),
              o.description.c_str(), o.density);
  std::printf("  flux through a horizontal surface  %.4e +- %.2e cm^-2 s^-1\n", s.horizontal,
              s.horizontal_err);
  std::printf("  flux through a sphere              %.4e +- %.2e cm^-2 s^-1 (per cross section)\n",
              s.sphere, s.sphere_err);
  std::printf("  vertical intensity                 %.4e +- %.2e cm^-2 s^-1 sr^-1\n", s.vertical,
              s.vertical_err);
  std::printf("  mean energy                        %.4g +- %.2g GeV\n", s.mean_energy,
              s.mean_energy_err);
  if (s.cos_cut > 0) {
    std::printf(
        "  (zenith angles with cos < %.3f lie beyond the table's slant depth: not counted)\n",
        s.cos_cut);
  }
}

void run_underground_command(UndergroundArgs& a) {
  mpi::require_one_process("underground", "run it as one process (it uses every core)");
  const auto t0 = SteadyClock::now();
  if (!a.composition.empty()) {
    a.req.overburden.composition = parse_composition(a.composition, "--composition");
  }
  check_outputs(a);
  MaterialLibrary materials;
  TableCache cache;
  const UndergroundAnswer ans = compute_underground(a.req, materials, cache);
  const nlohmann::json j = underground_json(a.req, ans);
  const std::filesystem::path dir = a.out_dir;
  std::printf("slant-depth table of %s: %zu muons, %s in %.2f s\n", ans.overburden.material.c_str(),
              a.req.table.muons, ans.table_build_seconds > 0 ? "built" : "loaded",
              ans.table_seconds);
  std::vector<std::string> plot_args = {"--json", (dir / (a.name + ".json")).string()};
  if (ans.site) {
    const SiteFlux& s = *ans.site;
    print_site(s, ans.overburden);
    if (ans.terrain) {
      std::printf(
          "  (under the terrain: %.1f m.w.e. vertically above the lab; %.4f of the solid "
          "angle lies beyond the table's slant depth: not counted)\n",
          s.depth_mwe, ans.terrain->uncounted);
    }
    write_histogram(dir / (a.name + "_energy.csv"), s.energy, "e_lo_gev", "e_hi_gev",
                    "flux_per_gev");
    write_histogram(dir / (a.name + "_zenith.csv"), s.zenith, "cos_lo", "cos_hi", "flux_per_cos");
    write_histogram(dir / (a.name + "_azimuth.csv"), s.azimuth, "phi_lo_deg", "phi_hi_deg",
                    "flux_per_rad");
  }
  if (!ans.depths.empty()) {
    io::ColumnTable t;
    t.columns = {"depth_mwe", "intensity", "intensity_err"};
    std::printf("depth [m.w.e.]  vertical intensity [cm^-2 s^-1 sr^-1]\n");
    for (const auto& d : ans.depths) {
      t.values.insert(t.values.end(), {d.depth_mwe, d.intensity, d.error});
      std::printf("%8.0f  %.4e +- %.2e\n", d.depth_mwe, d.intensity, d.error);
    }
    const auto csv = dir / (a.name + "_depth_intensity.csv");
    io::write_table(csv, t);
    plot_args.insert(plot_args.end(), {"--depths", csv.string()});
    const auto measured = measured_compilation();
    if (std::filesystem::exists(measured)) {
      plot_args.insert(plot_args.end(), {"--measured", measured.string()});
    }
  }
  if (!a.muons_out.empty() && ans.site) {
    io::ColumnTable m;
    m.columns = {"px", "py", "pz", "x", "y", "z", "pdg", "weight"};
    SiteOptions so = a.req.site;
    so.depth_mwe = ans.overburden.depth_mwe;
    m.values = site_muons(*ans.table, so, a.muons_n, a.muons_half_width, a.req.table.seed);
    io::write_table(a.muons_out, m, "muons");
    std::printf("wrote %zu underground muons to %s (weights: s^-1 through %g m^2 at z = 0)\n",
                a.muons_n, a.muons_out.c_str(), 4 * a.muons_half_width * a.muons_half_width);
  } else if (!a.muons_out.empty()) {
    throw Error("underground: --muons-out needs a site depth (--depth or --rock-depth)");
  }
  nlohmann::json out = j;
  out["seconds"]["whole_before_plot"] = seconds_since(t0);
  write_text(dir / (a.name + ".json"), out.dump(1) + "\n");
  std::printf("wrote %s (and its CSV files) in %.2f s\n", (dir / (a.name + ".json")).c_str(),
              seconds_since(t0));
  const auto png = dir / (a.name + ".png");
  plot_args.insert(plot_args.end(), {"--out", png.string()});
  if (!a.no_plot) plot(plot_args, png);
}

}  // namespace

void register_underground_command(CLI::App& app) {
  auto a = std::make_shared<UndergroundArgs>();
  auto& r = a->req;
  auto* cmd = app.add_subcommand(
      "underground",
      "The muon flux in a laboratory under a flat overburden of rock, water or ice: fluxes, "
      "vertical intensity, energy and angular distributions with errors (docs/underground.md)");
  cmd->add_option("--depth", r.overburden.depth_mwe,
                  "vertical depth [m.w.e. = hg/cm^2 of the rock]");
  cmd->add_option("--rock-depth", r.overburden.rock_depth_m,
                  "vertical depth [m of the rock]: times --density gives m.w.e.");
  cmd->add_option(
         "--rock", r.overburden.rock,
         "standard_rock | salt | norite | granite | water | ice | sea_water, or the name of a "
         "--composition rock")
      ->capture_default_str();
  cmd->add_option("--density", r.overburden.density,
                  "rock density [g/cm3] (default the rock's own; converts --rock-depth)");
  cmd->add_option("--composition", a->composition,
                  "a custom rock's mass fractions, e.g. O:0.46,Si:0.28,Al:0.08 (needs --density)");
  cmd->add_option("--depths", r.overburden.depths_mwe,
                  "vertical intensity at up to 20 depths [m.w.e.], comma-separated")
      ->delimiter(',');
  auto* terrain =
      cmd->add_option("--terrain", r.terrain.height_map,
                      "a lab under a terrain: its height map (CSV or HDF5, as the geometry's "
                      "terrain reads it); needs --terrain-x, --terrain-y and --lab");
  cmd->add_option("--terrain-dataset", r.terrain.dataset, "the HDF5 height map's dataset")
      ->capture_default_str();
  auto* tx = cmd->add_option("--terrain-x", r.terrain.x, "the height map's x range MIN,MAX [m]")
                 ->delimiter(',');
  auto* ty = cmd->add_option("--terrain-y", r.terrain.y, "the height map's y range MIN,MAX [m]")
                 ->delimiter(',');
  auto* lab =
      cmd->add_option("--lab", r.terrain.lab, "the lab's position X,Y,Z [m], below the surface")
          ->delimiter(',');
  terrain->needs(tx)->needs(ty)->needs(lab);
  for (auto* o : {tx, ty, lab}) o->needs(terrain);
  cmd->add_option("--zenith-max", r.site.zenith_max_deg,
                  "count muons up to this zenith angle [degrees]")
      ->capture_default_str();
  cmd->add_option("--zenith-bins", r.site.zenith_bins, "bins in cos(zenith)")->capture_default_str();
  cmd->add_option("--azimuth-bins", r.site.azimuth_bins, "azimuth bins")->capture_default_str();
  cmd->add_option("--energy-bins", r.site.energy_bins_per_decade,
                  "energy-spectrum bins per decade (0.1 GeV to 1 PeV)")
      ->capture_default_str();
  cmd->add_option("--table-muons", r.table.muons,
                  "sea-level muons in the slant-depth table (built once per rock, then cached)")
      ->capture_default_str();
  cmd->add_option("--seed", r.table.seed, "random seed of the table")->capture_default_str();
  cmd->add_option("--backend", r.backend, "auto | cpu | cuda (building the table)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--threads", r.threads, "CPU threads (0: all)")->capture_default_str();
  cmd->add_option("--out-dir", a->out_dir, "folder for NAME.json, NAME_*.csv and NAME.png")
      ->capture_default_str();
  cmd->add_option("--name", a->name, "file stem of the outputs")->capture_default_str();
  cmd->add_option("--muons-out", a->muons_out,
                  "also write underground muons (px,py,pz,x,y,z,pdg,weight): .csv or .h5");
  cmd->add_option("--muons-n", a->muons_n, "how many muons --muons-out writes")
      ->capture_default_str();
  cmd->add_option("--muons-half-width", a->muons_half_width,
                  "they cross the square |x|, |y| <= this [m] at z = 0")
      ->capture_default_str();
  cmd->add_flag("--no-plot", a->no_plot, "skip the PNG");
  cmd->callback([a] { run_underground_command(*a); });
}

}  // namespace fastmu::cli
