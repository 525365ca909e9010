#include "fastmu/underground/SiteFlux.hh"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/flux/SeaLevelFlux.hh"
#include "fastmu/underground/SiteNodes.hh"

namespace fastmu::underground {

namespace {

using namespace site_nodes;

}  // namespace

void check_site_options(const SiteOptions& o, double depth_max) {
  if (!(o.depth_mwe >= 1) || !(o.depth_mwe <= depth_max)) {
    throw Error(fmt::format("depth: {} m.w.e. is outside [1, {}] (the slant-depth table's reach)",
                            o.depth_mwe, depth_max));
  }
  if (!(o.zenith_max_deg > 0) || !(o.zenith_max_deg <= 90)) {
    throw Error(fmt::format("zenith-max: {} deg is outside (0, 90]", o.zenith_max_deg));
  }
  if (o.zenith_bins < 1 || o.zenith_bins > 1000) {
    throw Error(fmt::format("zenith-bins: {} is outside [1, 1000]", o.zenith_bins));
  }
  if (o.azimuth_bins < 1 || o.azimuth_bins > 3600) {
    throw Error(fmt::format("azimuth-bins: {} is outside [1, 3600]", o.azimuth_bins));
  }
  if (o.energy_bins_per_decade < 1 || o.energy_bins_per_decade > 100) {
    throw Error(
        fmt::format("energy-bins: {} per decade is outside [1, 100]", o.energy_bins_per_decade));
  }
  if (!(o.energy_min > 0) || !(o.energy_max > o.energy_min) || !(o.energy_max <= 1e8)) {
    throw Error(fmt::format("energy range: [{}, {}] GeV must satisfy 0 < min < max <= 1e8",
                            o.energy_min, o.energy_max));
  }
}

void vertical_intensity(const SlantDepthTable& t, double depth, double& value, double& error) {
  AngleWeights a;
  weights_at(t, 1.0, depth, a);
  value = 0;
  for (const double w : a.w) value += w;
  error = std::sqrt(sum_squares(a.w));
}

SiteFlux site_flux(const SlantDepthTable& t, const SiteOptions& o) {
  check_site_options(o, t.depths.back());
  SiteFlux r;
  r.depth_mwe = o.depth_mwe;
  r.table_muons = t.size();
  vertical_intensity(t, o.depth_mwe, r.vertical, r.vertical_err);
  const std::vector<Node> nodes = zenith_nodes(o);
  const double c0 = cos_max_zenith(o);
  std::vector<double> zedges;
  for (int b = 0; b <= o.zenith_bins; ++b) zedges.push_back(c0 + (1.0 - c0) * b / o.zenith_bins);
  r.zenith = empty_histogram(zedges);
  r.energy = empty_histogram(energy_edges(o));
  const std::size_t ne = r.energy.value.size();

  // Per-muon sums over the angles (for the errors).
  std::vector<double> acc_h(t.size(), 0.0), acc_s(t.size(), 0.0), acc_he(t.size(), 0.0);
  std::vector<double> acc_bin(t.size(), 0.0);
  // Nodes run towards the vertical, so a muon's energy at the site only
  // grows from node to node: the energy bins it meets come in order, and one
  // running sum per muon gives its contribution to each bin.
  std::vector<int> last_ebin(t.size(), -1);
  std::vector<double> acc_ebin(t.size(), 0.0);
  std::vector<double> energy_var(ne, 0.0);
  double sum_he = 0;
  AngleWeights a;
  std::size_t bin_used = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    const Node& nd = nodes[j];
    weights_at(t, nd.c, o.depth_mwe, a);
    if (a.x > t.depths.back()) r.cos_cut = std::max(r.cos_cut, nd.hi);
    r.muons_used = std::max(r.muons_used, a.n);
    bin_used = std::max(bin_used, a.n);
    const double hw = 2 * kPi * nd.weight * nd.c, sw = 2 * kPi * nd.weight;
    for (std::size_t i = 0; i < a.n; ++i) {
      const double h = hw * a.w[i], e = t.energy_at(i, a.x);
      r.horizontal += h;
      r.sphere += sw * a.w[i];
      sum_he += h * e;
      acc_h[i] += h, acc_s[i] += sw * a.w[i], acc_he[i] += h * e;
      acc_bin[i] += h;
      const int eb = energy_bin(r.energy.edges, e);
      if (eb < 0) continue;
      r.energy.value[eb] += h;
      if (eb != last_ebin[i]) {
        if (last_ebin[i] >= 0) energy_var[last_ebin[i]] += acc_ebin[i] * acc_ebin[i];
        last_ebin[i] = eb, acc_ebin[i] = 0.0;
      }
      acc_ebin[i] += h;
    }
    const bool last_of_bin = j + 1 == nodes.size() || nodes[j + 1].bin != nd.bin;
    if (last_of_bin) {
      close_zenith_bin(r.zenith, nd.bin, acc_bin, bin_used);
    }
  }
  finish_totals(r, acc_h, acc_s, acc_he, sum_he);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (last_ebin[i] >= 0) energy_var[last_ebin[i]] += acc_ebin[i] * acc_ebin[i];
  }
  for (std::size_t b = 0; b < ne; ++b) {
    const double width = r.energy.edges[b + 1] - r.energy.edges[b];
    r.energy.value[b] /= width;
    r.energy.error[b] = std::sqrt(energy_var[b]) / width;
  }
  // No azimuth dependence: the flux spreads evenly (errors fully correlated).
  std::vector<double> aedges;
  for (int b = 0; b <= o.azimuth_bins; ++b) aedges.push_back(360.0 * b / o.azimuth_bins);
  r.azimuth = empty_histogram(aedges);
  std::fill(r.azimuth.value.begin(), r.azimuth.value.end(), r.horizontal / (2 * kPi));
  std::fill(r.azimuth.error.begin(), r.azimuth.error.end(), r.horizontal_err / (2 * kPi));
  return r;
}

