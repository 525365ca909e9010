// The shortcuts of the detailed engine's step must not change any outcome:
// the lower bound of the range used to skip its exp(), the momentum above
// which multiple scattering skips computing the largest electron transfer,
// and the Urban model's cached per-cut terms.
#include <gtest/gtest.h>

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MultipleScattering.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/MuonPhysicsTables.hh"
#include "fastmu/physics/UrbanFluctuation.hh"

namespace fastmu {
namespace {

TEST(StepShortcuts, RangeFloorIsBelowTheRange) {
  for (const char* name : {"G4_Fe", "G4_CONCRETE", "G4_WATER", "G4_Pb"}) {
    const auto tables = MuonPhysicsTables::get(builtin_materials().find(name), PhysicsOptions{});
    const MuonPhysicsView& v = tables->view();
    CounterRng rng(1, 2, RngStream::detailed_physics);
    for (int i = 0; i < 100000; ++i) {
      // log-uniform kinetic energies from below the grid to its top, and the grid points
      const double t = i % 10 == 0 ? std::exp(v.log_t0 + (i / 10 % (v.n - 1)) / v.inv_dlog)
                                   : 1e-5 * std::pow(1e10, rng.uniform());
      const MuonPhysicsView::Point g = v.locate(t);
      const double floor = v.range_floor_at(g);
      const double range = v.range_at(g);
      ASSERT_LE(floor, range) << name << " T = " << t;
      if (t >= v.t_min) ASSERT_GT(floor, 0.8 * range) << name << " T = " << t;  // a useful bound
    }
  }
}

TEST(StepShortcuts, ElectronCutCrossingOfMultipleScattering) {
  for (const char* name : {"G4_Fe", "G4_CONCRETE", "G4_WATER", "G4_Pb", "G4_AIR"}) {
    const MultipleScattering msc(builtin_materials().find(name));
    const MultipleScatteringData& d = msc.data();
    const double p2 = d.p2_above_electron_cut;
    ASSERT_TRUE(std::isfinite(p2) && p2 > 0) << name;
    // Above the threshold the largest transfer exceeds the cut; just below
    // the crossing it does not (the threshold is tight, so the skip pays).
    for (double f : {1.0, 1.0 + 1e-9, 1.001, 2.0, 1e3, 1e8}) {
      EXPECT_GT(msc_detail::max_electron_transfer(p2 * f), d.electron_cut) << name << " f = " << f;
    }
    EXPECT_LE(msc_detail::max_electron_transfer(p2 / (1.0 + 2e-6)), d.electron_cut) << name;
  }
}

TEST(StepShortcuts, UrbanCachedCutTermsAreBitwiseTheComputedOnes) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const double cut = 1.2e-3;
  UrbanFluctuationParams cached{fe.mean_excitation_ev * 1e-9, fe.electron_density_per_cm3() * 1e6};
  urban::set_cut(cached, cut);
  UrbanFluctuationParams plain{fe.mean_excitation_ev * 1e-9, fe.electron_density_per_cm3() * 1e6};
  plain.cut_gev = -1;  // never equal to tcut: every term computed
  for (double t : {0.01, 0.3, 3.0, 30.0, 3000.0}) {
    const double tmax = kinematics::max_delta_energy(t);
    const double tcut = std::min(cut, tmax);
    for (double loss : {1e-6, 1e-4, 2e-3, 5e-2}) {
      CounterRng a(3, 4, RngStream::detailed_physics), b(3, 4, RngStream::detailed_physics);
      for (int i = 0; i < 200; ++i) {
        const double la =
            sample_urban_loss(cached, loss, t, constants::muon_mass, tcut, tmax, 0.01, a);
        const double lb =
            sample_urban_loss(plain, loss, t, constants::muon_mass, tcut, tmax, 0.01, b);
        ASSERT_EQ(la, lb) << "T = " << t << " loss = " << loss;
      }
    }
  }
}

}  // namespace
}  // namespace fastmu
