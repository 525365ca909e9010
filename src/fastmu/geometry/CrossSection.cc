#include "fastmu/geometry/CrossSection.hh"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"

namespace fastmu {

double Polygon2::area() const {
  double a = 0;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    a += x[i] * y[j] - x[j] * y[i];
  }
  return 0.5 * a;
}

namespace {

// Drops corners that repeat their predecessor (collapsed ARB8 edges).
Polygon2 without_repeats(const Polygon2& p, double tol) {
  Polygon2 r;
  for (int i = 0; i < p.n; ++i) {
    const bool same_as_last =
        r.n > 0 && std::abs(p.x[i] - r.x[r.n - 1]) <= tol && std::abs(p.y[i] - r.y[r.n - 1]) <= tol;
    if (!same_as_last) {
      r.x[r.n] = p.x[i];
      r.y[r.n] = p.y[i];
      ++r.n;
    }
  }
  while (r.n > 1 && std::abs(r.x[0] - r.x[r.n - 1]) <= tol &&
         std::abs(r.y[0] - r.y[r.n - 1]) <= tol) {
    --r.n;
  }
  return r;
}

Polygon2 arb8_section(const VolumeDesc& v, double t) {
  Polygon2 p;
  p.n = 4;
  for (int i = 0; i < 4; ++i) {
    p.x[i] = v.vertices[i][0] + t * (v.vertices[i + 4][0] - v.vertices[i][0]);
    p.y[i] = v.vertices[i][1] + t * (v.vertices[i + 4][1] - v.vertices[i][1]);
  }
  return p;
}

double scale_of(const VolumeDesc& v) {
  double s = 0;
  for (const auto& p : v.vertices) s = std::max({s, std::abs(p[0]), std::abs(p[1])});
  return std::max(s, 1e-3);
}

// Whether the polygon (corners without repeats) turns only one way, i.e. is
// convex with the given orientation (+1 counter-clockwise, -1 clockwise).
// Collinear corners are allowed (a triangle given as four corners).
bool is_convex(const Polygon2& p, int orientation, double tol) {
  for (int i = 0; i < p.n; ++i) {
    const int j = (i + 1) % p.n, k = (i + 2) % p.n;
    const double ax = p.x[j] - p.x[i], ay = p.y[j] - p.y[i];
    const double bx = p.x[k] - p.x[j], by = p.y[k] - p.y[j];
    const double c = ax * by - ay * bx;
    const double len = std::hypot(ax, ay) * std::hypot(bx, by);
    if (orientation * c < -tol * len) return false;
  }
  return true;
}

}  // namespace

Polygon2 cross_section(const VolumeDesc& v, double z) {
  Polygon2 p;
  if (v.shape == VolumeShape::box) {
    if (z < v.lo[2] || z > v.hi[2]) return p;
    p.n = 4;
    const double xs[4] = {v.lo[0], v.hi[0], v.hi[0], v.lo[0]};
    const double ys[4] = {v.lo[1], v.lo[1], v.hi[1], v.hi[1]};
    std::copy(xs, xs + 4, p.x);
    std::copy(ys, ys + 4, p.y);
    return p;
  }
  const double t = (z - (v.z_center - v.dz)) / (2 * v.dz);
  if (t < 0 || t > 1) return p;
  return without_repeats(arb8_section(v, t), 1e-12 * scale_of(v));
}

Polygon2 clip_convex(const Polygon2& subject, const Polygon2& clip) {
  Polygon2 out = subject;
  for (int e = 0; e < clip.n && out.n > 0; ++e) {
    const double ax = clip.x[e], ay = clip.y[e];
    const double ex = clip.x[(e + 1) % clip.n] - ax, ey = clip.y[(e + 1) % clip.n] - ay;
    const Polygon2 in = out;
    out.n = 0;
    auto side = [&](double px, double py) { return ex * (py - ay) - ey * (px - ax); };
    for (int i = 0; i < in.n; ++i) {
      const int j = (i + 1) % in.n;
      const double si = side(in.x[i], in.y[i]), sj = side(in.x[j], in.y[j]);
      auto push = [&](double px, double py) {
        if (out.n < 8) {
          out.x[out.n] = px;
          out.y[out.n] = py;
          ++out.n;
        }
      };
      if (si >= 0) push(in.x[i], in.y[i]);
      if ((si >= 0) != (sj >= 0)) {
        const double f = si / (si - sj);
        push(in.x[i] + f * (in.x[j] - in.x[i]), in.y[i] + f * (in.y[j] - in.y[i]));
      }
    }
  }
  return out;
}

void normalise_arb8(VolumeDesc& v, const std::string& where) {
  const double scale = scale_of(v);
  const double len_tol = 1e-12 * scale;
  const double area_tol = 1e-12 * scale * scale;
  const Polygon2 lower = arb8_section(v, 0), upper = arb8_section(v, 1);
  const double a0 = lower.area(), a1 = upper.area();
  if (std::abs(a0) <= area_tol && std::abs(a1) <= area_tol) {
    throw Error(fmt::format("{}: degenerate arb8: both faces have zero area", where));
  }
  if ((a0 > area_tol && a1 < -area_tol) || (a0 < -area_tol && a1 > area_tol)) {
    throw Error(fmt::format(
        "{}: the faces at -dz and +dz are wound in opposite directions (self-intersecting solid)",
        where));
  }
  if (a0 < -area_tol || a1 < -area_tol) {
    // Clockwise (Geant4's convention): reverse both faces, keeping i <-> i + 4.
    std::swap(v.vertices[1], v.vertices[3]);
    std::swap(v.vertices[5], v.vertices[7]);
  }
  // Convexity of the faces and of sections in between (twisted faces can
  // fold a section even when both faces are convex).
  constexpr int kSections = 16;
  for (int s = 0; s <= kSections; ++s) {
    const double t = static_cast<double>(s) / kSections;
    const Polygon2 p = without_repeats(arb8_section(v, t), len_tol);
    if (p.n < 3) continue;  // a face collapsed to a segment or a point
    if (p.area() < -area_tol || !is_convex(p, +1, 1e-9)) {
      const double z = v.z_center - v.dz + t * 2 * v.dz;
      throw Error(
          fmt::format("{}: the cross-section at z = {:g} m is not a convex quadrilateral (vertex "
                      "order or twist)",
                      where, z));
    }
  }
  v.lo = {v.vertices[0][0], v.vertices[0][1], v.z_center - v.dz};
  v.hi = {v.vertices[0][0], v.vertices[0][1], v.z_center + v.dz};
  for (const auto& p : v.vertices) {
    v.lo[0] = std::min(v.lo[0], p[0]);
    v.lo[1] = std::min(v.lo[1], p[1]);
    v.hi[0] = std::max(v.hi[0], p[0]);
    v.hi[1] = std::max(v.hi[1], p[1]);
  }
  if (v.hi[0] - v.lo[0] <= len_tol || v.hi[1] - v.lo[1] <= len_tol) {
    throw Error(fmt::format("{}: degenerate arb8: zero width", where));
  }
}

}  // namespace fastmu
