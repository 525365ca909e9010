// The step physics on toy environments: field integration, plane landing,
// status codes and reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ToyEnvironment.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"
#include "fastmu/transport/step/FieldPropagation.hh"

namespace fastmu {
namespace {

using test::ToyEnv;
using test::ToyTable;

TEST(FieldPropagation, Rk4FollowsHelixInUniformField) {
  // mu+ of 1 GeV/c along +z in B = 1 T along +y bends towards -x on a circle of
  // radius R = p / (0.2998 B) = 3.336 m.
  const float p = 1.0f, b = 1.0f;
  const double radius = p / (constants::c_light_gev_per_t_m * b);
  const float kappa = curvature_per_tesla(+1.0f, p);
  RayState s{{0, 0, 0}, {0, 0, 1}};
  auto field = [&](Vec3f) { return Vec3f{0, b, 0}; };
  const int n = 50;
  const float h = 0.02f;
  for (int i = 0; i < n; ++i) s = rk4_step(s, kappa, h, field);
  const double len = n * static_cast<double>(h);
  const double ex = -radius * (1 - std::cos(len / radius));
  const double ez = radius * std::sin(len / radius);
  EXPECT_NEAR(s.r.x, ex, 2e-6);  // over 1 m of path
  EXPECT_NEAR(s.r.y, 0.0, 1e-9);
  EXPECT_NEAR(s.r.z, ez, 2e-6);
  EXPECT_NEAR(s.u.x, -std::sin(len / radius), 1e-6);
  EXPECT_NEAR(s.u.z, std::cos(len / radius), 1e-6);
}

TEST(FieldPropagation, Rk4ReversesBendForOppositeCharge) {
  RayState plus{{0, 0, 0}, {0, 0, 1}}, minus = plus;
  auto field = [](Vec3f) { return Vec3f{0, 1.5f, 0}; };
  for (int i = 0; i < 10; ++i) {
    plus = rk4_step(plus, curvature_per_tesla(+1, 5), 0.05f, field);
    minus = rk4_step(minus, curvature_per_tesla(-1, 5), 0.05f, field);
  }
  EXPECT_LT(plus.r.x, -1e-3);
  EXPECT_FLOAT_EQ(plus.r.x, -minus.r.x);
}

// The helix against the double-precision circle: small turns (no
// cancellation), the turns RK4 was limited to, and several whole turns in
// one move; both charges; a direction oblique to the field (the part along
// it is kept).
TEST(FieldPropagation, HelixIsExactInUniformField) {
  const Vec3f b{0.3f, 1.7f, -0.2f};
  const double bd[3] = {0.3, 1.7, -0.2};
  const double b_abs = std::sqrt(bd[0] * bd[0] + bd[1] * bd[1] + bd[2] * bd[2]);
  const double n[3] = {bd[0] / b_abs, bd[1] / b_abs, bd[2] / b_abs};
  const double u0[3] = {0.6, 0.0, 0.8};
  for (const float charge : {1.0f, -1.0f}) {
    for (const float h : {1e-6f, 2e-3f, 0.16f, 1.0f, 30.0f}) {
      const float p = 5.0f;
      const float kappa = curvature_per_tesla(charge, p);
      const RayState end =
          helix_step({{1, 2, 3}, {0.6f, 0.0f, 0.8f}}, kappa,
                     field_direction(b, static_cast<float>(b_abs)), static_cast<float>(b_abs), h);
      // Reference: u(s) = u_par + u_perp cos(w s) + (u x n) sin(w s), w = kappa |B|.
      const double w = static_cast<double>(kappa) * b_abs, t = w * h;
      const double along = u0[0] * n[0] + u0[1] * n[1] + u0[2] * n[2];
      double perp[3], side[3], u[3], r[3];
      for (int a = 0; a < 3; ++a) perp[a] = u0[a] - along * n[a];
      side[0] = u0[1] * n[2] - u0[2] * n[1];
      side[1] = u0[2] * n[0] - u0[0] * n[2];
      side[2] = u0[0] * n[1] - u0[1] * n[0];
      const double r0[3] = {1, 2, 3};
      for (int a = 0; a < 3; ++a) {
        u[a] = along * n[a] + perp[a] * std::cos(t) + side[a] * std::sin(t);
        r[a] =
            r0[a] + along * n[a] * h + perp[a] * std::sin(t) / w + side[a] * (1 - std::cos(t)) / w;
      }
      const float got_u[3] = {end.u.x, end.u.y, end.u.z}, got_r[3] = {end.r.x, end.r.y, end.r.z};
      for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(got_u[a], u[a], 5e-7) << "h " << h << " charge " << charge;
        // To float accuracy: a few ulps of |r0| + h (the end is rounded at r's ulp).
        EXPECT_NEAR(got_r[a], r[a], 3e-7 * (3.8 + h)) << "h " << h;
      }
      EXPECT_NEAR(norm(end.u), 1.0f, 1e-7f);
    }
  }
}

// The helix and many small RK4 steps agree (the field map's path and the
// volume's field's path describe the same motion).
TEST(FieldPropagation, HelixMatchesFineRk4) {
  const Vec3f b{0.0f, 1.9f, 0.4f};
  const float kappa = curvature_per_tesla(-1.0f, 0.7f);
  RayState rk{{0, 0, 0}, {0.1f, 0.0f, 0.994987437f}};
  const RayState start = rk;
  auto field = [&](Vec3f) { return b; };
  const int n = 400;
  const float len = 0.8f;  // 0.65 rad of turn
  for (int i = 0; i < n; ++i) rk = rk4_step(rk, kappa, len / n, field);
  const RayState hx = helix_step(start, kappa, field_direction(b, norm(b)), norm(b), len);
  EXPECT_NEAR(hx.r.x, rk.r.x, 2e-6);
  EXPECT_NEAR(hx.r.y, rk.r.y, 2e-6);
  EXPECT_NEAR(hx.r.z, rk.r.z, 2e-6);
  EXPECT_NEAR(hx.u.x, rk.u.x, 2e-6);
  EXPECT_NEAR(hx.u.z, rk.u.z, 2e-6);
}

// A field too weak for its |b|^2 to be a float (subnormal components) and
// a zero one leave the move straight and finite.
TEST(FieldPropagation, HelixInVanishingFieldIsStraight) {
  const RayState start{{1, 2, 3}, {0.6f, 0.0f, 0.8f}};
  for (const Vec3f b : {Vec3f{1e-40f, 0, 0}, Vec3f{0, 0, 0}}) {
    const RayState end = helix_step(start, curvature_per_tesla(1.0f, 1.0f),
                                    field_direction(b, norm(b)), norm(b), 2.0f);
    EXPECT_FLOAT_EQ(end.r.x, 2.2f);
    EXPECT_FLOAT_EQ(end.r.z, 4.6f);
    EXPECT_EQ(end.u.x, 0.6f);
    EXPECT_EQ(end.u.z, 0.8f);
  }
}

// |p| over 1e5 moves in a pure field as the step takes them (u = p / |p|,
// the move, p = |p| u): float rounding moves it at random, no bias beyond
// ~2e-9 per move.
TEST(FieldPropagation, HelixKeepsTheMomentumOverManyMoves) {
  const Vec3f b{0.3f, 1.7f, -0.2f};
  for (const float p0 : {0.3f, 7.0f, 50.0f}) {
    for (const float h : {0.02f, 0.16f}) {
      Vec3f p{0.1f * p0, -0.05f * p0, p0};
      const float n0 = norm(p);
      for (int i = 0; i < 100000; ++i) {
        const float pm = norm(p);
        const RayState s{{0, 0, 0}, (1.0f / pm) * p};
        p = pm *
            helix_step(s, curvature_per_tesla(1.0f, pm), field_direction(b, norm(b)), norm(b), h).u;
      }
      EXPECT_NEAR(norm(p) / n0, 1.0f, 2.5e-4f) << "p " << p0 << " h " << h;
    }
  }
}

TEST(StepPhysics, MomentumMagnitudeConservedInPureField) {
  ToyEnv env;
  env.field = {0.3f, 1.7f, -0.2f};
  env.world_lo = {-100, -100, -100};
  env.world_hi = {100, 100, 100};
  env.options.max_steps = 2000;
  MuonTrack m;
  m.r = {0, 0, 0};
  m.p = {0.5f, -0.2f, 7.0f};
  m.charge = -1;
  const float p0 = norm(m.p);
  transport_muon(env, m, 0);
  EXPECT_EQ(m.status, static_cast<int>(MuonStatus::step_limit));
  EXPECT_EQ(m.steps, 2000);
  // |p| is rounded each step (p = |p| u, |p| = sqrt(p . p)): a drift of
  // at most ~5e-9 per step, for the helix as for RK4.
  EXPECT_NEAR(norm(m.p) / p0, 1.0f, 2e-5f);
  // It moved along a helix of 40 m of path: the radius of gyration bounds it.
  EXPECT_LT(norm(m.r), 2 * 7.0f / (0.2998f * 1.73f) + 1e-3f + 40.f * 0.3f);
}

TEST(StepPhysics, LandsExactlyOnPlaneInMatterAndField) {
  ToyTable table;
  const SensitivePlane planes[] = {{5.013f, -1.f, 1.f, -1.f, 1.f}};
  for (bool field : {false, true}) {
    ToyEnv env;
    env.slab_z0 = 0;
    env.slab_z1 = 10;
    env.slab_table = &table.view;
    env.planes = planes;
    env.n_planes = 1;
    if (field) env.field = {0, 0.5f, 0};
    MuonTrack m;
    m.r = {0, 0, 0};
    m.p = {0, 0, 20};
    m.charge = -1;
    transport_muon(env, m, 7);
    EXPECT_EQ(m.status, static_cast<int>(MuonStatus::at_plane)) << "field " << field;
    EXPECT_EQ(m.plane, 0);
    EXPECT_EQ(m.r.z, 5.013f);  // exactly on the plane
    // The toy table takes ~1.1e-3 of p per step: ~25 % over 251 steps.
    EXPECT_GT(m.p.z, 13.0f);
    EXPECT_LT(m.p.z, 18.0f);
    EXPECT_GE(m.steps, 251);
    EXPECT_LE(m.steps, 252);
    if (field) EXPECT_GT(m.r.x, 0.1f);  // mu- with B along +y bends towards +x
  }
}

// A step in a field bends with the momentum at its middle: its bin's mean
// fractional loss f over the step lowers the bending momentum by f / 2, and
// the step turns by 1 / (1 - f / 2) of the start momentum's turn (the toy
// table's own loss and kick, ~1e-4, drawn with the same random numbers).
TEST(StepPhysics, BendsWithTheMomentumAtTheStepsMiddle) {
  ToyTable table;
  const float f = 0.2f;
  const MaterialTableArrays lossy(table.tv, std::vector<double>(ToyTable::n_pbins, f));
  MaterialTableView lossy_view =
      lossy.make_view(table.tv, [](const auto* p, std::size_t) { return p; });
  lossy_view.step = table.view.step;
  lossy_view.inv_step = table.view.inv_step;
  float turn[2];
  for (int k = 0; k < 2; ++k) {
    ToyEnv env;
    env.slab_z0 = -1;
    env.slab_z1 = 10;
    env.slab_table = k == 0 ? &table.view : &lossy_view;
    env.field = {0, 4.0f, 0};
    MuonTrack m;
    m.r = {0, 0, 0};
    m.p = {0, 0, 1.0f};
    m.charge = 1;
    transport_step(env, m, 3);
    ASSERT_EQ(m.steps, 1);
    turn[k] = std::atan2(-m.p.x, m.p.z);  // mu+ along +z, B along +y: towards -x
  }
  EXPECT_GT(turn[0], 0.02f);  // 0.2998 x 4 T x 0.02 m / 1 GeV/c = 0.024 rad
  EXPECT_NEAR(turn[1] / turn[0], 1.0f / (1.0f - 0.5f * f), 0.01f);
}

TEST(StepPhysics, OutsideWindowAndNearestPlane) {
  const SensitivePlane planes[] = {{8.f, -1.f, 1.f, -1.f, 1.f}, {3.f, -0.1f, 0.1f, -0.1f, 0.1f}};
  ToyEnv env;
  env.slab_z0 = env.slab_z1 = 50;  // no slab: vacuum up to the world boundary
  env.planes = planes;
  env.n_planes = 2;
  MuonTrack m;
  m.r = {0.5f, 0, -0.5f};
  m.p = {0, 0, 3};
  m.charge = 1;
  transport_muon(env, m, 1);
  EXPECT_EQ(m.status, static_cast<int>(MuonStatus::outside_window));
  EXPECT_EQ(m.plane, 1);
  EXPECT_EQ(m.r.z, 3.f);
  EXPECT_EQ(m.r.x, 0.5f);
  // Vacuum without field: free flight straight to the plane in one step.
  EXPECT_EQ(m.steps, 1);
}

TEST(StepPhysics, StatusCodes) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 10;
  env.slab_table = &table.view;

