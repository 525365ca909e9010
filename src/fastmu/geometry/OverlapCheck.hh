// Detects overlapping volumes (host, once per geometry load).
#pragma once

#include <string>
#include <vector>

#include "fastmu/geometry/GeometryParams.hh"

namespace fastmu {

// Whether two volumes share a region of positive volume. Touching faces are
// not overlaps. Bounding boxes prune; two boxes are decided exactly; otherwise
// the cross-sections (exact convex quadrilaterals, since ARB8 vertices move
// linearly in z) are clipped against each other at the ends of the common z
// range and at 64 heights in between, and an intersection area above a
// rounding tolerance is an overlap. An overlap thinner in z than 1/64 of the
// common z range could be missed.
bool volumes_overlap(const VolumeDesc& a, const VolumeDesc& b);

// Throws fastmu::Error("<source>: volumes 'a' and 'b' overlap") for the first
// overlapping pair by index (pairs found through a uniform x-y grid of the
// bounding boxes: about linear in the number of volumes).
void check_overlaps(const std::vector<VolumeDesc>& volumes, const std::string& source);

}  // namespace fastmu
