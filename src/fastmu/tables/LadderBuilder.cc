#include "fastmu/tables/LadderBuilder.hh"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/BinBytes.hh"
#include "fastmu/tables/BinCost.hh"
#include "fastmu/tables/BinHistogrammer.hh"
#include "fastmu/tables/EngineSampleSource.hh"

namespace fastmu {
namespace {

// Bins sampled together: enough histories per launch to fill a GPU, and the
// samples of 16 bins x every step in memory at once.
constexpr std::size_t kBinsPerGroup = 16;
// Units (a group of bins and a set of histories) sampled at once on the
// GPU: with two, the GPU still idled while both filled histograms (~2 s of
// a 10 s ladder). A top unit holds ~2 GB of samples.
constexpr std::size_t kUnitsAtOnceOnGpu = 3;
// Records (history x step) per engine call: 2 floats each, 256 MB.
constexpr std::size_t kMaxRecords = std::size_t{1} << 25;
// A round asks for 10 % more than the estimate, so one more round rarely
// follows, but at most kRoundGrowth x the histories so far: the estimate of
// the error from few samples of a heavy-tailed loss (one catastrophic loss
// among 2e4) can be far too high, and is refined on the way.
constexpr double kRoundMargin = 1.1;
constexpr double kRoundGrowth = 4.0;
// Rungs longer than this many reference steps (the long steps of muons from
// 40 GeV/c on: 32 cm of iron and up) are sampled by histories of their own
// whose production range cut grows with the step (LadderBuilder.hh).
constexpr double kLongRungFactor = 8.0;
bool is_long_rung(double step, double d) {
  return d > 0 && step > kLongRungFactor * d * (1 + 1e-9);
}

// $FASTMU_TRACE_TABLES=1: the build's profile on stderr, one line per
// momentum bin and set of histories (trace_bin).
bool trace_wanted() {
  static const bool on = [] {
    const char* v = std::getenv("FASTMU_TRACE_TABLES");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

// A rung in ascending step order, with what the build needs to know of it.
struct Rung {
  double step = 0;
  double p_from = 0;   // the lowest momentum it serves (0: all)
  int first_bin = 0;   // its first momentum bin
  int table_from = 0;  // the first bin its table holds (>= first_bin when extending)
  // Its goal on the relative error of the mean loss, per momentum bin of
  // the grid (those below first_bin unused).
  std::vector<double> precision;
  std::size_t caller = 0;  // its index in the caller's list
};

// One momentum bin's sampling: histories so far and a histogram per rung.
struct BinRun {
  int bin = 0;
  int rungs = 0;  // rungs 0 .. rungs - 1 are recorded (the active ones and the inner ones)
  std::size_t done = 0;
  // The round under way: a round an engine call could not take whole goes
  // on to its end, so a bin's rounds never depend on the bins beside it.
  std::size_t round_end = 0;
  int round_reach = 0;
  std::vector<std::unique_ptr<BinHistogrammer>> hist;  // null for a rung that lacks this bin
  // The profile (FASTMU_TRACE_TABLES): rounds, engine time, and the rung
  // whose goal asked for the last round.
  int rounds = 0;
  int binding = -1;
  double engine_s = 0;
};

// Rungs sampled by one set of histories: their physics (the range cut) and
// the random stream of their histories, and the tables they fill.
struct RungGroup {
  std::vector<Rung> rungs;  // ascending
  std::vector<TableData*> tables;
  LadderSpec spec;
  std::uint64_t stream = 0;
};

// The reference step d: the longest rung that serves every momentum (as
// ladder_generator finds it: a grid that starts above a long step's p_from
// changes nothing).
double reference_step(const std::vector<Rung>& rungs) {
  double d = 0;
  for (const Rung& r : rungs) {
    if (r.p_from == 0) d = std::max(d, r.step);
  }
  return d;
}

// The steps that muons of bin b take whole: the longest rung serving b (a
// muon of that momentum away from fields) and the longest up to
// kLadderFieldStepFactor x d (in a magnetic field). A shorter rung serves only
// steps that a boundary or a plane cuts short, a fraction ~ step / w of a
// path in steps of w: its goal is precision x sqrt(w / step), w the next
// working step up (LadderBuilder.hh).
void set_goals(std::vector<Rung>& rungs, int n_bins, double precision) {
  const double d = reference_step(rungs);
  for (Rung& r : rungs) r.precision.assign(static_cast<std::size_t>(n_bins), precision);
  for (int b = 0; b < n_bins; ++b) {
    double w_any = 0, w_field = 0;
    for (const Rung& r : rungs) {
      if (r.first_bin > b) continue;
      w_any = std::max(w_any, r.step);
      if (r.step <= kLadderFieldStepFactor * d * (1 + 1e-9)) w_field = std::max(w_field, r.step);
    }
    for (Rung& r : rungs) {
      if (r.first_bin > b) continue;
      const double w = r.step <= w_field ? w_field : w_any;
      r.precision[static_cast<std::size_t>(b)] = precision * std::sqrt(w / r.step);
    }
  }
}

std::vector<Rung> sorted_rungs(const std::vector<LadderRung>& rungs,
                               const std::vector<double>& edges, double precision,
                               int from_bin = 0) {
  if (rungs.empty()) throw Error("table ladder: no steps");
  std::vector<Rung> out;
  const int n = static_cast<int>(edges.size()) - 1;
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const LadderRung& r = rungs[i];
    if (!(r.step_m > 0) || !std::isfinite(r.step_m)) {
      throw Error("--step must be a positive length in metres");
    }
    if (!(r.p_from >= 0) || !(r.p_from < edges.back())) {
      throw Error(fmt::format("table ladder: step {} m starts at {} GeV/c, outside the tables",
                              r.step_m, r.p_from));
    }
    int first = 0;  // the first bin whose lower edge is at or above p_from
    while (first + 1 < n && edges[first] < r.p_from * (1 - 1e-12)) ++first;
    out.push_back({r.step_m, r.p_from, first, std::max(first, from_bin), {}, i});
  }
  std::sort(out.begin(), out.end(), [](const Rung& a, const Rung& b) { return a.step < b.step; });
  for (std::size_t k = 1; k < out.size(); ++k) {
    if (!(out[k].step > out[k - 1].step)) throw Error("table ladder: a step is listed twice");
  }
  set_goals(out, n, precision);
  return out;
}

// The rungs' history sets: up to kLongRungFactor x d with `physics` and the
// table range cut, the longer ones with that cut scaled by their shortest
// step over d (the cut's ratio to the step stays that of the reference step).
std::vector<RungGroup> rung_groups(const Material& material, const std::vector<Rung>& rungs,
                                   std::vector<TableData>& tables, const PhysicsOptions& physics,
                                   int charge) {
  const double d = reference_step(rungs);
  const double cut = table_range_cut(material, physics);
  std::vector<RungGroup> groups;
  for (std::size_t k = 0; k < rungs.size(); ++k) {
    const bool long_rung = is_long_rung(rungs[k].step, d);
    if (groups.empty() || (long_rung && groups.size() == 1)) {
      RungGroup g;
      g.spec.physics = physics;
      g.spec.physics.production_cut_m = long_rung ? cut * rungs[k].step / d : cut;
      g.spec.charge = charge;
      g.stream = groups.size();
      groups.push_back(std::move(g));
    }
    RungGroup& g = groups.back();
    g.rungs.push_back(rungs[k]);
    g.tables.push_back(&tables[k]);
    g.spec.radii.push_back(rungs[k].step);
  }
  return groups;
}

// What the engine runs for a bin of lower edge p_lo in set `rg`: the set's
// histories with its range cut times the bin's momentum_cut_scale.
LadderSpec bin_spec(const RungGroup& rg, double p_lo) {
  LadderSpec spec = rg.spec;
  spec.physics.production_cut_m *= momentum_cut_scale(p_lo);
  return spec;
}

BinRun start_bin(int b, const std::vector<Rung>& rungs, const TableBuildOptions& o) {
  BinRun run;
  run.bin = b;
  run.hist.resize(rungs.size());
  for (std::size_t k = 0; k < rungs.size(); ++k) {
    if (rungs[k].first_bin > b) continue;
    run.hist[k] = std::make_unique<BinHistogrammer>(o.hist_bins, o.hist_bins, o.tail_fraction);
    run.rungs = static_cast<int>(k) + 1;
  }
  return run;
}

// The bin's next round: histories it needs, the rungs they must reach (0:
// done) and the rung whose goal asks for the most (-1: none, the bounds).
struct Round {
  std::size_t n = 0;
  int reach = 0;
  int binding = -1;
};

Round next_round(const BinRun& run, const std::vector<Rung>& rungs, const TableBuildOptions& o) {
  const std::size_t cap = o.samples_per_bin;
  if (run.done >= cap) return {};
  if (o.loss_precision <= 0) return {cap - run.done, run.rungs};
  if (run.done == 0) return {std::min(o.min_samples, cap), run.rungs};
  double need = 0;
  Round round;
  for (std::size_t k = 0; k < rungs.size(); ++k) {
    const BinHistogrammer* h = run.hist[k].get();
    if (!h || h->size() == 0) continue;
    const double goal = rungs[k].precision[static_cast<std::size_t>(run.bin)] * h->mean_loss();
    const double err = h->mean_loss_error();
    if (!(err > goal)) continue;  // met (or a bin with no loss at all)
    const double n_k = kRoundMargin * h->size() * (err / goal) * (err / goal);
    if (n_k > need) round.binding = static_cast<int>(k);
    need = std::max(need, n_k);
    round.reach = static_cast<int>(k) + 1;
  }
  if (round.reach == 0) return {};
  need = std::min(need, kRoundGrowth * static_cast<double>(run.done));
  const std::size_t target = std::min<std::size_t>(cap, static_cast<std::size_t>(need) + 1);
  if (target <= run.done) return {};
  round.n = target - run.done;
  return round;
}

// Adds a batch's records to the histograms: one task per (bin, rung).
void histogram_batch(std::vector<BinRun*>& runs, const std::vector<LadderJob>& jobs,
                     const LadderRecords& rec, std::size_t rungs, int threads) {
  std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (job, rung)
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(jobs[j].rungs) && k < rungs; ++k) {
      if (runs[j]->hist[k]) tasks.emplace_back(j, k);
    }
  }
  // ln p0 once per history, not once per step it reaches.
  std::vector<double> ln_p0(rec.p0.size());
  parallel_for_chunks(ln_p0.size(), threads, std::size_t(1) << 16,
                      [&](std::size_t lo, std::size_t hi) {
                        for (std::size_t i = lo; i < hi; ++i)
                          ln_p0[i] = std::log(double(rec.p0[i]));
                      });
  parallel_for_chunks(tasks.size(), threads, 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t t = lo; t < hi; ++t) {
      const auto [j, k] = tasks[t];
      BinHistogrammer& h = *runs[j]->hist[k];
      const std::size_t n = jobs[j].n, h0 = rec.history_offset[j];
      const std::size_t r0 = rec.record_offset[j] + k * n;
      h.reserve(h.size() + n);
      for (std::size_t i = 0; i < n; ++i) {
        h.add_fractions_ln(ln_p0[h0 + i], rec.loss[r0 + i], rec.kick[r0 + i]);
      }
    }
  });
}