  MuonTrack slow;  // below the kill momentum from the start
  slow.r = {0, 0, 1};
  slow.p = {0.01f, 0, 0.1f};
  slow.charge = -1;
  transport_muon(env, slow, 0);
  EXPECT_EQ(slow.status, static_cast<int>(MuonStatus::stopped));
  EXPECT_EQ(slow.p.x, 0.f);
  EXPECT_EQ(slow.p.z, 0.f);
  EXPECT_EQ(slow.steps, 0);

  MuonTrack out;  // leaves the world through vacuum after the slab
  out.r = {0, 0, 0};
  out.p = {0, 0, 10};
  out.charge = -1;
  transport_muon(env, out, 1);
  EXPECT_EQ(out.status, static_cast<int>(MuonStatus::left_world));
  EXPECT_GT(out.r.z, env.world_hi.z);
  EXPECT_LT(out.r.z, env.world_hi.z + 1e-3f);
  EXPECT_GE(out.steps, 500);
  EXPECT_LE(out.steps, 503);  // 500 steps in the slab + free flight to the world boundary

  env.options.max_steps = 5;
  MuonTrack limited;
  limited.r = {0, 0, 0};
  limited.p = {0, 0, 10};
  limited.charge = 1;
  transport_muon(env, limited, 2);
  EXPECT_EQ(limited.status, static_cast<int>(MuonStatus::step_limit));
  EXPECT_EQ(limited.steps, 5);
  EXPECT_NEAR(limited.r.z, 0.1f, 1e-5f);
}

