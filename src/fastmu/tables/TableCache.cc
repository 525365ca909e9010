#include "fastmu/tables/TableCache.hh"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Trace.hh"
#include "fastmu/io/FileLock.hh"
#include "fastmu/io/TempFiles.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/Sha256.hh"
#include "fastmu/tables/ShippedTables.hh"
#include "fastmu/tables/TableBins.hh"
#include "fastmu/tables/TableFile.hh"

namespace fastmu {

std::filesystem::path TableCache::default_dir() {
  if (const char* d = std::getenv("FASTMU_CACHE"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "fastmu";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "fastmu";
  return std::filesystem::temp_directory_path() / "fastmu-cache";
}

std::size_t TableCache::default_samples_per_bin() {
  const char* s = std::getenv("FASTMU_CACHE_SAMPLES");
  if (!s || !*s) return 1'000'000;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= 1) || v > 1e10) {
    throw Error(std::string("environment variable FASTMU_CACHE_SAMPLES='") + s +
                "' is not a positive number of samples");
  }
  return static_cast<std::size_t>(v);
}

std::string TableCache::key(const Material& m, const TableBuildOptions& o,
                            const std::vector<LadderRung>& ladder, std::size_t rung) {
  return key_on(to_string(resolve_engine_backend(o.backend, "table backend")), m, o, ladder, rung);
}

std::string TableCache::key_on(const std::string& backend, const Material& m,
                               const TableBuildOptions& o, const std::vector<LadderRung>& ladder,
                               std::size_t rung) {
  if (rung >= ladder.size()) throw Error("table cache: no such step in the ladder");
  // {:.17g}: doubles round-trip, so materials that differ in any bit differ here.
  std::string k = fmt::format("material {} density {:.17g} I {:.17g} gas {}", m.name,
                              m.density_g_cm3, m.mean_excitation_ev, m.gas ? 1 : 0);
  const DensityEffect& d = m.density_effect;
  k += fmt::format(" sternheimer {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g}", d.cbar, d.x0,
                   d.x1, d.a, d.m, d.delta0);
  for (const MaterialComponent& c : m.components) {
    k += fmt::format(" Z {} A {:.17g} w {:.17g}", c.z, c.a_g_per_mol, c.mass_fraction);
  }
  k += fmt::format("; step {:.17g} from {:.17g} GeV/c binning {}", ladder[rung].step_m,
                   ladder[rung].p_from, to_string(o.binning));
  if (o.binning == MomentumBinning::adaptive) {
    k += fmt::format(" p {:.17g}..{:.17g} epsilon {:.17g} pilot {} x {}", o.p_min, o.p_max,
                     o.epsilon, o.pilot_muons, o.pilot_probes);
  } else {
    // The grid, not its top: a file holds bins up to some top (TableCache.hh).
    k += fmt::format(" p {:.17g}..{:.17g} bins {}", o.p_min, o.p_max, o.p_bins);
  }
  TableBuildOptions resolved = o;
  resolved.backend = backend;
  k += fmt::format(" hist {} charge {} seed {} tail {:.17g}; {}; format {}", o.hist_bins, o.charge,
                   o.seed, o.tail_fraction, ladder_generator(m, ladder, resolved, PhysicsOptions{}),
                   kTableFormatVersion);
  return k;
}

std::string TableCache::key(const Material& m, const TableBuildOptions& o) {
  return key(m, o, {{o.step_m, 0.0}}, 0);
}

namespace {

// `material` with only characters that are safe in file names on every system.
std::string safe_file_stem(const std::string& material) {
  std::string safe = material;
  for (char& c : safe) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  }
  return safe;
}

}  // namespace

std::string TableCache::file_name(const std::string& material, double step_m,
                                  const std::string& key) {
  const std::string safe = safe_file_stem(material);
  return fmt::format("{}_step{:g}mm_{}_v{}.h5", safe, step_m * 1e3, sha256_hex(key).substr(0, 16),
                     kTableFormatVersion);
}

