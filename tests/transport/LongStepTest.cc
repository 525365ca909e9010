// Long steps for fast muons (StepLengths.hh): the steps and momenta of the
// long-step ladder, the table a muon of a given momentum steps with, the kick
// at the step's middle, and the iron block in long steps against Geant4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/io/ColumnTable.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/step/StepLengths.hh"

namespace fastmu {
namespace {

TEST(LongSteps, DoubleTheStepAsTheMomentumDoubles) {
  const auto fe = long_steps(0.02, 3, 400.0);
  ASSERT_EQ(fe.size(), 3u);
  EXPECT_DOUBLE_EQ(fe[0].step, 0.04);
  EXPECT_DOUBLE_EQ(fe[0].p_from, 2 * kLongStepMomentum);
  EXPECT_DOUBLE_EQ(fe[2].step, 0.16);
  EXPECT_DOUBLE_EQ(fe[2].p_from, 8 * kLongStepMomentum);
  EXPECT_TRUE(long_steps(0.02, 0, 400.0).empty());        // --long-steps 0
  EXPECT_EQ(long_steps(1.0, 3, 400.0).back().step, 8.0);  // air: metres and more
  // Rock to 100 TeV/c: 2^7 d = 7.6 m from 320 GeV/c by default.
  const auto rock = long_steps(0.0594, kDefaultLongSteps, 1e5);
  ASSERT_EQ(rock.size(), 7u);
  EXPECT_NEAR(rock.back().step, 7.6032, 1e-9);
  EXPECT_DOUBLE_EQ(rock.back().p_from, 128 * kLongStepMomentum);
  EXPECT_EQ(long_steps(0.02, 3, 3 * kLongStepMomentum).size(), 1u);  // tables end below 4 p_long
  EXPECT_THROW(long_steps(0.02, -1, 400.0), Error);
}

TEST(LongSteps, KickAtTheMiddleShiftsByHalfTheDeflection) {
  const Vec3f u{0, 0, 1};
  const float h = 0.16f, theta = 0.01f;
  const Vec3f p = 30.0f * Vec3f{std::sin(theta), 0, std::cos(theta)};
  const Vec3f s = mid_step_kick_shift(h, u, p);
  EXPECT_NEAR(s.x, 0.5f * h * std::sin(theta), 1e-7f);
  EXPECT_NEAR(s.z, 0.5f * h * (std::cos(theta) - 1), 1e-7f);
  EXPECT_EQ(s.y, 0.0f);
  const Vec3f none = mid_step_kick_shift(h, u, Vec3f{0, 0, 0});  // stopped: stays
  EXPECT_EQ(none.x, 0.0f);
  EXPECT_EQ(none.z, 0.0f);
}

TransportParams iron_block_params(StepOptions opt) {
  MaterialLibrary materials;
  return make_transport_params(iron_block_geometry_json(), "iron-block", materials, {},
                               &test::test_table_cache(), opt);
}

TEST(LongSteps, MomentumChoosesTheTableAndCutStepsGoDownTheLadder) {
  const TransportParams params = iron_block_params({});
  const auto& names = params.geometry().material_names();
  const auto fe =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "G4_Fe") - names.begin());
  ASSERT_LT(fe, names.size());
  ASSERT_EQ(params.longer_tables(fe).size(), std::size_t(kDefaultLongSteps));
  HostTransportView host(params);
  const TransportView& v = host.view;
  const MaterialTableView* d = v.table(static_cast<std::int32_t>(fe));
  ASSERT_NE(d, nullptr);
  // The 4 cm table starts at the grid's first edge at or above 5 GeV/c.
  const float p4 = static_cast<float>(params.longer_tables(fe)[0]->data().p_edges.front());
  EXPECT_GE(p4, 5.0f);
  EXPECT_LT(p4, 5.0f * 1.09f);
  EXPECT_FLOAT_EQ(v.step_table(d, 4.9f, false)->step, 0.02f);
  EXPECT_FLOAT_EQ(v.step_table(d, std::nextafter(p4, 0.0f), false)->step, 0.02f);
  EXPECT_FLOAT_EQ(v.step_table(d, p4, false)->step, 0.04f);
  EXPECT_FLOAT_EQ(v.step_table(d, 15.0f, false)->step, 0.08f);
  EXPECT_FLOAT_EQ(v.step_table(d, 300.0f, false)->step, 1.28f);
  EXPECT_FLOAT_EQ(v.step_table(d, 300.0f, true)->step, 0.16f);  // in a field: 8 d at most
  // Each long table covers the momenta it is taken from.
  for (const float p : {5.0f, 12.0f, 20.0f, 399.0f})
    EXPECT_LE(v.step_table(d, p, false)->t.p_min, p);
  // Down the ladder from 300 GeV/c's: 128, 64, ..., 4, 2, 1, 0.5, ... cm.
  std::vector<float> steps;
  for (const MaterialTableView* t = v.step_table(d, 300.0f, false); t; t = v.shorter_table(*t)) {
    steps.push_back(t->step);
  }
  ASSERT_GE(steps.size(), 9u);
  EXPECT_FLOAT_EQ(steps[1], 0.64f);
  EXPECT_FLOAT_EQ(steps[6], 0.02f);
  EXPECT_FLOAT_EQ(steps[7], 0.01f);

