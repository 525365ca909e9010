// The 2-D histogram of one momentum bin: x = ln(-dPz/P), y = ln(dPt/P).
//
// Each axis has `n` log bins plus a floor bin (index 0) for zero loss / zero
// kick and for values below the axis range. The axis range is chosen from the
// bin's own data, so every momentum bin gets full resolution: from the
// `tail_fraction` quantile of the non-zero values (the lowest, negligible
// tail goes to the floor bin rather than stretching the axis) up to the
// largest value (catastrophic losses are kept on the axis).
#pragma once

#include <cstdint>
#include <vector>

#include "fastmu/tables/TableView.hh"

namespace fastmu {

struct BinHistogram {
  HistAxes axes{};
  std::vector<std::uint32_t> counts;  // (nx + 1) * (ny + 1), cell = ix * (ny + 1) + iy
  std::uint64_t samples = 0;
  double centre = 0;     // exp(<ln p0>): the bin centre for interpolation in ln p
  double mean_loss = 0;  // <-dPz/P> of the raw samples
  double std_loss = 0;   // its standard deviation
  double mean_kick = 0;  // <dPt/P>
};

// Collects one momentum bin's samples (stores two floats per sample: a bin of
// 1e6 samples takes 8 MB), then histograms them.
class BinHistogrammer {
 public:
  BinHistogrammer(int nx, int ny, double tail_fraction = 1e-4);

  // One recorded muon: initial momentum p0 along +z, final momentum (px, py, pz).
  // A stopped muon (px = py = pz = 0) has loss fraction 1 and kick 0.
  void add(double p0, double px, double py, double pz);
  // The same from the fractions: loss = (p0 - pz) / p0, kick = |pt| / p0.
  void add_fractions(double p0, double loss, double kick);
  // The same with ln p0 given (a ladder's histories feed one histogrammer
  // per step: their ln p0 is taken once).
  void add_fractions_ln(double ln_p0, double loss, double kick);
  void reserve(std::size_t n);
  std::size_t size() const { return x_.size(); }
  // <-dPz/P> of the samples so far, and its standard error.
  double mean_loss() const;
  double mean_loss_error() const;

  BinHistogram finish() const;

 private:
  int nx_, ny_;
  double tail_fraction_;
  std::vector<float> x_, y_;  // ln loss, ln kick; -inf marks the floor bin
  double sum_ln_p0_ = 0, sum_loss_ = 0, sum_loss2_ = 0, sum_kick_ = 0;
};

}  // namespace fastmu
