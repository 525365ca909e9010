#include "fastmu/geometry/GridBuilder.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/core/Error.hh"

namespace fastmu {

namespace {

float get(const Vec3f& v, int a) { return a == 0 ? v.x : (a == 1 ? v.y : v.z); }

struct Pt {
  double x, y;
};

double cross(Pt o, Pt a, Pt b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// Convex hull, counter-clockwise (Andrew's monotone chain).
std::vector<Pt> convex_hull(std::vector<Pt> p) {
  std::sort(p.begin(), p.end(), [](Pt a, Pt b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  std::vector<Pt> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k > 1 ? k - 1 : k);
  return h;
}

// Whether a convex counter-clockwise polygon meets the rectangle [x0, x1] x
// [y0, y1] (separating-axis test; the caller has already checked the axes x, y).
bool hull_meets_rect(const std::vector<Pt>& h, double x0, double x1, double y0, double y1) {
  if (h.size() < 3) return true;  // degenerate hull: keep the bounding-box answer
  const Pt corners[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  for (std::size_t i = 0; i < h.size(); ++i) {
    const Pt a = h[i], b = h[(i + 1) % h.size()];
    bool all_outside = true;
    for (const Pt& c : corners) all_outside = all_outside && cross(a, b, c) < 0;
    if (all_outside) return false;
  }
  return true;
}

// The hull of an ARB8's cross-sections at heights za and zb.
std::vector<Pt> section_hull(const Arb8Shape& s, double za, double zb) {
  std::vector<Pt> p;
  for (double z : {za, zb}) {
    const double t = std::clamp((z - s.z_lo) * s.inv_h, 0.0, 1.0);
    for (int i = 0; i < 4; ++i) p.push_back({s.x0[i] + t * s.dx[i], s.y0[i] + t * s.dy[i]});
  }
  return convex_hull(p);
}

// Per cell: (r - 1) times the smallest cell side, r the Chebyshev radius in
// cells of the nearest other cell that lists a volume (at most kMaxRadius):
// every volume not listed in a cell lies at least that much beyond the
// cell's faces. Cube counts come from a 3-D prefix sum of the occupied cells,
// so the cost is O(cells * kMaxRadius) whatever the number of volumes.
std::vector<float> cell_clearances(const GridIndex& g, const std::array<double, 3>& cell) {
  constexpr std::int64_t kMaxRadius = 4;
  const std::int64_t nx = g.shape.nx, ny = g.shape.ny, nz = g.shape.nz;
  const std::int64_t px = nx + 1, py = ny + 1;
  std::vector<std::int32_t> sum(static_cast<std::size_t>(px * py * (nz + 1)), 0);
  auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> std::int32_t& {
    return sum[static_cast<std::size_t>((k * py + j) * px + i)];
  };
  auto occupied = [&](std::int64_t c) {
    return g.cell_offsets[static_cast<std::size_t>(c) + 1] >
                   g.cell_offsets[static_cast<std::size_t>(c)]
               ? 1
               : 0;
  };
  for (std::int64_t k = 0; k < nz; ++k) {
    for (std::int64_t j = 0; j < ny; ++j) {
      for (std::int64_t i = 0; i < nx; ++i) {
        at(i + 1, j + 1, k + 1) = occupied((k * ny + j) * nx + i) + at(i, j + 1, k + 1) +
                                  at(i + 1, j, k + 1) + at(i + 1, j + 1, k) - at(i, j, k + 1) -
                                  at(i, j + 1, k) - at(i + 1, j, k) + at(i, j, k);
      }
    }
  }
  // Occupied cells in [i0, i1] x [j0, j1] x [k0, k1] (inclusive, clamped).
  auto count = [&](std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1,
                   std::int64_t k0, std::int64_t k1) {
    i0 = std::max<std::int64_t>(i0, 0), j0 = std::max<std::int64_t>(j0, 0);
    k0 = std::max<std::int64_t>(k0, 0);
    i1 = std::min(i1, nx - 1) + 1, j1 = std::min(j1, ny - 1) + 1, k1 = std::min(k1, nz - 1) + 1;
    return at(i1, j1, k1) - at(i0, j1, k1) - at(i1, j0, k1) - at(i1, j1, k0) + at(i0, j0, k1) +
           at(i0, j1, k0) + at(i1, j0, k0) - at(i0, j0, k0);
  };
  const double side = std::min({cell[0], cell[1], cell[2]});
  std::vector<float> clearance(static_cast<std::size_t>(nx * ny * nz), 0.f);
  for (std::int64_t k = 0; k < nz; ++k) {
    for (std::int64_t j = 0; j < ny; ++j) {
      for (std::int64_t i = 0; i < nx; ++i) {
        const std::int64_t c = (k * ny + j) * nx + i;
        std::int64_t r = 1;
        while (r <= kMaxRadius &&
               count(i - r, i + r, j - r, j + r, k - r, k + r) - occupied(c) == 0) {
          ++r;
        }
        clearance[static_cast<std::size_t>(c)] =
            static_cast<float>(static_cast<double>(r - 1) * side);
      }
    }
  }
  return clearance;
}

}  // namespace

GridIndex build_grid_index(const std::array<double, 3>& world_lo,
                           const std::array<double, 3>& world_hi,
                           const std::vector<VolumeRecord>& volumes,
                           const std::vector<Arb8Shape>& arb8s, std::int64_t max_cells) {
  std::array<double, 3> ext{}, cell{};
  std::array<std::int64_t, 3> n{};
  for (int a = 0; a < 3; ++a) {
    ext[a] = world_hi[a] - world_lo[a];
    double typical = ext[a];
    if (!volumes.empty()) {
      std::vector<double> sizes;
      sizes.reserve(volumes.size());
      for (const auto& v : volumes) sizes.push_back(get(v.hi, a) - get(v.lo, a));
      std::nth_element(sizes.begin(), sizes.begin() + sizes.size() / 2, sizes.end());
      typical = 0.5 * sizes[sizes.size() / 2];
    }
    cell[a] = std::clamp(typical, ext[a] / 256, ext[a]);
    n[a] = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(ext[a] / cell[a] - 1e-9)));
  }
  // Coarsen uniformly until the cell count fits.
  while (n[0] * n[1] * n[2] > max_cells) {
    for (int a = 0; a < 3; ++a) n[a] = std::max<std::int64_t>(1, (n[a] + 1) / 2);
  }
  GridIndex g;
  for (int a = 0; a < 3; ++a) cell[a] = ext[a] / static_cast<double>(n[a]);
  g.shape.lo = to_vec3f(world_lo);
  g.shape.cell = to_vec3f(cell);
  g.shape.inv_cell = {static_cast<float>(1 / cell[0]), static_cast<float>(1 / cell[1]),
                      static_cast<float>(1 / cell[2])};
  g.shape.nx = static_cast<std::int32_t>(n[0]);
  g.shape.ny = static_cast<std::int32_t>(n[1]);
  g.shape.nz = static_cast<std::int32_t>(n[2]);

  // Cell ranges of each volume's bounding box, padded by a small fraction of
  // a cell against float rounding in the view's cell computation.
  auto range = [&](const VolumeRecord& v, int a, std::int64_t& i0, std::int64_t& i1) {
    const double pad = 1e-3 * cell[a];
    i0 = static_cast<std::int64_t>(std::floor((get(v.lo, a) - pad - world_lo[a]) / cell[a]));
    i1 = static_cast<std::int64_t>(std::floor((get(v.hi, a) + pad - world_lo[a]) / cell[a]));
    i0 = std::clamp<std::int64_t>(i0, 0, n[a] - 1);
    i1 = std::clamp<std::int64_t>(i1, 0, n[a] - 1);
  };
  const std::int64_t cells = n[0] * n[1] * n[2];
  std::vector<std::int64_t> counts(cells + 1, 0);
  // Two passes (count, then fill) build the CSR arrays without per-cell vectors.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      g.cell_offsets.assign(cells + 1, 0);
      std::int64_t total = 0;
      for (std::int64_t c = 0; c < cells; ++c) {
        g.cell_offsets[c] = static_cast<std::int32_t>(total);
        total += counts[c];
        counts[c] = g.cell_offsets[c];  // becomes the fill cursor
      }
      if (total > INT32_MAX) throw Error("geometry: spatial index too large");
      g.cell_offsets[cells] = static_cast<std::int32_t>(total);
      g.cell_volumes.resize(total);
    }
    for (std::size_t v = 0; v < volumes.size(); ++v) {
      std::int64_t r[3][2];
      for (int a = 0; a < 3; ++a) range(volumes[v], a, r[a][0], r[a][1]);
      const Arb8Shape* shape = volumes[v].arb8 >= 0 ? &arb8s[volumes[v].arb8] : nullptr;
      for (std::int64_t k = r[2][0]; k <= r[2][1]; ++k) {
        std::vector<Pt> hull;
        if (shape != nullptr) {
          const double pad = 1e-3 * cell[2];
          hull = section_hull(*shape, world_lo[2] + k * cell[2] - pad,
                              world_lo[2] + (k + 1) * cell[2] + pad);
        }
        for (std::int64_t j = r[1][0]; j <= r[1][1]; ++j) {
          for (std::int64_t i = r[0][0]; i <= r[0][1]; ++i) {
            if (shape != nullptr) {
              const double px = 1e-3 * cell[0], py = 1e-3 * cell[1];
              const double x0 = world_lo[0] + i * cell[0] - px,
                           x1 = world_lo[0] + (i + 1) * cell[0] + px;
              const double y0 = world_lo[1] + j * cell[1] - py,
                           y1 = world_lo[1] + (j + 1) * cell[1] + py;
              if (!hull_meets_rect(hull, x0, x1, y0, y1)) continue;
            }
            const std::int64_t c = (k * n[1] + j) * n[0] + i;
            if (pass == 0) {
              ++counts[c];
            } else {
              g.cell_volumes[counts[c]++] = static_cast<std::int32_t>(v);
            }
          }
        }
      }
    }
  }
  g.cell_clearance = cell_clearances(g, cell);
  return g;
}

}  // namespace fastmu