std::vector<double> site_muons(const SlantDepthTable& t, const SiteOptions& o, std::size_t n,
                               double half_width, std::uint64_t seed) {
  check_site_options(o, t.depths.back());
  const std::vector<Node> nodes = zenith_nodes(o);
  // Each node's share of the flux through a horizontal surface.
  std::vector<double> node_flux(nodes.size(), 0.0);
  AngleWeights a;
  double total = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    weights_at(t, nodes[j].c, o.depth_mwe, a);
    for (std::size_t i = 0; i < a.n; ++i) node_flux[j] += a.w[i];
    node_flux[j] *= 2 * kPi * nodes[j].weight * nodes[j].c;
    total += node_flux[j];
  }
  if (!(total > 0)) throw Error("muon file: no muon reaches the site in the table");
  const double area_cm2 = 4 * half_width * half_width * 1e4;
  const double weight = total * area_cm2 / static_cast<double>(n);
  // Draw the nodes first, then the muons node by node (one cumulative sum
  // of one node's weights at a time).
  std::vector<double> cum(nodes.size());
  std::partial_sum(node_flux.begin(), node_flux.end(), cum.begin());
  std::vector<std::vector<std::size_t>> rows_of(nodes.size());
  for (std::size_t k = 0; k < n; ++k) {
    CounterRng rng(seed, k, RngStream::cosmic_flux);
    const double u = rng.uniform() * total;
    const std::size_t j = std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()),
        nodes.size() - 1);
    rows_of[j].push_back(k);
  }
  std::vector<double> rows(n * 8);
  std::vector<double> wcum;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (rows_of[j].empty()) continue;
    weights_at(t, nodes[j].c, o.depth_mwe, a);
    wcum.resize(a.n);
    std::partial_sum(a.w.begin(), a.w.end(), wcum.begin());
    for (const std::size_t k : rows_of[j]) {
      CounterRng rng(seed ^ 0x9e3779b97f4a7c15ull, k, RngStream::cosmic_flux);
      const double u = rng.uniform() * wcum.back();
      const std::size_t i = std::min<std::size_t>(
          static_cast<std::size_t>(std::upper_bound(wcum.begin(), wcum.end(), u) - wcum.begin()),
          a.n - 1);
      const double e = t.energy_at(i, a.x);
      const double p =
          std::sqrt(std::max(e * e - constants::muon_mass * constants::muon_mass, 0.0));
      const double c = nodes[j].lo + rng.uniform() * (nodes[j].hi - nodes[j].lo);
      const double s = std::sqrt(std::max(1.0 - c * c, 0.0)), phi = 2 * kPi * rng.uniform();
      double* row = &rows[k * 8];
      row[0] = p * s * std::cos(phi), row[1] = p * s * std::sin(phi), row[2] = -p * c;
      row[3] = half_width * (2 * rng.uniform() - 1), row[4] = half_width * (2 * rng.uniform() - 1);
      row[5] = 0.0, row[6] = t.pdg[i], row[7] = weight;
    }
  }
  return rows;
}

}  // namespace fastmu::underground