struct BuildClock {
  std::size_t histories = 0, samples = 0;
  double sampling_s = 0, histogram_s = 0;
  // Per set of histories (RungGroup::stream: the steps to 8 d, the long ones).
  std::array<std::size_t, 2> set_histories{};
  std::array<double, 2> set_sampling_s{};

  void add(const BuildClock& o) {
    histories += o.histories;
    samples += o.samples;
    sampling_s += o.sampling_s;
    histogram_s += o.histogram_s;
    for (std::size_t i = 0; i < 2; ++i) {
      set_histories[i] += o.set_histories[i];
      set_sampling_s[i] += o.set_sampling_s[i];
    }
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One engine call for `jobs` into `rec` (the caller's, kept from call to
// call): timed as a whole, or (the profile) job by job, which draws the same
// samples (a job's streams are its own). The records are laid out before
// the engine is taken: on a GPU the next call's host memory is ready when
// the engine is free (the calls hold up to 2^25 records each).
void run_jobs(const Material& material, const LadderSpec& spec, std::size_t set,
              const std::vector<LadderJob>& jobs, std::vector<BinRun*>& owners,
              EngineBackend backend, int threads, BuildClock& clock, std::mutex& engine,
              LadderRecords& rec) {
  rec.lay_out(jobs);
  const std::lock_guard<std::mutex> one_call_at_a_time(engine);
  const auto t0 = std::chrono::steady_clock::now();
  for (const LadderJob& j : jobs) clock.set_histories[set] += j.n;
  if (!trace_wanted()) {
    sample_ladder_into(material, spec, jobs, backend, threads, rec);
    clock.sampling_s += seconds_since(t0);
    clock.set_sampling_s[set] += seconds_since(t0);
    return;
  }
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto tj = std::chrono::steady_clock::now();
    const LadderRecords one = sample_ladder(material, spec, {jobs[j]}, backend, threads);
    owners[j]->engine_s += seconds_since(tj);
    std::copy(one.p0.begin(), one.p0.end(), rec.p0.begin() + rec.history_offset[j]);
    std::copy(one.loss.begin(), one.loss.end(), rec.loss.begin() + rec.record_offset[j]);
    std::copy(one.kick.begin(), one.kick.end(), rec.kick.begin() + rec.record_offset[j]);
  }
  clock.sampling_s += seconds_since(t0);
  clock.set_sampling_s[set] += seconds_since(t0);
}

// The profile's line for one bin of a set of histories: its histories, the
// rung whose goal asked for the last round (or the bound that ended it),
// and the engine's time per history.
void trace_bin(const Material& material, const RungGroup& rg, const BinRun& run,
               const std::vector<double>& edges, const TableBuildOptions& o) {
  std::string why = "min-samples";
  if (run.done >= o.samples_per_bin) {
    why = "samples-per-bin bound";
  } else if (run.binding >= 0) {
    const Rung& r = rg.rungs[static_cast<std::size_t>(run.binding)];
    why = fmt::format("goal of step {:.4g} m ({:.3g})", r.step,
                      r.precision[static_cast<std::size_t>(run.bin)]);
  }
  // The rung furthest from its goal: its relative error of the mean loss.
  double worst = 0, worst_error = 0, worst_step = 0;
  for (std::size_t k = 0; k < rg.rungs.size(); ++k) {
    const BinHistogrammer* h = run.hist[k].get();
    if (!h || !(h->mean_loss() > 0)) continue;
    const double error = h->mean_loss_error() / h->mean_loss();
    const double ratio = error / rg.rungs[k].precision[static_cast<std::size_t>(run.bin)];
    if (ratio > worst)
      std::tie(worst, worst_error, worst_step) = std::tuple(ratio, error, rg.rungs[k].step);
  }
  std::fprintf(stderr,
               "fastmu trace: tables %s set %llu bin %d [%.4g, %.4g) GeV/c: %zu histories in %d "
               "rounds, %.3g s engine, %.3g us/history; last round for the %s; furthest from "
               "its goal: step %.4g m, error %.3g of the mean (%.2f x its goal)\n",
               material.name.c_str(), static_cast<unsigned long long>(rg.stream), run.bin,
               edges[run.bin], edges[run.bin + 1], run.done, run.rounds, run.engine_s,
               run.done ? 1e6 * run.engine_s / static_cast<double>(run.done) : 0.0, why.c_str(),
               worst_step, worst_error, worst);
}

// Samples a group of bins round by round until each meets its goal. Each
// bin's jobs of one engine call are one job (a bin's histograms are filled
// by one task), its histories numbered on from the previous rounds'. One
// engine call holds bins of one range-cut scale (momentum_cut_scale).
void sample_group(const Material& material, const RungGroup& rg, const std::vector<double>& edges,
                  const TableBuildOptions& o, EngineBackend backend, std::vector<BinRun>& group,
                  BuildClock& clock, std::mutex& engine, LadderRecords& rec) {
  const std::vector<Rung>& rungs = rg.rungs;
  for (;;) {
    std::vector<LadderJob> jobs;
    std::vector<BinRun*> owners;
    std::size_t records = 0;
    double scale = 0;  // the call's range-cut scale, from its first bin
    for (BinRun& run : group) {
      if (run.done >= run.round_end) {
        const Round round = next_round(run, rungs, o);
        run.round_end = run.done + round.n;
        run.round_reach = round.reach;
        run.binding = round.binding;
      }
      const std::size_t m = run.round_end - run.done;
      if (m == 0) continue;
      const double bin_scale = momentum_cut_scale(edges[run.bin]);
      if (scale == 0) scale = bin_scale;
      if (bin_scale != scale) continue;  // the next call's
      const auto reach = static_cast<std::size_t>(run.round_reach);
      const std::size_t take = std::min(m, (kMaxRecords - records) / reach);
      if (take == 0) break;  // the call is full: this bin goes on in the next one
      jobs.push_back({derived_seed(o.seed, static_cast<std::uint64_t>(run.bin), rg.stream),
                      run.done, take, edges[run.bin], edges[run.bin + 1], run.round_reach});
      owners.push_back(&run);
      records += take * reach;
    }
    if (jobs.empty()) break;
    run_jobs(material, bin_spec(rg, edges[owners.front()->bin]),
             std::min<std::size_t>(rg.stream, 1), jobs, owners, backend, o.threads, clock, engine,
             rec);
    const auto t0 = std::chrono::steady_clock::now();
    histogram_batch(owners, jobs, rec, rungs.size(), o.threads);
    clock.histogram_s += seconds_since(t0);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      owners[j]->done += jobs[j].n;
      owners[j]->rounds += 1;
      clock.histories += jobs[j].n;
      clock.samples += jobs[j].n * jobs[j].rungs;
    }
  }
  if (trace_wanted()) {
    for (const BinRun& run : group) trace_bin(material, rg, run, edges, o);
  }
}

TableData empty_table(const std::vector<double>& edges, const Rung& rung, int hist_bins) {
  TableData d;
  d.nx = d.ny = hist_bins;
  d.p_edges.assign(edges.begin() + rung.table_from, edges.end());
  const std::size_t n = d.p_edges.size() - 1, cpb = d.cells_per_bin();
  d.p_centres.resize(n);
  d.axes.resize(n);
  d.counts.resize(n * cpb);
  d.cells.resize(n * cpb);
  d.samples_per_bin.resize(n);
  d.mean_loss.resize(n);
  d.std_loss.resize(n);
  d.mean_kick.resize(n);
  return d;
}

// Histograms -> the tables' bins (alias tables, moments), one task per (bin, rung).
void finish_group(std::vector<BinRun>& group, const RungGroup& rg, int threads) {
  const std::vector<Rung>& rungs = rg.rungs;
  std::vector<std::pair<BinRun*, std::size_t>> tasks;
  for (BinRun& run : group) {
    for (std::size_t k = 0; k < rungs.size(); ++k) {
      if (run.hist[k]) tasks.emplace_back(&run, k);
    }
  }
  parallel_for_chunks(tasks.size(), threads, 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t t = lo; t < hi; ++t) {
      BinRun& run = *tasks[t].first;
      const std::size_t k = tasks[t].second;
      TableData& d = *rg.tables[k];
      const std::size_t b = static_cast<std::size_t>(run.bin - rungs[k].table_from);
      const std::size_t cpb = d.cells_per_bin();
      const BinHistogram h = run.hist[k]->finish();
      run.hist[k].reset();  // its samples are no longer needed
      d.axes[b] = h.axes;
      d.p_centres[b] = std::min(std::max(h.centre, d.p_edges[b]), d.p_edges[b + 1]);
      d.samples_per_bin[b] = h.samples;
      d.mean_loss[b] = h.mean_loss;
      d.std_loss[b] = h.std_loss;
      d.mean_kick[b] = h.mean_kick;
      std::copy(h.counts.begin(), h.counts.end(), d.counts.begin() + b * cpb);
      build_alias_table(std::span<const std::uint32_t>(h.counts),
                        std::span<AliasCell>(d.cells.data() + b * cpb, cpb));
    }
  });
}

