#include "fastmu/tables/TableParams.hh"

#include <cmath>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/core/Parallel.hh"

namespace fastmu {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& field,
                       const std::string& what) {
  throw Error(source + ": " + field + ": " + what);
}

void check_size(const std::string& source, const char* field, std::size_t got, std::size_t want) {
  if (got != want) {
    fail(source, field,
         "has " + std::to_string(got) + " entries, expected " + std::to_string(want));
  }
}

}  // namespace

TableParams::TableParams(TableMetadata metadata, TableData data, const std::string& source,
                         int threads, AliasCells cells_are)
    : meta_(std::move(metadata)), data_(std::move(data)) {
  const auto& d = data_;
  const int n = d.n_pbins();
  if (n < 1) fail(source, "momentum_centres", "no momentum bins");
  if (d.nx < 1 || d.ny < 1) fail(source, "hist_bins", "must be at least 1 per axis");
  if (!(meta_.step_m > 0) || !std::isfinite(meta_.step_m))
    fail(source, "step_m", "must be positive");
  const std::size_t nb = static_cast<std::size_t>(n);
  const std::size_t cells = nb * d.cells_per_bin();
  check_size(source, "momentum_edges", d.p_edges.size(), nb + 1);
  check_size(source, "axes", d.axes.size(), nb);
  if (!d.counts.empty()) check_size(source, "histogram", d.counts.size(), cells);
  check_size(source, "alias", d.cells.size(), cells);
  check_size(source, "samples_per_bin", d.samples_per_bin.size(), nb);
  check_size(source, "mean_loss", d.mean_loss.size(), nb);
  check_size(source, "std_loss", d.std_loss.size(), nb);
  check_size(source, "mean_kick", d.mean_kick.size(), nb);
  for (std::size_t b = 0; b <= nb; ++b) {
    if (!(d.p_edges[b] > 0) || !std::isfinite(d.p_edges[b])) {
      fail(source, "momentum_edges", "entry " + std::to_string(b) + " is not a positive number");
    }
    if (b > 0 && !(d.p_edges[b] > d.p_edges[b - 1])) {
      fail(source, "momentum_edges", "not ascending at entry " + std::to_string(b));
    }
  }
  // Log and uniform tables are indexed arithmetically (find_momentum_bin), so
  // their edges must be exactly the formula's.
  if (meta_.binning != MomentumBinning::adaptive) {
    const double lo = d.p_edges.front(), hi = d.p_edges.back();
    for (std::size_t b = 0; b <= nb; ++b) {
      const double f = static_cast<double>(b) / n;
      const double want =
          meta_.binning == MomentumBinning::log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f;
      if (std::abs(d.p_edges[b] - want) > 1e-6 * want) {
        fail(source, "momentum_edges",
             "entry " + std::to_string(b) + " is not " +
                 (meta_.binning == MomentumBinning::log ? "log" : "uniform") +
                 "-spaced as the binning attribute says");
      }
    }
  }
  for (std::size_t b = 0; b < nb; ++b) {
    const std::string at = "bin " + std::to_string(b);
    if (!(d.p_centres[b] >= d.p_edges[b] && d.p_centres[b] <= d.p_edges[b + 1])) {
      fail(source, "momentum_centres", at + " centre is not inside its bin");
    }
    const HistAxes& a = d.axes[b];
    if (!std::isfinite(a.x_lo) || !std::isfinite(a.y_lo) || !(a.x_width > 0) || !(a.y_width > 0) ||
        !std::isfinite(a.x_width) || !std::isfinite(a.y_width)) {
      fail(source, "axes", at + " has a non-finite edge or a non-positive width");
    }
    if (!std::isfinite(d.mean_loss[b]) || !std::isfinite(d.std_loss[b]) ||
        !std::isfinite(d.mean_kick[b])) {
      fail(source, "mean_loss", at + " statistics are not finite");
    }
  }
  const int cpb = d.cells_per_bin();
  const std::size_t bad =
      cells_are == AliasCells::valid
          ? cells
          : first_index_where(cells, threads, [&](std::size_t i) {
              const AliasCell c = d.cells[i];
              return !(c.threshold >= 0.0f && c.threshold <= 1.0f) || c.alias < 0 || c.alias >= cpb;
            });
  if (bad < cells) {
    const AliasCell c = d.cells[bad];
    if (!(c.threshold >= 0.0f && c.threshold <= 1.0f)) {
      fail(source, "alias_threshold", "cell " + std::to_string(bad) + " is not in [0, 1]");
    }
    fail(source, "alias_index", "cell " + std::to_string(bad) + " is out of range");
  }
  p_edges_f_.assign(d.p_edges.begin(), d.p_edges.end());
  p_centres_f_.assign(d.p_centres.begin(), d.p_centres.end());
}

TableView TableParams::view_header() const {
  TableView v;
  v.n_pbins = n_pbins();
  v.nx = data_.nx;
  v.ny = data_.ny;
  v.binning = meta_.binning;
  v.p_min = static_cast<float>(data_.p_edges.front());
  v.p_max = static_cast<float>(data_.p_edges.back());
  if (meta_.binning == MomentumBinning::log) {
    v.inv_dp =
        static_cast<float>(v.n_pbins / std::log(data_.p_edges.back() / data_.p_edges.front()));
  } else if (meta_.binning == MomentumBinning::uniform) {
    v.inv_dp = static_cast<float>(v.n_pbins / (data_.p_edges.back() - data_.p_edges.front()));
  }
  return v;
}

std::size_t TableParams::device_bytes() const {
  return (p_edges_f_.size() + p_centres_f_.size()) * sizeof(float) +
         data_.axes.size() * sizeof(HistAxes) + data_.cells.size() * sizeof(AliasCell);
}

}  // namespace fastmu
