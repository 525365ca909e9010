// Bremsstrahlung (MuBremsstrahlung), pair production (MuPairProduction) and
// photonuclear (MuPhotonuclear) models on their own.
//
// Fixtures: the energy-scaled radiative losses b_brems = (dE/dx)_brems / E and
// b_pair of iron and concrete at 100 GeV are taken from Geant4 11.4's
// G4EmCalculator values in dedx_mu-_per_process.csv (the Groom-Mokhov-Striganov
// tables are not available to this test suite; Geant4's models reproduce them to
// a few per cent). The whole 1-1000 GeV range is checked as well.
#include <gtest/gtest.h>

#include "ReferenceData.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/LossIntegrals.hh"
#include "fastmu/physics/MuBremsstrahlung.hh"
#include "fastmu/physics/MuPairProduction.hh"
#include "fastmu/physics/MuPhotonuclear.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace fastmu {
namespace {

constexpr double mass = 0.1056583755;

double b_brems(const Material& m, double t) {
  const MuBremsstrahlung model(m);
  return integrals::loss_rate(model, t, MuBremsstrahlung::min_photon_gev, t) /
         (100.0 * m.density_g_cm3) / (t + mass);  // 1/(g/cm2)
}
double b_pair(const Material& m, double t) {
  const MuPairProduction model(m);
  return integrals::loss_rate(model, t, MuPairProduction::min_pair_gev, model.max_transfer(t)) /
         (100.0 * m.density_g_cm3) / (t + mass);
}

TEST(RadiativeLoss, BCoefficientsAt100GeV) {
  // Geant4 11.4, T = 100 GeV (dedx_mu-_per_process.csv): MeV cm2/g divided by E.
  struct Fixture {
    const char* material;
    double brems_mev_cm2_g, pair_mev_cm2_g;
  };
  const Fixture fixtures[] = {{"G4_Fe", 0.224118, 0.316378}, {"G4_CONCRETE", 0.11248, 0.154859}};
  for (const auto& f : fixtures) {
    const Material& m = builtin_materials().find(f.material);
    const double e_mev = 1e5 + mass * 1e3;
    EXPECT_NEAR(b_brems(m, 100.0) / (f.brems_mev_cm2_g / e_mev), 1.0, 0.01) << f.material;
    EXPECT_NEAR(b_pair(m, 100.0) / (f.pair_mev_cm2_g / e_mev), 1.0, 0.01) << f.material;
  }
}

TEST(RadiativeLoss, MatchesGeant4From1GeVTo1TeV) {
  const auto path = test::reference_dir() / "dedx_mu-_per_process.csv";
  FASTMU_REQUIRE_REFERENCE(path);
  int checked = 0;
  for (const auto& row : test::read_dedx_csv(path)) {
    if (row.t_mev < 1000 || row.brems <= 0 || row.pair <= 0) continue;
    const Material& m = builtin_materials().find(row.material);
    const double t = row.t_mev * 1e-3, e = t + mass;
    EXPECT_NEAR(b_brems(m, t) * e * 1e3 / row.brems, 1.0, 0.01)
        << row.material << " T=" << row.t_mev;
    EXPECT_NEAR(b_pair(m, t) * e * 1e3 / row.pair, 1.0, 0.01) << row.material << " T=" << row.t_mev;
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(RadiativeLoss, ThresholdsAsInGeant4) {
  const Material& fe = builtin_materials().find("G4_Fe");
  EXPECT_EQ(MuBremsstrahlung(fe).dxs(0.09, 0.01), 0.0);
  EXPECT_GT(MuBremsstrahlung(fe).dxs(0.2, 0.01), 0.0);
  EXPECT_EQ(MuPairProduction(fe).dxs(0.8, 0.01), 0.0);
  EXPECT_GT(MuPairProduction(fe).dxs(1.0, 0.01), 0.0);
  EXPECT_EQ(MuPairProduction(fe).dxs(10.0, 1.5e-3), 0.0);  // below 4 m_e
}

TEST(RadiativeLoss, PhotonuclearIsSmallAndFlat) {
  // Borog-Petrukhin: b_nucl ~ 0.4e-6 cm2/g, nearly energy independent (PDG
  // "Passage of particles through matter", Fig. 34.24). Loose sanity bounds.
  const Material& fe = builtin_materials().find("G4_Fe");
  const MuPhotonuclear model(fe);
  auto b_nucl = [&](double t) {
    return integrals::loss_rate(model, t, MuPhotonuclear::min_transfer_gev, model.max_transfer(t)) /
           (100.0 * fe.density_g_cm3) / (t + mass);
  };
  EXPECT_GT(b_nucl(100.0), 0.2e-6);
  EXPECT_LT(b_nucl(100.0), 0.8e-6);
  EXPECT_NEAR(b_nucl(1000.0) / b_nucl(100.0), 1.0, 0.3);
}

TEST(RadiativeLoss, TabulatedSamplingReproducesSpectrum) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const auto tables = MuonPhysicsTables::get(fe, PhysicsOptions{});
  const MuonPhysicsView& v = tables->view();
  const MuPairProduction pair(fe);
  const MuBremsstrahlung brems(fe);
  const double t = 37.0;  // between grid points on purpose
  CounterRng rng(3, 0, RngStream::detailed_physics);
  const int n = 100000;
  for (int p : {int(kBrems), int(kPair)}) {
    const double kmax = p == kPair ? pair.max_transfer(t) : t;
    const double x = 0.5;  // GeV
    int above = 0;
    for (int i = 0; i < n; ++i) {
      const double k = v.sample_transfer(p, t, rng);
      ASSERT_GE(k, v.kcut[p] * (1 - 1e-12));
      ASSERT_LE(k, kmax * (1 + 1e-12));
      if (k > x) ++above;
    }
    const double total = p == kPair ? integrals::cross_section(pair, t, v.kcut[p], kmax)
                                    : integrals::cross_section(brems, t, v.kcut[p], kmax);
    const double part = p == kPair ? integrals::cross_section(pair, t, x, kmax)
                                   : integrals::cross_section(brems, t, x, kmax);
    const double expected = part / total;
    EXPECT_NEAR(double(above) / n, expected, 5 * std::sqrt(expected / n) + 0.02 * expected) << p;
    EXPECT_NEAR(v.xs_at(p, t) / total, 1.0, 0.02) << p;
  }
}

}  // namespace
}  // namespace fastmu
