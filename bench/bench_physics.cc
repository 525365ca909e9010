// Speed of the detailed physics engine, one thread (per-core rates):
//  - single-step sampling, 10 GeV/c mu- over 2 cm of iron (goal >= 1e6 muons/s/core);
//  - slab transport, 50 GeV/c mu- through 10 m of iron (goal >= 1440 muons/s/core,
//    Geant4's single-core speed on the same case).
// Tables are built (and cached) before timing. items_per_second = muons/s.
#include <benchmark/benchmark.h>

#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace {

const fastmu::Material& iron() { return fastmu::builtin_materials().find("G4_Fe"); }

void BM_SingleStep_Fe_10GeV_2cm(benchmark::State& state) {
  const std::size_t n = 20000;
  fastmu::sample_single_step(iron(), 10.0, 10.0, 0.02, 10, -1, 1, 1);  // warm the caches
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto s = fastmu::sample_single_step(iron(), 10.0, 10.0, 0.02, n, -1, seed++, 1);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_SingleStep_Fe_10GeV_2cm)->Unit(benchmark::kMillisecond);

void BM_Slab_Fe_50GeV_10m(benchmark::State& state) {
  const std::size_t n = 200;
  fastmu::transport_slab(iron(), 10.0, 50.0, 50.0, 1, -1, fastmu::Vec3{}, 1, 1);
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto s = fastmu::transport_slab(iron(), 10.0, 50.0, 50.0, n, -1, fastmu::Vec3{}, seed++, 1);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Slab_Fe_50GeV_10m)->Unit(benchmark::kMillisecond);

void BM_Slab_Fe_50GeV_10m_Field(benchmark::State& state) {
  const std::size_t n = 200;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto s =
        fastmu::transport_slab(iron(), 10.0, 50.0, 50.0, n, -1, fastmu::Vec3{0, 1.7, 0}, seed++, 1);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Slab_Fe_50GeV_10m_Field)->Unit(benchmark::kMillisecond);

void BM_TableBuild(benchmark::State& state, const char* material) {
  const fastmu::Material& m = fastmu::builtin_materials().find(material);
  for (auto _ : state) {
    fastmu::MuonPhysicsTables t(m, fastmu::PhysicsOptions{});
    benchmark::DoNotOptimize(&t);
  }
}
BENCHMARK_CAPTURE(BM_TableBuild, Fe, "G4_Fe")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TableBuild, Concrete, "G4_CONCRETE")->Unit(benchmark::kMillisecond);

}  // namespace
