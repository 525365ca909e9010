// The detailed engine through geometries (transport_detailed): against the
// homogeneous-slab engine, across thin layers, along curved tracks through
// ARB8 faces, at sensitive planes, and independent of the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "fastmu/field/FieldMapParams.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/HistoryRng.hh"
#include "fastmu/physics/MappedField.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/MuonStepper.hh"
#include "fastmu/transport/detailed/DetailedRegion.hh"
#include "fastmu/transport/detailed/DetailedTransport.hh"

namespace fastmu {
namespace {

nlohmann::json world(const std::string& material, double z0, double z1) {
  return {{"world", {{"min", {-20, -20, z0}}, {"max", {20, 20, z1}}, {"material", material}}},
          {"volumes", nlohmann::json::array()}};
}

nlohmann::json slab(const std::string& name, double z0, double z1, const std::string& material,
                    std::array<double, 3> field = {0, 0, 0}) {
  return {{"name", name},        {"shape", "box"},       {"min", {-20, -20, z0}},
          {"max", {20, 20, z1}}, {"material", material}, {"field", field}};
}

MuonBatch beam(std::size_t n, double p, double z) {
  MuonBatch b;
  for (std::size_t i = 0; i < n; ++i)
    b.push_back(0, 0, static_cast<float>(p), 0, 0, static_cast<float>(z), 13);
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
  return std::sqrt(double(b.px[i]) * b.px[i] + double(b.py[i]) * b.py[i] +
                   double(b.pz[i]) * b.pz[i]);
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
    loss_ref.push_back(
        10.0 - std::sqrt(ref[i].px * ref[i].px + ref[i].py * ref[i].py + ref[i].pz * ref[i].pz));
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

// A plane on a volume's exit face is reached (the segment's end on it is
// only known to float rounding).
TEST(DetailedTransport, PlaneOnTheExitFaceIsReached) {
  MaterialLibrary lib;
  auto doc = world("G4_Galactic", -1, 12);
  doc["volumes"].push_back(slab("fe", 0, 10.0, "G4_Fe"));
  doc["sensitive_planes"] = {{{"z", 10.0}, {"x", {-20, 20}}, {"y", {-20, 20}}}};
  const GeometryParams g = GeometryParams::from_json(doc, "block.json", lib);
  const TransportResult r = transport_detailed(g, lib, beam(200, 50.0, 0.0), {});
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r.status[i] == static_cast<int>(MuonStatus::stopped)) continue;
    ASSERT_EQ(r.status[i], static_cast<int>(MuonStatus::at_plane)) << i;
    EXPECT_EQ(r.muons.z[i], 10.0f);
  }
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
    loss_ref.push_back(
        10.0 - std::sqrt(ref[i].px * ref[i].px + ref[i].py * ref[i].py + ref[i].pz * ref[i].pz));
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
  doc["volumes"].push_back({{"name", "t"},
                            {"shape", "arb8"},
                            {"z_center", 1.0},
                            {"dz", 1.0},
                            {"vertices", verts},
                            {"material", "G4_Fe"},
                            {"field", {0, 1.8, 0}}});
  const GeometryParams g = GeometryParams::from_json(doc, "arb8.json", lib);
  const GeometryView view = g.host_view();
  const Material& fe = lib.find("G4_Fe");
  const auto tables = MuonPhysicsTables::get(fe, {});
  const MultipleScattering msc(fe);
  int through_side = 0;
  const int n = 300;
  for (int i = 0; i < n; ++i) {
    HistoryRng rng(5, i, RngStream::detailed_physics);
    DetailedTrack trk;
    trk.pos = {0.05 * std::cos(i * 0.7), 0.05 * std::sin(i * 0.7), 0.0};
    trk.dir = {0.0, 0.0, 1.0};
    trk.kinetic = kinematics::kinetic_from_momentum(2.0 + 0.01 * i);
    trk.charge = i % 2 ? 1 : -1;
    const DetailedRegion region{&view, 0, trk.pos.z};
    const MuonStepper<DetailedRegion> stepper(tables->view(), msc.data(), region,
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
  for (int i = 0; i < 400; ++i)
    in.push_back(0, 0, 3.0f + 0.1f * (i % 50), 0, 0, -0.5f, i % 2 ? 13 : -13);
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

// A uniform map (2 x 2 x 2 nodes of 1.5 T) integrated by adaptive
// Runge-Kutta follows the exact helix.
TEST(DetailedTransport, MappedFieldFollowsTheHelix) {
  std::vector<float> b(24);
  for (int i = 0; i < 8; ++i) b[3 * i + 1] = 1.5f;
  const FieldMapParams uniform({2, 2, 2}, b, {-5, -5, -5}, {5, 5, 5}, FieldInterpolation::linear,
                               FieldSymmetry::none);
  const FieldMapView view = uniform.host_view();
  const MappedField<FieldMapView> mapped{{0, 0, 0}, &view, 1.5};
  const UniformField helix = UniformField::from({0, 1.5, 0});
  for (double p : {1.0, 10.0, 100.0}) {
    Vec3 r1{0, 0, 0}, u1{0.1, 0, 0.995};
    u1 = (1.0 / norm(u1)) * u1;
    Vec3 r2 = r1, u2 = u1;
    mapped.advance(r1, u1, 2.0, p, -1);
    helix.advance(r2, u2, 2.0, p, -1);
    EXPECT_LT(norm(r1 - r2), 1e-5) << p;
    EXPECT_LT(norm(u1 - u2), 1e-5) << p;
  }
}

// The same magnetised slab with its field as the volume's and as a map:
// the same histories up to the integration tolerance.
TEST(DetailedTransport, FieldMapEqualsTheSameUniformField) {
  const auto dir = std::filesystem::temp_directory_path() / "fastmu_detailed_map_test";
  std::filesystem::create_directories(dir);
  std::vector<float> b(3 * 27, 0.f);
  for (int i = 0; i < 27; ++i) b[3 * i + 1] = 1.7f;
  FieldMapParams({3, 3, 3}, b, {-2, -2, -0.5}, {2, 2, 2.5}, FieldInterpolation::linear,
                 FieldSymmetry::none)
      .write_hdf5(dir / "b.h5");
  MaterialLibrary lib;
  auto with_map = world("G4_AIR", -1, 4);
  with_map["volumes"].push_back(slab("fe", 0, 1.0, "G4_Fe"));
  with_map["field_map"] = {{"file", (dir / "b.h5").string()}, {"interpolation", "linear"}};
  with_map["sensitive_planes"] = {{{"z", 3.0}, {"x", {-20, 20}}, {"y", {-20, 20}}}};
  auto with_volume_field = world("G4_AIR", -1, 4);
  with_volume_field["volumes"].push_back(slab("fe", 0, 1.0, "G4_Fe", {0, 1.7, 0}));
  with_volume_field["sensitive_planes"] = with_map["sensitive_planes"];
  const GeometryParams g1 = GeometryParams::from_json(with_map, "map.json", lib);
  const GeometryParams g2 = GeometryParams::from_json(with_volume_field, "uniform.json", lib);
  // The map also bends in the air before z = 2.5 m: compare where both fields
  // are the same, at the slab's exit face.
  with_map["sensitive_planes"] = {{{"z", 1.0}, {"x", {-20, 20}}, {"y", {-20, 20}}}};
  with_volume_field["sensitive_planes"] = with_map["sensitive_planes"];
  const GeometryParams h1 = GeometryParams::from_json(with_map, "map.json", lib);
  const GeometryParams h2 = GeometryParams::from_json(with_volume_field, "uniform.json", lib);
  DetailedTransportOptions opt;
  opt.seed = 21;
  MuonBatch in;
  for (int i = 0; i < 200; ++i) in.push_back(0, 0, 8.0f, 0, 0, 0.0f, i % 2 ? 13 : -13);
  const TransportResult a = transport_detailed(h1, lib, in, opt);
  const TransportResult c = transport_detailed(h2, lib, in, opt);
  int close = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(a.status[i], c.status[i]);
    close += std::fabs(a.muons.x[i] - c.muons.x[i]) < 1e-4 &&
             std::fabs(a.muons.px[i] - c.muons.px[i]) < 1e-4;
  }
  EXPECT_GT(close, 180);  // the same random histories, integrated two ways
  // Through the map's air region too, the bending continues to z = 2.5 m.
  const TransportResult far1 = transport_detailed(g1, lib, in, opt);
  const TransportResult far2 = transport_detailed(g2, lib, in, opt);
  double spread1 = 0, spread2 = 0;
  for (std::size_t i = 0; i < in.size(); ++i)
    spread1 += std::fabs(far1.muons.x[i]), spread2 += std::fabs(far2.muons.x[i]);
  EXPECT_GT(spread1, 1.5 * spread2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fastmu
