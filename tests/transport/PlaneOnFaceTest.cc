// A sensitive plane on a volume's face records every muon that reaches it:
// planes exactly on the entry and exit faces of an iron box, an ARB8 and a
// terrain (flat surface, flat bottom), and one float ulp either side, on the
// CPU's lanes, the per-muon step the GPU shares (transport_muon) and, where
// there is one, the GPU. Muons that end a whole step just before the exit
// face used to be carried across the plane by the mid-step kick's shift and
// reported as leaving the world (0.2 % of them, StepPhysics.hh).
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/TransportParams.hh"
#include "fastmu/transport/examples/Examples.hh"
#include "fastmu/transport/step/StepPhysics.hh"

namespace fastmu {
namespace {

constexpr double kEntry = 0.0, kExit = 0.5;  // the volume's faces [m]

// A flat height map at the exit face over [-1, 1] x [-1, 1] (3 x 3 points).
std::string flat_height_map() {
  const auto csv = std::filesystem::temp_directory_path() /
                   ("fastmu_plane_on_face_" + std::to_string(::getpid()) + ".csv");
  std::ofstream out(csv);
  for (int j = 0; j < 3; ++j) out << kExit << ',' << kExit << ',' << kExit << '\n';
  return csv.string();
}

nlohmann::json volume(const std::string& shape) {
  if (shape == "box") {
    return {{"name", "v"},
            {"shape", "box"},
            {"min", {-1, -1, kEntry}},
            {"max", {1, 1, kExit}},
            {"material", "G4_Fe"}};
  }
  return {
      {"name", "v"},
      {"shape", "arb8"},
      {"z_center", 0.5 * (kEntry + kExit)},
      {"dz", 0.5 * (kExit - kEntry)},
      {"vertices",
       {{-1, -1}, {-1, 1}, {1, 1}, {1, -1}, {-0.9, -0.9}, {-0.9, 0.9}, {0.9, 0.9}, {0.9, -0.9}}},
      {"material", "G4_Fe"}};
}

// A pencil beam of 4 GeV/c muons along +z from z = -0.5 m (below the long
// steps' 5 GeV/c: 2 cm steps, which end 25 steps later within microns of
// the exit face; the old step missed 14 to 16 of 20000 there).
MuonBatch beam(std::size_t n) {
  MuonBatch m;
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.px[i] = 0, m.py[i] = 0, m.pz[i] = 4.0f;
    m.x[i] = 0.001f * static_cast<float>(i % 17), m.y[i] = 0, m.z[i] = -0.5f;
    m.pdg[i] = i % 2 ? 13 : -13, m.weight[i] = 1;
  }
  return m;
}

// Where the muons are transported: the CPU's SIMD lanes, the per-muon step
// the GPU kernel runs (on the host), the GPU.
enum class Lane { cpu_lanes, shared_step, gpu };

TransportParams params_for(const std::string& shape, float z) {
  nlohmann::json g = {
      {"world", {{"min", {-2, -2, -1}}, {"max", {2, 2, 1.5}}, {"material", "vacuum"}}},
      {"sensitive_planes", {{{"z", z}, {"x", {-2, 2}}, {"y", {-2, 2}}}}}};
  if (shape == "terrain") {
    // The surface is the exit face, the bottom the entry face.
    g["terrain"] = {{"height_map", flat_height_map()},
                    {"x", {-1, 1}},
                    {"y", {-1, 1}},
                    {"bottom", kEntry},
                    {"material", "G4_Fe"}};
  } else {
    g["volumes"] = nlohmann::json::array({volume(shape)});
  }
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 11;
  opt.decay = false;
  return make_transport_params(g, shape, materials, {}, &test::test_table_cache(), opt);
}

// Status and z of each muon at its end.
struct Ends {
  std::vector<std::int32_t> status;
  std::vector<float> z, pz;
};

Ends transport_on(const TransportParams& params, const MuonBatch& in, Lane lane) {
  Ends e;
  if (lane == Lane::shared_step) {
    HostTransportView host(params);
    for (std::size_t i = 0; i < in.size(); ++i) {
      MuonTrack m = make_track(in, i, host.view.options, 0);
      transport_muon(host.view, m, i);
      e.status.push_back(m.status);
      e.z.push_back(m.r.z);
      e.pz.push_back(m.p.z);
    }
    return e;
  }
  const TransportResult r =
      transport(params, in, lane == Lane::gpu ? Backend::cuda : Backend::cpu, 2);
  e.status = r.status;
  e.z = r.muons.z;
  e.pz = r.muons.pz;
  return e;
}

void expect_every_muon_at_plane(const std::string& shape, double face, int ulps, Lane lane) {
  float z = static_cast<float>(face);
  for (int k = 0; k < std::abs(ulps); ++k) z = std::nextafter(z, ulps > 0 ? 1.0f : -1.0f);
  const TransportParams params = params_for(shape, z);
  const std::size_t n = lane == Lane::shared_step ? 5000 : 20000;
  const Ends r = transport_on(params, beam(n), lane);
  ASSERT_EQ(r.status.size(), n);
  std::size_t at_plane = 0;
  double pz_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    pz_sum += r.pz[i];
    // Every muon reaches the plane: none stops in 0.5 m of iron at 4 GeV/c.
    at_plane += r.status[i] == static_cast<std::int32_t>(MuonStatus::at_plane);
    if (r.status[i] == static_cast<std::int32_t>(MuonStatus::at_plane)) {
      ASSERT_EQ(r.z[i], z) << shape << " muon " << i;
    }
  }
  // Behind the exit face the muons crossed the iron (about 0.5 m x 1.2 GeV/m).
  if (face == kExit && ulps >= 0) EXPECT_LT(pz_sum / n, 3.6) << shape << " lost no momentum";
  EXPECT_EQ(at_plane, n) << shape << " plane at z = " << z << " (" << ulps << " ulp from " << face
                         << "), lane " << static_cast<int>(lane);
}

void expect_on_faces(const std::string& shape, Lane lane) {
  for (double face : {kEntry, kExit}) {
    for (int ulps : {-1, 0, 1}) expect_every_muon_at_plane(shape, face, ulps, lane);
  }
}

TEST(PlaneOnFace, BoxEntryAndExitFacesAndOneUlpEitherSide) {
  expect_on_faces("box", Lane::cpu_lanes);
  expect_on_faces("box", Lane::shared_step);
}

TEST(PlaneOnFace, Arb8EntryAndExitFacesAndOneUlpEitherSide) {
  expect_on_faces("arb8", Lane::cpu_lanes);
  expect_on_faces("arb8", Lane::shared_step);
}

TEST(PlaneOnFace, TerrainBottomAndSurfaceAndOneUlpEitherSide) {
  expect_on_faces("terrain", Lane::cpu_lanes);
  expect_on_faces("terrain", Lane::shared_step);
}

TEST(PlaneOnFace, OnTheGpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)";
  for (const char* shape : {"box", "arb8", "terrain"}) expect_on_faces(shape, Lane::gpu);
}

}  // namespace
}  // namespace fastmu
