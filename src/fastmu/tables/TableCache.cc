#include "fastmu/tables/TableCache.hh"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/io/TempFiles.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/LadderSampler.hh"
#include "fastmu/tables/EngineSampleSource.hh"
#include "fastmu/tables/MomentumBinning.hh"
#include "fastmu/tables/Sha256.hh"
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
    k += fmt::format(" p {:.17g}..{:.17g} bins {} top {:.17g}", o.p_min, o.p_max, o.p_bins,
                     table_top_momentum(o));
  }
  TableBuildOptions resolved = o;
  resolved.backend = to_string(resolve_engine_backend(o.backend, "table backend"));
  k += fmt::format(" hist {} charge {} seed {} tail {:.17g}; {}; format {}", o.hist_bins, o.charge,
                   o.seed, o.tail_fraction, ladder_generator(ladder, resolved, PhysicsOptions{}),
                   kTableFormatVersion);
  return k;
}

std::string TableCache::key(const Material& m, const TableBuildOptions& o) {
  return key(m, o, {{o.step_m, 0.0}}, 0);
}

std::string TableCache::file_name(const std::string& material, double step_m,
                                  const std::string& key) {
  // Only characters that are safe in file names on every system.
  std::string safe = material;
  for (char& c : safe) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  }
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

TableCache::TableCache(std::filesystem::path dir) : dir_(std::move(dir)) {
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

namespace {

// Whether `mine` holds on every process of `share` (collective).
bool on_every_process(const BinShare& share, bool mine) {
  std::vector<unsigned char> v{static_cast<unsigned char>(mine)};
  share.gather(v);
  if (share.rank == 0) {
    const bool all = std::all_of(v.begin(), v.end(), [](unsigned char b) { return b != 0; });
    v.assign(1, all ? 1 : 0);
  }
  share.broadcast(v);
  return !v.empty() && v[0] != 0;
}

}  // namespace

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
                                                               int threads) const {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  TableLoadOptions load;
  load.histogram = false;  // the transport samples the alias tables only
  load.threads = threads;
  auto table = std::make_shared<const TableParams>(load_table(path, step_m, load));
  if (table->metadata().material != material.name) {
    throw Error(path.string() + ": attribute material is '" + table->metadata().material +
                "', expected '" + material.name + "'");
  }
  // Same file name, other making (a copied-in file, a hash collision): never used.
  return table->metadata().cache_key == k ? table : nullptr;
}

void TableCache::preload(const std::vector<TableRequest>& requests) {
  if (share_.size > 1) return;  // ranks load in get(), in step with each other
  struct Job {
    const TableRequest* request;
    std::string key;
    std::filesystem::path path;
  };
  std::vector<Job> jobs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const TableRequest& r : requests) {
      options_for(r.step_m);  // checks the step
      const std::vector<LadderRung> alone{{r.step_m, r.p_from}};
      const std::vector<LadderRung>& ladder = r.ladder.empty() ? alone : r.ladder;
      std::size_t rung = 0;
      while (rung + 1 < ladder.size() &&
             !(ladder[rung].step_m == r.step_m && ladder[rung].p_from == r.p_from)) {
        ++rung;
      }
      const std::string k = key(*r.material, options_, ladder, rung);
      if (loaded_.count(k)) continue;
      const auto path = dir_ / file_name(r.material->name, r.step_m, k);
      if (std::none_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.key == k; })) {
        jobs.push_back({&r, k, path});
      }
    }
  }
  // A file's own load is parallel too; a few files at once hide its serial
  // parts (opening, attributes, allocation).
  const int files = std::min<int>(4, static_cast<int>(jobs.size()));
  const int threads = std::max(1, resolve_thread_count(0) / std::max(files, 1));
  std::vector<std::shared_ptr<const TableParams>> found(jobs.size());
  parallel_for_chunks(jobs.size(), files, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      try {
        found[i] = load_if_current(jobs[i].path, *jobs[i].request->material,
                                   jobs[i].request->step_m, jobs[i].key, threads);
      } catch (const Error&) {
        // get() loads it again and reports the problem in the run's order
      }
    }
  });
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (found[i]) loaded_.emplace(jobs[i].key, std::move(found[i]));
  }
}

