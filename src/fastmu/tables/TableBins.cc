#include "fastmu/tables/TableBins.hh"

#include <cmath>
#include <memory>

#include "fastmu/core/Error.hh"

namespace fastmu {
namespace {

template <class T>
void append_range(std::vector<T>& out, const std::vector<T>& in, std::size_t lo, std::size_t hi) {
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(lo),
             in.begin() + static_cast<std::ptrdiff_t>(hi));
}

// Appends bins [lo, hi) of `in` to `out` (edges: the upper edge of each).
void append_bins(TableData& out, const TableData& in, std::size_t lo, std::size_t hi) {
  const std::size_t cpb = static_cast<std::size_t>(in.cells_per_bin());
  append_range(out.p_edges, in.p_edges, lo + 1, hi + 1);
  append_range(out.p_centres, in.p_centres, lo, hi);
  append_range(out.axes, in.axes, lo, hi);
  if (!in.counts.empty()) append_range(out.counts, in.counts, lo * cpb, hi * cpb);
  append_range(out.cells, in.cells, lo * cpb, hi * cpb);
  append_range(out.samples_per_bin, in.samples_per_bin, lo, hi);
  append_range(out.mean_loss, in.mean_loss, lo, hi);
  append_range(out.std_loss, in.std_loss, lo, hi);
  append_range(out.mean_kick, in.mean_kick, lo, hi);
}

}  // namespace

TableData table_bins(const TableData& d, int lo, int hi) {
  if (lo < 0 || hi > d.n_pbins() || lo >= hi) {
    throw Error("table: bins [" + std::to_string(lo) + ", " + std::to_string(hi) +
                ") are not inside its " + std::to_string(d.n_pbins()) + " bins");
  }
  TableData out;
  out.nx = d.nx;
  out.ny = d.ny;
  out.p_edges.push_back(d.p_edges[static_cast<std::size_t>(lo)]);
  append_bins(out, d, static_cast<std::size_t>(lo), static_cast<std::size_t>(hi));
  return out;
}

TableData join_table_bins(const TableData& low, const TableData& high) {
  if (low.nx != high.nx || low.ny != high.ny) {
    throw Error("table: cannot join bins of different histogram sizes");
  }
  const double a = low.p_edges.back(), b = high.p_edges.front();
  if (!(std::abs(a - b) <= 1e-12 * std::abs(a))) {
    throw Error("table: cannot join bins that end at " + std::to_string(a) +
                " GeV/c to bins from " + std::to_string(b) + " GeV/c");
  }
  TableData out = table_bins(low, 0, low.n_pbins());
  if (low.counts.empty() || high.counts.empty()) out.counts.clear();
  TableData upper = high;
  if (out.counts.empty()) upper.counts.clear();
  append_bins(out, upper, 0, static_cast<std::size_t>(upper.n_pbins()));
  return out;
}

std::shared_ptr<const TableParams> first_table_bins(std::shared_ptr<const TableParams> table,
                                                    int n) {
  if (!table || table->n_pbins() == n) return table;
  return std::make_shared<const TableParams>(table->metadata(), table_bins(table->data(), 0, n),
                                             "table", 0, AliasCells::valid);
}

}  // namespace fastmu
