// A ladder history taken one physics step per turn (LadderHistory.hh, as the
// GPU's queue runs it) gives the records of the whole-history loop, bit for
// bit: the same draws from the same stream in the same order, however the
// turns of different histories interleave.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "fastmu/materials/Material.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/LadderHistory.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

using namespace fastmu;

namespace {

// The whole-history form of a ladder history: MuonStepper::follow through
// each sphere in turn, recording where the muon leaves it.
void whole_history(const LadderParams& lp, double p_lo, double p_hi, int rungs, HistoryRng& rng,
                   LadderOut out) {
  const double p0 = p_hi > p_lo ? p_lo + (p_hi - p_lo) * rng.uniform() : p_lo;
  *out.p0 = static_cast<float>(p0);
  DetailedTrack trk;
  trk.kinetic = kinematics::kinetic_from_momentum(p0);
  trk.charge = lp.charge;
  for (int k = 0; k < rungs; ++k) {
    const MuonStepper<SphereVolume> stepper(*lp.tables, *lp.msc, SphereVolume{lp.radii[k]},
                                            UniformField{}, lp.physics);
    if (k == 0) stepper.start(trk, rng);
    if (!trk.stopped) stepper.follow(trk, rng);
    double loss = 1.0, kick = 0.0;
    if (!trk.stopped && trk.kinetic > 0) {
      const double p = kinematics::momentum_from_kinetic(trk.kinetic);
      loss = (p0 - p * trk.dir.z) / p0;
      kick = p * std::sqrt(trk.dir.x * trk.dir.x + trk.dir.y * trk.dir.y) / p0;
    }
    out.loss[k * out.stride] = static_cast<float>(loss);
    out.kick[k * out.stride] = static_cast<float>(kick);
  }
}

struct Case {
  std::string material;
  std::vector<double> radii;
  bool decay;
};

// One job per momentum; histories 0 .. n - 1 of stream `seed`.
std::vector<LadderJob> jobs_for(const Case& c, std::size_t n) {
  std::vector<LadderJob> jobs;
  std::uint64_t seed = 7;
  for (const double p : {0.06, 0.15, 0.4, 3.0, 100.0, 5000.0}) {
    jobs.push_back({seed++, 1000, n, p, 1.1 * p, static_cast<int>(c.radii.size())});
  }
  return jobs;
}

LadderOut slot_of(LadderRecords& r, const std::vector<LadderJob>& jobs, std::size_t j,
                  std::size_t i) {
  const std::size_t h = r.history_offset[j] + i, at = r.record_offset[j] + i;
  return LadderOut{&r.p0[h], &r.loss[at], &r.kick[at], jobs[j].n};
}

// The GPU's schedule on one thread: `lanes` histories in flight, each
// advanced one turn per round; a lane whose history ends takes the next.
void interleaved(const LadderParams& lp, const std::vector<LadderJob>& jobs, std::size_t lanes,
                 LadderRecords& r) {
  struct Lane {
    LadderHistoryState state;
    HistoryRng rng{0, 0, RngStream::detailed_physics};
    LadderOut out{};
    int rungs = 0;
    bool busy = false;
  };
  std::vector<Lane> lane(lanes);
  std::size_t next_job = 0, next_i = 0;
  for (bool any = true; any;) {
    any = false;
    for (Lane& l : lane) {
      if (!l.busy && next_job < jobs.size()) {
        const LadderJob& job = jobs[next_job];
        l.rng = HistoryRng(job.seed, job.first_id + next_i, RngStream::detailed_physics);
        l.out = slot_of(r, jobs, next_job, next_i);
        l.rungs = job.rungs;
        l.state = begin_ladder_history(lp, job.p_lo, job.p_hi, l.rng, l.out);
        l.busy = true;
        if (++next_i == job.n) ++next_job, next_i = 0;
      }
      if (l.busy) l.busy = advance_ladder_history(lp, l.rungs, l.state, l.rng, l.out);
      any = any || l.busy || next_job < jobs.size();
    }
  }
}

void expect_bitwise_equal(const LadderRecords& a, const LadderRecords& b, const std::string& what) {
  ASSERT_EQ(a.p0.size(), b.p0.size()) << what;
  ASSERT_EQ(a.loss.size(), b.loss.size()) << what;
  for (std::size_t h = 0; h < a.p0.size(); ++h) ASSERT_EQ(a.p0[h], b.p0[h]) << what << " p0 " << h;
  for (std::size_t r = 0; r < a.loss.size(); ++r) {
    ASSERT_EQ(a.loss[r], b.loss[r]) << what << " loss record " << r;
    ASSERT_EQ(a.kick[r], b.kick[r]) << what << " kick record " << r;
  }
}

}  // namespace

TEST(LadderTurns, RecordsEqualTheWholeHistoryLoopBitForBit) {
  const std::size_t n = 150;
  const std::vector<Case> cases{
      {"G4_AIR", {0.02, 0.2, 2.0, 20.0, 160.0}, false},
      {"G4_AIR", {1.0, 50.0}, true},
      {"G4_Fe", {0.00125, 0.01, 0.08, 0.64}, false},
      {"StandardRock", {0.005, 0.04, 0.32, 2.56}, false},
  };
  for (const Case& c : cases) {
    const Material& material = builtin_materials().find(c.material);
    LadderSpec spec;
    spec.radii = c.radii;
    spec.physics.decay = c.decay;
    const std::vector<LadderJob> jobs = jobs_for(c, n);
    const auto tables = MuonPhysicsTables::get(material, spec.physics);
    const auto msc = MultipleScattering::get(material);
    const MuonPhysicsView view = tables->view();
    const MultipleScatteringData data = msc->data();
    const LadderParams lp{&view, &data, spec.physics, spec.charge, spec.radii.data()};

    LadderRecords whole;
    whole.lay_out(jobs);
    std::size_t stopped = 0, through = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      for (std::size_t i = 0; i < n; ++i) {
        HistoryRng rng(jobs[j].seed, jobs[j].first_id + i, RngStream::detailed_physics);
        const LadderOut out = slot_of(whole, jobs, j, i);
        whole_history(lp, jobs[j].p_lo, jobs[j].p_hi, jobs[j].rungs, rng, out);
        const float last = out.loss[(jobs[j].rungs - 1) * n];
        (last == 1.0f ? stopped : through) += 1;
      }
    }
    // Both ends of a ladder are exercised: muons that stop in it and muons
    // that leave its largest sphere.
    const std::string what = c.material + (c.decay ? " with decay" : "");
    EXPECT_GT(stopped, 0u) << what;
    EXPECT_GT(through, 0u) << what;

    expect_bitwise_equal(whole, sample_ladder(material, spec, jobs, EngineBackend::cpu, 2),
                         what + ", sampler");
    LadderRecords turns;
    turns.lay_out(jobs);
    interleaved(lp, jobs, 32, turns);
    expect_bitwise_equal(whole, turns, what + ", 32 interleaved lanes");
  }
}
