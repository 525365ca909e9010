// Ranges of a table's momentum bins: the table cache serves a run the bins
// it asked for from a ladder built further up, and joins the bins of an
// extension to those it holds.
#pragma once

#include <memory>

#include "fastmu/tables/TableParams.hh"

namespace fastmu {

// Bins [lo, hi) of `d` (histograms too, where `d` has them).
TableData table_bins(const TableData& d, int lo, int hi);

// The bins of `low` followed by those of `high`, whose first edge must be
// `low`'s last (relative 1e-12) and whose histogram size must match; the
// result has histograms only if both have.
TableData join_table_bins(const TableData& low, const TableData& high);

// `table` with its bins [0, n) only (the table itself when it has n bins).
std::shared_ptr<const TableParams> first_table_bins(std::shared_ptr<const TableParams> table,
                                                    int n);

}  // namespace fastmu
