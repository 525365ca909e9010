// Host-side, double-precision geometry of the solids' cross-sections at a
// given z (convex polygons of at most 4 corners): used to validate ARB8s and
// to detect overlaps, never in the step loop.
#pragma once

#include <string>

#include "fastmu/geometry/GeometryParams.hh"

namespace fastmu {

// A convex polygon, counter-clockwise. Clipping a quadrilateral by another
// yields at most 8 corners.
struct Polygon2 {
  int n = 0;
  double x[8] = {}, y[8] = {};

  double area() const;  // signed (> 0 counter-clockwise)
};

// The cross-section of a volume at height z (empty when z is outside it).
// Collapsed ARB8 edges give repeated corners, which are removed.
Polygon2 cross_section(const VolumeDesc& v, double z);

// The intersection of two convex counter-clockwise polygons (Sutherland-Hodgman).
Polygon2 clip_convex(const Polygon2& subject, const Polygon2& clip);

// Validates an ARB8 read from JSON and puts its vertices in counter-clockwise
// order (both faces reordered alike, keeping vertex i joined to vertex i + 4),
// and fills its bounding box. Throws fastmu::Error("<where>: <what>") for a
// flat solid, faces wound in opposite directions, or a cross-section (at
// either face or in between, twisted solids included) that is not convex.
void normalise_arb8(VolumeDesc& v, const std::string& where);

}  // namespace fastmu