std::filesystem::path TableCache::path_for(const Material& material, double step_m) const {
  return dir_ / file_name(material.name, step_m, key(material, options_for(step_m)));
}

std::string TableCache::default_backend() {
  const char* s = std::getenv("FASTMU_TABLE_BACKEND");
  if (!s || !*s) return "auto";
  resolve_engine_backend(s, "environment variable FASTMU_TABLE_BACKEND");  // checks it
  return s;
}

std::filesystem::path TableCache::default_shipped_dir() {
  if (const char* d = std::getenv("FASTMU_SHIPPED_TABLES")) {
    return (*d && std::strcmp(d, "none") != 0) ? std::filesystem::path(d) : std::filesystem::path();
  }
  return find_shipped_tables();
}

TableCache::TableCache(std::filesystem::path dir, std::filesystem::path shipped_dir)
    : dir_(std::move(dir)), shipped_dir_(std::move(shipped_dir)) {
  options_.samples_per_bin = default_samples_per_bin();
  options_.backend = default_backend();
  options_.p_max = kCacheTopMomentum;
  options_.p_bins = kCacheMomentumBins;
  // Files a killed build left half-written (TempFiles.hh) go here, once per cache.
  io::remove_stale_temp_files(dir_);
}

void TableCache::share_builds(BinShare share) {
  if (share.size > 1 && (share.rank < 0 || share.rank >= share.size || !share.collective ||
                         !share.gather || !share.broadcast)) {
    throw Error("table cache: invalid share of the table builds");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  share_ = std::move(share);
}

std::shared_ptr<const TableParams> TableCache::get(const Material& material, double step_m,
                                                   bool progress) {
  return get(material, step_m, 0.0, progress);
}

TableBuildOptions TableCache::options_for(double step_m) const {
  if (!(step_m > 0) || !std::isfinite(step_m)) throw Error("table cache: step must be positive");
  TableBuildOptions o = options_;
  o.step_m = step_m;
  return o;
}

std::shared_ptr<const TableParams> TableCache::load_if_current(const std::filesystem::path& path,
                                                               const Material& material,
                                                               double step_m, const std::string& k,
                                                               int threads, int bins,
                                                               TableExtent* extent) const {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  TableLoadOptions load;
  load.histogram = false;  // the transport samples the alias tables only
  load.threads = threads;
  load.is_input = false;  // the cache's own file: extending it rewrites it
  load.bins = bins;
  auto table = std::make_shared<const TableParams>(load_table(path, step_m, load, extent));
  if (table->metadata().material != material.name) {
    throw Error(path.string() + ": attribute material is '" + table->metadata().material +
                "', expected '" + material.name + "'");
  }
  // Same file name, other making (a copied-in file, a hash collision): never used.
  return table->metadata().cache_key == k ? table : nullptr;
}

// A ladder as a request sees it: every rung's key and file, its first bin
// of the grid, and the request's bins.
struct TableCache::LadderPlan {
  std::vector<std::string> keys;
  std::vector<std::filesystem::path> paths;
  std::vector<std::vector<std::string>> shipped_keys;  // the keys of a build on each backend
  int grid_bins = 0;  // the whole grid's (a shipped table holds them all)
  std::vector<double> steps;
  std::vector<int> first;     // the rung's first bin (>= bins: no bins below the top)
  std::vector<double> edges;  // the grid up to the request's top
  int bins = 0;
  std::filesystem::path lock;
  bool active(std::size_t k) const { return first[k] < bins; }
};

std::shared_ptr<const TableParams> TableCache::load_shipped(const Material& material,
                                                            const LadderPlan& plan, std::size_t k,
                                                            int threads,
                                                            TableExtent& extent) const {
  for (const std::string& sk : plan.shipped_keys[k]) {
    const auto path = shipped_dir_ / file_name(material.name, plan.steps[k], sk);
    try {
      auto t = load_if_current(path, material, plan.steps[k], sk, threads,
                               plan.bins - plan.first[k], &extent);
      if (t && plan.first[k] + extent.n_pbins >= plan.grid_bins) return t;
    } catch (const Error& e) {
      std::fprintf(stderr, "fastmu: table cache: shipped table skipped: %s\n", e.what());
    }
  }
  return nullptr;
}

namespace {

// The first bin whose lower edge is at or above p_from (sorted_rungs' rule
// in LadderBuilder.cc), edges.size() - 1 when there is none.
int first_bin_from(const std::vector<double>& edges, double p_from) {
  const int n = static_cast<int>(edges.size()) - 1;
  int first = 0;
  while (first < n && edges[first] < p_from * (1 - 1e-12)) ++first;
  return first;
}

// The least of `mine` over every process of `share` (collective).
int least_on_every_process(const BinShare& share, int mine) {
  std::vector<unsigned char> v(sizeof(int));
  std::memcpy(v.data(), &mine, sizeof(int));
  share.gather(v);
  if (share.rank == 0) {
    int least = mine;
    for (std::size_t at = 0; at + sizeof(int) <= v.size(); at += sizeof(int)) {
      int x;
      std::memcpy(&x, v.data() + at, sizeof(int));
      least = std::min(least, x);
    }
    v.assign(sizeof(int), 0);
    std::memcpy(v.data(), &least, sizeof(int));
  }
  share.broadcast(v);
  int out = mine;
  if (v.size() >= sizeof(int)) std::memcpy(&out, v.data(), sizeof(int));
  return out;
}

std::string momentum_text(double p) { return fmt::format("{:.3g} GeV/c", p); }

}  // namespace

TableCache::LadderPlan TableCache::plan_ladder(const Material& material,
                                               const std::vector<LadderRung>& ladder) const {
  if (ladder.empty()) throw Error("table cache: no steps");
  // Its bins are found by the pilot of the build: no top to cover.
  if (options_.binning == MomentumBinning::adaptive) {
    throw Error("table cache: adaptive momentum binning is not cached (log or uniform)");
  }
  LadderPlan plan;
  plan.edges = ladder_momentum_edges(options_);
  plan.bins = static_cast<int>(plan.edges.size()) - 1;
  TableBuildOptions whole = options_;
  whole.p_top = 0;
  plan.grid_bins = static_cast<int>(ladder_momentum_edges(whole).size()) - 1;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    options_for(ladder[k].step_m);  // checks the step
    plan.keys.push_back(key(material, options_, ladder, k));
    plan.shipped_keys.emplace_back();
    if (!shipped_dir_.empty()) {
      for (const char* backend : {"cuda", "cpu"}) {
        plan.shipped_keys.back().push_back(key_on(backend, material, options_, ladder, k));
      }
    }
    plan.paths.push_back(dir_ / file_name(material.name, ladder[k].step_m, plan.keys.back()));
    plan.steps.push_back(ladder[k].step_m);
    plan.first.push_back(ladder[k].p_from > 0 ? first_bin_from(plan.edges, ladder[k].p_from) : 0);
  }
  plan.lock = dir_ / (safe_file_stem(material.name) + ".lock");
  return plan;
}

