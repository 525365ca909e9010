#include "fastmu/underground/TerrainSite.hh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "fastmu/core/Error.hh"
#include "fastmu/underground/SiteNodes.hh"

namespace fastmu::underground {

using namespace site_nodes;

namespace {

double cell_size(const TerrainSite& s) {
  return std::min((s.x_max - s.x_min) / (s.map.nx - 1), (s.y_max - s.y_min) / (s.map.ny - 1));
}

// Height of the ray above the surface at path length t.
double clearance(const TerrainSite& s, const std::array<double, 3>& dir, double t) {
  const auto& p = s.lab;
  return p[2] + t * dir[2] - surface_height(s, p[0] + t * dir[0], p[1] + t * dir[1]);
}

// Per muon, its sums over the directions in each bin of a histogram (a
// muon's energy at the site need not grow from one direction to the next
// under a terrain, so the bins it meets come in any order): the bins'
// variances count the correlations between directions.
class PerMuonBins {
 public:
  explicit PerMuonBins(std::size_t muons) : sums_(muons) {}
  void add(std::size_t muon, int bin, double x) {
    for (auto& [b, sum] : sums_[muon]) {
      if (b == bin) {
        sum += x;
        return;
      }
    }
    sums_[muon].emplace_back(bin, x);
  }
  std::vector<double> variances(std::size_t bins) const {
    std::vector<double> var(bins, 0.0);
    for (const auto& m : sums_)
      for (const auto& [b, sum] : m) var[static_cast<std::size_t>(b)] += sum * sum;
    return var;
  }

