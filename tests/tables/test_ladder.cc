// One detailed history for a whole ladder of steps (physics/LadderHistory.hh),
// the tables built from it with a precision goal (tables/LadderBuilder.hh),
// and the same samples from the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/tables/LadderBuilder.hh"
#include "fastmu/transport/step/MaterialTable.hh"

#include "../SampleComparison.hh"

using namespace fastmu;

namespace {

using test::ks_critical;
using test::ks_distance;

const Material& iron() { return builtin_materials().find("G4_Fe"); }

// Rung k of job 0 as a vector (loss or kick).
std::vector<double> rung(const LadderRecords& r, const std::vector<float>& v, std::size_t n,
                         std::size_t k) {
  return std::vector<double>(v.begin() + r.record_offset[0] + k * n,
                             v.begin() + r.record_offset[0] + (k + 1) * n);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

double standard_error(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / (v.size() - 1) / v.size());
}

// A ladder's samples against independent histories, rung by rung: the
// loss and kick distributions (KS) and the mean loss (4 standard errors).
void expect_same_distributions(const LadderRecords& a, const LadderRecords& b, std::size_t n,
                               std::size_t k, const char* what) {
  const auto la = rung(a, a.loss, n, k), lb = rung(b, b.loss, n, 0);
  const auto ka = rung(a, a.kick, n, k), kb = rung(b, b.kick, n, 0);
  EXPECT_LT(ks_distance(la, lb), ks_critical(n, n)) << what << " rung " << k << ": loss";
  EXPECT_LT(ks_distance(ka, kb), ks_critical(n, n)) << what << " rung " << k << ": kick";
  const double se = std::hypot(standard_error(la), standard_error(lb));
  EXPECT_LT(std::abs(mean(la) - mean(lb)), 4 * se) << what << " rung " << k << ": mean loss";
}

}  // namespace

// Up to the first sphere the ladder's history is the lone single-step
// history of that step, draw for draw.
TEST(LadderSampler, FirstStepIsTheLoneHistory) {
  const std::size_t n = 3000;
  LadderSpec spec;
  spec.radii = {0.005, 0.02, 0.08};
  const LadderRecords r =
      sample_ladder(iron(), spec, {{7, 0, n, 10.0, 12.0, 3}}, EngineBackend::cpu, 2);
  const auto lone = sample_single_step(iron(), 10.0, 12.0, 0.005, n, -1, 7, 2);
  for (std::size_t i = 0; i < n; ++i) {
    const MuonSample& s = lone[i];
    ASSERT_EQ(r.p0[i], static_cast<float>(s.p0)) << i;
    ASSERT_EQ(r.loss[i], static_cast<float>((s.p0 - s.pz) / s.p0)) << i;
    ASSERT_NEAR(r.kick[i], std::hypot(s.px, s.py) / s.p0, 1e-6 * r.kick[i] + 1e-12) << i;
  }
}

// Every later step of the ladder has the distribution of independent
// single-step histories of that step.
TEST(LadderSampler, EveryStepMatchesIndependentHistories) {
  const std::size_t n = 20000;
  LadderSpec spec;
  spec.radii = {0.0025, 0.01, 0.04};
  for (const double p : {1.0, 20.0}) {
    const LadderRecords ladder =
        sample_ladder(iron(), spec, {{11, 0, n, p, 1.1 * p, 3}}, EngineBackend::cpu, 0);
    for (std::size_t k = 1; k < spec.radii.size(); ++k) {
      LadderSpec alone = spec;
      alone.radii = {spec.radii[k]};
      const LadderRecords lone =
          sample_ladder(iron(), alone, {{12 + k, 0, n, p, 1.1 * p, 1}}, EngineBackend::cpu, 0);
      expect_same_distributions(ladder, lone, n, k, p < 10 ? "1 GeV/c" : "20 GeV/c");
    }
  }
}

// The long steps beyond 8 d are sampled with the range cut scaled by step /
// d (LadderBuilder.hh): at 16 d of iron (32 cm, 11.2 mm instead of 0.7 mm)
// the loss and kick of 50 GeV/c muons have the distributions of the
// engine's own cut.
TEST(LadderSampler, LongStepsKeepTheirDistributionWithTheScaledCut) {
  const std::size_t n = 20000;
  LadderSpec fine;
  fine.radii = {0.32};
  LadderSpec coarse = fine;
  coarse.physics.production_cut_m = fine.physics.production_cut_m * 16;
  const LadderRecords a =
      sample_ladder(iron(), fine, {{21, 0, n, 50.0, 55.0, 1}}, EngineBackend::cpu, 0);
  const LadderRecords b =
      sample_ladder(iron(), coarse, {{22, 0, n, 50.0, 55.0, 1}}, EngineBackend::cpu, 0);
  expect_same_distributions(a, b, n, 0, "32 cm of iron at 50 GeV/c");
}

