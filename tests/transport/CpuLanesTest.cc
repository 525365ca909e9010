// The CPU's lane schedule (CpuLaneStepper.hh: 8 muons per SIMD register)
// against the per-muon schedule the GPU runs (transport_muon): the same
// steps with the same random numbers, so the same histories up to float
// rounding (the SIMD code may fuse multiply-adds where the scalar code does
// not, and a rounding difference can flip a later bin choice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

#include "ToyEnvironment.hh"
#include "fastmu/transport/CpuTransport.hh"

namespace fastmu {
namespace {

using test::ToyEnv;
using test::ToyTable;

struct Agreement {
  std::size_t same_status = 0, close = 0, bitwise = 0, n = 0;
};

Agreement compare_with_per_muon(const ToyEnv& env, const MuonBatch& in) {
  const TransportResult lanes = transport_cpu(env, in, 2);
  Agreement a;
  a.n = in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    MuonTrack m;
    m.r = {in.x[i], in.y[i], in.z[i]};
    m.p = {in.px[i], in.py[i], in.pz[i]};
    m.charge = charge_from_pdg(in.pdg[i]);
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

}  // namespace
}  // namespace fastmu