int TableCache::held_end(const LadderPlan& plan) const {
  int end = plan.bins;
  for (std::size_t k = 0; k < plan.keys.size(); ++k) {
    if (!plan.active(k)) continue;
    const auto it = loaded_.find(plan.keys[k]);
    end =
        std::min(end, it == loaded_.end() ? plan.first[k] : plan.first[k] + it->second->n_pbins());
  }
  return end;
}

int TableCache::load_held(const Material& material, const LadderPlan& plan, bool note) {
  const bool spread = share_.size > 1;
  const auto collective = [&](const std::function<void()>& work) {
    spread ? share_.collective(work) : work();
  };
  collective([&] {
    for (std::size_t k = 0; k < plan.keys.size(); ++k) {
      if (!plan.active(k)) continue;
      const auto it = loaded_.find(plan.keys[k]);
      if (it != loaded_.end() && plan.first[k] + it->second->n_pbins() >= plan.bins) continue;
      std::error_code ec;
      std::shared_ptr<const TableParams> t;
      TableExtent extent;
      if (std::filesystem::exists(plan.paths[k], ec)) {
        t = load_if_current(plan.paths[k], material, plan.steps[k], plan.keys[k], 0,
                            plan.bins - plan.first[k], &extent);
        if (!t && note && share_.rank == 0) {
          std::fprintf(stderr,
                       "fastmu: table cache: %s was made with other settings or another "
                       "material definition; rebuilding it\n",
                       plan.paths[k].c_str());
        }
      }
      if (!t && (t = load_shipped(material, plan, k, 0, extent)))
        shipped_keys_.insert(plan.keys[k]);
      if (t && (it == loaded_.end() || t->n_pbins() > it->second->n_pbins())) {
        loaded_[plan.keys[k]] = std::move(t);
        file_top_[plan.keys[k]] = extent.p_max;
      }
    }
  });
  const int end = held_end(plan);
  return spread ? least_on_every_process(share_, end) : end;
}

