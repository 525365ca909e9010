// Read-only view of one material's histogram tables, usable on host and device.
//
// For each momentum bin b there is a 2-D histogram over
//   x = ln(-dPz / P)  (fractional momentum loss) and
//   y = ln(dPt / P)   (fractional transverse kick),
// stored as an alias table of (nx + 1) * (ny + 1) cells. Index 0 on each axis is
// the floor bin (zero loss or zero kick); index i >= 1 is the log bin
// [lo + (i - 1) * width, lo + i * width) of that axis and that momentum bin.
#pragma once

#include <cstdint>

#include "fastmu/core/Macros.hh"

namespace fastmu {

// One alias-table cell (Walker 1977; Vose 1991): the cell keeps itself with
// probability `threshold`, else it yields `alias`. 8 bytes: one load per sample.
struct AliasCell {
  float threshold;
  std::int32_t alias;
};

enum class MomentumBinning : std::int32_t { log = 0, uniform = 1, adaptive = 2 };

// Per-momentum-bin axis ranges (ln units).
struct HistAxes {
  float x_lo, x_width;  // loss axis: first log-bin edge and bin width
  float y_lo, y_width;  // kick axis
};

struct TableView {
  std::int32_t n_pbins = 0;
  std::int32_t nx = 0, ny = 0;  // log bins per axis (floor bin not counted)
  MomentumBinning binning = MomentumBinning::log;
  float p_min = 0, p_max = 0;        // GeV/c, outer edges
  float inv_dp = 0;                  // 1 / bin width in ln p (log) or p (uniform)
  const float* p_edges = nullptr;    // n_pbins + 1 edges (GeV/c)
  const float* p_centres = nullptr;  // n_pbins sample-weighted centres (GeV/c), ascending
  const HistAxes* axes = nullptr;    // n_pbins
  const AliasCell* cells = nullptr;  // n_pbins * cells_per_bin()

  FASTMU_HD std::int32_t cells_per_bin() const { return (nx + 1) * (ny + 1); }
};

}  // namespace fastmu