TEST(StepPhysics, RangeOutStopsMuons) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 1e6f;
  env.world_hi = {10, 10, 1e6f};
  env.slab_table = &table.view;
  env.options.p_kill = 0.5f;
  // Mean fractional loss per step ~ 0.9 * 1e-4 * (e^4 - 1) / 4 ~ 1.2e-3:
  // 0.6 GeV/c falls below 0.5 within a few hundred steps.
  MuonTrack m;
  m.r = {0, 0, 0};
  m.p = {0, 0, 0.6f};
  m.charge = -1;
  transport_muon(env, m, 3);
  EXPECT_EQ(m.status, static_cast<int>(MuonStatus::stopped));
  EXPECT_EQ(norm(m.p), 0.f);
  EXPECT_GT(m.steps, 10);
  EXPECT_LT(m.steps, 5000);
}

MuonBatch toy_batch(std::size_t n) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) {
    const float p = 1.0f + 0.37f * static_cast<float>(i % 97);
    b.push_back(0.01f * static_cast<float>(i % 5), 0, p, 0, 0, 0, i % 2 ? 13 : -13, 0.5 + i);
  }
  return b;
}

bool bitwise_equal(const TransportResult& a, const TransportResult& b, std::size_t offset_b,
                   std::size_t n) {
  auto same = [&](const auto& va, const auto& vb) {
    return std::memcmp(va.data(), vb.data() + offset_b, n * sizeof(va[0])) == 0;
  };
  return same(a.muons.px, b.muons.px) && same(a.muons.py, b.muons.py) &&
         same(a.muons.pz, b.muons.pz) && same(a.muons.x, b.muons.x) && same(a.muons.y, b.muons.y) &&
         same(a.muons.z, b.muons.z) && same(a.status, b.status) && same(a.steps, b.steps) &&
         same(a.muons.weight, b.muons.weight);
}