std::shared_ptr<const TableParams> TableCache::get(const Material& material, double step_m,
                                                   double p_from, bool progress) {
  return get_ladder(material, {{step_m, p_from}}, progress).front();
}

std::vector<std::shared_ptr<const TableParams>> TableCache::get_ladder(
    const Material& material, const std::vector<LadderRung>& ladder, bool progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  const TableBuildOptions o = options_;
  std::vector<std::string> keys;
  std::vector<std::filesystem::path> paths;
  std::vector<std::shared_ptr<const TableParams>> tables(ladder.size());
  bool all_loaded = true;
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    options_for(ladder[k].step_m);  // checks the step
    keys.push_back(key(material, o, ladder, k));
    paths.push_back(dir_ / file_name(material.name, ladder[k].step_m, keys.back()));
    if (auto it = loaded_.find(keys.back()); it != loaded_.end()) tables[k] = it->second;
    all_loaded = all_loaded && tables[k];
  }
  if (all_loaded) return tables;

  const bool spread = share_.size > 1;
  const bool leader = share_.rank == 0;
  const auto collective = [&](const std::function<void()>& work) {
    spread ? share_.collective(work) : work();
  };
  bool current = true;
  collective([&] {
    for (std::size_t k = 0; k < ladder.size(); ++k) {
      std::error_code ec;
      if (!tables[k] && std::filesystem::exists(paths[k], ec)) {
        tables[k] = load_if_current(paths[k], material, ladder[k].step_m, keys[k], 0);
        if (!tables[k] && leader) {
          std::fprintf(stderr,
                       "fastmu: table cache: %s was made with other settings or another "
                       "material definition; rebuilding it\n",
                       paths[k].c_str());
        }
      }
      current = current && tables[k];
    }
  });
  if (spread) current = on_every_process(share_, current);
  if (!current) build_ladder(material, ladder, keys, paths, progress, tables);
  for (std::size_t k = 0; k < ladder.size(); ++k) loaded_.emplace(keys[k], tables[k]);
  return tables;
}

void TableCache::build_ladder(const Material& material, const std::vector<LadderRung>& ladder,
                              const std::vector<std::string>& keys,
                              const std::vector<std::filesystem::path>& paths, bool progress,
                              std::vector<std::shared_ptr<const TableParams>>& tables) {
  const bool spread = share_.size > 1;
  const bool leader = share_.rank == 0;
  const auto collective = [&](const std::function<void()>& work) {
    spread ? share_.collective(work) : work();
  };
  // Process 0 alone writes: it makes the folder before the build, so that
  // a folder it cannot make fails before the work.
  collective([&] {
    if (!leader) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      throw Error("table cache: cannot create folder '" + dir_.string() + "': " + ec.message());
    }
  });
  if (progress && leader) {
    std::string steps;
    for (const LadderRung& r : ladder)
      steps += fmt::format("{}{:g}", steps.empty() ? "" : ", ", r.step_m);
    std::fprintf(stderr, "fastmu: building tables for %s, steps %s m -> %s\n",
                 material.name.c_str(), steps.c_str(), dir_.c_str());
  }
  BinShareReport report;
  std::vector<TableParams> built =
      build_ladder_tables(material, ladder, options_, progress && leader, share_, &report);
  collective([&] {
    for (std::size_t k = 0; k < ladder.size(); ++k) {
      built[k].set_cache_key(keys[k]);
      if (leader) write_table_file(paths[k], built[k]);
    }
  });
  if (progress && leader && spread) {
    std::string each;
    for (auto n : report.samples_by_rank) each += (each.empty() ? "" : ", ") + std::to_string(n);
    std::fprintf(stderr,
                 "fastmu: table cache: momentum bins shared by %d processes (samples: %s)\n",
                 share_.size, each.c_str());
  }
  for (std::size_t k = 0; k < ladder.size(); ++k) {
    tables[k] = std::make_shared<const TableParams>(std::move(built[k]));
  }
}

}  // namespace fastmu