void TableCache::preload(const std::vector<TableRequest>& requests) {
  if (share_.size > 1) return;  // ranks load in get(), in step with each other
  // The requests of one ladder (one per rung) share its plan: a plan hashes
  // the settings of every rung, so one per request would cost the square.
  struct Planned {
    const Material* material;
    std::vector<LadderRung> ladder;
    LadderPlan plan;
  };
  std::vector<Planned> plans;
  struct Job {
    const TableRequest* request;
    std::string key;
    std::filesystem::path path;
    std::size_t plan;  // in plans
    std::size_t rung;
  };
  std::vector<Job> jobs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const TableRequest& r : requests) {
      const std::vector<LadderRung> alone{{r.step_m, r.p_from}};
      const std::vector<LadderRung>& ladder = r.ladder.empty() ? alone : r.ladder;
      std::size_t rung = 0;
      while (rung + 1 < ladder.size() &&
             !(ladder[rung].step_m == r.step_m && ladder[rung].p_from == r.p_from)) {
        ++rung;
      }
      const auto same = [&](const Planned& p) {
        return p.material == r.material && p.ladder.size() == ladder.size() &&
               std::equal(ladder.begin(), ladder.end(), p.ladder.begin(),
                          [](const LadderRung& a, const LadderRung& b) {
                            return a.step_m == b.step_m && a.p_from == b.p_from;
                          });
      };
      std::size_t at = std::find_if(plans.begin(), plans.end(), same) - plans.begin();
      if (at == plans.size())
        plans.push_back({r.material, ladder, plan_ladder(*r.material, ladder)});
      const LadderPlan& plan = plans[at].plan;
      if (!plan.active(rung)) continue;  // no bins below the request's top
      const std::string& k = plan.keys[rung];
      if (loaded_.count(k)) continue;
      if (std::none_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.key == k; })) {
        jobs.push_back({&r, k, plan.paths[rung], at, rung});
      }
    }
  }
  // A file's own load is parallel too; a few files at once hide its serial
  // parts (opening, attributes, allocation).
  const int files = std::min<int>(4, static_cast<int>(jobs.size()));
  const int threads = std::max(1, resolve_thread_count(0) / std::max(files, 1));
  std::vector<std::shared_ptr<const TableParams>> found(jobs.size());
  std::vector<TableExtent> extents(jobs.size());
  std::vector<char> from_shipped(jobs.size(), 0);
  parallel_for_chunks(jobs.size(), files, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const Job& job = jobs[i];
      const LadderPlan& plan = plans[job.plan].plan;
      try {
        found[i] = load_if_current(job.path, *job.request->material, job.request->step_m, job.key,
                                   threads, plan.bins - plan.first[job.rung], &extents[i]);
        if (!found[i]) {
          found[i] = load_shipped(*job.request->material, plan, job.rung, threads, extents[i]);
          from_shipped[i] = found[i] != nullptr;
        }
      } catch (const Error&) {
        // get() loads it again and reports the problem in the run's order
      }
    }
  });
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (from_shipped[i]) shipped_keys_.insert(jobs[i].key);
    if (found[i] && loaded_.emplace(jobs[i].key, std::move(found[i])).second) {
      file_top_[jobs[i].key] = extents[i].p_max;
    }
  }
}

