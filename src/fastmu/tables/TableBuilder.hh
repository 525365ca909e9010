// Building the histogram tables (the paper's offline phase): per momentum bin,
// take muons with p uniform in the bin, histogram their (loss, kick) after one
// step, normalise, and turn each histogram into an alias table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastmu/core/InputLimits.hh"
#include "fastmu/tables/BinHistogrammer.hh"
#include "fastmu/tables/TableParams.hh"

namespace fastmu {

class ProgressBar;
class ProgressShare;

// The table cache's momentum grid, which the fast transport's tables share:
// p_kill to 100 TeV/c (where the detailed engine's tables end) in 163 log
// bins, 0.081 wide in ln p as the 95 bins of [0.18, 400] GeV/c that `fastmu
// tables build` makes by default.
inline constexpr double kCacheTopMomentum = limits::kTopMomentum;  // GeV/c
inline constexpr int kCacheMomentumBins = 163;

struct TableBuildOptions {
  double step_m = 0.02;
  double p_min = 0.18, p_max = 400;  // GeV/c (`fastmu tables build`'s defaults)
  int p_bins = 95;                   // log and uniform binning
  // Ladder builds (log and uniform binning): the tables end at the first
  // edge of the [p_min, p_max] grid at or above p_top (0: at p_max), so that
  // a run whose muons stay below p_top builds only the bins it draws from.
  double p_top = 0;
  // Ladder builds: only the bins from this index of that grid on (the table
  // cache extending a ladder it holds to a lower top; every bin is sampled
  // from its own random stream, so the bins equal those of a whole build).
  int from_bin = 0;
  MomentumBinning binning = MomentumBinning::log;
  // Engine samples per momentum bin: enough that the standard error of the
  // bin's mean fractional loss <-dPz/P> is at most loss_precision x that mean
  // (steps of a ladder shorter than its reference step: a looser goal, see
  // LadderBuilder.hh), at least min_samples and at most samples_per_bin.
  // loss_precision 0: samples_per_bin exactly. File sources take every sample.
  std::size_t samples_per_bin = 1'000'000;
  double loss_precision = 0.01;
  std::size_t min_samples = 20'000;
  std::string backend = "auto";  // the engine's: cpu, cuda or auto (the GPU if there is one)
  int hist_bins = 100;           // log bins per axis
  int charge = -1;
  std::uint64_t seed = 1;
  int threads = 0;  // <= 0: all cores
  // Adaptive binning: tolerance on Phi = <ln(-dPz/P)>, pilot muons per probe
  // momentum, and number of probe momenta (log-spaced). For G4_Fe, 2 cm,
  // the default epsilon gave 117 bins (ln-widths 0.04 at 0.2 GeV/c to
  // ~0.07 above 1 GeV/c): Phi ~ -ln p, so log binning is near-optimal.
  double epsilon = 0.08;
  std::size_t pilot_muons = 2000;
  int pilot_probes = 400;
  double tail_fraction = 1e-4;  // see BinHistogrammer
};

// Where the samples come from: the detailed engine, a sample file, or (in
// tests) a synthetic model.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // Adds the samples of momentum bin `bin` = [p_lo, p_hi) to `hist`: `n`
  // muons with p0 uniform in the bin for a generator, or every sample with p0
  // in the bin for a file (which then ignores n).
  virtual void fill_bin(int bin, double p_lo, double p_hi, std::size_t n, BinHistogrammer& hist,
                        ProgressBar* progress) = 0;
  // The pilot estimator Phi(p) = <ln(-dPz/P)> from k muons at each probe
  // momentum (zero-loss muons left out: their log is -inf).
  virtual std::vector<double> pilot_phi(const std::vector<double>& probes, std::size_t k,
                                        ProgressBar* progress) = 0;
  // Called once with the momentum edges before any fill_bin; returns the
  // total number of samples fill_bin will add (for the progress bar).
  virtual std::size_t prepare(const std::vector<double>& edges, std::size_t n) {
    return (edges.size() - 1) * n;
  }
  // Whether fill_bin may run for several bins at once (false when the source
  // is itself parallel, as the engine is).
  virtual bool parallel_bins() const { return false; }
};

// Builds the tables. `meta` supplies material, definition, density,
// generator and source_sha256; the rest of the metadata comes from `options`.
// With `progress`, progress bars on stderr (when it is a terminal).
TableParams build_table(TableMetadata meta, const TableBuildOptions& options, SampleSource& source,
                        bool progress = false);

// One build spread over processes (the MPI ranks of `fastmu tables build`
// and of the table cache under `mpirun fastmu run`; the library itself never
// calls MPI). Process `rank` of `size` builds the momentum bins b with
// b % size == rank (round robin: neighbouring bins cost about the same), then
// `gather` brings every bin's histogram, alias table and moments to process 0
// and `broadcast` on to every process. A bin is built whole by one process
// exactly as a single process builds it, and the engine keys each sample's
// random stream by (seed, bin, sample index) alone (EngineSampleSource), so
// every process's table equals the one-process table bit for bit, whatever
// `size` (the creation time is process 0's).
struct BinShare {
  int rank = 0, size = 1;
  // Runs its argument on every process; if one throws, throws on all (so that
  // no process waits in `gather` for one that failed).
  std::function<void(const std::function<void()>&)> collective;
  // Collective: concatenates every process's bytes on process 0, in rank order.
  std::function<void(std::vector<unsigned char>&)> gather;
  // Collective: replaces every process's bytes with process 0's.
  std::function<void(std::vector<unsigned char>&)> broadcast;
  // Optional, called by every process for the build's progress bar: sums the
  // processes' counts (null: each process's bar shows its own share).
  std::function<std::unique_ptr<ProgressShare>()> progress;
};

// What a spread build did: the samples each process histogrammed (as
// received from it, so a process that did nothing shows 0).
struct BinShareReport {
  std::vector<std::uint64_t> samples_by_rank;
};

// build_table on process share.rank of share.size: the same table on every
// process. With `report`, what each process contributed.
TableParams build_table(TableMetadata meta, const TableBuildOptions& options, SampleSource& source,
                        bool progress, const BinShare& share, BinShareReport* report = nullptr);

// The momentum edges for `options` (adaptive binning runs the pilot on `source`).
std::vector<double> make_momentum_edges(const TableBuildOptions& options, SampleSource& source,
                                        ProgressBar* progress = nullptr);

// The momentum edges of a ladder build: those of `options` (log or uniform),
// cut at the first edge at or above p_top.
std::vector<double> ladder_momentum_edges(const TableBuildOptions& options);
// The highest momentum such a build's tables hold.
double table_top_momentum(const TableBuildOptions& options);

// Current time as ISO 8601 UTC, e.g. "2026-11-22T03:00:00Z"; with
// SOURCE_DATE_EPOCH set (reproducible-builds.org), that time instead, so that
// two builds of the same table can be compared byte for byte.
std::string utc_now_iso();

}  // namespace fastmu
