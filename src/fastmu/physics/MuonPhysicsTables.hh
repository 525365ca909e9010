// Per-material physics tables of the detailed engine, built once from the
// models and then only read: restricted continuous dE/dx (ionisation below the
// delta-ray cut + bremsstrahlung and pair production below their cuts), range,
// macroscopic cross sections of the discrete processes, and per-energy
// cumulative tables of the radiative transfer spectra (so a discrete event is
// one table look-up, no integral at run time). Grid: kinetic energy 0.1 MeV ..
// 100 TeV, 40 points per decade, linear interpolation in ln T.
//
// MuonPhysicsTables owns the data (params); MuonPhysicsView is the POD view the
// stepping code reads (host and device).
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/materials/Material.hh"
#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/physics/ProductionCuts.hh"
#include "fastmu/physics/UrbanFluctuation.hh"

namespace fastmu {

// Discrete processes, in table order.
enum DiscreteProcess : int {
  kDelta = 0,
  kBrems = 1,
  kPair = 2,
  kPhotonuclear = 3,
  kNumDiscrete = 4
};

struct MuonPhysicsView {
  int n = 0;                          // grid points
  double log_t0 = 0;                  // ln T of the first point [ln GeV]
  double inv_dlog = 0;                // 1 / (ln T step)
  double t_min = 0;                   // first grid point [GeV]
  const double* dedx = nullptr;       // restricted continuous dE/dx [GeV/m]
  const double* log_range = nullptr;  // ln of the CSDA range with the restricted loss [ln m]
  const double* range_floor =
      nullptr;  // below range_at anywhere in [T_i, T_i+1]: exp(min ln range) (1 - 1e-9) [m]
  const double* xs[kNumDiscrete] = {};    // macroscopic cross sections [1/m]
  int n_bins = 0;                         // bins of the transfer tables
  const double* cdf[kNumDiscrete] = {};   // [n][n_bins + 1], null for kDelta
  double kcut[kNumDiscrete] = {};         // lowest discrete transfer [GeV]
  double kmax_offset[kNumDiscrete] = {};  // largest transfer = T + offset [GeV]
  double electron_cut = 0;                // delta-ray threshold [GeV]
  UrbanFluctuationParams urban;

  // Position of T on the grid: index i in [0, n-2] and fraction f in [0, 1].
  // Computed once per step and reused for every table.
  struct Point {
    int i;
    double f;
    double t;
  };
  FASTMU_HD Point locate(double t) const {
    // Single-precision log: ~1e-6 of a grid interval, half the cost.
    double x = (static_cast<double>(std::log(static_cast<float>(t))) - log_t0) * inv_dlog;
    if (x < 0) x = 0;
    if (x > n - 1.000001) x = n - 1.000001;
    const int i = static_cast<int>(x);
    return {i, x - i, t};
  }
  FASTMU_HD static double interp(const double* v, Point g) {
    return v[g.i] + g.f * (v[g.i + 1] - v[g.i]);
  }
  FASTMU_HD double dedx_at(Point g) const { return interp(dedx, g); }
  FASTMU_HD double range_at(Point g) const {
    double r = std::exp(interp(log_range, g));
    if (g.t < t_min) r *= g.t / t_min;  // below the grid the range goes to zero
    return r;
  }
  // A lower bound of range_at(g) without the exp (0 below the grid).
  FASTMU_HD double range_floor_at(Point g) const { return g.t < t_min ? 0.0 : range_floor[g.i]; }
  FASTMU_HD double xs_at(int p, Point g) const { return xs[p] ? interp(xs[p], g) : 0.0; }
  FASTMU_HD double dedx_at(double t) const { return dedx_at(locate(t)); }
  FASTMU_HD double range_at(double t) const { return range_at(locate(t)); }
  FASTMU_HD double xs_at(int p, double t) const { return xs[p] ? xs_at(p, locate(t)) : 0.0; }
  // Kinetic energy whose range is r (inverse of range_at on the grid).
  FASTMU_HD double kinetic_from_range(double r) const {
    const double t0 = std::exp(log_t0);
    const double r0 = std::exp(log_range[0]);
    if (r <= r0) return t0 * r / r0;
    const double lr = std::log(r);
    int lo = 0, hi = n - 1;
    if (lr >= log_range[hi]) return std::exp(log_t0 + (n - 1) / inv_dlog);
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (log_range[mid] <= lr) lo = mid;
      else hi = mid;
    }
    const double f = (lr - log_range[lo]) / (log_range[hi] - log_range[lo]);
    return std::exp(log_t0 + (lo + f) / inv_dlog);
  }
  // Samples the transfer of radiative process p at kinetic energy t (requires xs > 0).
  template <class Rng>
  FASTMU_HD double sample_transfer(int p, double t, Rng& rng) const {
    const Point g = locate(t);
    int i = g.i;
    if (random::uniform(rng) < g.f) ++i;  // choose the neighbouring grid point stochastically
    const double* c = cdf[p] + static_cast<long>(i) * (n_bins + 1);
    if (c[n_bins] <= 0) {  // that grid point is below threshold: use the upper one
      c += (n_bins + 1);
    }
    const double u = random::uniform(rng);
    int lo = 0, hi = n_bins;
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (c[mid] <= u) lo = mid;
      else hi = mid;
    }
    const double dc = c[hi] - c[lo];
    const double x = (lo + (dc > 0 ? (u - c[lo]) / dc : 0.5)) / n_bins;
    const double kmax = t + kmax_offset[p];
    const double k0 = kcut[p];
    if (kmax <= k0) return k0;
    return k0 * std::exp(x * std::log(kmax / k0));
  }
};

class MuonPhysicsTables {
 public:
  MuonPhysicsTables(const Material& material, const PhysicsOptions& options);

  // Built once per (material, options) and shared (thread-safe cache).
  static std::shared_ptr<const MuonPhysicsTables> get(const Material& material,
                                                      const PhysicsOptions& options);

  const MuonPhysicsView& view() const { return view_; }
  const ProductionCuts& cuts() const { return cuts_; }
  const Material& material() const { return material_; }

  // Unrestricted mean loss rates per process [GeV/m] (for validation).
  double ionisation_dedx(double t_gev) const;
  double brems_dedx(double t_gev) const;
  double pair_dedx(double t_gev) const;
  double photonuclear_dedx(double t_gev) const;

 private:
  Material material_;
  PhysicsOptions options_;
  ProductionCuts cuts_;
  std::vector<double> dedx_, log_range_, range_floor_;
  std::vector<double> xs_[kNumDiscrete];
  std::vector<double> cdf_[kNumDiscrete];
  MuonPhysicsView view_;
};

}  // namespace fastmu
