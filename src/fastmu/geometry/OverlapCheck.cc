#include "fastmu/geometry/OverlapCheck.hh"

#include <algorithm>
#include <cmath>
#include <numeric>

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

void check_overlaps(const std::vector<VolumeDesc>& volumes, const std::string& source) {
  std::vector<std::size_t> order(volumes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return volumes[i].lo[2] < volumes[j].lo[2]; });
  for (std::size_t m = 0; m < order.size(); ++m) {
    const VolumeDesc& a = volumes[order[m]];
    for (std::size_t n = m + 1; n < order.size(); ++n) {
      const VolumeDesc& b = volumes[order[n]];
      if (b.lo[2] >= a.hi[2] - kLengthTol) break;  // sorted by lo z: no later one reaches a
      if (volumes_overlap(a, b)) {
        const bool a_first = order[m] < order[n];
        throw Error(fmt::format("{}: volumes '{}' and '{}' overlap", source,
                                a_first ? a.name : b.name, a_first ? b.name : a.name));
      }
    }
  }
}

}  // namespace fastmu
