// A terrain against flat layers of the same slant depth: muons entering a
// tilted height-map surface and a flat box along the same line cross the
// same length of iron, so their survival and momentum at a detector plane
// agree (fast engine on the CPU, and the detailed engine). At kilometre
// coordinates (float ulp 0.12 mm), so that the boundary push is tested too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "../SampleComparison.hh"
#include "TestTables.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {
namespace {

constexpr double kX0 = 1000, kH0 = 2000;  // where the surface passes at x = kX0
constexpr double kSlope = 0.5;            // dh/dx
constexpr double kTheta = 0.5236;         // the muons' zenith angle (30 deg), towards +x
constexpr double kPlaneZ = kH0 - 7;       // the detector plane, inside the iron
constexpr double kStartZ = kH0 + 5;

// The entry point's z: the line from (kX0, 0, kStartZ) along
// (sin, 0, -cos) meets z = kH0 + kSlope (x - kX0).
double entry_z() {
  const double t = (kStartZ - kH0) / (kSlope * std::sin(kTheta) + std::cos(kTheta));
  return kStartZ - t * std::cos(kTheta);
}

nlohmann::json world() {
  return {{"world",
           {{"min", {kX0 - 60, -60, kH0 - 40}},
            {"max", {kX0 + 60, 60, kH0 + 40}},
            {"material", "G4_Galactic"}}},
          {"sensitive_planes", {{{"z", kPlaneZ}}}}};
}

// The tilted plane as a 5 x 4 height map (a plane is bilinear: exact).
nlohmann::json terrain_geometry() {
  const std::filesystem::path csv =
      std::filesystem::temp_directory_path() / fmt::format("fastmu_terrain_tilt_{}.csv", getpid());
  std::ofstream out(csv);
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 5; ++i) out << (i ? "," : "") << kH0 + kSlope * (-50 + 25 * i);
    out << "\n";
  }
  nlohmann::json doc = world();
  doc["terrain"] = {{"height_map", csv.string()},
                    {"x", {kX0 - 50, kX0 + 50}},
                    {"y", {-50, 50}},
                    {"bottom", kH0 - 35},
                    {"material", "G4_Fe"}};
  return doc;
}

// A flat iron box whose top is the terrain's entry point: the same slant
// depth to the plane along the muons' line.
nlohmann::json flat_geometry() {
  nlohmann::json doc = world();
  doc["volumes"] = {{{"name", "iron"},
                     {"shape", "box"},
                     {"min", {kX0 - 50, -50, kH0 - 35}},
                     {"max", {kX0 + 50, 50, entry_z()}},
                     {"material", "G4_Fe"}}};
  return doc;
}

MuonBatch beam(std::size_t n, float p) {
  MuonBatch b;
  const float s = static_cast<float>(std::sin(kTheta)), c = static_cast<float>(std::cos(kTheta));
  for (std::size_t i = 0; i < n; ++i) {
    b.push_back(p * s, 0, -p * c, static_cast<float>(kX0), 0, static_cast<float>(kStartZ), 13);
  }
  return b;
}

struct Arrivals {
  std::vector<double> p;  // momentum at the plane
  std::size_t n = 0;
  double mean_steps = 0;
};

Arrivals arrivals(const TransportResult& r) {
  Arrivals a;
  a.n = r.size();
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_NE(r.status[i], static_cast<int>(MuonStatus::step_limit)) << i;
    a.mean_steps += r.steps[i] / static_cast<double>(r.size());
    if (r.status[i] != static_cast<int>(MuonStatus::at_plane)) continue;
    EXPECT_NEAR(r.muons.z[i], kPlaneZ, 1e-3);
    a.p.push_back(std::sqrt(double(r.muons.px[i]) * r.muons.px[i] +
                            double(r.muons.py[i]) * r.muons.py[i] +
                            double(r.muons.pz[i]) * r.muons.pz[i]));
  }
  return a;
}

void expect_same(const Arrivals& a, const Arrivals& b) {
  // Survival: binomial, within four standard errors.
  const double fa = a.p.size() / double(a.n), fb = b.p.size() / double(b.n);
  const double err = std::sqrt(fa * (1 - fa) / a.n + fb * (1 - fb) / b.n);
  EXPECT_GT(fa, 0.2);
  EXPECT_LT(fa, 0.95);
  EXPECT_LE(std::abs(fa - fb), 4 * err + 1e-9) << fa << " vs " << fb;
  const double ks = test::ks_distance(a.p, b.p), crit = test::ks_critical(a.p.size(), b.p.size());
  EXPECT_LE(ks, crit);
  std::printf("survival %.4f vs %.4f (+- %.4f), KS %.4f (critical %.4f), steps %.1f vs %.1f\n", fa,
              fb, err, ks, crit, a.mean_steps, b.mean_steps);
}

