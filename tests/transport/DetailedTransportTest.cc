// The detailed engine through geometries (transport_detailed): against the
// homogeneous-slab engine, across thin layers, along curved tracks through
// ARB8 faces, at sensitive planes, and independent of the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/MuonStepper.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/transport/DetailedRegion.hh"
#include "fastmu/transport/DetailedTransport.hh"

namespace fastmu {
namespace {

nlohmann::json world(const std::string& material, double z0, double z1) {
  return {{"world", {{"min", {-20, -20, z0}}, {"max", {20, 20, z1}}, {"material", material}}},
          {"volumes", nlohmann::json::array()}};
}

nlohmann::json slab(const std::string& name, double z0, double z1, const std::string& material,
                    std::array<double, 3> field = {0, 0, 0}) {
  return {{"name", name}, {"shape", "box"}, {"min", {-20, -20, z0}}, {"max", {20, 20, z1}},
          {"material", material}, {"field", field}};
}

MuonBatch beam(std::size_t n, double p, double z) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i) b.push_back(0, 0, static_cast<float>(p), 0, 0, static_cast<float>(z), 13);
  return b;
}

struct Moments {
  double mean = 0, err = 0;
};
Moments moments(const std::vector<double>& v) {
  double s = 0, s2 = 0;
  for (double x : v) s += x, s2 += x * x;
  const double n = static_cast<double>(v.size()), m = s / n;
  return {m, std::sqrt(std::max(s2 / n - m * m, 0.0) / n)};
}

double momentum(const MuonBatch& b, std::size_t i) {
  return std::sqrt(double(b.px[i]) * b.px[i] + double(b.py[i]) * b.py[i] + double(b.pz[i]) * b.pz[i]);
}

// A one-box geometry is the slab of `physics transport`: same loss and
// spread (same random streams; the float geometry only moves the exit by rounding).
TEST(DetailedTransport, OneBoxIsTheSlabEngine) {
  MaterialLibrary lib;
  auto doc = world("G4_Galactic", -1, 1.5);
  doc["volumes"].push_back(slab("fe", 0, 1.0, "G4_Fe"));
  doc["sensitive_planes"] = {{{"z", 1.2}, {"x", {-20, 20}}, {"y", {-20, 20}}}};
  const GeometryParams g = GeometryParams::from_json(doc, "one_box.json", lib);
  const std::size_t n = 3000;
  DetailedTransportOptions opt;
  opt.seed = 7;
  const TransportResult r = transport_detailed(g, lib, beam(n, 10.0, 0.0), opt);
  const auto ref = transport_slab(lib.find("G4_Fe"), 1.0, 10.0, 10.0, n, -1, Vec3{}, 7, 0);
  std::vector<double> loss, loss_ref, x, x_ref;
  std::size_t same = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.status[i], static_cast<int>(MuonStatus::at_plane)) << i;
    EXPECT_FLOAT_EQ(r.muons.z[i], 1.2f);
    loss.push_back(10.0 - momentum(r.muons, i));
    loss_ref.push_back(10.0 - std::sqrt(ref[i].px * ref[i].px + ref[i].py * ref[i].py + ref[i].pz * ref[i].pz));
    // The slab records at its exit face, the geometry 0.2 m later in vacuum.
    x_ref.push_back(ref[i].x + 0.2 * ref[i].px / ref[i].pz);
    x.push_back(r.muons.x[i]);
    same += std::fabs(loss.back() - loss_ref.back()) < 1e-4;
  }
  const Moments a = moments(loss), b = moments(loss_ref);
  EXPECT_NEAR(a.mean, b.mean, 3 * std::hypot(a.err, b.err));
  EXPECT_NEAR(a.mean, 1.45, 0.15);  // ~1.4 GeV in 1 m of iron at 10 GeV/c
  double sx = 0, sx_ref = 0;
  for (std::size_t i = 0; i < n; ++i) sx += x[i] * x[i], sx_ref += x_ref[i] * x_ref[i];
  EXPECT_NEAR(std::sqrt(sx / n) / std::sqrt(sx_ref / n), 1.0, 0.06);
  // Same streams: most histories are the slab's own.
  EXPECT_GT(same, n * 9 / 10);
}

// A 1 mm tungsten layer between air gaps: the loss is what 1 mm loses
// (the slab engine's), not a fixed step's worth.
TEST(DetailedTransport, ThinLayerLosesWhatItsThicknessLoses) {
  MaterialLibrary lib;
  auto doc = world("G4_AIR", -0.1, 0.2);
  doc["volumes"].push_back(slab("w", 0.0, 0.001, "G4_W"));
  doc["sensitive_planes"] = {{{"z", 0.011}, {"x", {-20, 20}}, {"y", {-20, 20}}}};
  const GeometryParams g = GeometryParams::from_json(doc, "sheet.json", lib);
  const std::size_t n = 20000;
  DetailedTransportOptions opt;
  opt.seed = 3;
  const TransportResult r = transport_detailed(g, lib, beam(n, 10.0, -0.01), opt);
  const auto ref = transport_slab(lib.find("G4_W"), 0.001, 10.0, 10.0, n, -1, Vec3{}, 4, 0);
  std::vector<double> loss, loss_ref;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(r.status[i], static_cast<int>(MuonStatus::at_plane));
    loss.push_back(10.0 - momentum(r.muons, i));
    loss_ref.push_back(10.0 - std::sqrt(ref[i].px * ref[i].px + ref[i].py * ref[i].py + ref[i].pz * ref[i].pz));
  }
  std::sort(loss.begin(), loss.end());
  std::sort(loss_ref.begin(), loss_ref.end());
  // Median loss (robust against the radiative tail): 1 mm of W (~2.5 MeV), plus
  // 2 cm of air (~5 keV).
  const double med = loss[n / 2], med_ref = loss_ref[n / 2];
  EXPECT_NEAR(med, med_ref + 5e-6, 0.03 * med_ref);
  EXPECT_GT(med, 0.0015);
  EXPECT_LT(med, 0.004);
}

