// A material's histogram table as the step loop reads it: the TableView plus
// logarithms precomputed once per table, so that choosing the momentum bin
// (with its stochastic interpolation in ln p, as choose_interpolated_bin in
// TableSampling.hh) costs one logarithm per step instead of three.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fastmu/core/Error.hh"
#include "fastmu/core/FastMath.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/tables/TableSampling.hh"
#include "fastmu/tables/TableView.hh"

namespace fastmu {

// Long steps taken in a magnetic field: at most 3 doublings (8 d, 16 cm of
// iron). Bending with the momentum at its start, steps up to 128 d in the
// SHiP-like shield (1.7 T iron) leave the window muons' px 0.6 % short of the
// detailed engine's (1e6 muons, KS p 2e-5). With the momentum at the step's
// middle (bending_momentum, StepPhysics.hh) 32 d passes `fastmu validate`,
// but the CPU lanes' common step and the per-muon step then part for ~2 % of
// the SHiP-like muons (rounding of the counted-down safety against longer
// steps), 1.4 % more of them end in the window (4e6 muons, BENCHMARKS.md),
// and the GPU kernel is no faster: 8 d stays. Without a field a step's table
// is exact at any length.
inline constexpr int kFieldLongSteps = 3;

struct MaterialTableView {
  TableView t;
  float ln_p_min = 0;                 // ln(p_min)
  const float* ln_centres = nullptr;  // ln(p_centres[b])
  const float* inv_ln_gap = nullptr;  // 1 / ln(p_centres[b + 1] / p_centres[b]), n_pbins - 1
  std::uint32_t row_magic = 0;        // ceil(2^32 / (ny + 1)): see split_cell
  const float* mean_loss = nullptr;   // <-dPz/P> of each bin's samples (bending_momentum)
  float step = 0, inv_step = 0;       // the table's step length d [m] and 1 / d
  std::int32_t shorter = -1;          // the ladder's next shorter table (TransportView
                                      // index), -1: none (StepLengths.hh)
  // A material's long steps (its first table only; StepLengths.hh): the
  // momentum from which each is taken [GeV/c], ascending, and its table's
  // TransportView index. Side by side, so that choosing one is a few
  // independent loads rather than a walk down a chain of tables.
  static constexpr int kMaxLonger = 10;  // --long-steps at most (StepOptionsCheck.hh)
  std::int32_t n_longer = 0;
  float longer_from[kMaxLonger] = {};
  std::int32_t longer[kMaxLonger] = {};
};

// Cell index -> (ix, iy) = (cell / (ny + 1), cell % (ny + 1)) without a
// division (an idiv in the step's critical path, after the alias load): for
// n, d < 2^16, (n * ceil(2^32 / d)) >> 32 == n / d exactly (the error term
// n * (M d - 2^32) / (d 2^32) stays below 1 / d; Lemire et al. 2019).
// make_view checks that cells_per_bin < 2^16.
FASTMU_HD FASTMU_FORCEINLINE void split_cell(const MaterialTableView& m, std::int32_t cell,
                                             std::int32_t& ix, std::int32_t& iy) {
  ix = static_cast<std::int32_t>(
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(cell)) * m.row_magic) >> 32);
  iy = cell - ix * (m.t.ny + 1);
}

// Host storage for the per-bin arrays the step reads beside one table: the
// logarithms of its momentum grid and its bins' mean fractional losses
// (TableData::mean_loss; none given: zero, a step then bends with its start
// momentum).
struct MaterialTableArrays {
  std::vector<float> ln_centres, inv_ln_gap, mean_loss;
  float ln_p_min = 0;

  explicit MaterialTableArrays(const TableView& t, const std::vector<double>& bin_mean_loss = {}) {
    ln_p_min = std::log(t.p_min);
    for (std::int32_t b = 0; b < t.n_pbins; ++b) ln_centres.push_back(std::log(t.p_centres[b]));
    for (std::int32_t b = 0; b + 1 < t.n_pbins; ++b) {
      inv_ln_gap.push_back(static_cast<float>(
          1.0 / (std::log(double(t.p_centres[b + 1])) - std::log(double(t.p_centres[b])))));
    }
    if (inv_ln_gap.empty()) inv_ln_gap.push_back(0.0f);
    mean_loss.assign(static_cast<std::size_t>(t.n_pbins > 0 ? t.n_pbins : 1), 0.0f);
    if (bin_mean_loss.size() == static_cast<std::size_t>(t.n_pbins)) {
      for (std::size_t b = 0; b < bin_mean_loss.size(); ++b) {
        const double f = bin_mean_loss[b];  // a fraction: NaN or < 0 as 0, > 1 as 1
        mean_loss[b] = f > 0.0 ? static_cast<float>(f < 1.0 ? f : 1.0) : 0.0f;
      }
    }
  }
  template <class Copy>
  MaterialTableView make_view(const TableView& t, Copy&& copy) const {
    MaterialTableView v;
    v.t = t;
    v.ln_p_min = ln_p_min;
    v.ln_centres = copy(ln_centres.data(), ln_centres.size());
    v.inv_ln_gap = copy(inv_ln_gap.data(), inv_ln_gap.size());
    v.mean_loss = copy(mean_loss.data(), mean_loss.size());
    if (t.cells_per_bin() >= (1 << 16)) {
      throw Error("transport: a table with " + std::to_string(t.cells_per_bin()) +
                  " cells per momentum bin (at most 65535 supported)");
    }
    const std::uint64_t d = static_cast<std::uint64_t>(t.ny) + 1;
    v.row_magic = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) + d - 1) / d);
    return v;
  }
};

// The momentum bin for p (find_momentum_bin), then its neighbour towards p
// with probability ln(p / c_b) / ln(c_b+-1 / c_b) (choose_interpolated_bin):
// the same choice from one logarithm. u is uniform in (0, 1); lp = ln p
// (log_fast, computed by the caller: the CPU takes it for 8 muons at once).
FASTMU_HD FASTMU_FORCEINLINE std::int32_t choose_bin_ln(const MaterialTableView& m, float p,
                                                        float lp, float u) {
  const TableView& t = m.t;
  std::int32_t b;
  if (t.binning == MomentumBinning::log) {
    // Truncation instead of floorf (a libm call without SSE4.1): they differ
    // only below 0, which clamps to bin 0 either way.
    float x = (lp - m.ln_p_min) * t.inv_dp;
    x = x > 0.0f ? x : 0.0f;
    b = static_cast<std::int32_t>(x);
    b = b >= t.n_pbins ? t.n_pbins - 1 : b;
  } else {
    b = find_momentum_bin(t, p);
  }
  const float d = lp - m.ln_centres[b];
  if (d >= 0.0f) {
    if (b + 1 < t.n_pbins && u < d * m.inv_ln_gap[b]) ++b;
  } else if (b > 0 && u < -d * m.inv_ln_gap[b - 1]) {
    --b;
  }
  return b;
}

FASTMU_HD FASTMU_FORCEINLINE std::int32_t choose_bin(const MaterialTableView& m, float p, float u) {
  return choose_bin_ln(m, p, log_fast(p), u);  // inline log (FastMath.hh): no libm call
}

}  // namespace fastmu