// The engine's physics tables for every range cut the build's calls use
// (each set of histories times each bin's momentum_cut_scale), built at
// once on all threads: built by the first call that needs them, they held
// the engine's lock (G4_CONCRETE: ~0.3 s of one core for each of 18 cuts).
void prepare_physics(const Material& material, const std::vector<RungGroup>& groups,
                     const std::vector<int>& mine, const std::vector<double>& edges, int threads) {
  std::map<double, PhysicsOptions> by_cut;  // the sets differ in their cut only
  for (const RungGroup& rg : groups) {
    for (int b : mine) {
      if (rg.rungs.front().first_bin > b) continue;
      const PhysicsOptions physics = bin_spec(rg, edges[b]).physics;
      by_cut.emplace(physics.production_cut_m, physics);
    }
  }
  const std::vector<std::pair<double, PhysicsOptions>> list(by_cut.begin(), by_cut.end());
  parallel_for_chunks(list.size(), threads, 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) MuonPhysicsTables::get(material, list[i].second);
  });
}

// A group of bins [from, to) of `mine` and the set of histories that fills them.
struct SampleUnit {
  std::size_t from, to;
  const RungGroup* rg;
};

// Samples and finishes every unit. On the GPU kUnitsAtOnceOnGpu units run
// at once, so that the others' histograms fill on the CPU while one's
// histories run in the engine (one engine call at a time). Units own
// disjoint bins and each bin fills its histograms round after round as
// before: the tables are those of one unit at a time, bit for bit.
BuildClock sample_units(const Material& material, const std::vector<SampleUnit>& units,
                        const std::vector<int>& mine, const std::vector<double>& edges,
                        const TableBuildOptions& o, EngineBackend backend,
                        const std::function<void(const SampleUnit&, std::size_t)>& done) {
  std::mutex engine, lock;
  std::size_t next = 0;
  std::exception_ptr failure;
  const auto work = [&](BuildClock& clock) {
    LadderRecords rec;  // this thread's, reused call after call
    for (;;) {
      std::size_t u;
      {
        const std::lock_guard<std::mutex> l(lock);
        if (next >= units.size() || failure) return;
        u = next++;
      }
      try {
        const SampleUnit& unit = units[u];
        const RungGroup& rg = *unit.rg;
        std::vector<BinRun> group;
        for (std::size_t i = unit.from; i < unit.to; ++i) {
          if (rg.rungs.front().first_bin <= mine[i])
            group.push_back(start_bin(mine[i], rg.rungs, o));
        }
        const std::size_t histories = clock.histories;
        sample_group(material, rg, edges, o, backend, group, clock, engine, rec);
        const auto t0 = std::chrono::steady_clock::now();
        finish_group(group, rg, o.threads);
        clock.histogram_s += seconds_since(t0);
        done(unit, clock.histories - histories);
      } catch (...) {
        const std::lock_guard<std::mutex> l(lock);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  const std::size_t at_once =
      backend == EngineBackend::cuda ? std::min(kUnitsAtOnceOnGpu, units.size()) : 1;
  std::vector<BuildClock> clocks(std::max<std::size_t>(at_once, 1));
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < at_once; ++i) others.emplace_back(work, std::ref(clocks[i]));
  work(clocks[0]);
  for (std::thread& t : others) t.join();
  if (failure) std::rethrow_exception(failure);
  for (std::size_t i = 1; i < clocks.size(); ++i) clocks[0].add(clocks[i]);
  return clocks[0];
}

std::vector<double> ladder_edges(const Material& material, const std::vector<LadderRung>& rungs,
                                 const TableBuildOptions& o, const PhysicsOptions& physics,
                                 bool progress) {
  if (o.binning != MomentumBinning::adaptive) return ladder_momentum_edges(o);
  if (rungs.size() != 1) throw Error("adaptive momentum binning builds one step at a time");
  EngineSampleSource pilot_source(material, rungs[0].step_m, o.charge, o.seed, o.threads, physics);
  ProgressBar pilot("pilot   " + material.name,
                    static_cast<std::size_t>(o.pilot_probes) * o.pilot_muons,
                    progress && progress_wanted());
  return make_momentum_edges(o, pilot_source, &pilot);
}

// The relative costs of `bins` (BinCost.hh) for the progress estimate.
std::vector<double> bin_costs(const std::vector<int>& bins, const std::vector<Rung>& rungs,
                              const std::vector<RungGroup>& groups,
                              const std::vector<double>& edges, const TableBuildOptions& o) {
  const double d = reference_step(rungs);
  std::vector<BinCostRungs> sets;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    BinCostRungs s;
    for (const Rung& r : groups[g].rungs) {
      s.first_bin.push_back(r.first_bin);
      s.radius.push_back(r.step / d);
    }
    s.cut_scale = g == 0 ? 1.0 : groups[g].rungs.front().step / d;  // as rung_groups scales it
    sets.push_back(std::move(s));
  }
  std::vector<double> out;
  for (int b : bins) {
    out.push_back(ladder_bin_cost(b, edges[b], edges[b + 1], sets, o.min_samples, o.samples_per_bin,
                                  o.loss_precision > 0, momentum_cut_scale(edges[b])));
  }
  return out;
}

// Exchanges the spread build's bins: every process ends with every bin.
void exchange_bins(const BinShare& share, int from_bin, const std::vector<int>& mine_bins,
                   const std::vector<Rung>& rungs, std::vector<TableData>& tables,
                   BinShareReport* report, std::uint64_t my_samples) {
  std::vector<unsigned char> bytes;
  bytes.reserve(4096);
  const std::int32_t header[2] = {share.rank, static_cast<std::int32_t>(mine_bins.size())};
  put_bytes(bytes, header, 2);
  put_bytes(bytes, &my_samples);
  for (int b : mine_bins) {
    for (std::size_t k = 0; k < rungs.size(); ++k) {
      if (rungs[k].first_bin <= b) append_bin(bytes, tables[k], b - rungs[k].table_from);
    }
  }
  share.gather(bytes);
  share.broadcast(bytes);
  std::vector<std::uint64_t> by_rank(static_cast<std::size_t>(share.size), 0);
  for (std::size_t at = 0; at < bytes.size();) {
    std::int32_t h[2] = {-1, -1};
    std::uint64_t samples = 0;
    get_bytes(bytes, at, h, 2);
    get_bytes(bytes, at, &samples);
    if (h[0] < 0 || h[0] >= share.size || h[1] < 0) {
      throw Error("table build: bad share header from another rank");
    }
    by_rank[static_cast<std::size_t>(h[0])] = samples;
    // The bins of rank h[0]: b = h[0], h[0] + size, ...; each with its rungs' entries.
    for (std::int32_t i = 0; i < h[1]; ++i) {
      const int b = from_bin + h[0] + i * share.size;
      for (std::size_t k = 0; k < rungs.size(); ++k) {
        if (rungs[k].first_bin > b) continue;
        if (read_bin(bytes, at, tables[k]) != b - rungs[k].table_from) {
          throw Error("table build: bins from another rank out of order");
        }
      }
    }
  }
  if (report) report->samples_by_rank = std::move(by_rank);
}

}  // namespace

