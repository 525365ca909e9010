// The CUDA backend against the CPU backend on the iron-block case (skipped
// where this build has no CUDA or no GPU is visible).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

TEST(CudaBackend, AgreesWithCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  TableCache& cache = test::test_table_cache();
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 77;
  const TransportParams params =
      make_transport_params(iron_block_geometry_json(), "iron-block", materials, {}, &cache, opt);
  const std::size_t n = 50000;
  const MuonBatch muons = iron_block_muons(n);
  const TransportResult cpu = transport(params, muons, Backend::cpu, 0);
  const TransportResult gpu = transport(params, muons, Backend::cuda, 0);
  // Streaming in small chunks gives the same answer as one launch.
  std::vector<MaterialTableView> views;
  cuda::DeviceArena arena;
  const TransportView dview =
      params.make_view([&](const auto* p, std::size_t k) { return arena.copy(p, k); }, views);
  const TransportResult chunked = cuda::transport(dview, muons, 0, 7000);
  ASSERT_EQ(chunked.size(), n);
  EXPECT_EQ(chunked.status, gpu.status);
  EXPECT_EQ(chunked.muons.pz, gpu.muons.pz);

  // Float maths differ (device intrinsics, FMA contraction), so histories may
  // part where a random draw sits at a bin edge; most muons agree closely.
  std::size_t same_status = 0, close = 0;
  double sum_cpu = 0, sum_gpu = 0;
  for (std::size_t i = 0; i < n; ++i) {
    same_status += cpu.status[i] == gpu.status[i];
    const double a = std::hypot(cpu.muons.px[i], cpu.muons.py[i], cpu.muons.pz[i]);
    const double b = std::hypot(gpu.muons.px[i], gpu.muons.py[i], gpu.muons.pz[i]);
    sum_cpu += a;
    sum_gpu += b;
    close += std::fabs(a - b) <= 1e-3 * std::max(a, 1.0);
  }
  EXPECT_GE(same_status, n * 99 / 100);
  EXPECT_GE(close, n * 9 / 10);
  EXPECT_NEAR(sum_gpu / n, sum_cpu / n, 0.002 * sum_cpu / n);
  EXPECT_EQ(gpu.total_steps() > 0, true);
}

// A batch split over all visible GPUs gives bitwise the one-GPU result
// (skipped with fewer than two GPUs).
TEST(CudaBackend, SameResultForAnyGpuCount) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "fewer than two CUDA devices";
  TableCache& cache = test::test_table_cache();
  MaterialLibrary materials;
  const TransportParams params = make_transport_params(iron_block_geometry_json(), "iron-block",
                                                       materials, {}, &cache, StepOptions{});
  const std::size_t n = 30001;  // not a multiple of the GPU count
  const MuonBatch muons = iron_block_muons(n);
  TransportStats one_stats, all_stats;
  const TransportResult one = transport(params, muons, Backend::cuda, 0, 5, &one_stats, 1);
  const TransportResult all = transport(params, muons, Backend::cuda, 0, 5, &all_stats, 0);
  EXPECT_EQ(one_stats.gpus, 1);
  EXPECT_EQ(all_stats.gpus, cuda::device_count());
  EXPECT_EQ(all.status, one.status);
  EXPECT_EQ(all.steps, one.steps);
  EXPECT_EQ(all.muons.px, one.muons.px);
  EXPECT_EQ(all.muons.pz, one.muons.pz);
  EXPECT_EQ(all.muons.x, one.muons.x);
}

TEST(CudaBackend, RejectsMoreGpusThanVisible) {
  const int visible = cuda::device_count();
  EXPECT_EQ(resolve_gpu_count(0), visible);
  try {
    resolve_gpu_count(visible + 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fastmu
