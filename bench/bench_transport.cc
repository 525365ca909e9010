// Speed of the fast transport on the iron-block case (50 GeV/c mu- through
// 10 m of iron at 2 cm steps): muon-steps per second, single thread and all
// threads. Tables: the cache ($FASTMU_CACHE; built on first use).
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

const TransportParams& iron_block_params() {
  static MaterialLibrary materials;
  static TableCache cache;
  static const TransportParams params = make_transport_params(
      iron_block_geometry_json(), "iron-block", materials, {}, &cache, StepOptions{});
  return params;
}

void run_iron_block(benchmark::State& state, int threads) {
  const TransportParams& params = iron_block_params();
  const HostTransportView host(params);
  const MuonBatch muons = iron_block_muons(static_cast<std::size_t>(state.range(0)));
  std::uint64_t steps = 0;
  for (auto _ : state) {
    const TransportResult r = transport_cpu(host.view, muons, threads);
    steps += r.total_steps();
    benchmark::DoNotOptimize(r.muons.pz.data());
  }
  state.counters["muon_steps_per_s"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["muons_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * muons.size()), benchmark::Counter::kIsRate);
}

void BM_IronBlockCpuOneThread(benchmark::State& state) { run_iron_block(state, 1); }
void BM_IronBlockCpuAllThreads(benchmark::State& state) { run_iron_block(state, 0); }

BENCHMARK(BM_IronBlockCpuOneThread)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IronBlockCpuAllThreads)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fastmu
