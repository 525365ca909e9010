// End-to-end fidelity against the Geant4 11.4 reference samples
// (../shared/reference/geant4): single steps in 2 cm spheres of iron and
// concrete, and 50 GeV mu- through 10 m of iron. Tolerances of the acceptance
// criteria. Sphere points use 50 000 muons (as many as the reference: with
// 20 000 the statistical spread of q99 in concrete alone is ~8 %, too close to
// the 15 % tolerance); the slab uses 3 000.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ReferenceData.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"

namespace fastmu {
namespace {

struct SphereCase {
  std::string material;
  std::string p;
};

class SphereFidelity : public ::testing::TestWithParam<SphereCase> {};

std::vector<double> loss_of(const std::vector<MuonSample>& s) {
  std::vector<double> v;
  for (const auto& m : s) v.push_back(m.p0 - m.pz);
  return v;
}
std::vector<double> pt_of(const std::vector<MuonSample>& s) {
  std::vector<double> v;
  for (const auto& m : s) v.push_back(std::hypot(m.px, m.py));
  return v;
}

TEST_P(SphereFidelity, LossAndKickQuantiles) {
  const SphereCase c = GetParam();
  const auto path =
      test::reference_dir() / ("sphere2cm_" + c.material + "_p" + c.p + "GeV_mu-.f32");
  FASTMU_REQUIRE_REFERENCE(path);
  const auto ref = test::read_f32(path);
  std::vector<MuonSample> g4;
  for (const auto& r : ref) g4.push_back({r.p0, r.px, r.py, r.pz, r.x, r.y, r.z});
  const double p = std::stod(c.p);
  const auto ours =
      sample_single_step(builtin_materials().find(c.material), p, p, 0.02, 50000, -1, 1, 0);
  const std::pair<double, double> tol[] = {
      {0.25, 0.05}, {0.5, 0.05}, {0.75, 0.05}, {0.9, 0.08}, {0.99, 0.15}};
  for (auto [q, t] : tol) {
    const double a = test::quantile(loss_of(ours), q), b = test::quantile(loss_of(g4), q);
    EXPECT_NEAR(a / b, 1.0, t) << "loss q" << q * 100 << " ours " << a << " g4 " << b;
  }
  for (auto [q, t] : tol) {
    const double a = test::quantile(pt_of(ours), q), b = test::quantile(pt_of(g4), q);
    EXPECT_NEAR(a / b, 1.0, t) << "pt q" << q * 100 << " ours " << a << " g4 " << b;
  }
}

std::vector<SphereCase> sphere_cases() {
  std::vector<SphereCase> v;
  for (const char* m : {"G4_Fe", "G4_CONCRETE"})
    for (const char* p : {"0.5", "1", "3", "10", "30", "100", "300"}) v.push_back({m, p});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Geant4, SphereFidelity, ::testing::ValuesIn(sphere_cases()),
                         [](const auto& info) {
                           std::string n = info.param.material + "_p" + info.param.p;
                           for (auto& ch : n)
                             if (ch == '.' || ch == '-') ch = '_';
                           return n;
                         });

TEST(SlabFidelity, Iron10m50GeV) {
  const auto path = test::reference_dir() / "slab_G4_Fe_10m_50GeV_mu-.f32";
  FASTMU_REQUIRE_REFERENCE(path);
  const auto ref = test::read_f32(path);
  const auto ours =
      transport_slab(builtin_materials().find("G4_Fe"), 10.0, 50.0, 50.0, 3000, -1, Vec3{}, 1, 0);
  auto split = [](auto const& rows, std::vector<double>& loss, std::vector<double>& x,
                  std::vector<double>& px) {
    int stopped = 0;
    for (const auto& r : rows) {
      if (r.px == 0 && r.py == 0 && r.pz == 0) {
        ++stopped;
        continue;
      }
      loss.push_back(r.p0 - std::sqrt(r.px * r.px + r.py * r.py + r.pz * r.pz));
      x.push_back(r.x);
      px.push_back(r.px);
    }
    return double(stopped) / rows.size();
  };
  std::vector<double> lo, xo, pxo, lr, xr, pxr;
  const double so = split(ours, lo, xo, pxo), sr = split(ref, lr, xr, pxr);
  EXPECT_TRUE(std::abs(so - sr) <= 0.004 || std::abs(so / sr - 1) <= 0.05)
      << "stopped fraction ours " << so << " g4 " << sr;
  for (double q : {0.1, 0.5, 0.9}) {
    const double a = test::quantile(lo, q), b = test::quantile(lr, q);
    EXPECT_NEAR(a / b, 1.0, 0.03) << "loss q" << q * 100 << " ours " << a << " g4 " << b;
  }
  for (double q : {0.1, 0.25, 0.75, 0.9}) {
    const double a = test::quantile(xo, q), b = test::quantile(xr, q);
    EXPECT_TRUE(std::abs(a - b) <= 0.01 || std::abs(a / b - 1) <= 0.05)
        << "x q" << q * 100 << " ours " << a << " g4 " << b;
    const double c = test::quantile(pxo, q), d = test::quantile(pxr, q);
    EXPECT_TRUE(std::abs(c - d) <= 0.02 || std::abs(c / d - 1) <= 0.05)
        << "px q" << q * 100 << " ours " << c << " g4 " << d;
  }
  auto rms = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x * x;
    return std::sqrt(s / v.size());
  };
  EXPECT_NEAR(rms(xo) / rms(xr), 1.0, 0.07) << "x rms ours " << rms(xo) << " g4 " << rms(xr);
}

}  // namespace
}  // namespace fastmu