std::vector<std::vector<double>> ladder_precision_goals(const std::vector<LadderRung>& rungs,
                                                        const std::vector<double>& edges,
                                                        double precision) {
  std::vector<std::vector<double>> goals(rungs.size());
  for (const Rung& r : sorted_rungs(rungs, edges, precision)) {
    goals[r.caller] = r.precision;
    std::fill(goals[r.caller].begin(), goals[r.caller].begin() + r.first_bin, 0.0);
  }
  return goals;
}

double momentum_cut_scale(double p_lo) {
  if (!(p_lo >= 2 * kCutScaleMomentum)) return 1.0;
  return std::exp2(std::floor(std::log2(p_lo / kCutScaleMomentum)));
}

double table_range_cut(const Material& material, const PhysicsOptions& physics) {
  const double floor_m =
      material.density_g_cm3 > 0 ? kTableRangeCutMassThickness / material.density_g_cm3 / 100.0 : 0;
  return std::max(physics.production_cut_m, floor_m);
}

std::string ladder_generator(const Material& material, const std::vector<LadderRung>& rungs,
                             const TableBuildOptions& o, const PhysicsOptions& physics) {
  std::vector<double> steps;
  for (const LadderRung& r : rungs) steps.push_back(r.step_m);
  std::sort(steps.begin(), steps.end());
  std::string s = engine_generator(physics) + " on " + o.backend + "; histories through steps";
  for (double d : steps) s += fmt::format(" {:.17g}", d);
  s += " m; ";
  // Named only where it differs from the engine's cut, so that the keys of
  // the materials it leaves alone stay as they were.
  const double cut = table_range_cut(material, physics);
  if (cut != physics.production_cut_m) {
    s += fmt::format("range cut {:.17g} m ({:g} g/cm2); ", cut, kTableRangeCutMassThickness);
  }
  double d = 0;  // the reference step, as reference_step() finds it
  for (const LadderRung& r : rungs) {
    if (r.p_from == 0) d = std::max(d, r.step_m);
  }
  s += fmt::format("range cuts x 2^k from {:g} x 2^k GeV/c; ", kCutScaleMomentum);
  for (double step : steps) {
    if (is_long_rung(step, d)) {
      s += fmt::format("steps from {:.17g} m by histories of their own, range cut {:.17g} m; ",
                       step, cut * step / d);
      break;
    }
  }
  if (o.loss_precision > 0) {
    s += fmt::format(
        "samples per bin to {:.17g} of the mean loss x sqrt(w / step), w the bin's longest step "
        "and longest to {:g} d, {}..{}",
        o.loss_precision, kLadderFieldStepFactor, std::min(o.min_samples, o.samples_per_bin),
        o.samples_per_bin);
  } else {
    s += fmt::format("{} samples per bin", o.samples_per_bin);
  }
  return s;
}

