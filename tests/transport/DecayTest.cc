// Decay in flight (StepOptions::decay, status decayed = 6) in the fast
// transport and in the detailed engine through a geometry: the surviving
// fraction of a beam in vacuum is exp(-L m / (p c tau)) within statistics,
// the CPU lanes take the decays of the per-muon path (the GPU's schedule),
// results do not depend on the thread count, a decayed muon keeps where and
// how fast it decayed, and with decay off nothing decays.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "ToyEnvironment.hh"
#include "fastmu/core/Constants.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

using test::ToyEnv;
using test::ToyTable;

constexpr std::int32_t kDecayed = static_cast<std::int32_t>(MuonStatus::decayed);
constexpr std::int32_t kAtPlane = static_cast<std::int32_t>(MuonStatus::at_plane);

// The survival probability over path L at momentum p (no energy loss).
double survival(double length, double p) {
  const double ctau = constants::muon_lifetime_s * constants::c_light_m_per_s;
  return std::exp(-length * constants::muon_mass / (p * ctau));
}

MuonBatch beam(std::size_t n, float p) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) b.push_back(0, 0, p, 0, 0, 0, i % 2 ? 13 : -13);
  return b;
}

std::size_t count(const TransportResult& r, std::int32_t status) {
  std::size_t k = 0;
  for (auto s : r.status) k += s == status;
  return k;
}

// |measured - expected| within 4 binomial standard deviations.
void expect_fraction(std::size_t k, std::size_t n, double expected, const char* what) {
  const double f = static_cast<double>(k) / static_cast<double>(n);
  const double sd = std::sqrt(expected * (1 - expected) / static_cast<double>(n));
  EXPECT_NEAR(f, expected, 4 * sd) << what;
  std::printf("[ %s ] %.4f (expected %.4f +- %.4f)\n", what, f, expected, sd);
}

// A vacuum world 6 km long with a plane at z = 5 km: free flights, cut where
// the muon decays.
struct VacuumBeamline : ToyEnv {
  SensitivePlane plane{5000.f, -10.f, 10.f, -10.f, 10.f};
  VacuumBeamline() {
    world_hi.z = 6000;
    planes = &plane;
    n_planes = 1;
  }
};

TEST(Decay, FreeFlightSurvivalIsExponential) {
  VacuumBeamline env;
  env.options.seed = 3;
  const std::size_t n = 20000;
  for (float p : {1.0f, 0.5f}) {
    const TransportResult r = transport_cpu(env, beam(n, p), 2);
    EXPECT_EQ(count(r, kAtPlane) + count(r, kDecayed), n);
    expect_fraction(count(r, kAtPlane), n, survival(5000, p), "survive 5 km");
    // Decays are spread as the exponential: those before 2.5 km.
    std::size_t early = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (r.status[i] != kDecayed) continue;
      early += r.muons.z[i] < 2500.f;
      // Where it decayed, with the momentum it had (vacuum: unchanged).
      EXPECT_GT(r.muons.z[i], 0.f);
      EXPECT_LT(r.muons.z[i], 5000.f);
      EXPECT_FLOAT_EQ(r.muons.pz[i], p);
    }
    expect_fraction(early, n, 1 - survival(2500, p), "decay before 2.5 km");
  }
}

TEST(Decay, OffMeansNoDecay) {
  VacuumBeamline env;
  env.options.decay = false;
  const TransportResult r = transport_cpu(env, beam(5000, 0.5f), 2);
  EXPECT_EQ(count(r, kDecayed), 0u);
  EXPECT_EQ(count(r, kAtPlane), 5000u);
}

// A 3 km slab of the toy material in 10 m steps (fractional losses 1e-4 to
// 5e-3 per step), a plane behind it: most muons decay on the way, in steps
// that the CPU lanes must hand to the per-muon path.
struct LongSlab : ToyEnv {
  // Vacuum steps in a field are the 2 cm reference step: little vacuum.
  SensitivePlane plane{3000.5f, -5000.f, 5000.f, -5000.f, 5000.f};
  explicit LongSlab(ToyTable& table) {
    table.view.step = 10.0f;
    table.view.inv_step = 0.1f;
    world_lo = {-5000, -5000, -1};  // wide: muons curving in a field stay in
    world_hi = {5000, 5000, 3001};
    slab_z0 = 0;
    slab_z1 = 3000;
    slab_table = &table.view;
    planes = &plane;
    n_planes = 1;
  }
};

MuonBatch spread_beam(std::size_t n) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) {
    const float p = 0.4f + 0.05f * static_cast<float>(i % 97);
    const float tx = 0.002f * static_cast<float>(static_cast<int>(i % 7) - 3);
    b.push_back(tx * p, 0, p, 0, 0, -0.5f, i % 2 ? 13 : -13);
  }
  return b;
}

template <class Env>
void expect_lanes_follow_per_muon(const Env& env, const MuonBatch& in, const char* what) {
  const TransportResult lanes = transport_cpu(env, in, 2);
  std::size_t same = 0, close = 0, bitwise = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    MuonTrack m = make_track(in, i, env.options, 0);
    transport_muon(env, m, i);
    const Vec3f r{lanes.muons.x[i], lanes.muons.y[i], lanes.muons.z[i]};
    const Vec3f p{lanes.muons.px[i], lanes.muons.py[i], lanes.muons.pz[i]};
    same += lanes.status[i] == m.status && lanes.steps[i] == m.steps;
    const float dr = norm(r - m.r), dp = norm(p - m.p);
    close += dr <= 1e-5f * norm(m.r) + 1e-4f && dp <= 1e-4f * norm(m.p) + 1e-6f;
    bitwise += dr == 0.0f && dp == 0.0f;
  }
  // As CpuLanesTest: the lanes may fuse multiply-adds where the per-muon
  // path does not, so over hundreds of steps the histories differ by float
  // rounding; a rare rounding may part one.
  EXPECT_GE(same, in.size() * 99 / 100) << what;
  EXPECT_GE(close, in.size() * 99 / 100) << what;
  const std::size_t decayed = count(lanes, kDecayed);
  EXPECT_GT(decayed, in.size() / 10) << what << ": the case must decay muons";
  std::printf("[ %s ] %zu of %zu decayed; %zu same status and steps, %zu close, %zu bitwise\n",
              what, decayed, in.size(), same, close, bitwise);
  // The thread count changes nothing.
  const TransportResult one = transport_cpu(env, in, 1);
  EXPECT_EQ(one.status, lanes.status) << what;
  EXPECT_EQ(one.muons.z, lanes.muons.z) << what;
}

