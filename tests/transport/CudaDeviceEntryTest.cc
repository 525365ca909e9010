// The device-pointer entry point (muons already in GPU memory, as handed over
// by torch or CuPy) against the host-batch CUDA path: same kernel code, same
// ids, so the results must be identical. Skipped without CUDA or a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

#ifdef FASTMU_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace fastmu {
namespace {

TEST(CudaDeviceEntry, RejectsBadColumnCountOrMissingGpu) {
  TableCache& cache = test::test_table_cache();
  MaterialLibrary materials;
  const TransportParams params = make_transport_params(iron_block_geometry_json(), "iron-block",
                                                       materials, {}, &cache, StepOptions{});
  // Without CUDA or a GPU this is a one-line error, never a crash.
  if (!cuda_available()) {
    EXPECT_THROW(transport_on_device(params, nullptr, 1, 8, cuda::DeviceColumns{}), Error);
    return;
  }
  EXPECT_THROW(transport_on_device(params, nullptr, 1, 5, cuda::DeviceColumns{}), Error);
}

#ifdef FASTMU_HAVE_CUDA
TEST(CudaDeviceEntry, MatchesHostBatchPath) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  TableCache& cache = test::test_table_cache();
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 5;
  const TransportParams params =
      make_transport_params(iron_block_geometry_json(), "iron-block", materials, {}, &cache, opt);
  const std::size_t n = 20000;
  const MuonBatch muons = iron_block_muons(n);
  const std::uint64_t first_id = 1000;
  const TransportResult ref = transport(params, muons, Backend::cuda, 0, first_id);

  // Rows px,py,pz,x,y,z,pdg,weight in device memory.
  std::vector<float> rows(n * 8);
  for (std::size_t i = 0; i < n; ++i) {
    const float r[8] = {muons.px[i],
                        muons.py[i],
                        muons.pz[i],
                        muons.x[i],
                        muons.y[i],
                        muons.z[i],
                        static_cast<float>(muons.pdg[i]),
                        0.5f};
    std::copy(r, r + 8, rows.begin() + i * 8);
  }
  float* d_rows = nullptr;
  ASSERT_EQ(cudaMalloc(&d_rows, rows.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_rows, rows.data(), rows.size() * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
  void* block = nullptr;
  // id (int64), 7 float columns, 3 int32 columns.
  ASSERT_EQ(cudaMalloc(&block, n * (8 + 10 * 4)), cudaSuccess);
  cuda::DeviceColumns out;
  out.id = static_cast<std::int64_t*>(block);
  float* f = reinterpret_cast<float*>(out.id + n);
  out.px = f, out.py = f + n, out.pz = f + 2 * n, out.x = f + 3 * n, out.y = f + 4 * n,
  out.z = f + 5 * n, out.weight = f + 6 * n;
  out.pdg = reinterpret_cast<std::int32_t*>(f + 7 * n);
  out.status = out.pdg + n;
  out.plane = out.status + n;
  transport_on_device(params, d_rows, n, 8, out, first_id);

  auto fetch = [n](const auto* d) {
    std::vector<std::remove_const_t<std::remove_pointer_t<decltype(d)>>> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(h[0]), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  };
  EXPECT_EQ(fetch(out.pz), ref.muons.pz);
  EXPECT_EQ(fetch(out.px), ref.muons.px);
  EXPECT_EQ(fetch(out.x), ref.muons.x);
  EXPECT_EQ(fetch(out.status), ref.status);
  EXPECT_EQ(fetch(out.plane), ref.plane);
  const auto ids = fetch(out.id);
  EXPECT_EQ(ids.front(), 1000);
  EXPECT_EQ(ids.back(), static_cast<std::int64_t>(1000 + n - 1));
  const auto w = fetch(out.weight);
  EXPECT_EQ(w[0], 0.5f);
  cudaFree(d_rows);
  cudaFree(block);
}

// Rows in GPU memory are checked there (MuonRowCheck.hh's muon_row_ok): the
// lowest bad row is found whatever the threads, for 7 and 8 columns.
TEST(CudaDeviceEntry, FirstBadRowIsTheLowestRefusedRow) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const int ncol : {7, 8}) {
    const std::size_t n = 300000;
    std::vector<float> rows(n * static_cast<std::size_t>(ncol), 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
      float* r = rows.data() + i * static_cast<std::size_t>(ncol);
      r[2] = 50.0f, r[6] = (i % 2) ? 13.0f : -13.0f;
      if (ncol == 8) r[7] = 1.0f;
    }
    float* d_rows = nullptr;
    const std::size_t bytes = rows.size() * sizeof(float);
    auto upload = [&] {
      ASSERT_EQ(cudaMemcpy(d_rows, rows.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    };
    ASSERT_EQ(cudaMalloc(&d_rows, bytes), cudaSuccess);
    upload();
    EXPECT_EQ(cuda::first_bad_row(d_rows, n, ncol, 400.0), n) << ncol;
    auto at = [&](std::size_t i, int c) -> float& {
      return rows[i * static_cast<std::size_t>(ncol) + static_cast<std::size_t>(c)];
    };
    at(250000, 0) = std::numeric_limits<float>::infinity();
    at(200000, 2) = 1e20f;  // above the top
    at(150001, 6) = 11.0f;  // not a muon
    upload();
    EXPECT_EQ(cuda::first_bad_row(d_rows, n, ncol, 400.0), 150001u) << ncol;
    at(150001, 6) = 13.0f;
    upload();
    EXPECT_EQ(cuda::first_bad_row(d_rows, n, ncol, 400.0), 200000u) << ncol;
    EXPECT_EQ(cuda::first_bad_row(d_rows, n, ncol, 1e30), 250000u) << ncol;
    cudaFree(d_rows);
  }
}
#endif

}  // namespace
}  // namespace fastmu
