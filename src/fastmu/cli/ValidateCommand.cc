// `fastmu validate`: the fast transport against the detailed engine on the
// same muons through the same geometry. Both results are written to the
// output folder (fast.csv, detailed.csv, every muon with status and plane);
// scripts/plot_validate.py then writes the overlays (PNG), summary.md and
// summary.json and judges them against the tolerances. Exits non-zero when a
// check fails, so that it can run in a user's CI.

#include <chrono>
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
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/io/AtomicOutput.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/StepOptionsCheck.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/stream/MuonIO.hh"

namespace fastmu::cli {
namespace {

struct ValidateArgs {
  std::string geometry, muons, tolerances, out_dir, example;
  std::size_t n = 0;
  std::uint64_t seed = 1;
  int threads = 0;
  double step = 0.02;
  int long_steps = kDefaultLongSteps;
  double p_kill = 0.18;
  std::int64_t max_steps = 100000;
  std::string backend = "auto";
  std::string decay = "on";
};

// Documented defaults (docs/detailed-engine-and-validation.md, "fastmu
// validate"); a --tolerances JSON overrides any of them. Each statistical
// limit lets a check fail by chance with probability ~1e-3 when both engines
// sample the same distribution, so that a run's few dozen checks rarely fail
// from noise alone.
nlohmann::json default_tolerances() {
  return {{"ks_p_min", 1e-3},       // two-sample KS p-value of each quantity at each plane/charge
          {"fraction_sigma", 3.3},  // |status fraction difference| / its binomial error
          {"fraction_abs", 0.01},   // ... or at most this absolute difference
          {"quantile_rel", 0.05},   // relative difference of the 10/50/90 % quantiles of |p|
          {"quantile_sigma", 3.5},  // ... or |difference| / its order-statistic error
          {"min_muons", 20}};       // groups with fewer muons (either engine) are not judged
}

nlohmann::json read_tolerances(const std::string& file) {
  nlohmann::json tol = default_tolerances();
  if (file.empty()) return tol;
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("--tolerances {}: cannot open", file));
  nlohmann::json user;
  try {
    in >> user;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("--tolerances {}: not JSON ({})", file, e.what()));
  }
  if (!user.is_object()) throw Error(fmt::format("--tolerances {}: must be a JSON object", file));
  for (const auto& [key, value] : user.items()) {
    if (!tol.contains(key)) {
      throw Error(
          fmt::format("--tolerances {}: unknown key '{}' (known: ks_p_min, fraction_sigma, "
                      "fraction_abs, quantile_rel, quantile_sigma, min_muons)",
                      file, key));
    }
    if (!value.is_number() || !(value.get<double>() >= 0)) {
      throw Error(fmt::format("--tolerances {}: '{}' must be a number >= 0", file, key));
    }
    tol[key] = value;
  }
  return tol;
}

