// The Urban fluctuation model: unbiased (mean of the sampled loss = the mean
// restricted loss) in its Gaussian and GLANDZ regimes, never negative, and
// Landau-like (skewed to high losses) for thin layers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fastmu/core/Constants.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MuIonisation.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/ProductionCuts.hh"
#include "fastmu/physics/UrbanFluctuation.hh"

namespace fastmu {
namespace {

struct Moments {
  double mean = 0, var = 0, median = 0;
};

Moments sample(double t, double length, double cut, const Material& m, int n) {
  const MuIonisation ioni(m);
  const UrbanFluctuationParams p{m.mean_excitation_ev * 1e-9, m.electron_density_per_cm3() * 1e6};
  const double tmax = kinematics::max_delta_energy(t);
  const double tcut = std::min(cut, tmax);
  const double mean_loss = ioni.dedx(t, tcut) * length;
  CounterRng rng(11, 0, RngStream::detailed_physics);
  std::vector<double> v(n);
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    v[i] = sample_urban_loss(p, mean_loss, t, constants::muon_mass, tcut, tmax, length, rng);
    EXPECT_GE(v[i], 0.0);
    s += v[i];
    s2 += v[i] * v[i];
  }
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  Moments mo;
  mo.mean = s / n / mean_loss;
  mo.var = (s2 / n - (s / n) * (s / n)) / (mean_loss * mean_loss);
  mo.median = v[n / 2] / mean_loss;
  return mo;
}

TEST(UrbanFluctuation, MeanEqualsRestrictedLoss) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const double cut = compute_production_cuts(fe, 0.7e-3).electron_gev;
  const int n = 200000;
  // (kinetic energy, step): thin and thick layers, low and high energy.
  for (auto [t, len] :
       {std::pair{10.0, 2e-2}, {10.0, 1e-4}, {0.3, 5e-3}, {100.0, 1e-3}, {0.02, 1e-4}}) {
    const Moments m = sample(t, len, cut, fe, n);
    const double rel_err = std::sqrt(m.var / n);
    EXPECT_NEAR(m.mean, 1.0, 5 * rel_err + 2e-3) << "T=" << t << " step=" << len;
  }
}

TEST(UrbanFluctuation, ThinLayerIsSkewed) {
  const Material& fe = builtin_materials().find("G4_Fe");
  const double cut = compute_production_cuts(fe, 0.7e-3).electron_gev;
  const Moments m = sample(10.0, 1e-4, cut, fe, 100000);
  EXPECT_LT(m.median, 0.97);  // most probable below the mean: Landau-like
  EXPECT_GT(m.var, 0.0);
}

TEST(UrbanFluctuation, GaussianRegimeWidthIsBohr) {
  // Many collisions with small transfers (tmax <= 2 tcut): Bohr variance
  // sigma^2 = 2 pi r_e^2 m_e c^2 n_e L tmax (1/beta^2 - 1/2) (for tcut = tmax).
  const Material& fe = builtin_materials().find("G4_Fe");
  const double t = 0.02;  // 20 MeV: tmax ~ 0.38 MeV
  const double tmax = kinematics::max_delta_energy(t);
  const double len = 2e-3;
  const Moments m = sample(t, len, 1.0, fe, 100000);
  const MuIonisation ioni(fe);
  const double mean_loss = ioni.dedx(t, tmax) * len;
  const double beta2 = kinematics::beta2_from_kinetic(t);
  const double bohr = units::twopi_mc2_rcl2_gev_m2 * fe.electron_density_per_cm3() * 1e6 * len *
                      tmax * (1.0 / beta2 - 0.5);
  EXPECT_NEAR(std::sqrt(m.var) * mean_loss / std::sqrt(bohr), 1.0, 0.05);
}

}  // namespace
}  // namespace fastmu
