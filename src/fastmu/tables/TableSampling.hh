// Sampling of the histogram tables: momentum-bin lookup with stochastic
// interpolation between neighbouring bins, alias draw and uniform jitter.
// One implementation for host and device.
#pragma once

#include <cmath>
#include <cstdint>

#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/tables/TableView.hh"

namespace fastmu {

// The bin whose [edge_b, edge_b+1) holds p, clamped to [0, n_pbins - 1].
FASTMU_HD FASTMU_FORCEINLINE std::int32_t find_momentum_bin(const TableView& t, float p) {
  std::int32_t b;
  if (t.binning == MomentumBinning::log) {
    b = static_cast<std::int32_t>(floorf(logf(p / t.p_min) * t.inv_dp));
  } else if (t.binning == MomentumBinning::uniform) {
    b = static_cast<std::int32_t>(floorf((p - t.p_min) * t.inv_dp));
  } else {
    std::int32_t lo = 0, hi = t.n_pbins;  // invariant: edges[lo] <= p < edges[hi]
    while (hi - lo > 1) {
      const std::int32_t mid = (lo + hi) >> 1;
      if (p >= t.p_edges[mid]) lo = mid;
      else hi = mid;
    }
    b = lo;
  }
  return b < 0 ? 0 : (b >= t.n_pbins ? t.n_pbins - 1 : b);
}

// Linear interpolation of the distribution in ln p between bin centres, done
// stochastically: between centres c_b < p < c_b+1 the neighbour is used with
// probability ln(p / c_b) / ln(c_b+1 / c_b). Removes the steps that a bin's
// constant fractional loss would otherwise put into <dP>(p).
FASTMU_HD FASTMU_FORCEINLINE std::int32_t choose_interpolated_bin(const TableView& t, float p,
                                                                  float u) {
  std::int32_t b = find_momentum_bin(t, p);
  const float c = t.p_centres[b];
  if (p >= c) {
    if (b + 1 < t.n_pbins) {
      const float w = logf(p / c) / logf(t.p_centres[b + 1] / c);
      if (u < w) ++b;
    }
  } else if (b > 0) {
    const float w = logf(c / p) / logf(c / t.p_centres[b - 1]);
    if (u < w) --b;
  }
  return b;
}

struct SampledLoss {
  float loss_frac;  // -dPz / P  (>= 0)
  float kick_frac;  // dPt / P   (>= 0)
};

// The alias draw alone: the flat cell index ix * (ny + 1) + iy in bin b.
//  r_cell: 32 random bits choosing the cell and the alias acceptance
FASTMU_HD FASTMU_FORCEINLINE std::int32_t sample_cell(const TableView& t, std::int32_t b,
                                                      std::uint32_t r_cell) {
  const std::int32_t ncell = t.cells_per_bin();
  // Multiply-shift: the high word picks the cell, the low word is a uniform
  // fraction for the acceptance test (Lemire 2019; no division, no modulo).
  const std::uint64_t prod = static_cast<std::uint64_t>(r_cell) * static_cast<std::uint32_t>(ncell);
  const std::int32_t cell = static_cast<std::int32_t>(prod >> 32);
  const float accept =
      static_cast<float>(static_cast<std::uint32_t>(prod)) * (1.0f / 4294967296.0f);
  const AliasCell ac = t.cells[static_cast<std::int64_t>(b) * ncell + cell];
  return accept < ac.threshold ? cell : ac.alias;
}

// The alias cell that sample_cell(t, b, r_cell) reads, for a prefetch.
FASTMU_HD FASTMU_FORCEINLINE const AliasCell* alias_cell_address(const TableView& t, std::int32_t b,
                                                                 std::uint32_t r_cell) {
  const std::uint32_t ncell = static_cast<std::uint32_t>(t.cells_per_bin());
  const std::uint32_t cell = static_cast<std::uint32_t>((std::uint64_t{r_cell} * ncell) >> 32);
  return t.cells + static_cast<std::int64_t>(b) * ncell + cell;
}

// The (loss, kick) of histogram cell (ix, iy) of a momentum bin with axes a, jittered
// uniformly inside the cell in ln(loss) and ln(kick). Index 0 on an axis is
// the "zero" cell (no loss / no kick).
//  u_x, u_y: uniforms in [0, 1) for the jitter inside the chosen bin
FASTMU_HD FASTMU_FORCEINLINE SampledLoss cell_value(const HistAxes& a, std::int32_t ix,
                                                    std::int32_t iy, float u_x, float u_y) {
  SampledLoss s;
  // At most 1: the loss axis ends at ln 1 = 0 up to float rounding (a plain
  // comparison: fminf is a libm call on the host). exp_fast: an inline expf
  // (FastMath.hh), the arguments lie far inside its range. The floor cells
  // multiply by 0 rather than select (exp_fast is finite: same result): the
  // exps are then computed unconditionally, which the CPU's SIMD loop needs.
  const float loss = exp_fast(a.x_lo + (static_cast<float>(ix - 1) + u_x) * a.x_width);
  const float kick = exp_fast(a.y_lo + (static_cast<float>(iy - 1) + u_y) * a.y_width);
  s.loss_frac = (ix == 0 ? 0.0f : 1.0f) * (loss < 1.0f ? loss : 1.0f);
  s.kick_frac = (iy == 0 ? 0.0f : 1.0f) * kick;
  return s;
}

// Draws one (loss, kick) from momentum bin b.
//  r_cell: 32 random bits choosing the cell and the alias acceptance
//  u_x, u_y: uniforms in [0, 1) for the jitter inside the chosen bin
FASTMU_HD FASTMU_FORCEINLINE SampledLoss sample_bin(const TableView& t, std::int32_t b,
                                                    std::uint32_t r_cell, float u_x, float u_y) {
  const std::int32_t cell = sample_cell(t, b, r_cell);
  const std::int32_t ix = cell / (t.ny + 1);
  const std::int32_t iy = cell - ix * (t.ny + 1);
  return cell_value(t.axes[b], ix, iy, u_x, u_y);
}

}  // namespace fastmu
