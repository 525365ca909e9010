// The safety a step leaves (StepPhysics.hh, finish_step): a path that stayed
// inside its convex volume keeps the depth its straight end was tested at,
// less the bend, so that a muon running along a face needs no lookup of its
// volume at every step; a step cut at a boundary leaves none.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/TransportView.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

// The transport view, counting the lookups and boundary tests the step makes.
struct CountingView : TransportView {
  explicit CountingView(const TransportView& v) : TransportView(v) {}
  mutable int lookups = 0, boundary_tests = 0;
  Location locate(Vec3f r, float& safety) const {
    ++lookups;
    return TransportView::locate(r, safety);
  }
  float distance_to_boundary(Vec3f r, Vec3f u, std::int32_t volume, float limit) const {
    ++boundary_tests;
    return TransportView::distance_to_boundary(r, u, volume, limit);
  }
};

// An iron box in a 1.7 T field (a magnet's core), 5 m long, in vacuum.
TransportParams magnet_params() {
  const nlohmann::json geometry = nlohmann::json::parse(R"({
    "world": {"min": [-1, -1, -1], "max": [1, 1, 6], "material": "vacuum"},
    "volumes": [
      {"name": "core", "shape": "box", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 5],
       "material": "G4_Fe", "field": [0, 1.7, 0]}]})");
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 3;
  return make_transport_params(geometry, "magnet", materials, {}, &test::test_table_cache(), opt);
}

class SafetyAfterStep : public ::testing::Test {
 protected:
  SafetyAfterStep() : params_(magnet_params()), host_(params_), env(host_.view) {}
  // A mu+ at r with momentum p (GeV/c), not yet located.
  MuonTrack muon(Vec3f r, Vec3f p) const { return make_track(r, p, -13, env.options, 0); }

  TransportParams params_;
  HostTransportView host_;  // views params_' arrays
  const CountingView env;   // counts what the step asks of host_'s view
};

TEST_F(SafetyAfterStep, PathAlongAFaceKeepsItsDepth) {
  // mu+ of 50 GeV/c along +z, 4 cm inside the face x = 0.5 (its field bends
  // it towards -x, away from the face): steps of 16 cm, four times the depth.
  MuonTrack m = muon({0.46f, 0.0f, 0.2f}, {0.0f, 0.0f, 50.0f});
  transport_step(env, m, 0);  // locates the muon
  ASSERT_EQ(env.lookups, 1);
  const float first = m.r.z - 0.2f;
  EXPECT_GT(first, 0.1f);  // a long step, wider than the depth
  for (int k = 0; k < 20; ++k) {
    const float depth = 0.5f - m.r.x;
    transport_step(env, m, 0);
    ASSERT_EQ(m.status, static_cast<std::int32_t>(MuonStatus::alive));
    // The safety left is within the bend and the kick's shift of the depth
    // at the end, never beyond it.
    EXPECT_LE(m.safety, 0.5f - m.r.x) << k;
    EXPECT_GT(m.safety, 0.5f * depth) << k;
  }
  EXPECT_EQ(env.lookups, 1);  // each step's end was known to lie in the core
}

// Just past the entry face, shallower than the path's bend: the path leaves
// its tangent quadratically while the depth along the tangent grows
// linearly, so a straight end deep inside keeps the whole path in.
TEST_F(SafetyAfterStep, StepJustPastTheEntryNeedsNoBoundaryTest) {
  // 20 um inside the face z = 0 at 2 GeV/c: a 2 cm table step bending by
  // ~54 um, more than the start's depth.
  MuonTrack m = muon({0.0f, 0.0f, 2e-5f}, {0.0f, 0.0f, 2.0f});
  transport_step(env, m, 0);
  EXPECT_EQ(env.lookups, 1);
  EXPECT_EQ(env.boundary_tests, 0);
  EXPECT_GT(m.r.z, 0.015f);  // a whole table step
  EXPECT_GT(m.safety, 0.0f);
}

TEST_F(SafetyAfterStep, StepCutAtTheFaceLeavesNone) {
  // Straight at the face z = 5 from 5 cm before it: the step ends beyond it.
  MuonTrack m = muon({0.0f, 0.0f, 4.95f}, {0.0f, 0.0f, 50.0f});
  transport_step(env, m, 0);
  EXPECT_GT(m.r.z, 5.0f);
  EXPECT_EQ(m.safety, 0.0f);  // the next step locates the muon again
  transport_step(env, m, 0);
  EXPECT_EQ(env.lookups, 2);
}

}  // namespace
}  // namespace fastmu
