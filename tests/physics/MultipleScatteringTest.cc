// Tests of the muon Coulomb scattering model (MultipleScattering).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/MultipleScattering.hh"

namespace fastmu {
namespace {

const Material& iron() { return builtin_materials().find("G4_Fe"); }

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t i = std::size_t(pos);
  const double f = pos - double(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// Transverse momentum p sin(theta) of n muons after one step.
std::vector<double> sample_pt(const MultipleScattering& msc, double p_scatter, double p_out,
                              double step, std::size_t n, std::uint64_t seed = 7) {
  std::vector<double> pt(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(seed, i, RngStream::detailed_physics);
    const auto d = msc.sample(p_scatter, step, -1, rng);
    pt[i] = p_out * std::sqrt(std::max(0.0, (1 - d.cos_theta) * (1 + d.cos_theta)));
  }
  return pt;
}

// Highland (PDG 2024 eq. 34.16) width of the projected angle.
double highland(double p, double step, double x0) {
  const double e = std::hypot(p, constants::muon_mass);
  const double beta = p / e;
  const double t = step / x0;
  return 0.0136 / (beta * p) * std::sqrt(t) * (1 + 0.038 * std::log(t / (beta * beta)));
}

TEST(MultipleScattering, CoreWidthFollowsHighland) {
  const Material& fe = iron();
  const MultipleScattering msc(fe);
  const double p = 10, step = 0.02;
  const std::size_t n = 200000;
  std::vector<double> theta_x(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(11, i, RngStream::detailed_physics);
    const auto d = msc.sample(p, step, -1, rng);
    theta_x[i] = std::sqrt((1 - d.cos_theta) * (1 + d.cos_theta)) * std::cos(d.phi);
  }
  // Gaussian-equivalent width of the core from the 16 % - 84 % interval
  // (insensitive to the single-scattering tail).
  const double core = 0.5 * (quantile(theta_x, 0.8413) - quantile(theta_x, 0.1587));
  const double expected = highland(p, step, fe.radiation_length_m());
  EXPECT_NEAR(core / expected, 1.0, 0.10) << "core " << core << " Highland " << expected;
  // The mean is zero.
  double mean = 0;
  for (double v : theta_x) mean += v;
  mean /= double(n);
  EXPECT_LT(std::abs(mean), 5 * core / std::sqrt(double(n)));
}

TEST(MultipleScattering, TailFollowsRutherford) {
  // Without nuclear size the hard collisions follow dsigma/du = K Z^2/u^2,
  // i.e. P(pt > X) = 2 t K sum(n Z^2) / X^2 far beyond the Gaussian core
  // (plus the core's smearing, P ~ (1 + 4 sigma^2 / X^2) for this 2-D 1/pt^4 tail).
  const MultipleScattering msc(iron());
  MultipleScatteringData d = msc.data();
  for (int i = 0; i < d.num_elements; ++i) d.form_factor[i] = 0;
  const double p = 10, step = 0.002;
  const std::size_t n = 2000000;
  std::vector<double> pt(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(3, i, RngStream::detailed_physics);
    const auto s = sample_msc(d, p, step, -1, rng);
    pt[i] = p * std::sqrt((1 - s.cos_theta) * (1 + s.cos_theta));
  }
  const double sigma = quantile(pt, 0.5) / std::sqrt(2 * std::log(2.0));  // per plane
  const double beta2 = p * p / (p * p + constants::muon_mass * constants::muon_mass);
  const double amplitude = 2 * step * msc_detail::rutherford_k / beta2 * d.sum_n_z2;
  for (double x : {0.04, 0.08, 0.16}) {
    const double count =
        double(std::count_if(pt.begin(), pt.end(), [x](double v) { return v > x; }));
    const double expected = double(n) * amplitude / (x * x) * (1 + 4 * sigma * sigma / (x * x));
    EXPECT_NEAR(count / expected, 1.0, 4 / std::sqrt(expected) + 0.04)
        << "pt > " << x << ": " << count << " vs " << expected;
  }
  // The nuclear form factor suppresses the far tail only.
  const std::vector<double> with_ff = sample_pt(msc, p, p, step, n, 3);
  const auto above = [](const std::vector<double>& v, double x) {
    return double(std::count_if(v.begin(), v.end(), [x](double e) { return e > x; }));
  };
  EXPECT_LT(above(with_ff, 0.16), 0.8 * above(pt, 0.16));
  EXPECT_NEAR(above(with_ff, 0.01) / above(pt, 0.01), 1.0, 0.03);
}

TEST(MultipleScattering, LateralDisplacementIsCorrelatedWithDeflection) {
  // PDG 2024 eq. 34.20: y = t theta_plane / 2 + t theta0 z / sqrt(12), so
  // corr(y, theta_plane) = sqrt(3)/2 and rms(y) = t theta0 / sqrt(3).
  const MultipleScattering msc(iron());
  const double p = 10, step = 0.02;
  const std::size_t n = 200000;
  std::vector<double> y(n), th(n);
  for (std::size_t i = 0; i < n; ++i) {
    CounterRng rng(5, i, RngStream::detailed_physics);
    const auto d = msc.sample(p, step, -1, rng);
    y[i] = d.lateral_x_m;
    th[i] = std::sqrt((1 - d.cos_theta) * (1 + d.cos_theta)) * std::cos(d.phi);
  }
  // Robust estimates on the core: the 16-84 % widths and the width of y - t th / 2.
  const double w_th = 0.5 * (quantile(th, 0.8413) - quantile(th, 0.1587));
  const double w_y = 0.5 * (quantile(y, 0.8413) - quantile(y, 0.1587));
  std::vector<double> resid(n);
  for (std::size_t i = 0; i < n; ++i) resid[i] = y[i] - 0.5 * step * th[i];
  const double w_r = 0.5 * (quantile(resid, 0.8413) - quantile(resid, 0.1587));
  EXPECT_NEAR(w_y / (step * w_th / std::sqrt(3.0)), 1.0, 0.05);
  EXPECT_NEAR(w_r / (step * w_th / std::sqrt(12.0)), 1.0, 0.05);
}

TEST(MultipleScattering, IsDeterministicPerStream) {
  const MultipleScattering msc(builtin_materials().find("G4_CONCRETE"));
  for (std::uint64_t id = 0; id < 1000; ++id) {
    CounterRng a(42, id, RngStream::detailed_physics);
    CounterRng b(42, id, RngStream::detailed_physics);
    const auto da = msc.sample(3.0, 0.02, 1, a);
    const auto db = msc.sample(3.0, 0.02, 1, b);
    ASSERT_EQ(da.cos_theta, db.cos_theta);
    ASSERT_EQ(da.phi, db.phi);
    ASSERT_EQ(da.lateral_x_m, db.lateral_x_m);
    ASSERT_EQ(da.lateral_y_m, db.lateral_y_m);
  }
  CounterRng a(42, 1, RngStream::detailed_physics);
  CounterRng b(42, 2, RngStream::detailed_physics);
  EXPECT_NE(msc.sample(3.0, 0.02, 1, a).cos_theta, msc.sample(3.0, 0.02, 1, b).cos_theta);
}

TEST(MultipleScattering, EdgeCases) {
  const MultipleScattering msc(iron());
  CounterRng rng(1, 1, RngStream::detailed_physics);
  auto none = msc.sample(10, 0.0, -1, rng);
  EXPECT_EQ(none.cos_theta, 1.0);
  EXPECT_EQ(none.lateral_x_m, 0.0);
  none = msc.sample(10, 0.02, 0, rng);  // neutral: no scattering
  EXPECT_EQ(none.cos_theta, 1.0);
  for (double p : {0.02, 0.1, 1.0, 1000.0}) {
    for (double step : {1e-9, 1e-6, 1e-3, 0.1, 10.0}) {
      for (int k = 0; k < 200; ++k) {
        const auto d = msc.sample(p, step, -1, rng);
        ASSERT_TRUE(std::isfinite(d.cos_theta) && std::isfinite(d.phi) &&
                    std::isfinite(d.lateral_x_m) && std::isfinite(d.lateral_y_m))
            << p << " " << step;
        ASSERT_LE(std::abs(d.cos_theta), 1.0);
        ASSERT_LE(std::hypot(d.lateral_x_m, d.lateral_y_m), 2 * step);
      }
    }
  }
  // The step limit is positive and at most 20 radiation lengths.
  for (double p : {0.2, 1.0, 50.0}) {
    EXPECT_GT(msc.max_step_m(p), 0.0);
    EXPECT_LE(msc.max_step_m(p), 20 * iron().radiation_length_m() * (1 + 1e-12));
  }
  // Transport mean free path grows like p^2 beta^2.
  EXPECT_NEAR(msc.transport_mfp_m(100) / msc.transport_mfp_m(10), 100.0, 2.0);
}

TEST(MultipleScattering, ScreeningExpansionIsContinuous) {
  // Above p ~ m / sqrt(0.01 / r) the beta dependence of the screening uses a
  // second-order expansion, below it exact logarithms: no step at the switch.
  const MultipleScattering msc(iron());
  const double r = msc.data().max_slope_ratio;
  const double p_switch = constants::muon_mass / std::sqrt(0.01 / r);
  const auto scaled = [&](double p) {
    const double b2 = p * p / (p * p + constants::muon_mass * constants::muon_mass);
    return msc.transport_mfp_m(p) / (p * p * b2);
  };
  EXPECT_NEAR(scaled(p_switch * (1 - 1e-7)) / scaled(p_switch * (1 + 1e-7)), 1.0, 1e-6);
}

TEST(MultipleScattering, WorksForAllBuiltinMaterials) {
  for (const std::string& name : builtin_materials().names()) {
    const MultipleScattering msc(builtin_materials().find(name));
    for (double p : {0.15, 5.0, 500.0}) {
      double sum = 0;
      for (std::uint64_t i = 0; i < 100; ++i) {
        CounterRng rng(9, i, RngStream::detailed_physics);
        const auto d = msc.sample(p, 0.02, -1, rng);
        ASSERT_TRUE(std::isfinite(d.cos_theta) && std::isfinite(d.lateral_x_m)) << name << " " << p;
        sum += 1 - d.cos_theta;
      }
      EXPECT_GE(sum, 0.0) << name;
      EXPECT_GT(msc.max_step_m(p), 0.0) << name;
    }
  }
}

TEST(MultipleScattering, RejectsBadMaterial) {
  Material empty;
  empty.name = "empty";
  empty.density_g_cm3 = 1;
  EXPECT_THROW(MultipleScattering(empty, 1e-3), Error);
  Material no_density = iron();
  no_density.density_g_cm3 = 0;
  EXPECT_THROW(MultipleScattering(no_density, 1e-3), Error);
}

// Comparison with the Geant4 11.4 reference samples (2 cm sphere): the
// transverse kick quantiles, with the mean momentum loss of the reference
// applied crudely (this model alone has no energy loss and no delta-ray kicks).
TEST(MultipleScattering, MatchesGeant4SphereQuantiles) {
  const std::string dir = FASTMU_REFERENCE_DIR;
  if (!std::filesystem::exists(dir + "/sphere2cm_G4_Fe_p10GeV_mu-.f32")) {
    GTEST_SKIP() << "Geant4 reference samples not found in " << dir;
  }
  const char* labels[] = {"0.5", "1", "3", "10", "30", "100", "300"};
  for (const char* name : {"G4_Fe", "G4_CONCRETE"}) {
    const MultipleScattering msc(builtin_materials().find(name));
    for (const char* label : labels) {
      const std::string path = dir + "/sphere2cm_" + name + "_p" + label + "GeV_mu-.f32";
      std::ifstream in(path, std::ios::binary);
      ASSERT_TRUE(in) << path;
      std::vector<double> ref;
      float row[7];
      double loss = 0;
      while (in.read(reinterpret_cast<char*>(row), sizeof row)) {
        ref.push_back(std::hypot(double(row[1]), double(row[2])));
        loss += row[0] - std::sqrt(double(row[1]) * row[1] + double(row[2]) * row[2] +
                                   double(row[3]) * row[3]);
      }
      ASSERT_GT(ref.size(), 1000u) << path;
      loss /= double(ref.size());
      const double p0 = std::stod(label);
      const auto pt = sample_pt(msc, p0 - 0.5 * loss, p0 - loss, 0.02, 100000);
      for (auto [q, tol] : {std::pair{0.5, 0.06}, {0.9, 0.06}, {0.99, 0.15}}) {
        const double mine = quantile(pt, q), g4 = quantile(ref, q);
        EXPECT_NEAR(mine / g4, 1.0, tol)
            << name << " p = " << label << " GeV: pt q" << q * 100 << " " << mine * 1e3
            << " MeV vs Geant4 " << g4 * 1e3 << " MeV";
      }
    }
  }
}

}  // namespace
}  // namespace fastmu
