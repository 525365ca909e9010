// Construction of alias tables (Walker 1977) with Vose's linear-time algorithm
// (Vose, IEEE TSE 17 (1991) 972): n weights become n equiprobable cells, each
// holding at most two outcomes, so a draw costs one uniform and one load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fastmu/tables/TableView.hh"

namespace fastmu {

// Fills out[0..n) from non-negative `weights` (any normalisation). Computed in
// double, stored as float. Cell i keeps itself when the acceptance uniform is
// below out[i].threshold, otherwise yields out[i].alias. A cell that keeps
// itself always has threshold 1 and alias i. All-zero weights give cell 0 with
// probability 1. Throws fastmu::Error for a negative or non-finite weight.
void build_alias_table(std::span<const double> weights, std::span<AliasCell> out);

// A histogram bin's alias table from its counts (as doubles): the one way
// the table builders and the table reader (files without alias tables) make
// them, so that the two agree bit for bit.
void build_alias_table(std::span<const std::uint32_t> counts, std::span<AliasCell> out);

// The probability of each outcome implied by an alias table (for tests and
// diagnostics): p_j = (sum_i [i == j] t_i + [alias_i == j] (1 - t_i)) / n.
void alias_probabilities(std::span<const AliasCell> cells, std::span<double> out);

}  // namespace fastmu
