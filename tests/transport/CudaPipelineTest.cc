// The streamed CUDA pipeline (chunks on several streams, compaction on the
// device, inputs resident between calls) against the single-launch path;
// skipped where this build has no CUDA or no GPU is visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cuda/CudaSession.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

MuonBatch mixed_muons(std::size_t n) {
  MuonBatch m = iron_block_muons(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.pz[i] = 2.0f + static_cast<float>(i % 60);
    m.pdg[i] = i % 3 ? 13 : -13;
    m.weight[i] = 0.25 + static_cast<double>(i);
  }
  return m;
}

void expect_same_rows(const TransportResult& a, const TransportResult& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.first_id, b.first_id);
  EXPECT_EQ(a.muons.px, b.muons.px);
  EXPECT_EQ(a.muons.py, b.muons.py);
  EXPECT_EQ(a.muons.pz, b.muons.pz);
  EXPECT_EQ(a.muons.x, b.muons.x);
  EXPECT_EQ(a.muons.y, b.muons.y);
  EXPECT_EQ(a.muons.z, b.muons.z);
  EXPECT_EQ(a.muons.pdg, b.muons.pdg);
  EXPECT_EQ(a.muons.weight, b.muons.weight);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.plane, b.plane);
  EXPECT_EQ(a.steps, b.steps);
}

struct Fixture : ::testing::Test {
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  }
  MaterialLibrary materials;
  StepOptions options = [] {
    StepOptions o;
    o.seed = 99;
    return o;
  }();
  TransportParams params = make_transport_params(iron_block_geometry_json(), "iron-block",
                                                 materials, {}, &test::test_table_cache(), options);
};

// Chunked over three streams, all rows or compacted: bitwise the rows of one
// launch over the whole batch (the path of earlier fastmu versions).
TEST_F(Fixture, StreamedEqualsOneLaunch) {
  const std::size_t n = 40001;
  const std::uint64_t first_id = 12345;
  const MuonBatch muons = mixed_muons(n);
  TransportResult ref;
  {
    std::vector<MaterialTableView> views;
    cuda::DeviceArena arena;
    const TransportView view =
        params.make_view([&](const auto* p, std::size_t k) { return arena.copy(p, k); }, views);
    ref = cuda::transport(view, muons, first_id, n);  // one chunk: one launch
  }
  const ResidentGpus gpu(params, {0});
  for (std::size_t chunk : {std::size_t(0), std::size_t(7000)}) {
    cuda::StreamedOptions o;
    o.chunk = chunk;
    o.streams_per_gpu = chunk ? 5 : 0;  // fixed chunks on five streams, or guided ones
    cuda::StreamedStats st;
    TransportResult all;
    cuda::transport_streamed(gpu.targets(), muons, first_id, o, all, &st);
    expect_same_rows(all, ref);
    EXPECT_EQ(st.steps, ref.total_steps());
    EXPECT_GT(st.kernel_s, 0.0);

    o.at_plane_only = true;
    TransportResult kept;
    cuda::StreamedStats kst;
    cuda::transport_streamed(gpu.targets(), muons, first_id, o, kept, &kst);
    EXPECT_EQ(kst.steps, st.steps);
    EXPECT_EQ(kst.by_status, st.by_status);
    EXPECT_EQ(std::accumulate(kst.by_status.begin(), kst.by_status.end(), std::uint64_t{0}), n);
    ASSERT_EQ(kept.size(), kst.by_status[0]);
    EXPECT_GT(kept.size(), n / 10);
    EXPECT_LT(kept.size(), n * 9 / 10);
    std::size_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (ref.status[i] != 0) continue;
      ASSERT_EQ(kept.id_of(j), first_id + i);
      ASSERT_EQ(kept.muons.pz[j], ref.muons.pz[i]);
      ASSERT_EQ(kept.muons.y[j], ref.muons.y[i]);
      ASSERT_EQ(kept.muons.pdg[j], ref.muons.pdg[i]);
      ASSERT_EQ(kept.muons.weight[j], ref.muons.weight[i]);
      ASSERT_EQ(kept.steps[j], ref.steps[i]);
      ++j;
    }
    EXPECT_EQ(j, kept.size());
  }
}

// transport() keeps the inputs on the GPU: a second call with the same
// params uploads nothing; other step options upload again.
TEST_F(Fixture, InputsStayResidentBetweenCalls) {
  const MuonBatch muons = mixed_muons(5000);
  TransportStats st;
  const TransportResult a = transport(params, muons, Backend::cuda, 0, 0, &st, 1);
  const std::uint64_t after_first = resident_uploads();
  const TransportResult b =
      transport(params, muons, Backend::cuda, 0, 0, nullptr, 1, ResultRows::at_plane);
  EXPECT_EQ(resident_uploads(), after_first);
  EXPECT_EQ(b.size(), st.by_status[0]);
  EXPECT_EQ(st.muons, muons.size());
  StepOptions other = options;
  other.seed = 100;
  const TransportParams params2 = make_transport_params(
      iron_block_geometry_json(), "iron-block", materials, {}, &test::test_table_cache(), other);
  transport(params2, muons, Backend::cuda, 0, 0, nullptr, 1);
  EXPECT_EQ(resident_uploads(), after_first + 1);
  // The first params again: uploaded again (one set per GPU), same rows.
  const TransportResult c = transport(params, muons, Backend::cuda, 0, 0, nullptr, 1);
  expect_same_rows(c, a);
  release_resident_gpus();
  const TransportResult d = transport(params, muons, Backend::cuda, 0, 0, nullptr, 1);
  expect_same_rows(d, a);
  // Reused result arrays: compacted, then all rows, then compacted again.
  prepare_transport(params, Backend::cuda, muons.size(), 1);
  TransportResult r;
  transport_into(r, params, muons, Backend::cuda, 0, 0, nullptr, 1, ResultRows::at_plane);
  expect_same_rows(r, b);
  transport_into(r, params, muons, Backend::cuda, 0, 0, nullptr, 1);
  expect_same_rows(r, a);
  transport_into(r, params, muons, Backend::cuda, 0, 0, nullptr, 1, ResultRows::at_plane);
  expect_same_rows(r, b);
}

// Compacted rows over every visible GPU equal those of one GPU.
TEST_F(Fixture, CompactedSameForAnyGpuCount) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "fewer than two CUDA devices";
  const MuonBatch muons = mixed_muons(30001);
  const TransportResult one =
      transport(params, muons, Backend::cuda, 0, 3, nullptr, 1, ResultRows::at_plane);
  const TransportResult all =
      transport(params, muons, Backend::cuda, 0, 3, nullptr, 0, ResultRows::at_plane);
  expect_same_rows(all, one);
}

}  // namespace
}  // namespace fastmu
