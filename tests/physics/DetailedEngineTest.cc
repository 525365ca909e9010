// The stepping engine: determinism, geometry, field, stopping, decay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"

#include "../SampleComparison.hh"

namespace fastmu {
namespace {

using test::ks_distance;

const Material& iron() { return builtin_materials().find("G4_Fe"); }

TEST(DetailedEngine, IndependentOfThreadCount) {
  const auto a = sample_single_step(iron(), 1.0, 20.0, 0.02, 3000, -1, 42, 1);
  const auto b = sample_single_step(iron(), 1.0, 20.0, 0.02, 3000, -1, 42, 3);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].p0, b[i].p0);
    ASSERT_EQ(a[i].pz, b[i].pz);
    ASSERT_EQ(a[i].x, b[i].x);
  }
  const auto c = transport_slab(iron(), 1.0, 10.0, 10.0, 200, 1, Vec3{0, 1.0, 0}, 5, 1);
  const auto d = transport_slab(iron(), 1.0, 10.0, 10.0, 200, 1, Vec3{0, 1.0, 0}, 5, 2);
  for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i].px, d[i].px);
  // A different seed gives different muons.
  const auto e = sample_single_step(iron(), 1.0, 20.0, 0.02, 10, -1, 43, 1);
  EXPECT_NE(e[0].p0, a[0].p0);
}

TEST(DetailedEngine, SphereExitOnSurfaceAndMomentumRange) {
  const auto s = sample_single_step(iron(), 2.0, 4.0, 0.05, 2000, -1, 1, 2);
  for (const auto& m : s) {
    ASSERT_GE(m.p0, 2.0);
    ASSERT_LE(m.p0, 4.0);
    const double r = std::sqrt(m.x * m.x + m.y * m.y + m.z * m.z);
    ASSERT_NEAR(r, 0.05, 1e-9);
    const double p = std::sqrt(m.px * m.px + m.py * m.py + m.pz * m.pz);
    ASSERT_LT(p, m.p0);
    ASSERT_GT(m.pz, 0.0);
  }
}

TEST(DetailedEngine, SlowMuonsStopAtTheirRange) {
  // 0.3 GeV/c in 1 m of iron: CSDA range ~ 0.2 m, every muon stops inside.
  const auto s = transport_slab(iron(), 1.0, 0.3, 0.3, 500, -1, Vec3{}, 1, 2);
  double zsum = 0;
  for (const auto& m : s) {
    ASSERT_EQ(m.px, 0.0);
    ASSERT_EQ(m.pz, 0.0);
    zsum += m.z;
  }
  const double zmean = zsum / s.size();
  EXPECT_GT(zmean, 0.12);
  EXPECT_LT(zmean, 0.25);
}

TEST(DetailedEngine, FieldBendsOppositeChargesOppositeWays) {
  // B along +y, muon along +z: F = q v x B points along -x for q > 0.
  const double b = 1.5, l = 2.0, p = 20.0;
  for (int q : {-1, 1}) {
    const auto s = transport_slab(iron(), l, p, p, 300, q, Vec3{0, b, 0}, 9, 2);
    double px = 0;
    for (const auto& m : s) px += m.px;
    px /= s.size();
    // Transverse kick ~ 0.3 B L = 0.9 GeV/c, reduced slightly by the energy loss.
    EXPECT_NEAR(px, -q * 0.299792458 * b * l, 0.1) << "charge " << q;
  }
}

TEST(DetailedEngine, DecayOption) {
  PhysicsOptions opt;
  opt.decay = true;
  // 0.2 GeV/c muons through 20 m of air: decay length beta gamma c tau = 1.25 km,
  // so 1.6 % decay (the 5 MeV lost in the air changes that by under 2 %).
  const Material& air = builtin_materials().find("G4_AIR");
  const auto s = transport_slab(air, 20.0, 0.2, 0.2, 6000, -1, Vec3{}, 2, 2, opt);
  int stopped = 0;
  for (const auto& m : s) stopped += (m.pz == 0 && m.px == 0 && m.py == 0);
  const double expected = 1.0 - std::exp(-20.0 / (0.2 / 0.1056583755 * 658.6384));
  // Without the option nothing decays.
  const auto off = transport_slab(air, 20.0, 0.2, 0.2, 500, -1, Vec3{}, 2, 2);
  for (const auto& m : off) ASSERT_NE(m.pz, 0.0);
  EXPECT_NEAR(double(stopped) / s.size(), expected, 5 * std::sqrt(expected / s.size()));
}

TEST(DetailedEngine, BadArgumentsThrow) {
  EXPECT_THROW(sample_single_step(iron(), -1.0, 1.0, 0.02, 10, -1, 1, 1), Error);
  EXPECT_THROW(sample_single_step(iron(), 2.0, 1.0, 0.02, 10, -1, 1, 1), Error);
  EXPECT_THROW(sample_single_step(iron(), 1.0, 1.0, 0.0, 10, -1, 1, 1), Error);
  EXPECT_THROW(transport_slab(iron(), -1.0, 1.0, 1.0, 10, -1, Vec3{}, 1, 1), Error);
  EXPECT_THROW(transport_slab(iron(), 1.0, 1.0, 1.0, 10, 2, Vec3{}, 1, 1), Error);
}

}  // namespace
}  // namespace fastmu

namespace fastmu {
namespace {

// The GPU runs the same histories with other normal and exponential
// variates: the same distributions of final momentum and position as the
// CPU's (KS distance below its 1e-4 critical value), through a sphere and a
// magnetised slab.
TEST(DetailedEngine, GpuMatchesCpu) {
  if (!engine_gpu_available()) GTEST_SKIP() << "no GPU";
  const Material& fe = builtin_materials().find("G4_Fe");
  const std::size_t n = 40000;
  const double critical = test::ks_critical(n, n);
  const auto compare = [&](const std::vector<MuonSample>& c, const std::vector<MuonSample>& g,
                           const char* what) {
    std::vector<double> pc, pg, xc, xg;
    for (std::size_t i = 0; i < n; ++i) {
      pc.push_back(std::hypot(c[i].px, c[i].py, c[i].pz));
      pg.push_back(std::hypot(g[i].px, g[i].py, g[i].pz));
      xc.push_back(c[i].x);
      xg.push_back(g[i].x);
    }
    EXPECT_LT(ks_distance(pc, pg), critical) << what << ": |p|";
    EXPECT_LT(ks_distance(xc, xg), critical) << what << ": x";
  };
  compare(sample_single_step(fe, 2, 20, 0.02, n, -1, 5, 0),
          sample_single_step(fe, 2, 20, 0.02, n, -1, 5, 0, {}, {}, 0, EngineBackend::cuda),
          "2 cm sphere");
  compare(transport_slab(fe, 1.0, 10, 10, n, 1, Vec3{0, 1.5, 0}, 6, 0),
          transport_slab(fe, 1.0, 10, 10, n, 1, Vec3{0, 1.5, 0}, 6, 0, {}, {}, EngineBackend::cuda),
          "1 m slab at 1.5 T");
}

}  // namespace
}  // namespace fastmu