std::shared_ptr<const TableParams> TableCache::get(const Material& material, double step_m,
                                                   double p_from, bool progress) {
  auto t = get_ladder(material, {{step_m, p_from}}, progress).front();
  if (!t) {
    throw Error(
        fmt::format("table cache: the step of {} m from {:g} GeV/c has no momentum bin "
                    "below the tables' top {:g} GeV/c",
                    step_m, p_from, table_top_momentum(options_)));
  }
  return t;
}

bool TableCache::holds(const Material& material, const std::vector<LadderRung>& ladder) {
  std::lock_guard<std::mutex> lock(mutex_);
  const LadderPlan plan = plan_ladder(material, ladder);
  return load_held(material, plan, false) >= plan.bins;  // loads only what is not held
}

void TableCache::report_shipped(const Material& material, const LadderPlan& plan, bool print) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < plan.keys.size(); ++k) {
    if (plan.active(k) && shipped_keys_.count(plan.keys[k])) ++n;
  }
  if (n == 0 || !shipped_reported_.insert(material.name).second) return;
  builds_.shipped += n;
  if (print) {
    std::fprintf(stderr, "fastmu: table cache: %s tables shipped with fastmu, to %s (%s)\n",
                 material.name.c_str(), momentum_text(options_.p_max).c_str(),
                 shipped_dir_.c_str());
  }
}

std::vector<std::shared_ptr<const TableParams>> TableCache::get_ladder(
    const Material& material, const std::vector<LadderRung>& ladder, bool progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  const LadderPlan plan = plan_ladder(material, ladder);
  const bool leader = share_.rank == 0;
  if (held_end(plan) < plan.bins) {
    int held = load_held(material, plan, true);
    if (held < plan.bins) {
      // Another process may be building the same: wait for it, then look again.
      std::unique_ptr<io::FileLock> entry;
      const auto collective = [&](const std::function<void()>& work) {
        share_.size > 1 ? share_.collective(work) : work();
      };
      collective([&] {
        if (!leader) return;
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec) {
          throw Error("table cache: cannot create folder '" + dir_.string() + "': " + ec.message());
        }
        entry = std::make_unique<io::FileLock>(plan.lock);
      });
      held = load_held(material, plan, false);
      if (held < plan.bins) extend_ladder(material, plan, held, progress);
    }
  }
  // Served with the request's bins only: the tables (and the momenta the
  // transport refuses) of a build to the request's own top.
  std::vector<std::shared_ptr<const TableParams>> tables(ladder.size());
  double cached_top = 0;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    if (!plan.active(k)) continue;
    const auto& full = loaded_.at(plan.keys[k]);
    const int n = plan.bins - plan.first[k];
    const auto file = file_top_.find(plan.keys[k]);
    cached_top =
        std::max(cached_top, file == file_top_.end() ? full->data().p_edges.back() : file->second);
    auto& served = served_[plan.keys[k] + fmt::format(" bins {}", n)];
    tables[k] = served.lock();
    if (!tables[k]) {
      tables[k] = first_table_bins(full, n);
      served = tables[k];
    }
  }
  report_shipped(material, plan, progress && leader);
  const std::string reported = material.name + " " + plan.keys.front();
  // Shipped tables have had their line (report_shipped).
  if (progress && leader && cached_top > plan.edges.back() * (1 + 1e-9) &&
      reported_[reported] != plan.bins && !shipped_keys_.count(plan.keys.front())) {
    reported_[reported] = plan.bins;
    std::fprintf(stderr, "fastmu: table cache: %s ladder to %s covered by cached ladder to %s\n",
                 material.name.c_str(), momentum_text(plan.edges.back()).c_str(),
                 momentum_text(cached_top).c_str());
  }
  return tables;
}