std::vector<TableParams> build_ladder_tables(const Material& material,
                                             const std::vector<LadderRung>& ladder,
                                             const TableBuildOptions& options, bool progress,
                                             const BinShare& share, BinShareReport* report,
                                             PhysicsOptions physics) {
  const auto t_start = std::chrono::steady_clock::now();
  TableBuildOptions o = options;
  if (o.hist_bins < 1 || o.hist_bins > 4096) throw Error("--hist-bins must be in [1, 4096]");
  if (o.samples_per_bin < 1) throw Error("--samples-per-bin must be at least 1");
  if (o.min_samples < 1) throw Error("--min-samples must be at least 1");
  if (!(o.loss_precision >= 0) || !std::isfinite(o.loss_precision)) {
    throw Error("--loss-precision must be a non-negative fraction");
  }
  if (o.charge != -1 && o.charge != 1) throw Error("--charge must be -1 or 1");
  const EngineBackend backend = resolve_engine_backend(o.backend, "--table-backend");
  o.backend = to_string(backend);
  trace("tables: engine backend resolved");
  const bool spread = share.size > 1;
  if (spread && (share.rank < 0 || share.rank >= share.size || !share.collective || !share.gather ||
                 !share.broadcast)) {
    throw Error("table build: invalid share of the momentum bins");
  }
  const auto collective = [&](const std::function<void()>& work) {
    spread ? share.collective(work) : work();
  };

  std::vector<double> edges;
  std::vector<Rung> rungs;
  std::vector<TableData> tables;
  std::vector<int> mine;
  BuildClock clock;
  std::unique_ptr<ProgressBar> bar;
  collective([&] {
    edges = ladder_edges(material, ladder, o, physics, progress);
    const int n = static_cast<int>(edges.size()) - 1;
    if (o.from_bin < 0 || o.from_bin >= n) {
      throw Error(fmt::format("table ladder: first bin {} is outside the {} bins", o.from_bin, n));
    }
    rungs = sorted_rungs(ladder, edges, o.loss_precision, o.from_bin);
    for (const Rung& r : rungs) tables.push_back(empty_table(edges, r, o.hist_bins));
    for (int b = o.from_bin + (spread ? share.rank : 0); b < n; b += spread ? share.size : 1)
      mine.push_back(b);

    const std::vector<RungGroup> groups = rung_groups(material, rungs, tables, physics, o.charge);
    // Spread, the bar counts every process's bins (share.progress); where
    // nothing is shared, this process's own.
    auto bar_share = spread && share.progress ? share.progress() : nullptr;
    const bool own_share = spread && !bar_share;
    const std::string label =
        fmt::format("tables  {} ({} steps, {})", material.name, rungs.size(), o.backend);
    bar = std::make_unique<ProgressBar>(
        own_share ? fmt::format("{} (rank {} of {})", label, share.rank, share.size) : label,
        own_share ? mine.size() : static_cast<std::size_t>(n - o.from_bin),
        progress ? progress_mode() : ProgressMode::off, std::move(bar_share));
    // The time left weighs the bins by their cost (this process's share of them).
    const std::vector<double> cost = bin_costs(mine, rungs, groups, edges, o);
    if (!spread || own_share) bar->set_work_total(std::accumulate(cost.begin(), cost.end(), 0.0));
    // One unit per group of bins and set of histories; a group's bar moves
    // when its last unit is done. The dearest (highest) groups first: the
    // build ends on a cheap unit, not on the top bins' histograms filling
    // on the CPU after the engine's last call (~1-2 s on the GPU).
    std::vector<SampleUnit> units;
    const std::size_t n_groups = (mine.size() + kBinsPerGroup - 1) / kBinsPerGroup;
    std::vector<std::size_t> left(n_groups, 0);
    for (std::size_t gi = n_groups; gi-- > 0;) {
      const std::size_t g = gi * kBinsPerGroup;
      for (const RungGroup& rg : groups) {
        units.push_back({g, std::min(mine.size(), g + kBinsPerGroup), &rg});
        ++left[gi];
      }
    }
    std::mutex progress_lock;
    const auto done = [&](const SampleUnit& u, std::size_t histories) {
      const std::lock_guard<std::mutex> lock(progress_lock);
      bar->add_also(histories, "histories");
      if (--left[u.from / kBinsPerGroup] == 0) {
        bar->add(u.to - u.from, std::accumulate(cost.begin() + u.from, cost.begin() + u.to, 0.0));
      }
    };
    prepare_physics(material, groups, mine, edges, o.threads);
    trace("tables: physics tables ready");
    clock = sample_units(material, units, mine, edges, o, backend, done);
    trace("tables: bins sampled");
  });
  std::string created = utc_now_iso();
  if (!spread) bar->finish();
  if (spread) {
    exchange_bins(share, o.from_bin, mine, rungs, tables, report, clock.samples);
    bar->finish(edges.size() - 1 - o.from_bin);
    std::vector<unsigned char> stamp(created.begin(), created.end());
    share.broadcast(stamp);
    created.assign(stamp.begin(), stamp.end());
  } else if (report) {
    report->samples_by_rank.assign(1, clock.samples);
  }
  if (progress && share.rank == 0) {
    std::fprintf(stderr,
                 "fastmu: tables %s: %zu steps, %zu momentum bins, %.3g histories (%.3g samples) "
                 "in %.1f s on %s: engine %.1f s (%.3g histories to 8 d in %.1f s, %.3g of the "
                 "long steps in %.1f s), histograms %.1f s\n",
                 material.name.c_str(), rungs.size(), edges.size() - 1 - o.from_bin,
                 static_cast<double>(clock.histories), static_cast<double>(clock.samples),
                 seconds_since(t_start), o.backend.c_str(), clock.sampling_s,
                 static_cast<double>(clock.set_histories[0]), clock.set_sampling_s[0],
                 static_cast<double>(clock.set_histories[1]), clock.set_sampling_s[1],
                 clock.histogram_s);
  }

  TableMetadata meta;
  meta.material = material.name;
  meta.material_definition = material.definition();
  meta.density_g_cm3 = material.density_g_cm3;
  meta.generator = ladder_generator(material, ladder, o, physics);
  meta.binning = o.binning;
  meta.charge = o.charge;
  meta.seed = o.seed;
  meta.epsilon = o.binning == MomentumBinning::adaptive ? o.epsilon : 0.0;
  meta.tail_fraction = o.tail_fraction;
  meta.created_utc = created;
  meta.format_version = kTableFormatVersion;
  std::vector<std::unique_ptr<TableParams>> built(ladder.size());
  for (std::size_t k = 0; k < rungs.size(); ++k) {
    TableMetadata m = meta;
    m.step_m = rungs[k].step;
    built[rungs[k].caller] = std::make_unique<TableParams>(std::move(m), std::move(tables[k]));
  }
  std::vector<TableParams> result;
  result.reserve(ladder.size());
  for (auto& t : built) result.push_back(std::move(*t));
  return result;
}

}  // namespace fastmu
