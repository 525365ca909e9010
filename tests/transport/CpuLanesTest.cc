// The CPU's lane schedule (CpuLaneStepper.hh: 8 muons per SIMD register)
// against the per-muon schedule the GPU runs (transport_muon): the same
// steps with the same random numbers, so the same histories up to float
// rounding (the SIMD code may fuse multiply-adds where the scalar code does
// not, and a rounding difference can flip a later bin choice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include "ToyEnvironment.hh"
#include "fastmu/transport/cpu/CpuTransport.hh"

namespace fastmu {
namespace {

using test::ToyEnv;
using test::ToyTable;

struct Agreement {
  std::size_t same_status = 0, close = 0, bitwise = 0, n = 0;
};

template <class Env>
Agreement compare_with_per_muon(const Env& env, const MuonBatch& in) {
  const TransportResult lanes = transport_cpu(env, in, 2);
  Agreement a;
  a.n = in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    MuonTrack m = make_track(in, i, env.options, 0);
    transport_muon(env, m, i);
    const Vec3f p{lanes.muons.px[i], lanes.muons.py[i], lanes.muons.pz[i]};
    const Vec3f r{lanes.muons.x[i], lanes.muons.y[i], lanes.muons.z[i]};
    a.same_status += lanes.status[i] == m.status && lanes.steps[i] == m.steps;
    const float dp = norm(p - m.p), dr = norm(r - m.r);
    a.close += dp <= 1e-4f * norm(m.p) + 1e-6f && dr <= 1e-4f;
    a.bitwise += dp == 0.0f && dr == 0.0f;
  }
  return a;
}

MuonBatch spread_batch(std::size_t n) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) {
    const float p = 0.3f + 0.41f * static_cast<float>(i % 89);
    const float tx = 0.002f * static_cast<float>(static_cast<int>(i % 7) - 3);
    b.push_back(tx * p, -0.5f * tx * p, p, 0.01f * static_cast<float>(i % 5), 0, -0.5f,
                i % 2 ? 13 : -13);
  }
  return b;
}

void expect_same_histories(const ToyEnv& env, const char* what) {
  const Agreement a = compare_with_per_muon(env, spread_batch(3000));
  // Typically all bitwise equal; a rare rounding difference may change one
  // muon's later steps.
  EXPECT_GE(a.same_status, a.n * 99 / 100) << what;
  EXPECT_GE(a.close, a.n * 99 / 100) << what;
  std::printf("[ %s ] %zu of %zu muons bitwise equal, %zu close, %zu same status and steps\n", what,
              a.bitwise, a.n, a.close, a.same_status);
}

TEST(CpuLanes, FollowPerMuonHistoriesInMatter) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 4;
  env.slab_table = &table.view;
  const SensitivePlane planes[] = {{2.5f, -0.5f, 0.5f, -0.5f, 0.5f}, {6.f, -3.f, 3.f, -3.f, 3.f}};
  env.planes = planes + 1;
  env.n_planes = 1;
  expect_same_histories(env, "matter, no field");
  // A plane inside the slab and muons that stop (kill momentum above the
  // lowest start momenta).
  env.planes = planes;
  env.n_planes = 2;
  env.options.p_kill = 0.6f;
  expect_same_histories(env, "matter, planes, stops");
}

TEST(CpuLanes, FollowPerMuonHistoriesInField) {
  ToyTable table;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 4;
  env.field = {0.3f, 1.2f, 0};  // in the slab and the vacuum around it
  env.slab_table = &table.view;
  const SensitivePlane planes[] = {{6.f, -3.f, 3.f, -3.f, 3.f}};
  env.planes = planes;
  env.n_planes = 1;
  expect_same_histories(env, "matter and vacuum, 1.2 T");
}