  StepOptions fixed;
  fixed.long_steps = 0;
  EXPECT_TRUE(iron_block_params(fixed).longer_tables(fe).empty());
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * (v.size() - 1))];
}

// 50 GeV/c mu- through 10 m of iron take 16 cm steps (from 20 GeV/c): a
// quarter of the 2 cm steps' draws, with the same loss, and the lateral
// spread kept by the kick at the step's middle.
TEST(LongSteps, IronBlockMatchesGeant4InAQuarterOfTheSteps) {
  std::filesystem::path ref_path = FASTMU_REFERENCE_DIR;
  if (const char* env = std::getenv("FASTMU_REFERENCE_DIR")) ref_path = env;
  ref_path /= "slab_G4_Fe_10m_50GeV_mu-.f32";
  if (!std::filesystem::exists(ref_path)) GTEST_SKIP() << "no Geant4 reference " << ref_path;
  StepOptions opt;
  opt.seed = 7;
  const TransportParams params = iron_block_params(opt);
  const std::size_t n = 50000;
  const TransportResult r = transport(params, iron_block_muons(n), Backend::cpu, 0);
  double steps = 0;
  std::vector<double> loss, x;
  std::size_t stopped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    steps += r.steps[i];
    if (r.status[i] != 0) {
      ++stopped;
      continue;
    }
    const auto& m = r.muons;
    loss.push_back(50.0 - std::sqrt(double(m.px[i]) * m.px[i] + double(m.py[i]) * m.py[i] +
                                    double(m.pz[i]) * m.pz[i]));
    x.push_back(m.x[i]);
  }
  EXPECT_LT(steps / n, 80.0);  // 10 m / 16 cm = 63 (and the exit step)

  const io::ColumnTable ref = io::read_table(ref_path);
  std::vector<double> g4_loss, g4_x;
  for (std::size_t i = 0; i < ref.rows(); ++i) {
    const double px = ref.at(i, 1), py = ref.at(i, 2), pz = ref.at(i, 3);
    if (px == 0 && py == 0 && pz == 0) continue;
    g4_loss.push_back(ref.at(i, 0) - std::sqrt(px * px + py * py + pz * pz));
    g4_x.push_back(ref.at(i, 4));
  }
  EXPECT_LT(double(stopped) / n, 0.005);
  for (double q : {0.1, 0.5, 0.9}) {
    EXPECT_NEAR(quantile(loss, q), quantile(g4_loss, q), 0.03 * quantile(g4_loss, q)) << q;
  }
  // The spread of x: kicked at the ends of 63 steps it would be ~1.2 % narrower.
  for (double q : {0.16, 0.84}) {
    EXPECT_NEAR(quantile(x, q), quantile(g4_x, q), 0.03 * std::fabs(quantile(g4_x, q))) << q;
  }
}

}  // namespace
}  // namespace fastmu
