// The table cache: tables found in a folder by everything that made them
// (key()), built with the detailed engine (and a progress bar) when missing.
//
// A cached ladder covers a request when everything that made it agrees and
// its momentum range contains the request's: the key leaves out the top
// momentum (TableBuildOptions::p_top), a file holds its bins up to some top,
// and a run asking for less is served the bins it asked for (so that its
// tables, and the momenta it refuses, are those of a build to its own top).
// A run asking for more builds only the missing bins (each bin is sampled
// from its own random stream, so they equal those of a whole build) and
// replaces the files, under a lock on the material in the cache folder, so
// that a second process waits and then finds them covered.
//
// Tables shipped with fastmu (data/tables: built on a GPU by
// tools/build-shipped-tables.sh, installed beside the scripts and in the pip
// package) are a second, read-only folder: where the cache folder lacks a
// table, a shipped one serves if it carries the key the cache would give a
// build of its own (on a GPU or a CPU) and holds the whole momentum grid. The samples
// are the same physics on either backend (only their random streams
// differ), so a CPU-only machine starts with the GPU's tables instead of
// building for an hour.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fastmu/tables/LadderBuilder.hh"
#include "fastmu/tables/TableBuilder.hh"
#include "fastmu/tables/TableFile.hh"

namespace fastmu {

struct Material;

class TableCache {
 public:
  // The cache folder: $FASTMU_CACHE, else $XDG_CACHE_HOME/fastmu, else ~/.cache/fastmu.
  static std::filesystem::path default_dir();
  // The shipped tables: $FASTMU_SHIPPED_TABLES if set (empty or "none": no
  // shipped tables), else data/tables beside the program or the Python
  // module (share/fastmu/data/tables of an install, fastmu/data/tables of
  // the pip package), else the source tree's; empty when none exists.
  static std::filesystem::path default_shipped_dir();
  // The most samples per momentum bin for tables the cache builds (they
  // stop earlier where the loss precision is met): $FASTMU_CACHE_SAMPLES if
  // set (tests use a few thousand), else 1e6.
  static std::size_t default_samples_per_bin();
  // Where the cache runs the engine: $FASTMU_TABLE_BACKEND (cpu, cuda or
  // auto) if set, else auto (the GPU when there is one).
  static std::string default_backend();
  // The cache key: one canonical line of everything that made a table — the
  // material's definition at full precision (name, density, I, density-effect
  // parameters, state, composition), step, momentum binning and its parameters,
  // histogram bins, charge, seed, tail fraction, the generator (engine
  // version, physics options, backend, the ladder's steps, the sampling
  // goal), the table's own step and first momentum, and the file format
  // version; not the top momentum. `ladder` is the material's whole ladder
  // over the grid (its long steps up to the grid's p_max), whatever the
  // top. A new option that changes tables must be added here.
  static std::string key(const Material& material, const TableBuildOptions& options,
                         const std::vector<LadderRung>& ladder, std::size_t rung);
  // The same for a build on `backend` (cpu or cuda), whatever this machine has.
  static std::string key_on(const std::string& backend, const Material& material,
                            const TableBuildOptions& options, const std::vector<LadderRung>& ladder,
                            std::size_t rung);
  // The key of a table built alone (a ladder of options.step_m only).
  static std::string key(const Material& material, const TableBuildOptions& options);
  // "<material>_step<mm>mm_<first 16 hex digits of SHA-256(key)>_v<format>.h5",
  // e.g. "G4_Fe_step20mm_3f2a...e1_v1.h5".
  static std::string file_name(const std::string& material, double step_m, const std::string& key);

  explicit TableCache(std::filesystem::path dir = default_dir(),
                      std::filesystem::path shipped_dir = default_shipped_dir());

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& shipped_dir() const { return shipped_dir_; }
  // The file the table of `material` for `step_m` built alone (with
  // build_options()) has.
  std::filesystem::path path_for(const Material& material, double step_m) const;

  // The table of `material` for `step_m`: from memory, else from the cache
  // folder (validated: its stored key must equal key(), else the entry is
  // stale or foreign and is rebuilt with a one-line note), else built with the engine using
  // `options` (their step_m is replaced by `step_m`; samples_per_bin is
  // default_samples_per_bin() unless set otherwise), written to the cache
  // folder, and returned. Thread-safe.
  std::shared_ptr<const TableParams> get(const Material& material, double step_m,
                                         bool progress = true);
  // The same for momenta from `p_from` only (the long steps of fast muons,
  // StepLengths.hh): the bins of the whole range from the first edge at
  // or above p_from (LadderRung).
  std::shared_ptr<const TableParams> get(const Material& material, double step_m, double p_from,
                                         bool progress);
  // A material's ladder (its step, the shorter and the long steps; the long
  // steps up to the grid's p_max, see key()), in the order of `ladder`,
  // with the bins up to the top build_options().p_top asks for: a table for
  // each rung that has bins below that top, nullptr for the others (long
  // steps of faster muons). From the folder where its files cover the
  // request; else the missing bins of every rung are built together from
  // one set of histories (LadderBuilder.hh) and the files replaced.
  std::vector<std::shared_ptr<const TableParams>> get_ladder(const Material& material,
                                                             const std::vector<LadderRung>& ladder,
                                                             bool progress = true);

