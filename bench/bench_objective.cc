// Cost of the differentiable window objective against the forward
// transport on the SHiP-like warm_baseline shield, same muons, same backend:
// BM_ShipForward (transport), BM_ShipObjectiveValue (the objective without
// gradient), BM_ShipObjectiveGradient and BM_ShipObjectiveFieldTangents (value
// and the gradient with respect to every magnet's field, by the adjoint and
// by forward tangents) and BM_ShipObjectiveEveryColumn (value and the
// gradient with respect to all 15 columns of every magnet, by the adjoint).
// Arguments: muons, backend (0 = CPU all threads, 1 = CUDA; skipped without
// a GPU). Tables: the cache ($FASTMU_CACHE).
#include <benchmark/benchmark.h>

#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/gradient/Objective.hh"
#include "fastmu/transport/gradient/ShipParameters.hh"

namespace fastmu {
namespace {

struct ShipCase {
  MaterialLibrary materials;
  TableCache cache;
  std::vector<ShipMagnetParameters> magnets = ship_parameter_set("warm");
  TransportParams params =
      make_transport_params(make_ship_shield_json(magnets), "ship", materials, {}, &cache, {});
  FieldParameters fields = ship_field_objective_parameters(magnets);
  FieldParameters every = ship_objective_parameters(magnets, ship_every_column(magnets.size()));
};

ShipCase& ship_case() {
  static ShipCase c;
  return c;
}

// The backend of argument 1, or false (state skipped) when it is CUDA and no GPU is visible.
bool backend_of(benchmark::State& state, Backend& backend) {
  backend = state.range(1) == 1 ? Backend::cuda : Backend::cpu;
  if (backend == Backend::cuda && !cuda_available()) {
    state.SkipWithError("no CUDA device");
    return false;
  }
  return true;
}

void set_rate(benchmark::State& state, std::size_t n) {
  state.counters["muons_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate);
}

void BM_ShipForward(benchmark::State& state) {
  Backend backend;
  if (!backend_of(state, backend)) return;
  ShipCase& c = ship_case();
  const MuonBatch muons = ship_muons(static_cast<std::size_t>(state.range(0)), 1);
  transport(c.params, muons, backend, 0);  // warm-up: device upload, tables
  for (auto _ : state) {
    const TransportResult r = transport(c.params, muons, backend, 0);
    benchmark::DoNotOptimize(r.status.data());
  }
  set_rate(state, muons.size());
}

void run_objective(benchmark::State& state, bool gradient,
                   GradientMethod method = GradientMethod::adjoint, bool every = false) {
  Backend backend;
  if (!backend_of(state, backend)) return;
  ShipCase& c = ship_case();
  const MuonBatch muons = ship_muons(static_cast<std::size_t>(state.range(0)), 1);
  WindowObjectiveOptions o;
  o.gradient = gradient;
  o.method = method;
  o.per_muon = false;  // the sums only, as fastmu.ship.objective without details
  const FieldParameters& fp = every ? c.every : c.fields;
  window_objective(c.params, muons, fp, o, backend);  // warm-up
  for (auto _ : state) {
    const WindowObjectiveResult r = window_objective(c.params, muons, fp, o, backend);
    benchmark::DoNotOptimize(r.value);
  }
  set_rate(state, muons.size());
}

void BM_ShipObjectiveValue(benchmark::State& state) { run_objective(state, false); }
void BM_ShipObjectiveGradient(benchmark::State& state) { run_objective(state, true); }
void BM_ShipObjectiveFieldTangents(benchmark::State& state) {
  run_objective(state, true, GradientMethod::tangent);
}
void BM_ShipObjectiveEveryColumn(benchmark::State& state) {
  run_objective(state, true, GradientMethod::adjoint, true);
}

// 2e4 muons on the CPU, 1e6 on the GPU.
void ship_args(benchmark::internal::Benchmark* b) {
  b->Args({20000, 0})->Args({1000000, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_ShipForward)->Apply(ship_args);
BENCHMARK(BM_ShipObjectiveValue)->Apply(ship_args);
BENCHMARK(BM_ShipObjectiveGradient)->Apply(ship_args);
BENCHMARK(BM_ShipObjectiveFieldTangents)->Apply(ship_args);
BENCHMARK(BM_ShipObjectiveEveryColumn)->Apply(ship_args);

}  // namespace
}  // namespace fastmu