// In a gas the table histories' range cut is raised to a mass thickness
// (LadderBuilder.hh: 5 mm of air instead of 0.7 mm): 8 m of air at 10
// GeV/c keeps the loss and kick distributions of the engine's own cut. In
// dense materials the floor lies below 0.7 mm and leaves the cut alone.
TEST(LadderSampler, GasesKeepTheirDistributionWithTheMassFloorCut) {
  const Material& air = builtin_materials().find("G4_AIR");
  const PhysicsOptions engine;
  EXPECT_NEAR(table_range_cut(air, engine), 5e-3, 1e-4);
  EXPECT_EQ(table_range_cut(iron(), engine), engine.production_cut_m);
  EXPECT_EQ(table_range_cut(builtin_materials().find("G4_WATER"), engine), engine.production_cut_m);
  const std::size_t n = 20000;
  LadderSpec fine;
  fine.radii = {8.0};
  LadderSpec floored = fine;
  floored.physics.production_cut_m = table_range_cut(air, engine);
  const LadderRecords a =
      sample_ladder(air, fine, {{31, 0, n, 10.0, 11.0, 1}}, EngineBackend::cpu, 0);
  const LadderRecords b =
      sample_ladder(air, floored, {{32, 0, n, 10.0, 11.0, 1}}, EngineBackend::cpu, 0);
  expect_same_distributions(a, b, n, 0, "8 m of air at 10 GeV/c");
}

// Fast muons' histories take a range cut doubled per doubling of momentum
// above 300 GeV/c, in powers of two (a bin's cut depends on its momentum).
TEST(LadderBuilder, RangeCutGrowsWithMomentumInPowersOfTwo) {
  EXPECT_EQ(momentum_cut_scale(1.0), 1.0);
  EXPECT_EQ(momentum_cut_scale(599.0), 1.0);
  EXPECT_EQ(momentum_cut_scale(600.0), 2.0);
  EXPECT_EQ(momentum_cut_scale(1199.0), 2.0);
  EXPECT_EQ(momentum_cut_scale(1200.0), 4.0);
  EXPECT_EQ(momentum_cut_scale(8e4), 256.0);
  EXPECT_EQ(momentum_cut_scale(0.0), 1.0);
}

// A bin's samples do not depend on threads or on how its histories are
// cut into jobs.
TEST(LadderSampler, SamplesDependOnTheirStreamsOnly) {
  LadderSpec spec;
  spec.radii = {0.01, 0.02};
  const LadderRecords whole =
      sample_ladder(iron(), spec, {{3, 0, 1000, 5.0, 6.0, 2}}, EngineBackend::cpu, 1);
  const LadderRecords cut = sample_ladder(
      iron(), spec, {{3, 0, 400, 5.0, 6.0, 2}, {9, 0, 50, 1.0, 2.0, 1}, {3, 400, 600, 5.0, 6.0, 2}},
      EngineBackend::cpu, 2);
  for (std::size_t k = 0; k < 2; ++k) {
    for (std::size_t i = 0; i < 1000; ++i) {
      const std::size_t j = i < 400 ? 0 : 2, at = i < 400 ? i : i - 400, n = i < 400 ? 400 : 600;
      ASSERT_EQ(whole.loss[k * 1000 + i], cut.loss[cut.record_offset[j] + k * n + at]) << i;
      ASSERT_EQ(whole.kick[k * 1000 + i], cut.kick[cut.record_offset[j] + k * n + at]) << i;
    }
  }
}

TEST(LadderSampler, RefusesBadLadders) {
  LadderSpec spec;
  spec.radii = {0.02, 0.01};
  EXPECT_THROW(sample_ladder(iron(), spec, {{1, 0, 10, 1.0, 2.0, 1}}, EngineBackend::cpu), Error);
  spec.radii = {0.01};
  EXPECT_THROW(sample_ladder(iron(), spec, {{1, 0, 10, 1.0, 2.0, 2}}, EngineBackend::cpu), Error);
  EXPECT_THROW(sample_ladder(iron(), spec, {{1, 0, 10, -1.0, 2.0, 1}}, EngineBackend::cpu), Error);
  EXPECT_THROW(resolve_engine_backend("gpu", "--backend"), Error);
}

