// Mean energy loss of the detailed engine at 10 GeV .. 100 TeV against published
// per-process tables (MuonLossReferenceData.hh) for standard rock, liquid water
// and iron. The engine's loss here is the unrestricted mean: ionisation with
// the whole knock-on spectrum, plus k dsigma/dk of bremsstrahlung, pair
// production and photonuclear integrated over all transfers.
//
// Tolerances: total 3 %. Per process: ionisation 1.5 % (the water table uses
// I = 79.7 eV, Geant4's G4_WATER 78 eV), bremsstrahlung 4 %, pair production
// 1 %, photonuclear 50 % below 1 TeV and 15 % from 1 TeV: the engine's
// Borog-Petrukhin model and the table's photonuclear model differ by that much
// (both are published parametrisations), while the photonuclear part is a few
// per cent of the total at most.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "MuonLossReferenceData.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"

namespace fastmu {
namespace {

struct EngineLoss {
  double ionisation, brems, pair, photonuclear;  // MeV cm^2/g
  double radiative() const { return brems + pair + photonuclear; }
  double total() const { return ionisation + radiative(); }
};

EngineLoss engine_loss(const MuonPhysicsTables& tables, double t_gev) {
  // GeV/m -> MeV cm^2/g: 1e3 MeV/GeV, 1e-2 m/cm, divided by the density.
  const double f = 10.0 / tables.material().density_g_cm3;
  return {tables.ionisation_dedx(t_gev) * f, tables.brems_dedx(t_gev) * f,
          tables.pair_dedx(t_gev) * f, tables.photonuclear_dedx(t_gev) * f};
}

PhysicsOptions with_photonuclear() {
  PhysicsOptions o;
  o.photonuclear = true;
  return o;
}

TEST(HighEnergyLoss, TotalAndPerProcessMatchTables) {
  for (const auto& table : test::kMuonLossTables) {
    const Material& m = builtin_materials().find(table.material);
    const MuonPhysicsTables tables(m, with_photonuclear());
    for (const auto& ref : table.rows) {
      const double t = ref.kinetic_mev * 1e-3;
      const EngineLoss e = engine_loss(tables, t);
      std::printf(
          "%-12s T=%8g GeV  ion %.4g/%.4g  brems %.4g/%.4g  pair %.4g/%.4g  "
          "photonuc %.4g/%.4g  total %.4g/%.4g\n",
          table.material, t, e.ionisation, ref.ionisation, e.brems, ref.brems, e.pair, ref.pair,
          e.photonuclear, ref.photonuclear, e.total(), ref.total);
      const std::string where = std::string(table.material) + " T=" + std::to_string(t) + " GeV";
      EXPECT_NEAR(e.total() / ref.total, 1.0, 0.03) << where;
      EXPECT_NEAR(e.ionisation / ref.ionisation, 1.0, 0.015) << where;
      EXPECT_NEAR(e.brems / ref.brems, 1.0, 0.04) << where;
      EXPECT_NEAR(e.pair / ref.pair, 1.0, 0.01) << where;
      EXPECT_NEAR(e.photonuclear / ref.photonuclear, 1.0, t < 1e3 ? 0.5 : 0.15) << where;
    }
  }
}

// Groom et al.'s own table for water (the PDG's; MuonLossReferenceData.hh):
// the total within 3 % at 10 GeV .. 100 TeV, the radiative part (their b(E) E)
// within 5 % from 100 GeV, where it is more than 7 % of the total.
TEST(HighEnergyLoss, WaterMatchesGroomEtAl) {
  const auto& table = test::kGroomWater;
  const MuonPhysicsTables tables(builtin_materials().find(table.material), with_photonuclear());
  for (const auto& ref : table.rows) {
    const double t = ref.kinetic_mev * 1e-3;
    const EngineLoss e = engine_loss(tables, t);
    const double radiative = ref.brems + ref.pair + ref.photonuclear;
    std::printf("G4_WATER T=%8g GeV: total %.4g / Groom %.4g, radiative %.4g / %.4g\n", t,
                e.total(), ref.total, e.radiative(), radiative);
    EXPECT_NEAR(e.total() / ref.total, 1.0, 0.03) << t;
    if (t >= 100) EXPECT_NEAR(e.radiative() / radiative, 1.0, 0.05) << t;
  }
}

TEST(HighEnergyLoss, PhotonuclearIsATenthOfRadiativeLossInRock) {
  const MuonPhysicsTables tables(builtin_materials().find("StandardRock"), with_photonuclear());
  for (double t : {1e3, 1e4, 1e5}) {
    const EngineLoss e = engine_loss(tables, t);
    const double share = e.photonuclear / e.radiative();
    std::printf("StandardRock T=%g GeV: photonuclear / radiative = %.4f\n", t, share);
    EXPECT_GT(share, 0.08) << t;
    EXPECT_LT(share, 0.13) << t;
  }
}

TEST(HighEnergyLoss, WithoutPhotonuclearTeVTotalsFallShort) {
  // Why photonuclear belongs in TeV work: leaving it out loses more than the
  // 3 % budget of the total mean loss in rock from 1 TeV on.
  const auto& rock = test::kMuonLossTables[0];
  const MuonPhysicsTables tables(builtin_materials().find(rock.material), with_photonuclear());
  for (const auto& ref : rock.rows) {
    const double t = ref.kinetic_mev * 1e-3;
    if (t < 1e3) continue;
    const EngineLoss e = engine_loss(tables, t);
    EXPECT_LT((e.total() - e.photonuclear) / ref.total, 0.97) << t;
  }
}

}  // namespace
}  // namespace fastmu
