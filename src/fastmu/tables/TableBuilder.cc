#include "fastmu/tables/TableBuilder.hh"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/core/InputLimits.hh"
#include "fastmu/core/Parallel.hh"
#include "fastmu/core/Progress.hh"
#include "fastmu/tables/AliasTable.hh"
#include "fastmu/tables/BinBytes.hh"
#include "fastmu/tables/MomentumBinning.hh"

namespace fastmu {

std::string utc_now_iso() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (*end != '\0' || v < 0) {
      throw Error(std::string("environment variable SOURCE_DATE_EPOCH='") + e +
                  "' is not a number of seconds since 1970");
    }
    t = static_cast<std::time_t>(v);
  }
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

std::vector<double> ladder_momentum_edges(const TableBuildOptions& o) {
  std::vector<double> edges = o.binning == MomentumBinning::uniform
                                  ? uniform_momentum_edges(o.p_min, o.p_max, o.p_bins)
                                  : log_momentum_edges(o.p_min, o.p_max, o.p_bins);
  if (o.p_top > 0) {
    std::size_t end = 2;  // at least one bin
    while (end < edges.size() && edges[end - 1] < o.p_top) ++end;
    edges.resize(end);
  }
  return edges;
}

double table_top_momentum(const TableBuildOptions& o) {
  if (o.binning == MomentumBinning::adaptive || !(o.p_top > 0)) return o.p_max;
  return ladder_momentum_edges(o).back();
}

TableParams build_table(TableMetadata meta, const TableBuildOptions& o, SampleSource& source,
                        bool show_progress) {
  return build_table(std::move(meta), o, source, show_progress, BinShare{});
}

