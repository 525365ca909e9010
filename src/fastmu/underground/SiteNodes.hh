// The angular quadrature and per-muon weights shared by the flat and the
// terrain laboratory (SiteFlux.cc, TerrainSite.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "fastmu/flux/SeaLevelFlux.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"

namespace fastmu::underground::site_nodes {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kPerM2ToPerCm2 = 1e-4;

// Four-point Gauss-Legendre nodes and weights on [-1, 1].
inline constexpr double kGaussX[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                                      0.8611363115940526};
inline constexpr double kGaussW[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                                      0.3478548451374538};

struct Node {
  double c;       // cos(theta)
  double weight;  // its share of the integral over cos(theta)
  double lo, hi;  // the part of its bin it stands for (for drawing angles)
  int bin;        // zenith bin
};

inline double cos_max_zenith(const SiteOptions& o) {
  return o.zenith_max_deg >= 90 ? 0.0 : std::cos(o.zenith_max_deg * kPi / 180.0);
}

inline std::vector<Node> zenith_nodes(const SiteOptions& o) {
  const double c0 = cos_max_zenith(o), width = (1.0 - c0) / o.zenith_bins;
  std::vector<Node> nodes;
  for (int b = 0; b < o.zenith_bins; ++b) {
    const double lo = c0 + b * width, mid = lo + 0.5 * width;
    double edge = lo;
    for (int g = 0; g < 4; ++g) {
      const double w = 0.5 * width * kGaussW[g];
      nodes.push_back({mid + 0.5 * width * kGaussX[g], w, edge, edge + w, b});
      edge += w;
    }
  }
  return nodes;
}

// Per-muon weights at one angle: the sea-level intensity at the muon's E0
// over its sampling density [cm^-2 s^-1 sr^-1].
struct AngleWeights {
  double x = 0;       // slant depth
  std::size_t n = 0;  // muons alive there (the first n)
  std::vector<double> w;
};

// At slant depth x along a direction of cos(theta) = c.
inline void weights_at_slant(const SlantDepthTable& t, double c, double x, AngleWeights& a) {
  a.x = x;
  a.n = a.x <= t.depths.back() ? t.alive_at(a.x) : 0;
  a.w.resize(a.n);
  const double cs = flux::cos_theta_star(c);
  const double per_muon = kPerM2ToPerCm2 / static_cast<double>(t.size());
  for (std::size_t i = 0; i < a.n; ++i) {
    const double e0 = t.e0[i];
    a.w[i] = flux::intensity_at_cos_star(e0, cs) * per_muon / t.energy_density(e0);
  }
}

inline void weights_at(const SlantDepthTable& t, double c, double depth, AngleWeights& a) {
  weights_at_slant(t, c, depth / c, a);
}

inline Histogram empty_histogram(std::vector<double> edges) {
  Histogram h;
  h.value.assign(edges.size() - 1, 0.0);
  h.error.assign(edges.size() - 1, 0.0);
  h.edges = std::move(edges);
  return h;
}

inline std::vector<double> energy_edges(const SiteOptions& o) {
  const int n = static_cast<int>(
      std::ceil(std::log10(o.energy_max / o.energy_min) * o.energy_bins_per_decade - 1e-9));
  std::vector<double> e;
  for (int i = 0; i <= n; ++i)
    e.push_back(o.energy_min * std::pow(10.0, double(i) / o.energy_bins_per_decade));
  return e;
}

inline int energy_bin(const std::vector<double>& edges, double e) {
  if (e < edges.front() || e >= edges.back()) return -1;
  return static_cast<int>(std::upper_bound(edges.begin(), edges.end(), e) - edges.begin() - 1);
}

inline double sum_squares(const std::vector<double>& v) {
  double s = 0;
  for (const double x : v) s += x * x;
  return s;
}

// Closes zenith bin `bin` of `h`: its value and error from the per-muon
// sums acc_bin[0, used) over the bin's nodes [per unit cos(theta)], which are
// then cleared for the next bin.
inline void close_zenith_bin(Histogram& h, int bin, std::vector<double>& acc_bin,
                             std::size_t& used) {
  const double width = h.edges[bin + 1] - h.edges[bin];
  double sum = 0;
  for (std::size_t i = 0; i < used; ++i) sum += acc_bin[i];
  h.value[bin] = sum / width;
  h.error[bin] = std::sqrt(sum_squares(acc_bin)) / width;
  std::fill(acc_bin.begin(), acc_bin.begin() + static_cast<std::ptrdiff_t>(used), 0.0);
  used = 0;
}

// The totals' errors and the mean energy with its error, from each table
// muon's sums over the angles (horizontal, sphere, horizontal x energy).
inline void finish_totals(SiteFlux& r, const std::vector<double>& acc_h,
                          const std::vector<double>& acc_s, const std::vector<double>& acc_he,
                          double sum_he) {
  r.horizontal_err = std::sqrt(sum_squares(acc_h));
  r.sphere_err = std::sqrt(sum_squares(acc_s));
  if (!(r.horizontal > 0)) return;
  r.mean_energy = sum_he / r.horizontal;
  double var = 0;
  for (std::size_t i = 0; i < acc_h.size(); ++i) {
    const double d = acc_he[i] - r.mean_energy * acc_h[i];
    var += d * d;
  }
  r.mean_energy_err = std::sqrt(var) / r.horizontal;
}

}  // namespace fastmu::underground::site_nodes