 private:
  std::vector<std::vector<std::pair<int, double>>> sums_;
};

void finish_histogram(Histogram& h, const std::vector<double>& var, double scale) {
  for (std::size_t b = 0; b < h.value.size(); ++b) {
    const double width = (h.edges[b + 1] - h.edges[b]) * scale;
    h.value[b] /= width;
    h.error[b] = std::sqrt(var[b]) / width;
  }
}

}  // namespace

void check_terrain_site(const TerrainSite& s) {
  if (s.map.nx < 2 || s.map.ny < 2 ||
      s.map.heights.size() != static_cast<std::size_t>(s.map.nx) * s.map.ny) {
    throw Error(fmt::format("terrain: {} x {} nodes with {} heights; at least 2 x 2 nodes needed",
                            s.map.nx, s.map.ny, s.map.heights.size()));
  }
  if (!(s.x_min < s.x_max) || !(s.y_min < s.y_max) || !std::isfinite(s.x_max - s.x_min) ||
      !std::isfinite(s.y_max - s.y_min)) {
    throw Error(fmt::format("terrain: the rectangle x [{}, {}], y [{}, {}] m must have min < max",
                            s.x_min, s.x_max, s.y_min, s.y_max));
  }
  if (!(s.density > 0) || !(s.density <= 100)) {
    throw Error(fmt::format("density: {} g/cm^3 is outside (0, 100]", s.density));
  }
  const auto& p = s.lab;
  if (!(p[0] >= s.x_min && p[0] <= s.x_max && p[1] >= s.y_min && p[1] <= s.y_max) ||
      !std::isfinite(p[2])) {
    throw Error(
        fmt::format("lab: ({}, {}, {}) m is outside the terrain's rectangle x [{}, {}], "
                    "y [{}, {}] m",
                    p[0], p[1], p[2], s.x_min, s.x_max, s.y_min, s.y_max));
  }
  const double h = surface_height(s, p[0], p[1]);
  if (!(p[2] <= h - 0.01)) {
    throw Error(
        fmt::format("lab: z = {} m is not below the surface there ({} m; at least 1 cm "
                    "below)",
                    p[2], h));
  }
}

double surface_height(const TerrainSite& s, double x, double y) {
  const int nx = s.map.nx, ny = s.map.ny;
  const double gx = std::clamp((x - s.x_min) / (s.x_max - s.x_min), 0.0, 1.0) * (nx - 1);
  const double gy = std::clamp((y - s.y_min) / (s.y_max - s.y_min), 0.0, 1.0) * (ny - 1);
  const int i = std::min(static_cast<int>(gx), nx - 2), j = std::min(static_cast<int>(gy), ny - 2);
  const double u = gx - i, v = gy - j;
  const double* h = &s.map.heights[static_cast<std::size_t>(j) * nx + i];
  return (1 - v) * ((1 - u) * h[0] + u * h[1]) + v * ((1 - u) * h[nx] + u * h[nx + 1]);
}

// At most this many march steps per ray: a map of tiny cells under a long
// slant path is marched more coarsely rather than for minutes.
constexpr double kMaxMarchSteps = 20000;

double rock_path(const TerrainSite& s, const std::array<double, 3>& dir, double max_path) {
  // March a quarter cell horizontally at a time (a crossing that enters and
  // leaves the rock within one step is missed), then bisect the crossing.
  const double horizontal = std::hypot(dir[0], dir[1]);
  const double step = horizontal > 0 ? std::clamp(0.25 * cell_size(s) / horizontal,
                                                  max_path / kMaxMarchSteps, max_path)
                                     : max_path;
  for (double lo = 0; lo < max_path;) {
    double hi = std::min(lo + step, max_path);
    if (clearance(s, dir, hi) > 0) {
      for (int k = 0; k < 200 && hi - lo > 1e-13 * hi; ++k) {
        const double mid = 0.5 * (lo + hi);
        (clearance(s, dir, mid) > 0 ? hi : lo) = mid;
      }
      return hi;
    }
    lo = hi;
  }
  return std::numeric_limits<double>::infinity();
}

TerrainSiteFlux terrain_site_flux(const SlantDepthTable& t, const SiteOptions& options,
                                  const TerrainSite& site) {
  check_terrain_site(site);
  const double reach = t.depths.back();
  // 1 m of rock of density rho g/cm^3 is rho m.w.e.
  const double max_path = reach / site.density;
  SiteOptions o = options;
  o.depth_mwe = site.density * rock_path(site, {0.0, 0.0, 1.0}, max_path);
  check_site_options(o, reach);

  TerrainSiteFlux out;
  SiteFlux& r = out.flux;
  r.depth_mwe = o.depth_mwe;
  r.table_muons = t.size();
  vertical_intensity(t, o.depth_mwe, r.vertical, r.vertical_err);
  const std::vector<Node> nodes = zenith_nodes(o);
  const double c0 = cos_max_zenith(o);
  std::vector<double> zedges, aedges;
  for (int b = 0; b <= o.zenith_bins; ++b) zedges.push_back(c0 + (1.0 - c0) * b / o.zenith_bins);
  for (int b = 0; b <= o.azimuth_bins; ++b) aedges.push_back(360.0 * b / o.azimuth_bins);
  r.zenith = empty_histogram(zedges);
  r.energy = empty_histogram(energy_edges(o));
  r.azimuth = empty_histogram(aedges);

  std::vector<double> acc_h(t.size(), 0.0), acc_s(t.size(), 0.0), acc_he(t.size(), 0.0);
  std::vector<double> acc_bin(t.size(), 0.0);
  PerMuonBins ebins(t.size()), abins(t.size());
  const int na = o.azimuth_bins;
  double sum_he = 0, uncounted = 0;
  AngleWeights a;
  std::size_t bin_used = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    const Node& nd = nodes[j];
    const double sin_t = std::sqrt(std::max(1.0 - nd.c * nd.c, 0.0));
    const double hw = 2 * kPi * nd.weight * nd.c / na, sw = 2 * kPi * nd.weight / na;
    for (int k = 0; k < na; ++k) {
      // The muon moves towards phi (bin centre), so it comes from phi + pi.
      const double phi = 2 * kPi * (k + 0.5) / na;
      const std::array<double, 3> dir{-sin_t * std::cos(phi), -sin_t * std::sin(phi), nd.c};
      const double x = site.density * rock_path(site, dir, max_path);
      if (!(x <= reach)) {
        uncounted += nd.weight / na;
        continue;
      }
      out.max_slant_mwe = std::max(out.max_slant_mwe, x);
      weights_at_slant(t, nd.c, x, a);
      r.muons_used = std::max(r.muons_used, a.n);
      bin_used = std::max(bin_used, a.n);
      for (std::size_t i = 0; i < a.n; ++i) {
        const double h = hw * a.w[i], e = t.energy_at(i, x);
        r.horizontal += h;
        r.sphere += sw * a.w[i];
        sum_he += h * e;
        acc_h[i] += h, acc_s[i] += sw * a.w[i], acc_he[i] += h * e;
        acc_bin[i] += h;
        r.azimuth.value[k] += h;
        abins.add(i, k, h);
        const int eb = energy_bin(r.energy.edges, e);
        if (eb < 0) continue;
        r.energy.value[eb] += h;
        ebins.add(i, eb, h);
      }
    }
    // The azimuths of one node run inside it, so a zenith bin's directions
    // are consecutive: one running sum per muon per bin.
    const bool last_of_bin = j + 1 == nodes.size() || nodes[j + 1].bin != nd.bin;
    if (last_of_bin) {
      close_zenith_bin(r.zenith, nd.bin, acc_bin, bin_used);
    }
  }
  out.uncounted = uncounted / (1.0 - c0);
  finish_totals(r, acc_h, acc_s, acc_he, sum_he);
  finish_histogram(r.energy, ebins.variances(r.energy.value.size()), 1.0);
  finish_histogram(r.azimuth, abins.variances(r.azimuth.value.size()), kPi / 180.0);
  return out;
}

}  // namespace fastmu::underground