TEST(CpuTransport, BitwiseReproducibleAcrossThreadsAndBatches) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 4;
  env.field = {0, 0.8f, 0};
  env.slab_table = &table.view;
  const SensitivePlane planes[] = {{5.f, -3.f, 3.f, -3.f, 3.f}};
  env.planes = planes;
  env.n_planes = 1;
  const std::size_t n = 10000;
  const MuonBatch all = toy_batch(n);
  const TransportResult one = transport_cpu(env, all, 1);
  const TransportResult four = transport_cpu(env, all, 4);
  EXPECT_TRUE(bitwise_equal(one, four, 0, n));

  // The same muons cut into two batches, ids continuing.
  const std::size_t cut = 3333;
  MuonBatch head = all, tail = all;
  auto keep = [](auto& v, std::size_t b, std::size_t e) {
    v.assign(v.begin() + static_cast<std::ptrdiff_t>(b),
             v.begin() + static_cast<std::ptrdiff_t>(e));
  };
  for (auto* v : {&head.px, &head.py, &head.pz, &head.x, &head.y, &head.z}) keep(*v, 0, cut);
  keep(head.pdg, 0, cut), keep(head.weight, 0, cut);
  for (auto* v : {&tail.px, &tail.py, &tail.pz, &tail.x, &tail.y, &tail.z}) keep(*v, cut, n);
  keep(tail.pdg, cut, n), keep(tail.weight, cut, n);
  const TransportResult r_head = transport_cpu(env, head, 2, 0);
  const TransportResult r_tail = transport_cpu(env, tail, 2, cut);
  EXPECT_TRUE(bitwise_equal(r_head, one, 0, cut));
  EXPECT_TRUE(bitwise_equal(r_tail, one, cut, n - cut));

  // Different seeds give different histories; the physics did act.
  ToyEnv other = env;
  other.options.seed = env.options.seed + 1;
  const TransportResult reseeded = transport_cpu(other, all, 2);
  EXPECT_FALSE(bitwise_equal(reseeded, one, 0, n));
  std::size_t at_plane = 0;
  for (auto s : one.status) at_plane += s == 0;
  EXPECT_GT(at_plane, n / 2);
}

}  // namespace
}  // namespace fastmu
