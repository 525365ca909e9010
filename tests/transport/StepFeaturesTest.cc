// The step compiled for a geometry's features (TransportViewFor) against the
// general one: what a geometry holds, which compiled set covers it, and the
// same muons bit for bit on the CPU and, where a GPU is visible, on CUDA.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "TestTables.hh"
#include "fastmu/geometry/ShapeKinds.hh"
#include "fastmu/geometry/ShipShield.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/cuda/CudaTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

constexpr unsigned kStraight = shapes::kPlanarArb8;
constexpr unsigned kMagnets = shapes::kPlanarArb8 | step_features::kVolumeFields;

TransportParams iron_block_params() {
  MaterialLibrary materials;
  return make_transport_params(iron_block_geometry_json(), "iron-block", materials, {},
                               &test::test_table_cache(), StepOptions{});
}

TransportParams ship_params() {
  MaterialLibrary materials;
  return make_transport_params(make_ship_shield_json("warm"), "ship(warm)", materials, {},
                               &test::test_table_cache(), StepOptions{});
}

// Every muon of `muons` through env, one at a time (the per-muon step).
template <class Env>
std::vector<MuonTrack> transport_each(const Env& env, const MuonBatch& muons) {
  std::vector<MuonTrack> out;
  for (std::size_t i = 0; i < muons.size(); ++i) {
    MuonTrack t = make_track(muons, i, env.options, 0);
    transport_muon(env, t, i);
    out.push_back(t);
  }
  return out;
}

template <class Env>
void expect_same_tracks(const TransportView& general, const Env& restricted,
                        const MuonBatch& muons) {
  const std::vector<MuonTrack> a = transport_each(general, muons);
  const std::vector<MuonTrack> b = transport_each(restricted, muons);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].status, b[i].status) << "muon " << i;
    ASSERT_EQ(a[i].steps, b[i].steps) << "muon " << i;
    ASSERT_EQ(a[i].p.x, b[i].p.x) << "muon " << i;
    ASSERT_EQ(a[i].p.z, b[i].p.z) << "muon " << i;
    ASSERT_EQ(a[i].r.y, b[i].r.y) << "muon " << i;
    ASSERT_EQ(a[i].r.z, b[i].r.z) << "muon " << i;
  }
}

TEST(StepFeatures, AViewSaysWhatItsGeometryHolds) {
  const HostTransportView iron(iron_block_params());
  EXPECT_EQ(iron.view.features, 0u);  // boxes, no field
  const HostTransportView ship(ship_params());
  EXPECT_EQ(ship.view.features, kMagnets);  // planar ARB8s, uniform fields
}

TEST(StepFeatures, ASetCoversTheGeometriesWithinIt) {
  EXPECT_TRUE(TransportViewFor<kStraight>::covers(0u));
  EXPECT_TRUE(TransportViewFor<kStraight>::covers(shapes::kPlanarArb8));
  EXPECT_FALSE(TransportViewFor<kStraight>::covers(step_features::kVolumeFields));
  EXPECT_FALSE(TransportViewFor<kMagnets>::covers(kMagnets | shapes::kTerrain));
  EXPECT_FALSE(TransportViewFor<kMagnets>::covers(kMagnets | step_features::kFieldMap));
  EXPECT_TRUE(TransportViewFor<step_features::kAll>::covers(step_features::kAll));
}

TEST(StepFeatures, TheStraightStepIsTheGeneralStepInTheIronBlock) {
  const TransportParams params = iron_block_params();
  const HostTransportView host(params);
  expect_same_tracks(host.view, TransportViewFor<kStraight>(host.view), iron_block_muons(2000));
}

TEST(StepFeatures, TheMagnetStepIsTheGeneralStepInTheShipShield) {
  const TransportParams params = ship_params();
  const HostTransportView host(params);
  expect_same_tracks(host.view, TransportViewFor<kMagnets>(host.view), ship_muons(1000, 5));
}

// On a GPU: the launch for the geometry's features against the kernel for
// all features (a view that claims everything).
TEST(StepFeatures, TheGpuKernelForFewerFeaturesGivesTheSameMuons) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  for (const bool ship : {false, true}) {
    const TransportParams params = ship ? ship_params() : iron_block_params();
    const MuonBatch muons = ship ? ship_muons(20000, 9) : iron_block_muons(20000);
    std::vector<MaterialTableView> views;
    cuda::DeviceArena arena;
    TransportView view =
        params.make_view([&](const auto* p, std::size_t k) { return arena.copy(p, k); }, views);
    const TransportResult fewer = cuda::transport(view, muons, 0, muons.size());
    view.features = step_features::kAll;
    const TransportResult all = cuda::transport(view, muons, 0, muons.size());
    EXPECT_EQ(fewer.status, all.status) << (ship ? "ship" : "iron block");
    EXPECT_EQ(fewer.steps, all.steps);
    EXPECT_EQ(fewer.muons.px, all.muons.px);
    EXPECT_EQ(fewer.muons.pz, all.muons.pz);
    EXPECT_EQ(fewer.muons.y, all.muons.y);
  }
}

}  // namespace
}  // namespace fastmu
