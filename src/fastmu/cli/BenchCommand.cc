// `fastmu bench`: times the fast transport on the built-in cases and prints
// muon-steps/s and muons/s (median of --repeat runs after one warm-up run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fastmu/cli/Commands.hh"
#include "fastmu/cli/MpiSession.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/MuonRowCheck.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu::cli {
namespace {

struct BenchArgs {
  std::string backend = "auto";
  std::string which = "iron-block";
  std::size_t n = 0;
  int repeat = 5;
  int threads = 0;
  int gpus = 0;
  std::uint64_t seed = 1;
  bool at_plane = false;
  bool reuse = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

void bench_case(const BenchArgs& a, const std::string& name) {
  const Backend backend = resolve_backend(parse_backend(a.backend));
  StepOptions opt;
  opt.seed = a.seed;
  MaterialLibrary materials;
  const bool ship = name == "ship";
  const std::size_t n =
      a.n ? a.n : (backend == Backend::cuda ? 4'000'000 : (ship ? 20'000 : 200'000));
  const MuonBatch muons = ship ? ship_muons(n, a.seed) : iron_block_muons(n);
  TableCache cache;
  cache.build_options().p_top = highest_momentum(muons);  // tables as far up as the muons
  const TransportParams params =
      ship ? make_transport_params(make_ship_shield_json("warm"), "ship(warm)", materials, {},
                                   &cache, opt)
           : make_transport_params(iron_block_geometry_json(), "iron-block", materials, {}, &cache,
                                   opt);

  const std::string where =
      backend == Backend::cuda
          ? fmt::format("cuda ({} x {})", resolve_gpu_count(a.gpus), cuda::device_name())
          : fmt::format("cpu ({} threads)", resolve_thread_count(a.threads));
  std::printf("bench %s: %zu muons, backend %s, %d repeats after a warm-up\n", name.c_str(), n,
              where.c_str(), a.repeat);
  const ResultRows rows = a.at_plane ? ResultRows::at_plane : ResultRows::all;
  const auto t_prep = std::chrono::steady_clock::now();
  prepare_transport(params, backend, n, a.gpus);  // device contexts, uploads, buffers
  const double prep_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_prep).count();
  TransportStats first;  // the warm-up
  TransportResult out;
  transport_into(out, params, muons, backend, a.threads, 0, &first, a.gpus, rows);
  std::size_t kept = out.size();
  std::vector<double> wall, kernel;
  std::uint64_t steps = 0;
  for (int k = 0; k < a.repeat; ++k) {
    TransportStats st;
    if (!a.reuse) out = TransportResult{};  // fresh result arrays, as a one-shot run has
    transport_into(out, params, muons, backend, a.threads, 0, &st, a.gpus, rows);
    kept = out.size();
    wall.push_back(st.seconds);
    kernel.push_back(st.kernel_seconds);
    steps = st.steps;
  }
  const double t = median(wall), tk = median(kernel);
  std::printf("  set-up %.4f s, first call %.4f s; %zu rows returned (%s, %s result arrays)\n",
              prep_s, first.seconds, kept, a.at_plane ? "status 0 only" : "all muons",
              a.reuse ? "reused" : "fresh");
  std::printf("  %llu muon-steps per run (%.1f per muon)\n", static_cast<unsigned long long>(steps),
              double(steps) / n);
  std::printf("  wall   %.4f s: %.4g muon-steps/s, %.4g muons/s\n", t, steps / t, n / t);
  if (backend == Backend::cuda) {
    std::printf("  kernel %.4f s: %.4g muon-steps/s, %.4g muons/s\n", tk, steps / tk, n / tk);
    std::printf("  wall / kernel %.3f\n", t / tk);
  } else {
    const int threads = resolve_thread_count(a.threads);
    std::printf("  per thread: %.4g muon-steps/s\n", steps / t / threads);
  }
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* bench = app.add_subcommand("bench", "Time the fast transport on the built-in cases");
  bench->add_option("--backend", a->backend, "auto | cpu | cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  bench->add_option("--case", a->which, "iron-block | ship | all")
      ->check(CLI::IsMember({"iron-block", "ship", "all"}))
      ->capture_default_str();
  bench->add_option("--n", a->n, "muons (default: 4e6 on a GPU, 2e5 on the CPU; ship 2e4)");
  bench->add_option("--repeat", a->repeat, "timed runs (the median is printed)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  bench->add_option("--threads", a->threads, "CPU threads (0: all)")->capture_default_str();
  bench->add_option("--gpus", a->gpus, "GPUs for the CUDA backend (0: all visible)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  bench->add_option("--seed", a->seed, "random seed")->capture_default_str();
  bench->add_flag("--at-plane", a->at_plane,
                  "return only the muons at a sensitive plane (what `fastmu run` writes "
                  "without --all; the GPU compacts them on the device)");
  bench->add_flag("--reuse-output", a->reuse,
                  "transport into the same result arrays each repeat (as a chunked run does), "
                  "instead of fresh ones");
  bench->callback([a] {
    mpi::require_one_process("bench",
                             "run it as one process (--gpus N for several GPUs), or time "
                             "`mpirun -np N fastmu run` on a muon file");
    if (a->which == "all" || a->which == "iron-block") bench_case(*a, "iron-block");
    if (a->which == "all" || a->which == "ship") bench_case(*a, "ship");
  });
}

}  // namespace fastmu::cli
