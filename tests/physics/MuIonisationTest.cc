// Muon ionisation (MuIonisation): mean stopping power against Geant4 11.4's
// G4MuBetheBlochModel values (dedx_mu-_per_process.csv), the restricted loss
// and the knock-on cross section against each other.
#include <gtest/gtest.h>

#include "ReferenceData.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MuIonisation.hh"
#include "fastmu/physics/MuonKinematics.hh"

namespace fastmu {
namespace {

TEST(MuIonisation, UnrestrictedMatchesGeant4AboveTenthGeV) {
  const auto path = test::reference_dir() / "dedx_mu-_per_process.csv";
  FASTMU_REQUIRE_REFERENCE(path);
  int checked = 0;
  for (const auto& row : test::read_dedx_csv(path)) {
    if (row.p_gev < 0.1) continue;  // shell/Barkas corrections (not modelled) matter below
    const Material& m = builtin_materials().find(row.material);
    const MuIonisation ioni(m);
    const double ours =
        ioni.dedx(row.t_mev * 1e-3, 1e30) * 1e3 / 100.0 / m.density_g_cm3;  // MeV cm2/g
    EXPECT_NEAR(ours / row.ioni, 1.0, 0.015) << row.material << " T=" << row.t_mev << " MeV";
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(MuIonisation, RestrictedLossPlusKnockOnLossIsUnrestricted) {
  // d(dE/dx)/d(cut) = cut * d(sigma)/dT at T = cut: check by finite differences
  // that the restricted loss and the cross section describe the same spectrum.
  const Material& fe = builtin_materials().find("G4_Fe");
  const MuIonisation ioni(fe);
  for (double t : {0.5, 5.0, 50.0}) {
    const double cut = 1e-3, h = 1e-6;
    const double ddedx = (ioni.dedx(t, cut + h) - ioni.dedx(t, cut - h)) / (2 * h);
    const double dxs = -(ioni.cross_section(t, cut + h) - ioni.cross_section(t, cut - h)) / (2 * h);
    EXPECT_NEAR(ddedx / (cut * dxs), 1.0, 0.01) << "T=" << t;
    EXPECT_LT(ioni.dedx(t, cut), ioni.dedx(t, 1e30));
    // The cut does not matter above the kinematic limit.
    const double tmax = kinematics::max_delta_energy(t);
    EXPECT_DOUBLE_EQ(ioni.dedx(t, tmax), ioni.dedx(t, 10 * tmax));
    EXPECT_EQ(ioni.cross_section(t, tmax * 1.01), 0.0);
  }
}

TEST(MuIonisation, DeltaRaySpectrumFollowsCrossSection) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const MuIonisation ioni(fe);
  const double t = 10.0, cut = 1e-3;
  CounterRng rng(7, 0, RngStream::detailed_physics);
  const int n = 200000;
  int above = 0;
  const double x = 10e-3;
  for (int i = 0; i < n; ++i) {
    const DeltaRay d = sample_delta_ray(t, cut, rng);
    ASSERT_GE(d.kinetic_gev, cut);
    ASSERT_LE(d.kinetic_gev, kinematics::max_delta_energy(t) * (1 + 1e-12));
    ASSERT_LE(d.cos_theta, 1.0);
    if (d.kinetic_gev > x) ++above;
  }
  // Fraction above 10 MeV: ~cut/x for a 1/T^2 spectrum, times the correction factors.
  const double expected = ioni.cross_section(t, x) / ioni.cross_section(t, cut);
  const double frac = double(above) / n;
  EXPECT_NEAR(frac, expected, 5 * std::sqrt(expected / n) + 0.03 * expected);
}

}  // namespace
}  // namespace fastmu
