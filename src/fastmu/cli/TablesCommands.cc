// `fastmu tables build | prepare | info | plot | list | prune`: the offline
// phase on the command line, and the table cache's folder.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/cli/MpiTableBuilds.hh"
#include "fastmu/cli/PythonScripts.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/io/InputFiles.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/CacheListing.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/FileSampleSource.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/Sha256.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/tables/TableFile.hh"
#include "fastmu/transport/StepOptionsCheck.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::cli {
namespace {

struct BuildArgs {
  std::string material;
  std::string binning = "log";
  std::string from_samples;
  std::string out;
  TableBuildOptions options;
};

// Under mpirun every rank builds its share of the momentum bins (BinShare:
// round robin, each bin whole), every rank gets the whole table and rank 0
// writes the file, atomically: the one-process file, whatever the rank count.
void run_build(const BuildArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  TableBuildOptions o = a.options;
  o.threads = mpi::threads_per_rank(o.threads);
  const Material* material = nullptr;
  std::unique_ptr<FileSampleSource> file;
  TableMetadata meta;
  mpi::collective([&] {
    o.binning = parse_momentum_binning(a.binning);
    // Fail on an unwritable --out (or the samples file) before a long build.
    if (!a.from_samples.empty()) io::note_input(a.from_samples);
    if (mpi::rank() == 0) io::AtomicOutput probe(a.out);
    material = &builtin_materials().find(a.material);
    if (a.from_samples.empty()) return;
    file = std::make_unique<FileSampleSource>(a.from_samples);
    meta.material = material->name;
    meta.material_definition = material->definition();
    meta.density_g_cm3 = material->density_g_cm3;
    meta.generator = file->generator();
    if (mpi::rank() == 0) meta.source_sha256 = sha256_file(a.from_samples);
  });
  const TableParams table =
      file ? build_table(std::move(meta), o, *file, mpi::rank() == 0, mpi::bin_share())
           : build_table_with_engine(*material, o, mpi::rank() == 0, mpi::bin_share());
  mpi::collective([&] {
    if (mpi::rank() == 0) write_table_file(a.out, table);
  });
  if (mpi::rank() != 0) return;
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto& d = table.data();
  std::uint64_t samples = 0;
  for (auto s : d.samples_per_bin) samples += s;
  std::printf(
      "wrote %s: %s, step %g m, %d %s momentum bins in [%g, %g] GeV/c, %dx%d histogram "
      "bins, %llu samples, %.1f s%s\n",
      a.out.c_str(), material->name.c_str(), o.step_m, d.n_pbins(), to_string(o.binning),
      d.p_edges.front(), d.p_edges.back(), d.nx, d.ny, static_cast<unsigned long long>(samples),
      secs,
      mpi::active() ? fmt::format(" ({} ranks x {} threads)", mpi::size(), o.threads).c_str() : "");
}

struct PrepareArgs {
  std::vector<std::string> materials;
  double p_max = kCacheTopMomentum;
  double step = 0.02;
  int long_steps = kDefaultLongSteps;
  std::string backend = "auto";
  std::string dir;
};

// Every table a run through each material needs (its whole ladder, default
// step options), into the cache: the path a run takes (a world of that
// material), so that the run then finds them all.
void run_prepare(const PrepareArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  StepOptions options = checked_step_options({a.step, 0.18, 100000, 1, a.long_steps, true});
  if (!(a.p_max >= 1 && a.p_max <= kCacheTopMomentum)) {
    throw Error(fmt::format("--p-max: {:g} is not a momentum in [1, {:g}] GeV/c", a.p_max,
                            kCacheTopMomentum));
  }
  MaterialLibrary materials;
  for (const auto& name : a.materials) materials.find(name);  // every name checked first
  TableCache cache(a.dir.empty() ? TableCache::default_dir() : std::filesystem::path(a.dir));
  cache.build_options().p_top = a.p_max;
  cache.build_options().backend = a.backend;
  for (const auto& name : a.materials) {
    const nlohmann::json world = {
        {"world", {{"min", {-1, -1, -1}}, {"max", {1, 1, 1}}, {"material", name}}}};
    make_transport_params(world, "tables prepare " + name, materials, {}, &cache, options);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "prepared %zu material%s to %g GeV/c in %s: %zu ladder%s built or extended (%zu momentum "
      "bins), %zu tables shipped with fastmu, %.1f s\n",
      a.materials.size(), a.materials.size() == 1 ? "" : "s", a.p_max, cache.dir().c_str(),
      cache.builds().ladders, cache.builds().ladders == 1 ? "" : "s", cache.builds().bins,
      cache.builds().shipped, secs);
}

void run_info(const std::string& path, bool all_bins) {
  const TableParams t = load_table(path);
  const auto& m = t.metadata();
  const auto& d = t.data();
  std::uint64_t samples = 0, smin = UINT64_MAX, smax = 0;
  for (auto s : d.samples_per_bin) {
    samples += s;
    smin = std::min(smin, s);
    smax = std::max(smax, s);
  }
  std::printf("file:            %s\n", path.c_str());
  std::printf("format version:  %d\n", m.format_version);
  std::printf("material:        %s (%s)\n", m.material.c_str(), m.material_definition.c_str());
  std::printf("density:         %g g/cm3\n", m.density_g_cm3);
  std::printf("step:            %g m\n", m.step_m);
  std::printf("charge:          %+d\n", m.charge);
  std::printf("binning:         %s, %d momentum bins in [%g, %g] GeV/c", to_string(m.binning),
              d.n_pbins(), d.p_edges.front(), d.p_edges.back());
  if (m.binning == MomentumBinning::adaptive) std::printf(" (epsilon %g)", m.epsilon);
  std::printf("\nhistogram:       %d x %d log bins + floor bins (loss x kick)\n", d.nx, d.ny);
  std::printf("samples:         %llu in all, %llu to %llu per bin\n",
              static_cast<unsigned long long>(samples), static_cast<unsigned long long>(smin),
              static_cast<unsigned long long>(smax));
  std::printf("generator:       %s\n", m.generator.c_str());
  if (!m.source_sha256.empty()) std::printf("source sha256:   %s\n", m.source_sha256.c_str());
  std::printf("seed:            %llu\n", static_cast<unsigned long long>(m.seed));
  std::printf("created:         %s\n", m.created_utc.c_str());
  std::printf("device memory:   %.1f MB\n", t.device_bytes() / 1e6);
  const int n = d.n_pbins();
  const int shown = all_bins ? n : std::min(n, 8);
  if (shown < n) {
    std::printf(
        "\n%d of the %d momentum bins, first to last evenly spread (--all-bins: every bin):", shown,
        n);
  }
  std::printf("\n%5s  %21s  %9s  %9s  %11s  %11s  %11s\n", "bin", "p range [GeV/c]", "centre",
              "samples", "<-dPz/P>", "std", "<dPt/P>");
  int last = -1;
  for (int k = 0; k < shown; ++k) {
    const int b = shown == 1 ? 0 : static_cast<int>(std::lround(double(k) * (n - 1) / (shown - 1)));
    if (b == last) continue;
    last = b;
    std::printf("%5d  %10.4g-%-10.4g  %9.4g  %9llu  %11.4e  %11.4e  %11.4e\n", b, d.p_edges[b],
                d.p_edges[b + 1], d.p_centres[b],
                static_cast<unsigned long long>(d.samples_per_bin[b]), d.mean_loss[b],
                d.std_loss[b], d.mean_kick[b]);
  }
}

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

void run_list(const std::filesystem::path& dir) {
  const std::vector<CacheEntry> entries = list_cache(dir);
  std::uint64_t bytes = 0;
  for (const CacheEntry& e : entries) bytes += e.bytes;
  std::printf("table cache %s: %zu ladder%s, %s\n", dir.c_str(), entries.size(),
              entries.size() == 1 ? "" : "s", megabytes(bytes).c_str());
  if (const auto shipped = TableCache::default_shipped_dir(); !shipped.empty()) {
    const std::vector<CacheEntry> s = list_cache(shipped);
    std::uint64_t b = 0;
    for (const CacheEntry& e : s) b += e.bytes;
    std::printf("shipped with fastmu %s: %zu ladder%s, %s (used where the cache lacks them)\n",
                shipped.c_str(), s.size(), s.size() == 1 ? "" : "s", megabytes(b).c_str());
  }
  if (entries.empty()) return;
  std::printf("%-20s  %-32s  %-19s  %9s  %-20s  %-14s  %s\n", "material", "steps [mm]",
              "momentum [GeV/c]", "size", "created (UTC)", "engine", "state");
  for (const CacheEntry& e : entries) {
    std::string steps;
    for (double s : e.steps_m) steps += fmt::format("{}{:g}", steps.empty() ? "" : " ", s * 1e3);
    const std::string range =
        e.p_max > 0 ? fmt::format("{:.3g} - {:.4g}", e.p_min, e.p_max) : std::string("-");
    std::printf("%-20s  %-32s  %-19s  %9s  %-20s  %-14s  %s\n", e.material.c_str(),
                steps.empty() ? "-" : steps.c_str(), range.c_str(), megabytes(e.bytes).c_str(),
                e.created_utc.empty() ? "-" : e.created_utc.c_str(),
                e.engine.empty() ? "-" : e.engine.c_str(), to_string(e.state));
  }
}

void run_prune(const std::filesystem::path& dir, bool dry_run) {
  const PruneResult r = prune_cache(dir, dry_run);
  for (const auto& p : r.removed)
    std::printf("%s %s\n", dry_run ? "would remove" : "removed", p.c_str());
  std::printf("%s %zu file%s (%s) from %s\n", dry_run ? "would remove" : "removed",
              r.removed.size(), r.removed.size() == 1 ? "" : "s", megabytes(r.bytes).c_str(),
              dir.c_str());
}

void run_plot(const std::string& path, const std::string& out_dir, const std::string& bins) {
  // One-line errors for a bad file or --bins before Python sees them.
  const int n = load_table(path).n_pbins();
  std::stringstream list(bins);
  for (std::string item; std::getline(list, item, ',');) {
    std::size_t used = 0;
    int b = -1;
    try {
      b = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || b < 0 || b >= n) {
      throw Error("--bins: '" + item + "' is not a momentum bin of '" + path + "' (0 to " +
                  std::to_string(n - 1) + ")");
    }
  }
  const PythonScript script = find_script("plot_tables.py", {"numpy", "h5py", "matplotlib"});
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw Error("--out '" + out_dir + "': cannot create folder: " + ec.message());
  std::vector<std::string> args{path, "--out", out_dir};
  if (!bins.empty()) {
    args.push_back("--bins");
    args.push_back(bins);
  }
  if (run_script(script, args) != 0) {
    throw Error("plot script '" + script.path.string() + "' failed on '" + path + "'");
  }
}

// A readable one-line check for numeric options (CLI11's PositiveNumber
// prints the whole double range).
CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          std::size_t used = 0;
          const double x = std::stod(v, &used);
          if (used == v.size() && x > 0) return "";
        } catch (const std::exception&) {
        }
        return "'" + v + "' is not a positive number";
      },
      "POSITIVE");
}

}  // namespace

