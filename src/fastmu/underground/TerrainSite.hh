// A laboratory under a terrain: the rock fills everything below a height
// map's surface (bilinear in each cell, as the geometry's terrain reads it);
// the air above is neglected. Each direction's slant depth is the rock's
// density times the path length from the lab up to where the ray leaves
// the surface. Beyond the map's rectangle the surface continues with the
// height at the map's edge (clamped coordinates).
#pragma once

#include <array>
#include <cstddef>

#include "fastmu/geometry/HeightMap.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"

namespace fastmu::underground {

struct TerrainSite {
  HeightMap map;
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // the map's rectangle [m]
  std::array<double, 3> lab{};                        // the lab's position [m]
  double density = 2.65;                              // the rock's density [g/cm^3]
};

// One line naming the bad input, before any table work: the rectangle
// non-empty, the density in (0, 100] g/cm^3, the lab inside the rectangle
// and at least 1 cm below the surface.
void check_terrain_site(const TerrainSite& s);

// The surface height at (x, y), coordinates clamped to the rectangle.
double surface_height(const TerrainSite& s, double x, double y);

// The path length [m] in rock from the lab along the unit direction `dir`
// (dir[2] > 0) up to where it leaves the surface; a value above max_path_m
// when the ray has not left the rock by then.
double rock_path(const TerrainSite& s, const std::array<double, 3>& dir, double max_path_m);

struct TerrainSiteFlux {
  SiteFlux flux;             // flux.depth_mwe: the vertical depth above the lab
  double uncounted = 0;      // fraction of the solid angle (within zenith_max) beyond the table
  double max_slant_mwe = 0;  // the largest slant depth among the counted directions
};

// As site_flux, summed over zenith nodes x azimuth bins (each 1/azimuth_bins
// of the circle); options.depth_mwe is ignored. The azimuth is that of the
// muon's momentum (as site_muons draws it): it comes from phi + 180 deg.
TerrainSiteFlux terrain_site_flux(const SlantDepthTable& table, const SiteOptions& options,
                                  const TerrainSite& site);

}  // namespace fastmu::underground
