#include "fastmu/tables/TableBuilder.hh"

#include <chrono>
#include <cmath>
#include <ctime>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/MomentumBinning.hh"

namespace fastmu {

std::string utc_now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<double> make_momentum_edges(const TableBuildOptions& o, SampleSource& source,
                                        ProgressBar* progress) {
  switch (o.binning) {
    case MomentumBinning::log:
      return log_momentum_edges(o.p_min, o.p_max, o.p_bins);
    case MomentumBinning::uniform:
      return uniform_momentum_edges(o.p_min, o.p_max, o.p_bins);
    case MomentumBinning::adaptive: {
      if (o.pilot_probes < 2) throw Error("adaptive binning: need at least 2 probe momenta");
      if (o.pilot_muons < 1) throw Error("adaptive binning: --pilot-muons must be at least 1");
      const auto probes = adaptive_probe_grid(o.p_min, o.p_max, o.pilot_probes);
      const auto phi = source.pilot_phi(probes, o.pilot_muons, progress);
      return adaptive_momentum_edges(probes, phi, o.epsilon);
    }
  }
  throw Error("unknown momentum binning");
}

TableParams build_table(TableMetadata meta, const TableBuildOptions& o, SampleSource& source,
                        bool show_progress) {
  if (!(o.step_m > 0) || !std::isfinite(o.step_m)) {
    throw Error("--step must be a positive length in metres");
  }
  if (o.hist_bins < 1 || o.hist_bins > 4096) throw Error("--hist-bins must be in [1, 4096]");
  if (o.samples_per_bin < 1) throw Error("--samples-per-bin must be at least 1");
  if (o.charge != -1 && o.charge != 1) throw Error("--charge must be -1 or 1");

  TableData d;
  d.nx = d.ny = o.hist_bins;
  if (o.binning == MomentumBinning::adaptive) {
    ProgressBar pilot("pilot   " + meta.material,
                      static_cast<std::size_t>(o.pilot_probes) * o.pilot_muons,
                      show_progress && isatty(2));
    d.p_edges = make_momentum_edges(o, source, &pilot);
  } else {
    d.p_edges = make_momentum_edges(o, source, nullptr);
  }
  const int n = static_cast<int>(d.p_edges.size()) - 1;
  const std::size_t total = source.prepare(d.p_edges, o.samples_per_bin);
  ProgressBar bar("tables  " + meta.material, total, show_progress && isatty(2));
  ProgressBar* progress = &bar;
  const std::size_t cpb = d.cells_per_bin();
  d.p_centres.resize(n);
  d.axes.resize(n);
  d.counts.resize(n * cpb);
  d.cells.resize(n * cpb);
  d.samples_per_bin.resize(n);
  d.mean_loss.resize(n);
  d.std_loss.resize(n);
  d.mean_kick.resize(n);

  // One momentum bin at a time (or a few, one per thread, for sources that
  // are not parallel themselves): memory stays at one bin's samples each.
  auto do_bin = [&](int b) {
    BinHistogrammer hist(d.nx, d.ny, o.tail_fraction);
    source.fill_bin(b, d.p_edges[b], d.p_edges[b + 1], o.samples_per_bin, hist, progress);
    if (hist.size() == 0) {
      throw Error("momentum bin " + std::to_string(b) + " [" + std::to_string(d.p_edges[b]) + ", " +
                  std::to_string(d.p_edges[b + 1]) + ") GeV/c has no samples");
    }
    const BinHistogram h = hist.finish();
    d.axes[b] = h.axes;
    d.p_centres[b] = std::min(std::max(h.centre, d.p_edges[b]), d.p_edges[b + 1]);
    d.samples_per_bin[b] = h.samples;
    d.mean_loss[b] = h.mean_loss;
    d.std_loss[b] = h.std_loss;
    d.mean_kick[b] = h.mean_kick;
    std::copy(h.counts.begin(), h.counts.end(), d.counts.begin() + b * cpb);
    std::vector<double> w(h.counts.begin(), h.counts.end());
    build_alias_table(w, std::span<AliasCell>(d.cells.data() + b * cpb, cpb));
  };
  if (source.parallel_bins()) {
    parallel_for_chunks(n, o.threads, 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t b = lo; b < hi; ++b) do_bin(static_cast<int>(b));
    });
  } else {
    for (int b = 0; b < n; ++b) do_bin(b);
  }
  bar.finish();

  meta.step_m = o.step_m;
  meta.binning = o.binning;
  meta.charge = o.charge;
  meta.seed = o.seed;
  meta.epsilon = o.binning == MomentumBinning::adaptive ? o.epsilon : 0.0;
  meta.tail_fraction = o.tail_fraction;
  meta.created_utc = utc_now_iso();
  meta.format_version = kTableFormatVersion;
  return TableParams(std::move(meta), std::move(d));
}

}  // namespace fastmu