void register_tables_commands(CLI::App& app) {
  auto* tables = app.add_subcommand("tables", "Build and inspect the histogram tables");
  tables->require_subcommand(1);

  auto a = std::make_shared<BuildArgs>();
  auto* build = tables->add_subcommand(
      "build",
      "Build one material's tables for one step (from the detailed engine or a sample file)");
  auto& o = a->options;
  build->add_option("--material", a->material, "Material name (Geant4 NIST, e.g. G4_Fe)")
      ->required();
  build->add_option("--step", o.step_m, "Step length [m]")->required()->check(positive());
  build->add_option("--p-min", o.p_min, "Lowest momentum [GeV/c]")->capture_default_str();
  build->add_option("--p-max", o.p_max, "Highest momentum [GeV/c]")->capture_default_str();
  build->add_option("--p-bins", o.p_bins, "Momentum bins (log, uniform)")->capture_default_str();
  build->add_option("--binning", a->binning, "Momentum binning: log, uniform or adaptive")
      ->capture_default_str()
      ->check(CLI::IsMember({"log", "uniform", "adaptive"}));
  build
      ->add_option("--samples-per-bin", o.samples_per_bin,
                   "Engine: the most muons per momentum bin (all of them with "
                   "--loss-precision 0)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  build
      ->add_option("--loss-precision", o.loss_precision,
                   "Engine: muons per bin until the standard error of the mean fractional "
                   "loss is at most this fraction of it (0: --samples-per-bin each)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  build->add_option("--min-samples", o.min_samples, "Engine: the fewest muons per momentum bin")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  build->add_option("--backend", o.backend, "Engine: cpu, cuda or auto (the GPU when there is one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  build->add_option("--hist-bins", o.hist_bins, "Log bins per histogram axis")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  build->add_option("--from-samples", a->from_samples,
                    "Sample file (CSV, HDF5, .f32; columns p0,px,py,pz,...) instead of the engine");
  build
      ->add_option("--threads", o.threads,
                   "Worker threads per process (0: all cores, shared out between the ranks "
                   "of one host under mpirun)")
      ->capture_default_str();
  build->add_option("--seed", o.seed, "Random seed")->capture_default_str();
  build->add_option("--charge", o.charge, "Muon charge: -1 or 1")
      ->capture_default_str()
      ->check(CLI::IsMember({-1, 1}));
  build->add_option("--epsilon", o.epsilon, "Adaptive binning: tolerance on <ln(-dPz/P)>")
      ->capture_default_str()
      ->check(positive());
  build->add_option("--pilot-muons", o.pilot_muons, "Adaptive binning: pilot muons per probe")
      ->capture_default_str()
      ->check(positive());
  build->add_option("--pilot-probes", o.pilot_probes, "Adaptive binning: probe momenta")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000000));
  build->add_option("--out", a->out, "Output table file (.h5)")->required();
  build->callback([a] { run_build(*a); });

  auto pa = std::make_shared<PrepareArgs>();
  auto* prepare = tables->add_subcommand(
      "prepare",
      "Build into the table cache every table a run through the given materials needs "
      "(e.g. on a GPU node, before many runs elsewhere); nothing that is cached or shipped");
  prepare->add_option("materials", pa->materials, "Material names (e.g. G4_Fe StandardRock)")
      ->required();
  prepare->add_option("--p-max", pa->p_max, "Highest momentum the runs will have [GeV/c]")
      ->capture_default_str();
  prepare->add_option("--step", pa->step, "The runs' --step [m]")->capture_default_str();
  prepare->add_option("--long-steps", pa->long_steps, "The runs' --long-steps")
      ->capture_default_str();
  prepare->add_option("--backend", pa->backend, "Engine: cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  prepare->add_option("--dir", pa->dir,
                      "Cache folder (default: $FASTMU_CACHE, else $XDG_CACHE_HOME/fastmu, else "
                      "~/.cache/fastmu)");
  prepare->callback([pa] { run_prepare(*pa); });

  auto info_path = std::make_shared<std::string>();
  auto info_all = std::make_shared<bool>(false);
  auto* info = tables->add_subcommand("info", "Summarise a table file");
  info->add_option("file", *info_path, "Table file (.h5)")->required();
  info->add_flag("--all-bins", *info_all, "list every momentum bin (default: 8, evenly spread)");
  info->callback([info_path, info_all] { run_info(*info_path, *info_all); });

  struct PlotArgs {
    std::string file, out, bins;
  };
  auto p = std::make_shared<PlotArgs>();
  auto* plot = tables->add_subcommand(
      "plot", "Draw PNGs of a table: marginals, one 2-D histogram, mean loss vs momentum");
  plot->add_option("file", p->file, "Table file (.h5)")->required();
  plot->add_option("--out", p->out, "Output folder for the PNGs")->required();
  plot->add_option("--bins", p->bins, "Momentum bins for the marginals, e.g. 10,40,70,90");
  plot->callback([p] { run_plot(p->file, p->out, p->bins); });

  struct CacheArgs {
    std::string dir;
    bool dry_run = false;
  };
  auto c = std::make_shared<CacheArgs>();
  const std::string dir_help =
      "Cache folder (default: $FASTMU_CACHE, else $XDG_CACHE_HOME/fastmu, else "
      "~/.cache/fastmu)";
  const auto folder = [c] {
    return c->dir.empty() ? TableCache::default_dir() : std::filesystem::path(c->dir);
  };
  auto* list = tables->add_subcommand(
      "list",
      "Show the table cache: per ladder its material, steps, momentum range, size on disk, "
      "creation time, engine version and whether this fastmu reads it");
  list->alias("cache");
  list->add_option("--dir", c->dir, dir_help);
  list->callback([folder] { run_list(folder()); });
  auto* prune = tables->add_subcommand(
      "prune",
      "Remove from the table cache what this fastmu does not read (tables of another engine "
      "version or file format, unreadable files) and temporary files of writes that did not "
      "finish; current tables stay");
  prune->add_option("--dir", c->dir, dir_help);
  prune->add_flag("--dry-run", c->dry_run, "Only list what would be removed");
  prune->callback([folder, c] { run_prune(folder(), c->dry_run); });
}

}  // namespace fastmu::cli