  // Whether the cache folder or the shipped tables hold every table of the
  // ladder up to the request's top (loading them, as get_ladder would);
  // builds nothing.
  bool holds(const Material& material, const std::vector<LadderRung>& ladder);

  // What this cache built: ladders built or extended, and momentum bins
  // sampled (one per bin, whatever the number of rungs).
  struct Builds {
    std::size_t ladders = 0;
    std::size_t bins = 0;
    std::size_t shipped = 0;  // tables served from the shipped folder
  };
  const Builds& builds() const { return builds_; }

  // Loads, several files at once, those of `requests` already in the cache
  // folder and current (the set-up of a run waits on them); get() then
  // returns them from memory. A missing, stale or unreadable one is left to
  // get() (which builds it, or reports the problem). Not done when builds
  // are shared between processes (get() keeps them in step there).
  struct TableRequest {
    const Material* material = nullptr;
    double step_m = 0;
    double p_from = 0;
    std::vector<LadderRung> ladder;  // the ladder it belongs to (empty: built alone)
  };
  void preload(const std::vector<TableRequest>& requests);

  // Shares the builds of missing tables between processes (the MPI ranks of
  // `mpirun fastmu run`; see BinShare). Every process must then call get()
  // with the same arguments in the same order: they agree on what is missing
  // (a table any of them lacks is rebuilt), build it together, process 0
  // alone writes the file (atomically, after the build) and every process
  // keeps the same table.
  void share_builds(BinShare share);

  // Options the cache builds with (defaults: kCacheMomentumBins log bins in [0.18, 1e5] GeV/c,
  // 100 x 100 histogram bins, default_samples_per_bin()).
  TableBuildOptions& build_options() { return options_; }
  const TableBuildOptions& build_options() const { return options_; }

 private:
  // build_options() for `step_m`, with the backend resolved.
  TableBuildOptions options_for(double step_m) const;
  struct LadderPlan;
  // The keys, files and bins of `ladder` for the request's top.
  LadderPlan plan_ladder(const Material& material, const std::vector<LadderRung>& ladder) const;
  // Loads the files of `plan` that hold more than memory does (collective
  // where builds are shared); returns the bin up to which every rung is held.
  // `note`: a line for a file made with other settings.
  int load_held(const Material& material, const LadderPlan& plan, bool note);
  // The bin up to which every rung of `plan` is held in memory.
  int held_end(const LadderPlan& plan) const;
  // Builds the bins from `from` to the request's top of every rung of
  // `plan`, joins them to the bins held below, writes the files.
  void extend_ladder(const Material& material, const LadderPlan& plan, int from, bool progress);
  // The first `bins` bins of the table of `path` (all of them: 0) if it
  // exists and carries key `k` (loaded without its histograms), nullptr if
  // it is missing or stale; throws on a bad file. `extent`: the file's own.
  std::shared_ptr<const TableParams> load_if_current(const std::filesystem::path& path,
                                                     const Material& material, double step_m,
                                                     const std::string& k, int threads, int bins,
                                                     TableExtent* extent) const;
  // Rung k's table (its bins below the request's top) from the shipped folder
  // if one there is current and holds the whole grid, else nullptr (a bad
  // shipped file is skipped, not fatal: the cache builds instead).
  std::shared_ptr<const TableParams> load_shipped(const Material& material, const LadderPlan& plan,
                                                  std::size_t k, int threads,
                                                  TableExtent& extent) const;

  // Names the shipped tables serving `plan` (once per material) and counts them.
  void report_shipped(const Material& material, const LadderPlan& plan, bool print);

  std::filesystem::path dir_;
  std::filesystem::path shipped_dir_;
  std::set<std::string> shipped_keys_;      // keys served from the shipped folder
  std::set<std::string> shipped_reported_;  // materials whose shipped tables were named
  TableBuildOptions options_;
  BinShare share_;
  std::mutex mutex_;
  // By key(): the bins held, those of its file that a request needed so far
  // (a run's top may lie below the file's: the bins above are not loaded).
  std::map<std::string, std::shared_ptr<const TableParams>> loaded_;
  std::map<std::string, double> file_top_;  // by key(): the top momentum of its file
  // By key() and bin count, while a caller holds them.
  std::map<std::string, std::weak_ptr<const TableParams>> served_;
  std::map<std::string, int> reported_;  // the top bin a "covered" line was written for
  Builds builds_;
};

}  // namespace fastmu