// Curved tracks in a field: every segment through a twisted ARB8 ends on its
// surface (just inside before the end point, outside just after it), and the
// tracks do leave through its slanted faces.
TEST(DetailedTransport, CurvedSegmentsEndOnTwistedArb8Faces) {
  MaterialLibrary lib;
  auto doc = world("G4_Galactic", -1, 3);
  std::vector<std::array<double, 2>> v;
  for (int f = 0; f < 2; ++f) {
    const double r = f == 0 ? 0.3 : 0.2, phi0 = f == 0 ? 0.0 : 0.5;
    for (int i = 0; i < 4; ++i) {
      const double p = phi0 + (i + 0.5) * M_PI / 2;
      v.push_back({r * std::sqrt(2.0) * std::cos(p), r * std::sqrt(2.0) * std::sin(p)});
    }
  }
  nlohmann::json verts = nlohmann::json::array();
  for (auto& xy : v) verts.push_back({xy[0], xy[1]});
  doc["volumes"].push_back({{"name", "t"}, {"shape", "arb8"}, {"z_center", 1.0}, {"dz", 1.0},
                            {"vertices", verts}, {"material", "G4_Fe"}, {"field", {0, 1.8, 0}}});
  const GeometryParams g = GeometryParams::from_json(doc, "arb8.json", lib);
  const GeometryView view = g.host_view();
  const Material& fe = lib.find("G4_Fe");
  const auto tables = MuonPhysicsTables::get(fe, {});
  const MultipleScattering msc(fe);
  int through_side = 0;
  const int n = 300;
  for (int i = 0; i < n; ++i) {
    HistoryRng rng(5, i, RngStream::detailed_physics);
    MuonTrack trk;
    trk.pos = {0.05 * std::cos(i * 0.7), 0.05 * std::sin(i * 0.7), 0.0};
    trk.dir = {0.0, 0.0, 1.0};
    trk.kinetic = kinematics::kinetic_from_momentum(2.0 + 0.01 * i);
    trk.charge = i % 2 ? 1 : -1;
    const DetailedRegion region{&view, 0, trk.pos.z};
    const MuonStepper<DetailedRegion> stepper(tables->view(), msc, region,
                                              UniformField::from({0, 1.8, 0}), {});
    stepper.transport(trk, rng);
    if (trk.stopped) continue;
    const Vec3 back = trk.pos - 2e-5 * trk.dir, ahead = trk.pos + 2e-5 * trk.dir;
    EXPECT_TRUE(view.contains(0, float(back.x), float(back.y), float(back.z))) << i;
    EXPECT_FALSE(view.contains(0, float(ahead.x), float(ahead.y), float(ahead.z))) << i;
    through_side += trk.pos.z < 1.99;
  }
  EXPECT_GT(through_side, n / 3);  // the field bends them out through the lateral faces
}

// Planes: the state is taken exactly on the plane, status 0 inside the
// window and 4 outside; the result does not depend on the thread count.
TEST(DetailedTransport, PlanesWindowsAndThreadIndependence) {
  MaterialLibrary lib;
  auto doc = world("G4_AIR", -1, 6);
  doc["volumes"].push_back(slab("fe", 0, 1.0, "G4_Fe", {0, 1.5, 0}));
  doc["sensitive_planes"] = {{{"z", 3.0}, {"x", {-0.05, 0.05}}, {"y", {-1, 1}}}};
  const GeometryParams g = GeometryParams::from_json(doc, "planes.json", lib);
  MuonBatch in;
  for (int i = 0; i < 400; ++i) in.push_back(0, 0, 3.0f + 0.1f * (i % 50), 0, 0, -0.5f, i % 2 ? 13 : -13);
  DetailedTransportOptions opt;
  opt.seed = 11;
  opt.threads = 1;
  const TransportResult one = transport_detailed(g, lib, in, opt);
  opt.threads = 2;
  const TransportResult two = transport_detailed(g, lib, in, opt);
  int at_plane = 0, outside = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(one.status[i], two.status[i]);
    ASSERT_EQ(one.muons.px[i], two.muons.px[i]);
    ASSERT_EQ(one.muons.x[i], two.muons.x[i]);
    if (one.status[i] == static_cast<int>(MuonStatus::at_plane)) {
      ++at_plane;
      EXPECT_EQ(one.muons.z[i], 3.0f);
      EXPECT_LE(std::fabs(one.muons.x[i]), 0.05f);
      EXPECT_EQ(one.plane[i], 0);
    } else if (one.status[i] == static_cast<int>(MuonStatus::outside_window)) {
      ++outside;
      EXPECT_EQ(one.muons.z[i], 3.0f);
      EXPECT_GT(std::fabs(one.muons.x[i]), 0.05f);
    }
  }
  // 1.5 T over 1 m bends mu+ and mu- apart by 0.45 T m / p: most miss the 10 cm window.
  EXPECT_GT(outside, 200);
  EXPECT_GT(at_plane + outside, 390);
}

}  // namespace
}  // namespace fastmu