// Bins get samples until the mean loss meets the goal, between the bounds;
// shorter steps than the reference meet a goal looser by sqrt(d / step).
TEST(LadderBuilder, SamplesFollowThePrecisionGoal) {
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 200;
  o.p_bins = 3;
  o.hist_bins = 20;
  o.min_samples = 2000;
  o.samples_per_bin = 400000;
  o.loss_precision = 0.03;
  o.backend = "cpu";
  const auto tables = build_ladder_tables(iron(), {{0.02, 0.0}, {0.005, 0.0}}, o, false);
  ASSERT_EQ(tables.size(), 2u);
  const std::vector<double> goal{0.03, 0.03 * 2};  // 0.005 m: sqrt(0.02 / 0.005) = 2
  for (std::size_t k = 0; k < 2; ++k) {
    const TableData& d = tables[k].data();
    EXPECT_EQ(tables[k].metadata().step_m, k == 0 ? 0.02 : 0.005);
    for (int b = 0; b < d.n_pbins(); ++b) {
      const double n = static_cast<double>(d.samples_per_bin[b]);
      EXPECT_GE(n, 2000.0);
      EXPECT_LE(n, 400000.0);
      const double rel_error = d.std_loss[b] / d.mean_loss[b] / std::sqrt(n);
      // Met, or stopped by the bound (the estimate from the samples is the criterion).
      if (n < 400000) EXPECT_LT(rel_error, 1.05 * goal[k]) << "step " << k << " bin " << b;
    }
  }
  // Ionisation dominates at 1-6 GeV/c (a narrow loss): the fewest samples;
  // radiative losses carry the mean at 35-200 GeV/c: many more.
  EXPECT_EQ(tables[0].data().samples_per_bin[0], 2000u);
  EXPECT_GT(tables[0].data().samples_per_bin[2], 5u * 2000u);
  // Without a goal: the bound exactly.
  o.loss_precision = 0;
  o.samples_per_bin = 3000;
  const auto fixed = build_ladder_tables(iron(), {{0.02, 0.0}}, o, false);
  for (auto s : fixed[0].data().samples_per_bin) EXPECT_EQ(s, 3000u);
}