TableParams build_table(TableMetadata meta, const TableBuildOptions& o, SampleSource& source,
                        bool show_progress, const BinShare& share, BinShareReport* report) {
  if (!(o.step_m > 0 && o.step_m <= limits::kMaxStep)) {
    throw Error("--step: " + std::to_string(o.step_m) + " m is not in (0, 1000] m");
  }
  if (o.hist_bins < 1 || o.hist_bins > 4096) throw Error("--hist-bins must be in [1, 4096]");
  if (o.samples_per_bin < 1) throw Error("--samples-per-bin must be at least 1");
  if (o.charge != -1 && o.charge != 1) throw Error("--charge must be -1 or 1");
  const bool spread = share.size > 1;
  if (spread && (share.rank < 0 || share.rank >= share.size || !share.collective || !share.gather ||
                 !share.broadcast)) {
    throw Error("table build: invalid share of the momentum bins");
  }
  const auto collective = [&](const std::function<void()>& work) {
    if (spread) {
      share.collective(work);
    } else {
      work();
    }
  };

  TableData d;
  d.nx = d.ny = o.hist_bins;
  const std::size_t cpb = d.cells_per_bin();
  // This process's bins, serialised after its rank and sample count (spread builds).
  std::vector<unsigned char> mine;
  std::unique_ptr<ProgressBar> bar;
  collective([&] {
    // Every process runs the pilot of adaptive binning (under 1 % of a build,
    // and the same edges everywhere: its samples are keyed like the bins').
    if (o.binning == MomentumBinning::adaptive) {
      ProgressBar pilot("pilot   " + meta.material,
                        static_cast<std::size_t>(o.pilot_probes) * o.pilot_muons,
                        show_progress && progress_wanted());
      d.p_edges = make_momentum_edges(o, source, &pilot);
    } else {
      d.p_edges = make_momentum_edges(o, source, nullptr);
    }
    const int n = static_cast<int>(d.p_edges.size()) - 1;
    std::vector<int> bins;
    for (int b = spread ? share.rank : 0; b < n; b += spread ? share.size : 1) bins.push_back(b);
    std::size_t total = source.prepare(d.p_edges, o.samples_per_bin);
    // Spread, the bar counts every process's samples (share.progress); where
    // nothing is shared, this process's own share (the shares are near
    // equal, so its rate x size and ETA are the build's).
    auto bar_share = spread && share.progress ? share.progress() : nullptr;
    const bool own_share = spread && !bar_share;
    if (own_share) total = n ? total / n * bins.size() : 0;
    bar = std::make_unique<ProgressBar>(
        own_share ? fmt::format("tables  {} (rank {} of {})", meta.material, share.rank, share.size)
                  : "tables  " + meta.material,
        total, show_progress && progress_wanted(), std::move(bar_share));
    ProgressBar* progress = bar.get();
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
        throw Error("momentum bin " + std::to_string(b) + " [" + std::to_string(d.p_edges[b]) +
                    ", " + std::to_string(d.p_edges[b + 1]) + ") GeV/c has no samples");
      }
      const BinHistogram h = hist.finish();
      d.axes[b] = h.axes;
      d.p_centres[b] = std::min(std::max(h.centre, d.p_edges[b]), d.p_edges[b + 1]);
      d.samples_per_bin[b] = h.samples;
      d.mean_loss[b] = h.mean_loss;
      d.std_loss[b] = h.std_loss;
      d.mean_kick[b] = h.mean_kick;
      std::copy(h.counts.begin(), h.counts.end(), d.counts.begin() + b * cpb);
      build_alias_table(std::span<const std::uint32_t>(h.counts),
                        std::span<AliasCell>(d.cells.data() + b * cpb, cpb));
    };
    if (source.parallel_bins()) {
      parallel_for_chunks(bins.size(), o.threads, 1, [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) do_bin(bins[i]);
      });
    } else {
      for (int b : bins) do_bin(b);
    }
    if (!spread) bar->finish();
    if (spread) {
      const std::int32_t header[2] = {share.rank, static_cast<std::int32_t>(bins.size())};
      put_bytes(mine, header, 2);
      std::uint64_t samples = 0;
      for (int b : bins) samples += d.samples_per_bin[static_cast<std::size_t>(b)];
      put_bytes(mine, &samples);
      for (int b : bins) append_bin(mine, d, b);
    }
  });
  std::string created = utc_now_iso();
  if (spread) {
    share.gather(mine);
    share.broadcast(mine);
    std::vector<unsigned char> stamp(created.begin(), created.end());
    share.broadcast(stamp);
    created.assign(stamp.begin(), stamp.end());
    // Every process decodes the same bytes: every bin once (its own bins
    // come back unchanged), every process's share.
    std::vector<char> seen(d.p_centres.size(), 0);
    std::vector<std::uint64_t> by_rank(static_cast<std::size_t>(share.size), 0);
    for (std::size_t at = 0; at < mine.size();) {
      std::int32_t header[2] = {-1, -1};
      std::uint64_t samples = 0;
      get_bytes(mine, at, header, 2);
      get_bytes(mine, at, &samples);
      if (header[0] < 0 || header[0] >= share.size || header[1] < 0) {
        throw Error("table build: bad share header from another rank");
      }
      by_rank[static_cast<std::size_t>(header[0])] = samples;
      for (std::int32_t k = 0; k < header[1]; ++k) {
        seen[static_cast<std::size_t>(read_bin(mine, at, d))] = 1;
      }
    }
    for (char s : seen) {
      if (!s) throw Error("table build: a momentum bin is missing from the gathered shares");
    }
    std::uint64_t all = 0;
    for (auto k : by_rank) all += k;
    bar->finish(all);
    if (report) report->samples_by_rank = std::move(by_rank);
  } else if (report) {
    report->samples_by_rank.assign(1, 0);
    for (auto s : d.samples_per_bin) report->samples_by_rank[0] += s;
  }

  meta.step_m = o.step_m;
  meta.binning = o.binning;
  meta.charge = o.charge;
  meta.seed = o.seed;
  meta.epsilon = o.binning == MomentumBinning::adaptive ? o.epsilon : 0.0;
  meta.tail_fraction = o.tail_fraction;
  meta.created_utc = created;
  meta.format_version = kTableFormatVersion;
  return TableParams(std::move(meta), std::move(d));
}

}  // namespace fastmu
