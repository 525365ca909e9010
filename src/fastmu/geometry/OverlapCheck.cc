#include "fastmu/geometry/OverlapCheck.hh"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/geometry/CrossSection.hh"

namespace fastmu {

namespace {

constexpr double kLengthTol = 1e-9;  // m: shared faces computed alike differ by rounding only

// Length of the common part of [a0, a1] and [b0, b1] (negative if disjoint).
double common_length(double a0, double a1, double b0, double b1) {
  return std::min(a1, b1) - std::max(a0, b0);
}

bool sections_overlap(const VolumeDesc& a, const VolumeDesc& b, double z) {
  const Polygon2 pa = cross_section(a, z), pb = cross_section(b, z);
  if (pa.n < 3 || pb.n < 3) return false;
  const double area = clip_convex(pa, pb).area();
  const double tol = std::max(1e-12, 1e-9 * std::min(pa.area(), pb.area()));
  return area > tol;
}

}  // namespace

bool volumes_overlap(const VolumeDesc& a, const VolumeDesc& b) {
  for (int k = 0; k < 3; ++k) {
    if (common_length(a.lo[k], a.hi[k], b.lo[k], b.hi[k]) <= kLengthTol) return false;
  }
  if (a.shape == VolumeShape::box && b.shape == VolumeShape::box) return true;
  // The slabs of one terrain part it between them; anything else within a
  // terrain's box counts as an overlap (terrain slabs hold no volumes).
  if (a.shape == VolumeShape::terrain || b.shape == VolumeShape::terrain) {
    return !(a.shape == b.shape && a.terrain_surface == b.terrain_surface);
  }
  const double z0 = std::max(a.lo[2], b.lo[2]), z1 = std::min(a.hi[2], b.hi[2]);
  constexpr int kHeights = 64;
  // Just inside both ends, then at the centres of kHeights equal intervals.
  const double inset = 1e-6 * (z1 - z0);
  if (sections_overlap(a, b, z0 + inset) || sections_overlap(a, b, z1 - inset)) return true;
  for (int i = 0; i < kHeights; ++i) {
    if (sections_overlap(a, b, z0 + (i + 0.5) * (z1 - z0) / kHeights)) return true;
  }
  return false;
}

namespace {

// The broad phase: the volumes' bounding boxes in a uniform 3-D grid whose
// cells are about the median volume's size along each axis (at most 4
// cells per volume in all), so that only volumes sharing a cell are paired:
// 10^5 boxes side by side in one z range were 5e9 pairs by a sweep over z,
// and slabs stacked in z share no cell either. A volume spanning more than
// kMaxCells cells (a terrain, a yoke around the rest) is paired with all.
struct OverlapGrid {
  static constexpr std::size_t kMaxCells = 64;
  double lo[3] = {}, cell[3] = {};
  std::size_t n[3] = {1, 1, 1};
  std::vector<std::vector<std::size_t>> cells;
  std::vector<std::size_t> big;

  explicit OverlapGrid(const std::vector<VolumeDesc>& v) {
    const double budget = 4.0 * static_cast<double>(v.size());
    double cells_in_all = 1;
    for (int k = 0; k < 3; ++k) {
      double hi = v.front().hi[k];
      lo[k] = v.front().lo[k];
      std::vector<double> size(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        lo[k] = std::min(lo[k], v[i].lo[k]), hi = std::max(hi, v[i].hi[k]);
        size[i] = v[i].hi[k] - v[i].lo[k];
      }
      std::nth_element(size.begin(), size.begin() + size.size() / 2, size.end());
      const double median = std::max(size[size.size() / 2], 1e-9);
      const double want = std::clamp((hi - lo[k]) / median, 1.0, 1024.0);
      n[k] = static_cast<std::size_t>(std::min(want, std::max(1.0, budget / cells_in_all)));
      cells_in_all *= static_cast<double>(n[k]);
      cell[k] = std::max((hi - lo[k]) / static_cast<double>(n[k]), 1e-9);
    }
    cells.resize(n[0] * n[1] * n[2]);
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::size_t c0[3], c1[3];
      span(v[i], c0, c1);
      std::size_t count = 1;
      for (int k = 0; k < 3; ++k) count *= c1[k] - c0[k] + 1;
      if (count > kMaxCells) {
        big.push_back(i);
        continue;
      }
      for (std::size_t x = c0[0]; x <= c1[0]; ++x) {
        for (std::size_t y = c0[1]; y <= c1[1]; ++y) {
          for (std::size_t z = c0[2]; z <= c1[2]; ++z)
            cells[(x * n[1] + y) * n[2] + z].push_back(i);
        }
      }
    }
  }

  std::size_t index(double x, int k) const {
    const double c = std::floor((x - lo[k]) / cell[k]);
    return c <= 0 ? 0 : std::min(n[k] - 1, static_cast<std::size_t>(c));
  }
  void span(const VolumeDesc& d, std::size_t* c0, std::size_t* c1) const {
    for (int k = 0; k < 3; ++k) c0[k] = index(d.lo[k], k), c1[k] = index(d.hi[k], k);
  }
  // Whether cell c is the first cell that the spans of a and b share.
  bool first_shared(std::size_t c, const VolumeDesc& a, const VolumeDesc& b) const {
    std::size_t a0[3], a1[3], b0[3], b1[3];
    span(a, a0, a1);
    span(b, b0, b1);
    const std::size_t at[3] = {c / (n[1] * n[2]), (c / n[2]) % n[1], c % n[2]};
    for (int k = 0; k < 3; ++k) {
      if (at[k] != std::max(a0[k], b0[k])) return false;
    }
    return true;
  }
};

}  // namespace

void check_overlaps(const std::vector<VolumeDesc>& volumes, const std::string& source) {
  if (volumes.size() < 2) return;
  const OverlapGrid grid(volumes);
  // The overlapping pair reported is the first by volume index, whatever
  // the order the grid finds pairs in.
  std::pair<std::size_t, std::size_t> first{volumes.size(), volumes.size()};
  const auto test = [&](std::size_t i, std::size_t j) {
    if (i > j) std::swap(i, j);
    if (std::make_pair(i, j) < first && volumes_overlap(volumes[i], volumes[j])) first = {i, j};
  };
  for (std::size_t c = 0; c < grid.cells.size(); ++c) {
    const std::vector<std::size_t>& in = grid.cells[c];
    for (std::size_t a = 0; a < in.size(); ++a) {
      for (std::size_t b = a + 1; b < in.size(); ++b) {
        if (grid.first_shared(c, volumes[in[a]], volumes[in[b]])) test(in[a], in[b]);
      }
    }
  }
  // A big volume against every other; two big ones once.
  std::vector<char> big(volumes.size(), 0);
  for (std::size_t i : grid.big) {
    for (std::size_t j = 0; j < volumes.size(); ++j) {
      if (j != i && !big[j]) test(i, j);
    }
    big[i] = 1;
  }
  if (first.first < volumes.size()) {
    throw Error(fmt::format("{}: volumes '{}' and '{}' overlap", source, volumes[first.first].name,
                            volumes[first.second].name));
  }
}

}  // namespace fastmu