TEST(Decay, CpuLanesFollowPerMuonPathInMatter) {
  ToyTable table;
  LongSlab env(table);
  expect_lanes_follow_per_muon(env, spread_beam(3000), "3 km of toy matter");
  env.field = {0, 5e-4f, 0};  // 0.5 GeV/c turns by 0.9 rad in 3 km
  expect_lanes_follow_per_muon(env, spread_beam(3000), "3 km of toy matter, 0.5 mT");
  env.options.decay = false;
  EXPECT_EQ(count(transport_cpu(env, spread_beam(3000), 2), kDecayed), 0u);
}

nlohmann::json vacuum_beamline() {
  return {{"world", {{"min", {-20, -20, -1}}, {"max", {20, 20, 6000}}, {"material", "vacuum"}}},
          {"volumes", nlohmann::json::array()},
          {"sensitive_planes", {{{"z", 5000}, {"x", {-20, 20}}, {"y", {-20, 20}}}}}};
}

// Through a real geometry (TransportParams: a vacuum needs no tables), on
// every backend there is, and in the detailed engine: the same law.
TEST(Decay, BackendsAndDetailedEngineAgreeInVacuum) {
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 11;
  const TransportParams params =
      make_transport_params(vacuum_beamline(), "beamline", materials, {}, nullptr, opt);
  const std::size_t n = 20000;
  const MuonBatch in = beam(n, 1.0f);
  const TransportResult cpu = transport(params, in, Backend::cpu, 2);
  expect_fraction(count(cpu, kAtPlane), n, survival(5000, 1.0), "fast, survive 5 km");
  if (cuda_available()) {
    const TransportResult gpu = transport(params, in, Backend::cuda);
    std::size_t same = 0;
    for (std::size_t i = 0; i < n; ++i) {
      same += gpu.status[i] == cpu.status[i] && std::fabs(gpu.muons.z[i] - cpu.muons.z[i]) <= 1e-3f;
    }
    EXPECT_GE(same, n * 999 / 1000);
  }
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(vacuum_beamline(), "beamline", lib);
  DetailedTransportOptions d;
  d.seed = 11;
  d.physics.decay = true;
  const TransportResult det = transport_detailed(g, lib, in, d);
  expect_fraction(count(det, kAtPlane), n, survival(5000, 1.0), "detailed, survive 5 km");
  EXPECT_EQ(count(det, kAtPlane) + count(det, kDecayed), n);
  d.physics.decay = false;
  EXPECT_EQ(count(transport_detailed(g, lib, in, d), kAtPlane), n);
}

// The detailed engine in matter: 0.3 GeV/c through 200 m of air lose ~50 MeV,
// so the decayed fraction lies between the survival laws at the initial
// momentum and at the survivors' mean final momentum. A decayed muon is
// written where it decayed, with its momentum there (not zero: not stopped).
TEST(Decay, DetailedEngineDecaysInMatterWithStatusDecayed) {
  MaterialLibrary lib;
  nlohmann::json doc = {
      {"world", {{"min", {-50, -50, -1}}, {"max", {50, 50, 210}}, {"material", "G4_AIR"}}},
      {"volumes", nlohmann::json::array()},
      {"sensitive_planes", {{{"z", 200}, {"x", {-50, 50}}, {"y", {-50, 50}}}}}};
  const GeometryParams g = GeometryParams::from_json(doc, "air", lib);
  DetailedTransportOptions d;
  d.seed = 5;
  d.physics.decay = true;
  const std::size_t n = 2000;
  const TransportResult r = transport_detailed(g, lib, beam(n, 0.3f), d);
  double p_end = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double p = std::hypot(r.muons.px[i], r.muons.py[i], r.muons.pz[i]);
    if (r.status[i] == kAtPlane) p_end += p;
    if (r.status[i] != kDecayed) continue;
    EXPECT_GT(p, 0.2);
    EXPECT_LT(p, 0.3);
    EXPECT_GT(r.muons.z[i], 0.f);
    EXPECT_LT(r.muons.z[i], 200.f);
  }
  const std::size_t at_plane = count(r, kAtPlane), decayed = count(r, kDecayed);
  ASSERT_GT(at_plane, 0u);
  p_end /= static_cast<double>(at_plane);
  const double lo = 1 - survival(200, 0.3), hi = 1 - survival(200, p_end);
  const double f = static_cast<double>(decayed) / n, sd = std::sqrt(hi * (1 - hi) / n);
  std::printf("decayed %.4f, between %.4f and %.4f (final p %.3f GeV/c)\n", f, lo, hi, p_end);
  EXPECT_GT(f, lo - 4 * sd);
  EXPECT_LT(f, hi + 4 * sd);
  d.physics.decay = false;  // ~55 of 500 would decay
  EXPECT_EQ(count(transport_detailed(g, lib, beam(500, 0.3f), d), kDecayed), 0u);
}

}  // namespace
}  // namespace fastmu