void TableCache::extend_ladder(const Material& material, const LadderPlan& plan, int from,
                               bool progress) {
  const bool spread = share_.size > 1;
  const bool leader = share_.rank == 0;
  const auto collective = [&](const std::function<void()>& work) {
    spread ? share_.collective(work) : work();
  };
  std::vector<LadderRung> active;
  std::vector<std::size_t> index;  // of each active rung in the plan
  for (std::size_t k = 0; k < plan.keys.size(); ++k) {
    if (!plan.active(k)) continue;
    // A long rung from its first edge: the first bin the caller's p_from gives.
    active.push_back({plan.steps[k], plan.first[k] > 0 ? plan.edges[plan.first[k]] : 0.0});
    index.push_back(k);
  }
  if (progress && leader) {
    if (from > 0) {
      std::fprintf(stderr, "fastmu: table cache: %s ladder extending from %s to %s (%d bins)\n",
                   material.name.c_str(), momentum_text(plan.edges[from]).c_str(),
                   momentum_text(plan.edges.back()).c_str(), plan.bins - from);
    } else {
      std::string steps;
      for (const LadderRung& r : active)
        steps += fmt::format("{}{:g}", steps.empty() ? "" : ", ", r.step_m);
      std::fprintf(stderr, "fastmu: building tables for %s, steps %s m -> %s\n",
                   material.name.c_str(), steps.c_str(), dir_.c_str());
    }
  }
  TableBuildOptions o = options_;
  o.from_bin = from;
  BinShareReport report;
  trace("tables: ladder build starts");
  std::vector<TableParams> built =
      build_ladder_tables(material, active, o, progress && leader, share_, &report);
  trace("tables: ladder built");
  ++builds_.ladders;
  builds_.bins += static_cast<std::size_t>(plan.bins - from);
  collective([&] {
    for (std::size_t i = 0; i < active.size(); ++i) {
      const std::size_t k = index[i];
      const auto held = loaded_.find(plan.keys[k]);
      const int have = held == loaded_.end() ? 0 : held->second->n_pbins();
      if (plan.first[k] + have >= plan.bins) continue;  // this rung's file covers already
      TableMetadata meta = built[i].metadata();
      meta.cache_key = plan.keys[k];
      TableData data;
      if (from > plan.first[k]) {
        // The bins below `from`, histograms too, from the file that holds them.
        TableLoadOptions load;
        load.threads = o.threads;
        load.is_input = false;
        const TableParams old = load_table(plan.paths[k], plan.steps[k], load);
        if (old.metadata().cache_key != plan.keys[k]) {
          throw Error(plan.paths[k].string() + ": replaced by other settings while extending it");
        }
        data = join_table_bins(table_bins(old.data(), 0, from - plan.first[k]), built[i].data());
      } else {
        data = built[i].data();
      }
      auto table = std::make_shared<const TableParams>(std::move(meta), std::move(data),
                                                       plan.paths[k].string(), o.threads);
      if (leader) write_table_file(plan.paths[k], *table, TableWriteOptions{.alias = false});
      file_top_[plan.keys[k]] = table->data().p_edges.back();
      loaded_[plan.keys[k]] = std::move(table);
    }
  });
  trace("tables: ladder written");
  if (progress && leader && spread) {
    std::string each;
    for (auto n : report.samples_by_rank) each += (each.empty() ? "" : ", ") + std::to_string(n);
    std::fprintf(stderr,
                 "fastmu: table cache: momentum bins shared by %d processes (samples: %s)\n",
                 share_.size, each.c_str());
  }
}

}  // namespace fastmu
