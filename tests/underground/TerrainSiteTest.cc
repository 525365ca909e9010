// A laboratory under a terrain, from a small slant-depth table of standard
// rock (5000 sea-level muons, tables from the test cache): a flat height map
// gives the flat overburden's results, a tilted plane's flux comes mostly
// from its thin side, and bad sites are refused with one line before any
// table work.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/tables/TableCache.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/underground/SiteFlux.hh"
#include "fastmu/underground/SlantDepthTable.hh"
#include "fastmu/underground/TerrainSite.hh"

namespace fastmu::underground {
namespace {

const SlantDepthTable& rock_table() {
  static const SlantDepthTable t = [] {
    SlantTableOptions o;
    o.muons = 5000;
    o.depth_max_mwe = 12000;
    o.seed = 7;
    MaterialLibrary materials;
    TableCache cache;
    return slant_depth_table("StandardRock", materials, cache, o, Backend::cpu, 0, false);
  }();
  return t;
}

// A 2 x 2 map over [-2000, 2000]^2 m: height a + b x.
TerrainSite plane_site(double a, double b, double lab_z) {
  TerrainSite s;
  s.map.nx = 2, s.map.ny = 2;
  s.map.heights = {a - 2000 * b, a + 2000 * b, a - 2000 * b, a + 2000 * b};
  s.x_min = -2000, s.x_max = 2000, s.y_min = -2000, s.y_max = 2000;
  s.lab = {0.0, 0.0, lab_z};
  s.density = 2.65;
  return s;
}

void expect_rel(double a, double b, double tol, const std::string& what) {
  EXPECT_LE(std::abs(a - b), tol * std::abs(b) + 1e-300) << what << ": " << a << " vs " << b;
}

TEST(TerrainSite, RockPathUnderAFlatMapIsDepthOverCos) {
  TerrainSite s = plane_site(500, 0, -500);
  for (const double c : {1.0, 0.7, 0.2, 0.05}) {
    const double sn = std::sqrt(1 - c * c);
    expect_rel(rock_path(s, {sn * 0.6, sn * 0.8, c}, 1e6), 1000 / c, 1e-12, "path");
  }
  EXPECT_TRUE(std::isinf(rock_path(s, {0.0, 0.8, 0.6}, 1000)));
}

TEST(TerrainSite, FlatMapGivesTheFlatAnswer) {
  const SlantDepthTable& t = rock_table();
  SiteOptions o;
  o.zenith_bins = 10;
  o.azimuth_bins = 8;
  const TerrainSiteFlux tf = terrain_site_flux(t, o, plane_site(500, 0, -500));
  o.depth_mwe = 1000 * 2.65;
  const SiteFlux flat = site_flux(t, o);
  const SiteFlux& r = tf.flux;
  const double tol = 1e-6;
  expect_rel(r.depth_mwe, flat.depth_mwe, 1e-12, "depth");
  expect_rel(r.horizontal, flat.horizontal, tol, "horizontal");
  expect_rel(r.horizontal_err, flat.horizontal_err, tol, "horizontal_err");
  expect_rel(r.sphere, flat.sphere, tol, "sphere");
  expect_rel(r.sphere_err, flat.sphere_err, tol, "sphere_err");
  expect_rel(r.vertical, flat.vertical, tol, "vertical");
  expect_rel(r.mean_energy, flat.mean_energy, tol, "mean_energy");
  expect_rel(r.mean_energy_err, flat.mean_energy_err, tol, "mean_energy_err");
  EXPECT_EQ(r.muons_used, flat.muons_used);
  EXPECT_NEAR(tf.uncounted, flat.cos_cut, 1e-12);
  for (std::size_t b = 0; b < r.energy.value.size(); ++b) {
    expect_rel(r.energy.value[b], flat.energy.value[b], tol, "energy " + std::to_string(b));
    expect_rel(r.energy.error[b], flat.energy.error[b], tol, "energy err " + std::to_string(b));
  }
  for (std::size_t b = 0; b < r.zenith.value.size(); ++b) {
    expect_rel(r.zenith.value[b], flat.zenith.value[b], tol, "zenith " + std::to_string(b));
    expect_rel(r.zenith.error[b], flat.zenith.error[b], tol, "zenith err " + std::to_string(b));
  }
  for (std::size_t b = 0; b < r.azimuth.value.size(); ++b)
    expect_rel(r.azimuth.value[b], flat.azimuth.value[b], tol, "azimuth " + std::to_string(b));
}

TEST(TerrainSite, TiltedPlaneFavoursTheThinSide) {
  // Surface z = x / 2: the rock is thin towards -x, so muons coming from -x
  // (moving towards +x, azimuth near 0) dominate.
  SiteOptions o;
  o.zenith_bins = 10;
  o.azimuth_bins = 12;
  const TerrainSiteFlux tf = terrain_site_flux(rock_table(), o, plane_site(0, 0.5, -500));
  const Histogram& az = tf.flux.azimuth;
  EXPECT_NEAR(tf.flux.depth_mwe, 500 * 2.65, 1e-9);
  EXPECT_GT(tf.uncounted, 0.0);
  const double thin = az.value[0] + az.value[11], thick = az.value[5] + az.value[6];
  // Bins share muons: the linear sum of their errors bounds the difference's.
  const double err = az.error[0] + az.error[11] + az.error[5] + az.error[6];
  EXPECT_GT(thin - thick, 3 * err) << thin << " vs " << thick;
  EXPECT_GT(thin, 3 * thick);
  // The azimuth distribution integrates to the total flux.
  double sum = 0;
  for (std::size_t b = 0; b < az.value.size(); ++b)
    sum += az.value[b] * (az.edges[b + 1] - az.edges[b]) * M_PI / 180;
  expect_rel(sum, tf.flux.horizontal, 1e-9, "azimuth integral");
}

TEST(TerrainSite, BadSitesAreRefusedWithOneLine) {
  auto refused = [](const TerrainSite& s) {
    try {
      check_terrain_site(s);
    } catch (const Error& e) {
      return std::string(e.what()).find('\n') == std::string::npos;
    }
    return false;
  };
  EXPECT_NO_THROW(check_terrain_site(plane_site(0, 0.5, -500)));
  EXPECT_TRUE(refused(plane_site(0, 0.5, 10)));  // above the surface
  TerrainSite s = plane_site(0, 0.5, -500);
  s.lab[0] = 2500;
  EXPECT_TRUE(refused(s));  // outside the rectangle
  s = plane_site(0, 0.5, -500);
  s.density = 0;
  EXPECT_TRUE(refused(s));
  s = plane_site(0, 0.5, -500);
  s.x_max = s.x_min;
  EXPECT_TRUE(refused(s));
  s = plane_site(0, 0.5, -500);
  s.lab[2] = NAN;
  EXPECT_TRUE(refused(s));
}

}  // namespace
}  // namespace fastmu::underground
