#include "fastmu/tables/BinHistogrammer.hh"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastmu/core/Error.hh"

namespace fastmu {
namespace {

constexpr float kFloor = -std::numeric_limits<float>::infinity();

// Axis [lo, lo + n * width) from the finite values of v (see the header).
void choose_axis(const std::vector<float>& v, int n, double tail_fraction, float& lo_out,
                 float& width_out) {
  std::vector<float> finite;
  finite.reserve(v.size());
  for (float x : v) {
    if (x != kFloor) finite.push_back(x);
  }
  if (finite.empty()) {  // all in the floor bin: any valid axis will do
    lo_out = -20.0f;
    width_out = 20.0f / n;
    return;
  }
  const float hi = *std::max_element(finite.begin(), finite.end());
  const std::size_t k = static_cast<std::size_t>(tail_fraction * (finite.size() - 1));
  std::nth_element(finite.begin(), finite.begin() + k, finite.end());
  float lo = finite[k];
  // A point mass (or nearly) still needs a positive width; 1e-3 in ln is
  // 0.1 % in the fraction, below any physical resolution.
  if (hi - lo < 1e-3f) lo = hi - 1e-3f;
  // The maximum itself lands in the last bin (axis_index clamps), so the top
  // edge stays at the largest value: a loss fraction never exceeds 1.
  const double width = (static_cast<double>(hi) - lo) / n;
  lo_out = lo;
  width_out = static_cast<float>(width);
}

// Index 0 for the floor, 1..n for the log bins (computed with the stored
// float axis so that sampling reproduces exactly these bins).
inline int axis_index(float x, float lo, float width, int n) {
  if (x == kFloor || x < lo) return 0;
  const int i = static_cast<int>((static_cast<double>(x) - lo) / width);
  return std::min(i, n - 1) + 1;
}

}  // namespace

BinHistogrammer::BinHistogrammer(int nx, int ny, double tail_fraction)
    : nx_(nx), ny_(ny), tail_fraction_(tail_fraction) {
  if (nx < 1 || ny < 1) throw Error("--hist-bins must be at least 1");
  if (!(tail_fraction >= 0 && tail_fraction < 0.5)) {
    throw Error("histogram tail fraction must be in [0, 0.5)");
  }
}

void BinHistogrammer::reserve(std::size_t n) {
  x_.reserve(n);
  y_.reserve(n);
}

void BinHistogrammer::add(double p0, double px, double py, double pz) {
  add_fractions(p0, (p0 - pz) / p0, std::hypot(px, py) / p0);  // stopped: pz = 0 -> loss 1
}

void BinHistogrammer::add_fractions(double p0, double loss, double kick) {
  add_fractions_ln(std::log(p0), loss, kick);
}

void BinHistogrammer::add_fractions_ln(double ln_p0, double loss, double kick) {
  x_.push_back(loss > 0 ? static_cast<float>(std::log(loss)) : kFloor);
  y_.push_back(kick > 0 ? static_cast<float>(std::log(kick)) : kFloor);
  const double l = std::max(loss, 0.0);
  sum_ln_p0_ += ln_p0;
  sum_loss_ += l;
  sum_loss2_ += l * l;
  sum_kick_ += kick;
}

double BinHistogrammer::mean_loss() const { return x_.empty() ? 0.0 : sum_loss_ / x_.size(); }

double BinHistogrammer::mean_loss_error() const {
  const double n = static_cast<double>(x_.size());
  if (n < 2) return 0.0;
  const double mean = sum_loss_ / n;
  const double var = std::max(0.0, (sum_loss2_ - n * mean * mean) / (n - 1));
  return std::sqrt(var / n);
}

BinHistogram BinHistogrammer::finish() const {
  BinHistogram h;
  const std::size_t n = x_.size();
  h.samples = n;
  h.counts.assign(static_cast<std::size_t>(nx_ + 1) * (ny_ + 1), 0);
  choose_axis(x_, nx_, tail_fraction_, h.axes.x_lo, h.axes.x_width);
  choose_axis(y_, ny_, tail_fraction_, h.axes.y_lo, h.axes.y_width);
  for (std::size_t i = 0; i < n; ++i) {
    const int ix = axis_index(x_[i], h.axes.x_lo, h.axes.x_width, nx_);
    const int iy = axis_index(y_[i], h.axes.y_lo, h.axes.y_width, ny_);
    ++h.counts[static_cast<std::size_t>(ix) * (ny_ + 1) + iy];
  }
  if (n > 0) {
    h.centre = std::exp(sum_ln_p0_ / n);
    h.mean_loss = sum_loss_ / n;
    h.std_loss = std::sqrt(std::max(0.0, sum_loss2_ / n - h.mean_loss * h.mean_loss));
    h.mean_kick = sum_kick_ / n;
  }
  return h;
}

}  // namespace fastmu