// The same with the step bending at its middle momentum (bending_momentum):
// bins losing from 1 % to 15 % per step on average, so that some lanes take
// the common step and others (above kBendAllowance) their own.
TEST(CpuLanes, FollowPerMuonHistoriesBendingAtTheMiddleMomentum) {
  ToyTable table;
  const MaterialTableArrays lossy(table.tv, {0.15, 0.05, 0.02, 0.01});
  MaterialTableView view = lossy.make_view(table.tv, [](const auto* p, std::size_t) { return p; });
  view.step = table.view.step;
  view.inv_step = table.view.inv_step;
  ToyEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 4;
  env.field = {0.3f, 1.2f, 0};
  env.slab_table = &view;
  const SensitivePlane planes[] = {{6.f, -3.f, 3.f, -3.f, 3.f}};
  env.planes = planes;
  env.n_planes = 1;
  expect_same_histories(env, "matter and vacuum, 1.2 T, middle momentum");
}

// A track trapped on an interface (StepPhysics.hh, kMaxTinySteps): in a
// sticky layer at the slab's entrance every boundary test finds a boundary
// right ahead, so each step is a push of kBoundaryPush; after kMaxTinySteps
// of them the next step is the escape step (a whole table step, its kick at
// the end). Past the layer the boundary is far, so a lane schedule that took
// that step as a common whole step (kick at the middle) would part from the
// per-muon path there.
struct StickyLayerEnv : ToyEnv {
  float sticky_z1 = 7e-5f;  // [slab_z0, sticky_z1): a boundary right ahead
  float distance_to_boundary(Vec3f r, Vec3f u, std::int32_t volume, float limit) const {
    if (r.z >= slab_z0 && r.z < sticky_z1) return 0.0f;
    return ToyEnv::distance_to_boundary(r, u, volume, limit);
  }
};

TEST(CpuLanes, FollowPerMuonHistoriesOfTrappedTracks) {
  ToyTable table;
  StickyLayerEnv env;
  env.slab_z0 = 0;
  env.slab_z1 = 4;
  env.slab_table = &table.view;
  const SensitivePlane planes[] = {{6.f, -3.f, 3.f, -3.f, 3.f}};
  env.planes = planes;
  env.n_planes = 1;
  MuonBatch in = spread_batch(3000);
  for (std::size_t i = 0; i < in.size(); ++i) in.z[i] = 0.0f;  // start in the sticky layer
  // Every muon takes the escape step: its first five steps are four pushes
  // and one whole step.
  MuonTrack m = make_track(in, 0, env.options, 0);
  for (int k = 0; k < kMaxTinySteps; ++k) {
    transport_step(env, m, 0);
    EXPECT_EQ(m.tiny_steps, k + 1);
  }
  const float z_before = m.r.z;
  transport_step(env, m, 0);
  EXPECT_GT(m.r.z - z_before, 0.9f * table.view.step);
  EXPECT_EQ(m.tiny_steps, 0);
  // After the escape step (max_steps 5) both schedules leave every muon at
  // the same place, up to float rounding (~1e-9 m here): a kick taken at
  // the step's middle instead of its end would move it by 1e-7 to 6e-6 m.
  env.options.max_steps = kMaxTinySteps + 1;
  const TransportResult lanes = transport_cpu(env, in, 2);
  std::size_t same = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    MuonTrack q = make_track(in, i, env.options, 0);
    transport_muon(env, q, i);
    const Vec3f r{lanes.muons.x[i], lanes.muons.y[i], lanes.muons.z[i]};
    same += lanes.status[i] == q.status && lanes.steps[i] == q.steps && norm(r - q.r) <= 2e-8f;
  }
  EXPECT_EQ(same, in.size());
  // And to the end: the same statuses and steps.
  env.options.max_steps = 100000;
  const Agreement a = compare_with_per_muon(env, in);
  EXPECT_GE(a.same_status, a.n * 99 / 100);
  EXPECT_GE(a.close, a.n * 99 / 100);
}

}  // namespace
}  // namespace fastmu
