// The muon flux in a laboratory under a flat overburden, from a material's
// slant-depth table (SlantDepthTable.hh) and the sea-level flux of Guan et
// al. (flux/SeaLevelFlux.hh).
//
// A muon arriving at zenith angle theta crossed the slant depth X = h /
// cos(theta). Each table muon alive at X stands for the sea-level intensity
// at its energy and angle over the density its energy was drawn from, so
//   I(theta) = sum_i I0(E0_i, theta) / (N q(E0_i))      [cm^-2 s^-1 sr^-1],
// and the fluxes are integrals over the upper hemisphere (Gauss-Legendre in
// cos(theta), four points per zenith bin; the flux has no azimuth
// dependence: no geomagnetic effects, a flat overburden):
//   through a horizontal surface  2 pi int I cos(theta) dcos(theta),
//   through a sphere (per unit cross section)  2 pi int I dcos(theta).
// Statistical errors: the table's muons are the independent draws; each
// muon's contributions to a result are summed over the angles before
// squaring, so the errors count the correlations between angles.
#pragma once

#include <cstddef>
#include <vector>

#include "fastmu/underground/SlantDepthTable.hh"

namespace fastmu::underground {

struct SiteOptions {
  double depth_mwe = 0;        // vertical depth [m.w.e. of the table's material]
  double zenith_max_deg = 90;  // muons up to this zenith angle are counted
  int zenith_bins = 20;        // uniform in cos(theta) on [cos(zenith_max), 1]
  int azimuth_bins = 12;
  int energy_bins_per_decade = 10;            // log bins of underground energy
  double energy_min = 0.1, energy_max = 1e6;  // GeV
};

// One line naming the bad option, before any table work: 1 <= depth <= the
// deepest slant depth the tables reach (passed in), 0 < zenith_max <= 90,
// 1 <= zenith bins <= 1000, 1 <= azimuth bins <= 3600, 1 <= bins per decade
// <= 100, 0 < energy_min < energy_max <= 1e8.
void check_site_options(const SiteOptions& o, double depth_max_mwe);

struct Histogram {
  std::vector<double> edges;  // n + 1
  std::vector<double> value;  // density per unit of the axis
  std::vector<double> error;
};

struct SiteFlux {
  double depth_mwe = 0;
  double horizontal = 0, horizontal_err = 0;    // cm^-2 s^-1 through a horizontal surface
  double sphere = 0, sphere_err = 0;            // cm^-2 s^-1 through a sphere, per cross section
  double vertical = 0, vertical_err = 0;        // cm^-2 s^-1 sr^-1
  double mean_energy = 0, mean_energy_err = 0;  // GeV, of the muons through a horizontal surface
  // Zenith angles whose slant depth lies beyond the table (cos below this)
  // are not counted; 0 when none.
  double cos_cut = 0;
  std::size_t table_muons = 0;  // muons in the table
  std::size_t muons_used = 0;   // table muons that reach the site at some angle
  Histogram energy;             // dPhi/dE [cm^-2 s^-1 GeV^-1], edges in GeV (horizontal surface)
  Histogram zenith;             // dPhi/dcos(theta) [cm^-2 s^-1], edges in cos(theta)
  Histogram azimuth;            // dPhi/dphi [cm^-2 s^-1 rad^-1], edges in degrees
};

SiteFlux site_flux(const SlantDepthTable& table, const SiteOptions& options);

// The vertical intensity [cm^-2 s^-1 sr^-1] at depth h and its error.
void vertical_intensity(const SlantDepthTable& table, double depth_mwe, double& value,
                        double& error);

// Underground muons drawn from a site's flux: n rows px,py,pz,x,y,z,pdg,weight
// crossing the horizontal square |x|, |y| <= half_width_m at z = 0 going down,
// each weighted by the flux through the square over n [s^-1] (as
// `fastmu flux` weights). The zenith angle is drawn within the Gauss node's
// share of its bin, the azimuth uniform; momentum and charge are those of a
// table muon at the node's slant depth. Keyed by seed.
std::vector<double> site_muons(const SlantDepthTable& table, const SiteOptions& options,
                               std::size_t n, double half_width_m, std::uint64_t seed);

}  // namespace fastmu::underground