// A step cut at the surface ends boundary_push beyond it: at 2 km that
// must move the float position into the next volume (20 um alone is a
// sixth of an ulp there: the step would stall), whatever the direction.
TEST(TerrainTransport, BoundaryPushCrossesTheSurfaceAtKilometres) {
  MaterialLibrary lib;
  const GeometryParams g = GeometryParams::from_json(terrain_geometry(), "t.json", lib);
  const GeometryView view = g.host_view();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(-1.f, 1.f), dx(-30.f, 30.f);
  int crossed = 0, stalled_without = 0, rays = 0;
  for (int n = 0; n < 2000; ++n) {
    Vec3f u{unit(rng), unit(rng), -std::fabs(unit(rng))};
    if (dot(u, u) < 0.04f) continue;
    u = (1.f / std::sqrt(dot(u, u))) * u;
    const Vec3f r{static_cast<float>(kX0) + dx(rng), dx(rng), static_cast<float>(kH0 + 20)};
    const std::int32_t v = view.locate(r.x, r.y, r.z).volume;
    const float d = view.distance_to_boundary(r, u, v);
    const Vec3f end = r + (d + boundary_push(r)) * u;  // as cut_at_boundary
    if (d > 100.f || !view.in_world(end.x, end.y, end.z)) continue;
    ++rays;
    crossed += view.locate(end.x, end.y, end.z).volume != v;
    const Vec3f short_end = r + (d + kBoundaryPush) * u;
    stalled_without += view.locate(short_end.x, short_end.y, short_end.z).volume == v;
  }
  EXPECT_GT(rays, 1000);
  EXPECT_EQ(crossed, rays);
  std::printf("%d of %d rays cross with boundary_push, %d stall with a 20 um push\n", crossed, rays,
              stalled_without);
}

TEST(TerrainTransport, FastEngineMatchesFlatLayersOfTheSameSlantDepth) {
  const auto table = test::test_table("G4_Fe");
  StepOptions opt;
  opt.seed = 99;
  MaterialLibrary m1, m2;
  const TransportParams terrain = make_transport_params(terrain_geometry(), "terrain.json", m1,
                                                        {{"G4_Fe", table}}, nullptr, opt);
  const TransportParams flat =
      make_transport_params(flat_geometry(), "flat.json", m2, {{"G4_Fe", table}}, nullptr, opt);
  // 15 GeV/c through 9.4 m of iron: a good part stop.
  const std::size_t n = 20000;
  const Arrivals a = arrivals(transport(terrain, beam(n, 15.f), Backend::cpu, 0));
  const Arrivals b = arrivals(transport(flat, beam(n, 15.f), Backend::cpu, 0, n));
  expect_same(a, b);
  // No stalling at the boundaries: about the steps of the flat case.
  EXPECT_LT(a.mean_steps, 1.1 * b.mean_steps + 5);
}

TEST(TerrainTransport, DetailedEngineMatchesFlatLayersOfTheSameSlantDepth) {
  MaterialLibrary lib;
  const GeometryParams terrain = GeometryParams::from_json(terrain_geometry(), "t.json", lib);
  const GeometryParams flat = GeometryParams::from_json(flat_geometry(), "f.json", lib);
  DetailedTransportOptions opt;
  opt.seed = 5;
  const std::size_t n = 600;
  const Arrivals a = arrivals(transport_detailed(terrain, lib, beam(n, 15.f), opt));
  opt.seed = 6;
  const Arrivals b = arrivals(transport_detailed(flat, lib, beam(n, 15.f), opt));
  expect_same(a, b);
}

// `fastmu run` with a bad height map: one error line, exit status 1 and no
// output file (for either engine).
TEST(TerrainTransport, RunWithABadHeightMapWritesNothing) {
  if (!std::filesystem::exists(FASTMU_BINARY)) GTEST_SKIP() << FASTMU_BINARY << " not built";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("fastmu_terrain_run_{}", getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "hill.csv") << "1,2,3\n1,nan,3\n";
  nlohmann::json doc = terrain_geometry();
  doc["terrain"]["height_map"] = "hill.csv";  // relative to the JSON's folder
  std::ofstream(dir / "geom.json") << doc.dump();
  std::ofstream(dir / "muons.csv") << "px,py,pz,x,y,z,pdg\n0,0,-10,1000,0,2005,13\n";
  for (const char* engine : {"fast", "detailed"}) {
    const std::filesystem::path out = dir / "out.csv", log = dir / "log.txt";
    const std::string cmd = fmt::format(
        "{} run --engine {} --backend cpu --geometry '{}' --muons '{}' --out '{}' > '{}' 2>&1",
        FASTMU_BINARY, engine, (dir / "geom.json").string(), (dir / "muons.csv").string(),
        out.string(), log.string());
    EXPECT_NE(std::system(cmd.c_str()), 0) << engine;
    EXPECT_FALSE(std::filesystem::exists(out)) << engine;
    std::ifstream in(log);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(text, "fastmu: error: " + (dir / "hill.csv").string() +
                        ": line 2, column 2: height nan m is not in [-1e5, 1e5] m\n")
        << engine;
  }
}

}  // namespace
}  // namespace fastmu