void run_validate(const ValidateArgs& a) {
  // Every input is checked before any transport (one line each).
  if (!a.example.empty()) {
    if (a.example != "iron-block" && a.example != "ship") {
      throw Error(fmt::format("--example: '{}' is not iron-block or ship", a.example));
    }
    if (!a.geometry.empty() || !a.muons.empty()) {
      throw Error("validate: --example excludes --geometry and --muons");
    }
  } else if (a.geometry.empty() || a.muons.empty()) {
    throw Error("validate: --geometry and --muons are required (or --example iron-block|ship)");
  }
  if (a.out_dir.empty()) throw Error("validate: --out-dir is required");
  const StepOptions opt = checked_step_options(
      {a.step, a.p_kill, a.max_steps, a.seed, a.long_steps, parse_decay(a.decay)});
  const nlohmann::json tol = read_tolerances(a.tolerances);
  // The checks need Python with NumPy: found before any transport, so that
  // a run always ends with a verdict. Matplotlib only adds the PNGs.
  const PythonScript script = find_script("plot_validate.py", {"numpy"});
  try {
    find_python({"numpy", "matplotlib"});
  } catch (const Error& e) {
    std::fprintf(stderr, "fastmu: warning: validate: no PNGs, the verdict only (%s)\n", e.what());
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out_dir, ec);
  if (ec || !std::filesystem::is_directory(a.out_dir)) {
    throw Error(fmt::format("--out-dir {}: cannot create ({})", a.out_dir, ec.message()));
  }
  const std::filesystem::path dir = a.out_dir;

  MaterialLibrary materials;
  nlohmann::json doc;
  std::string source = a.geometry;
  MuonBatch muons;
  if (a.example == "iron-block") {
    doc = iron_block_geometry_json(), source = "iron-block";
    muons = iron_block_muons(a.n ? a.n : 5000);
  } else if (a.example == "ship") {
    doc = make_ship_shield_json("warm"), source = "ship(warm)";
    muons = ship_muons(a.n ? a.n : 20000, a.seed);
  } else {
    std::ifstream in(a.geometry);
    if (!in) throw Error(fmt::format("--geometry {}: cannot open", a.geometry));
    try {
      in >> doc;
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("--geometry {}: not JSON ({})", a.geometry, e.what()));
    }
    muons = read_muons(a.muons, detailed_row_limits());
    if (a.n > 0 && a.n < muons.size()) muons.resize(a.n);
  }
  if (muons.size() == 0) throw Error("validate: no muons");
  auto geometry =
      std::make_shared<const GeometryParams>(GeometryParams::from_json(doc, source, materials));
  const Backend backend = resolve_backend(parse_backend(a.backend));

  TableCache cache;
  cache.build_options().p_top = highest_momentum(muons);  // tables as far up as the muons
  const TransportParams params = make_transport_params(geometry, materials, {}, &cache, opt);
  // Both engines must reach every muon: the fast transport's tables too.
  check_muon_rows(muons, params.row_limits(MomentumPolicy::refuse), source);
  TransportStats fs;
  const TransportResult fast = transport(params, muons, backend, a.threads, 0, &fs);
  std::printf("fast transport: %zu muons in %.3f s\n", fast.size(), fs.seconds);

  ProgressBar bar("detailed engine", muons.size());
  DetailedTransportOptions dopt;
  dopt.p_kill = static_cast<float>(a.p_kill);
  dopt.max_segments = static_cast<std::int32_t>(a.max_steps);
  dopt.seed = a.seed;
  dopt.threads = a.threads;
  dopt.physics.decay = opt.decay;  // both engines decay, or neither
  // The detailed side follows the fast one: on the GPU when that is.
  dopt.backend = backend == Backend::cuda ? EngineBackend::cuda : EngineBackend::cpu;
  const auto t0 = std::chrono::steady_clock::now();
  const TransportResult detailed =
      transport_detailed(*geometry, materials, muons, dopt, 0, [&](std::size_t k) { bar.add(k); });
  bar.finish();
  struct {
    double seconds;
  } ds{std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  const std::string where = dopt.backend == EngineBackend::cuda
                                ? std::string("GPU")
                                : fmt::format("{} threads", resolve_thread_count(a.threads));
  std::printf("detailed engine: %zu muons in %.3f s (%s)\n", detailed.size(), ds.seconds,
              where.c_str());

  write_transport_result(dir / "fast.csv", fast, true, true);
  write_transport_result(dir / "detailed.csv", detailed, true, true);
  {
    io::AtomicOutput out(dir / "tolerances.json");
    std::ofstream f(out.temp_path());
    f << tol.dump(2) << '\n';
    io::close_checked(f, dir / "tolerances.json");
    out.commit();
  }
  nlohmann::json planes = nlohmann::json::array();
  for (const auto& p : geometry->sensitive_planes()) planes.push_back(p.z);
  nlohmann::json info_doc;
  info_doc["source"] = source;
  info_doc["muons"] = muons.size();
  info_doc["seed"] = a.seed;
  info_doc["fast_seconds"] = fs.seconds;
  info_doc["detailed_seconds"] = ds.seconds;
  info_doc["threads"] = resolve_thread_count(a.threads);
  info_doc["detailed_backend"] = to_string(dopt.backend);
  info_doc["planes"] = planes;
  const std::string info = info_doc.dump();
  const int code = run_script(script, {"--dir", dir.string(), "--info", info});
  if (code == 1) {
    throw Error(fmt::format("validate: checks failed (see {})", (dir / "summary.md").string()));
  }
  if (code != 0) {
    throw Error(fmt::format("validate: {} failed (exit {})", script.path.string(), code));
  }
  std::printf("validate: all checks passed; wrote %s\n", (dir / "summary.md").c_str());
}

}  // namespace

void register_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  auto* v = app.add_subcommand(
      "validate", "fast transport vs detailed engine on the same muons: plots, summary, pass/fail");
  v->add_option("--geometry", a->geometry, "geometry JSON");
  v->add_option("--muons", a->muons, "muons (CSV or HDF5: px,py,pz,x,y,z,pdg[,weight])");
  v->add_option("--n", a->n, "use the first N muons (examples: iron-block 5000, ship 20000)");
  v->add_option("--tolerances", a->tolerances,
                "JSON overriding ks_p_min, fraction_sigma, fraction_abs, quantile_rel, "
                "quantile_sigma, min_muons");
  v->add_option("--out-dir", a->out_dir, "folder for the CSVs, PNGs and summary.{md,json}");
  v->add_option("--example", a->example, "built-in geometry and muons: iron-block | ship");
  v->add_option("--seed", a->seed, "random seed")->capture_default_str();
  v->add_option("--threads", a->threads, "CPU threads (0: all)")->capture_default_str();
  v->add_option("--step", a->step, "fast transport: table step [m]")->capture_default_str();
  v->add_option("--long-steps", a->long_steps,
                "fast transport: doublings of a fast muon's step (as `fastmu run`)")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  v->add_option("--p-kill", a->p_kill, "kill momentum [GeV/c]")->capture_default_str();
  v->add_option("--max-steps", a->max_steps,
                "step limit per muon (the detailed engine: volume segments, i.e. volumes entered)")
      ->capture_default_str();
  v->add_option("--backend", a->backend,
                "auto | cpu | cuda (the detailed engine follows the fast transport)")
      ->capture_default_str();
  v->add_option("--decay", a->decay, "decay in flight in both engines: on | off (as `fastmu run`)")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  v->callback([a] {
    mpi::require_one_process("validate", "run it as one process (it uses all cores and GPUs)");
    run_validate(*a);
  });
}

}  // namespace fastmu::cli