// Goals follow the steps muons of each bin take whole: the bin's longest
// step (no field) and its longest up to 8 d (in a field) get the goal; a
// shorter step, a partial step of the next of those up (w), gets the goal
// x sqrt(w / step).
TEST(LadderBuilder, GoalsFollowTheStepsEachBinTakes) {
  const double d = 0.02;
  std::vector<LadderRung> ladder{{d, 0.0}, {d / 4, 0.0}, {d / 2, 0.0}};
  for (int k = 1; k <= 7; ++k) ladder.push_back({std::ldexp(d, k), std::ldexp(2.5, k)});
  std::vector<double> edges;  // 1 ... 1000 GeV/c, 5 bins per decade
  for (int i = 0; i <= 15; ++i) edges.push_back(std::pow(10.0, i / 5.0));
  const auto goals = ladder_precision_goals(ladder, edges, 0.01);
  ASSERT_EQ(goals.size(), ladder.size());
  const auto goal = [&](double step, double p) {
    std::size_t k = 0;
    while (ladder[k].step_m != step) ++k;
    int b = 0;
    while (edges[b + 1] <= p) ++b;
    return goals[k][b];
  };
  // 1-2.5 GeV/c: d is the only working step.
  EXPECT_DOUBLE_EQ(goal(d, 1.5), 0.01);
  EXPECT_DOUBLE_EQ(goal(d / 4, 1.5), 0.01 * 2);
  // 25 GeV/c (bins from 25.1): 8 d works everywhere, the shorter ones are partial steps of it.
  EXPECT_DOUBLE_EQ(goal(8 * d, 30), 0.01);
  EXPECT_DOUBLE_EQ(goal(4 * d, 30), 0.01 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(goal(d, 30), 0.01 * std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(goal(d / 4, 30), 0.01 * std::sqrt(32.0));
  // From 398 GeV/c: 128 d away from fields, 8 d in them; 16-64 d are partial steps of 128 d.
  EXPECT_DOUBLE_EQ(goal(128 * d, 500), 0.01);
  EXPECT_DOUBLE_EQ(goal(32 * d, 500), 0.01 * 2);
  EXPECT_DOUBLE_EQ(goal(16 * d, 500), 0.01 * std::sqrt(8.0));
  EXPECT_DOUBLE_EQ(goal(8 * d, 500), 0.01);
  EXPECT_DOUBLE_EQ(goal(d, 500), 0.01 * std::sqrt(8.0));
  // A long step has no goal below its momentum.
  EXPECT_EQ(goal(128 * d, 100), 0.0);
  // The field's longest step is the transport's.
  EXPECT_EQ(kLadderFieldStepFactor, std::ldexp(1.0, kFieldLongSteps));
}

// The builder meets each step's goal of ladder_precision_goals: 2 cm in the
// top bin, a partial step of 4 cm there, to sqrt(2) x the goal.
TEST(LadderBuilder, EachStepMeetsItsGoalPerBin) {
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 200;
  o.p_bins = 3;  // edges 1, 5.85, 34.2, 200: 4 cm from 34.2 GeV/c
  o.hist_bins = 20;
  o.min_samples = 2000;
  o.samples_per_bin = 400000;
  o.loss_precision = 0.03;
  o.backend = "cpu";
  const std::vector<LadderRung> ladder{{0.02, 0.0}, {0.04, 30.0}};
  const auto tables = build_ladder_tables(iron(), ladder, o, false);
  const auto goals = ladder_precision_goals(ladder, ladder_momentum_edges(o), 0.03);
  EXPECT_DOUBLE_EQ(goals[0][2], 0.03 * std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(goals[1][2], 0.03);
  for (std::size_t k = 0; k < 2; ++k) {
    const TableData& d = tables[k].data();
    const int first = 3 - d.n_pbins();
    for (int b = 0; b < d.n_pbins(); ++b) {
      const double n = static_cast<double>(d.samples_per_bin[b]);
      EXPECT_GE(n, 2000.0);
      EXPECT_LE(n, 400000.0);
      const double rel_error = d.std_loss[b] / d.mean_loss[b] / std::sqrt(n);
      if (n < 400000) EXPECT_LT(rel_error, 1.05 * goals[k][b + first]) << "step " << k;
    }
  }
}

// A long step's table starts at the grid's first edge at or above its
// p_from and shares the grid's edges.
TEST(LadderBuilder, LongStepsShareTheGrid) {
  TableBuildOptions o;
  o.p_min = 1;
  o.p_max = 100;
  o.p_bins = 4;  // edges 1, 3.16, 10, 31.6, 100
  o.hist_bins = 10;
  o.samples_per_bin = 500;
  o.loss_precision = 0;
  o.backend = "cpu";
  const auto t = build_ladder_tables(iron(), {{0.02, 0.0}, {0.04, 5.0}}, o, false);
  const auto& all = t[0].data().p_edges;
  const auto& longer = t[1].data().p_edges;
  ASSERT_EQ(longer.size(), 3u);
  EXPECT_DOUBLE_EQ(longer[0], all[2]);
  EXPECT_DOUBLE_EQ(longer[2], all[4]);
  EXPECT_EQ(t[1].metadata().step_m, 0.04);
}

// The GPU runs the same histories with other normal and exponential
// variates: per step, the same distributions as the CPU's. One batch of jobs
// that differ in momentum and in the steps they reach, so that the GPU's
// queue (histories of every job taken from one counter) must file each
// history's records under its own job and step.
TEST(LadderSampler, GpuMatchesCpu) {
  if (!engine_gpu_available()) GTEST_SKIP() << "no GPU";
  const std::size_t n = 100000;
  LadderSpec spec;
  spec.radii = {0.00125, 0.02, 0.16};
  const std::vector<LadderJob> jobs{
      {21, 0, n, 0.5, 0.525, 3}, {22, 0, n, 5.0, 5.25, 2}, {23, 0, n, 100.0, 105.0, 3}};
  const LadderRecords cpu = sample_ladder(iron(), spec, jobs, EngineBackend::cpu, 0);
  const LadderRecords gpu = sample_ladder(iron(), spec, jobs, EngineBackend::cuda);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const double p = jobs[j].p_lo;
    for (std::size_t k = 0; k < static_cast<std::size_t>(jobs[j].rungs); ++k) {
      const auto at = [&](const LadderRecords& r, const std::vector<float>& v) {
        const auto first = v.begin() + r.record_offset[j] + k * n;
        return std::vector<double>(first, first + n);
      };
      const auto lc = at(cpu, cpu.loss), lg = at(gpu, gpu.loss);
      const auto kc = at(cpu, cpu.kick), kg = at(gpu, gpu.kick);
      EXPECT_LT(ks_distance(lc, lg), ks_critical(n, n)) << p << " GeV/c, step " << k << ": loss";
      EXPECT_LT(ks_distance(kc, kg), ks_critical(n, n)) << p << " GeV/c, step " << k << ": kick";
      const double se = std::hypot(standard_error(lc), standard_error(lg));
      EXPECT_LT(std::abs(mean(lc) - mean(lg)), 4 * se) << p << " GeV/c, step " << k;
    }
    // Each job's p0 lies in its own range: no history filed under another job.
    for (std::size_t i = 0; i < n; ++i) {
      const float p0 = gpu.p0[gpu.history_offset[j] + i];
      ASSERT_GE(p0, static_cast<float>(jobs[j].p_lo) * 0.999f) << "job " << j << " history " << i;
      ASSERT_LE(p0, static_cast<float>(jobs[j].p_hi) * 1.001f) << "job " << j << " history " << i;
    }
  }
}
