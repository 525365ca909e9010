// The detailed transport on the GPU against the CPU: the same histories with
// other normal and exponential variates, so the same statuses and final
// distributions within statistics (through the SHiP-like shield, and an iron
// slab magnetised by a volume field and by a field map).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "fastmu/core/Error.hh"
#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

#include "../SampleComparison.hh"

namespace fastmu {
namespace {

using test::ks_critical;
using test::ks_distance;

// Per status (and plane): both fractions within 4 standard errors of their
// difference (binomial, pooled), plus one muon for the rarest outcomes.
void expect_same_statuses(const TransportResult& cpu, const TransportResult& gpu) {
  ASSERT_EQ(cpu.size(), gpu.size());
  const double n = static_cast<double>(cpu.size());
  for (int s = 0; s < kMuonStatusCount; ++s) {
    for (int k = -1; k < 4; ++k) {
      double a = 0, b = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        a += cpu.status[i] == s && cpu.plane[i] == k;
        b += gpu.status[i] == s && gpu.plane[i] == k;
      }
      const double f = (a + b) / (2 * n);
      const double sigma = std::sqrt(f * (1 - f) * 2 / n);
      EXPECT_LE(std::fabs(a - b) / n, 4 * sigma + 1 / n) << "status " << s << ", plane " << k;
    }
  }
}

// The final |p| and x of the muons at a plane: the same distributions.
void expect_same_at_plane(const TransportResult& cpu, const TransportResult& gpu) {
  std::array<std::vector<double>, 2> p, x;
  const TransportResult* r[2] = {&cpu, &gpu};
  for (int side = 0; side < 2; ++side) {
    const MuonBatch& m = r[side]->muons;
    for (std::size_t i = 0; i < r[side]->size(); ++i) {
      if (r[side]->status[i] != static_cast<int>(MuonStatus::at_plane)) continue;
      p[side].push_back(std::sqrt(double(m.px[i]) * m.px[i] + double(m.py[i]) * m.py[i] +
                                  double(m.pz[i]) * m.pz[i]));
      x[side].push_back(m.x[i]);
    }
  }
  ASSERT_GT(p[0].size(), 1000u);
  ASSERT_GT(p[1].size(), 1000u);
  const double crit = ks_critical(p[0].size(), p[1].size());
  EXPECT_LT(ks_distance(p[0], p[1]), crit) << "|p| at the plane";
  EXPECT_LT(ks_distance(x[0], x[1]), crit) << "x at the plane";
}

void expect_gpu_matches_cpu(const GeometryParams& g, const MaterialLibrary& lib,
                            const MuonBatch& in, std::uint64_t seed) {
  DetailedTransportOptions opt;
  opt.seed = seed;
  const TransportResult cpu = transport_detailed(g, lib, in, opt);
  opt.backend = EngineBackend::cuda;
  const TransportResult gpu = transport_detailed(g, lib, in, opt);
  expect_same_statuses(cpu, gpu);
  expect_same_at_plane(cpu, gpu);
  // Same meaning of the columns: a stopped muon has no momentum, a muon at a
  // plane lies on it.
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (gpu.status[i] == static_cast<int>(MuonStatus::stopped)) {
      ASSERT_EQ(gpu.muons.px[i], 0.f) << i;
      ASSERT_EQ(gpu.muons.pz[i], 0.f) << i;
    }
    if (gpu.status[i] == static_cast<int>(MuonStatus::at_plane)) {
      ASSERT_EQ(gpu.muons.z[i], g.sensitive_planes()[gpu.plane[i]].z) << i;
    }
    ASSERT_EQ(gpu.muons.pdg[i], in.pdg[i]);
  }
}

nlohmann::json iron_slab(std::array<double, 3> field) {
  return {{"world", {{"min", {-20, -20, -1}}, {"max", {20, 20, 4}}, {"material", "G4_AIR"}}},
          {"volumes",
           {{{"name", "fe"},
             {"shape", "box"},
             {"min", {-20, -20, 0}},
             {"max", {20, 20, 2}},
             {"material", "G4_Fe"},
             {"field", field}}}},
          {"sensitive_planes", {{{"z", 3.0}, {"x", {-20, 20}}, {"y", {-20, 20}}}}}};
}

MuonBatch beam(std::size_t n, float p) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) b.push_back(0, 0, p, 0, 0, -0.5f, i % 2 ? 13 : -13);
  return b;
}

TEST(DetailedGpu, ShipShieldMatchesCpu) {
  if (!engine_gpu_available()) GTEST_SKIP() << "no GPU";
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(make_ship_shield_json("warm"), "ship", lib);
  expect_gpu_matches_cpu(g, lib, ship_muons(30000, 5), 5);
}

TEST(DetailedGpu, MagnetisedIronSlabMatchesCpu) {
  if (!engine_gpu_available()) GTEST_SKIP() << "no GPU";
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(iron_slab({0, 1.7, 0}), "slab.json", lib);
  expect_gpu_matches_cpu(g, lib, beam(20000, 10.0f), 11);
}

// The field map path (Runge-Kutta through the map, in the iron and the air).
TEST(DetailedGpu, IronSlabInAFieldMapMatchesCpu) {
  if (!engine_gpu_available()) GTEST_SKIP() << "no GPU";
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_detailed_gpu_map_test";
  std::filesystem::create_directories(dir);
  std::vector<float> b(3 * 27, 0.f);
  for (int i = 0; i < 27; ++i) b[3 * i + 1] = 1.7f - 0.2f * static_cast<float>(i % 3);
  FieldMapParams({3, 3, 3}, b, {-2, -2, -0.5}, {2, 2, 2.5}, FieldInterpolation::linear,
                 FieldSymmetry::none)
      .write_hdf5(dir / "b.h5");
  auto doc = iron_slab({0, 0, 0});
  doc["field_map"] = {{"file", (dir / "b.h5").string()}, {"interpolation", "linear"}};
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(doc, "map.json", lib);
  expect_gpu_matches_cpu(g, lib, beam(10000, 10.0f), 12);
  std::filesystem::remove_all(dir);
}

// Without a usable GPU the CUDA backend is an error, not a silent CPU run.
TEST(DetailedGpu, CudaWithoutGpuIsRefused) {
  if (engine_gpu_available()) GTEST_SKIP() << "a GPU is usable";
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(iron_slab({0, 0, 0}), "slab.json", lib);
  DetailedTransportOptions opt;
  opt.backend = EngineBackend::cuda;
  EXPECT_THROW(transport_detailed(g, lib, beam(10, 10.0f), opt), Error);
  EXPECT_THROW(resolve_engine_backend("cuda", "--backend"), Error);
  EXPECT_EQ(resolve_engine_backend("auto", "--backend"), EngineBackend::cpu);
}

}  // namespace
}  // namespace fastmu
