// A sensitive plane on a volume's face records every muon that reaches it:
// planes exactly on the entry and exit faces of an iron box and an ARB8, and
// one float ulp either side. Muons that end a whole step just before the
// exit face used to be carried across the plane by the mid-step kick's shift
// and reported as leaving the world (0.2 % of them, StepPhysics.hh).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "TestTables.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/transport/Transport.hh"
#include "fastmu/transport/examples/Examples.hh"

namespace fastmu {
namespace {

constexpr double kEntry = 0.0, kExit = 0.5;  // the volume's faces [m]

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

void expect_every_muon_at_plane(const std::string& shape, double face, int ulps) {
  float z = static_cast<float>(face);
  for (int k = 0; k < std::abs(ulps); ++k) z = std::nextafter(z, ulps > 0 ? 1.0f : -1.0f);
  nlohmann::json g = {
      {"world", {{"min", {-2, -2, -1}}, {"max", {2, 2, 1.5}}, {"material", "vacuum"}}},
      {"volumes", {volume(shape)}},
      {"sensitive_planes", {{{"z", z}, {"x", {-2, 2}}, {"y", {-2, 2}}}}}};
  MaterialLibrary materials;
  StepOptions opt;
  opt.seed = 11;
  opt.decay = false;
  const TransportParams params =
      make_transport_params(g, shape, materials, {}, &test::test_table_cache(), opt);
  const std::size_t n = 20000;
  const TransportResult r = transport(params, beam(n), Backend::cpu, 2);
  std::size_t at_plane = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Every muon reaches the plane: none stops in 0.5 m of iron at 4 GeV/c.
    at_plane += r.status[i] == static_cast<std::int32_t>(MuonStatus::at_plane);
    if (r.status[i] == static_cast<std::int32_t>(MuonStatus::at_plane)) {
      ASSERT_EQ(r.muons.z[i], z) << shape << " muon " << i;
    }
  }
  EXPECT_EQ(at_plane, n) << shape << " plane at z = " << z << " (" << ulps << " ulp from " << face
                         << ")";
}

TEST(PlaneOnFace, BoxEntryAndExitFacesAndOneUlpEitherSide) {
  for (double face : {kEntry, kExit}) {
    for (int ulps : {-1, 0, 1}) expect_every_muon_at_plane("box", face, ulps);
  }
}

TEST(PlaneOnFace, Arb8EntryAndExitFacesAndOneUlpEitherSide) {
  for (double face : {kEntry, kExit}) {
    for (int ulps : {-1, 0, 1}) expect_every_muon_at_plane("arb8", face, ulps);
  }
}

}  // namespace
}  // namespace fastmu
