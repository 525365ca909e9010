#include "fastmu/physics/MuonPhysicsTables.hh"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>

#include "fastmu/physics/LossIntegrals.hh"
#include "fastmu/physics/MuBremsstrahlung.hh"
#include "fastmu/physics/MuIonisation.hh"
#include "fastmu/physics/MuPairProduction.hh"
#include "fastmu/physics/MuPhotonuclear.hh"
#include "fastmu/physics/MuonKinematics.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {
namespace {

constexpr double grid_t_min = 1e-4;  // GeV
constexpr int grid_per_decade = 40;
constexpr int grid_decades = 9;  // up to 100 TeV
constexpr int transfer_bins = 96;
// 2-point Gauss-Legendre per bin (bins are ~0.1-0.2 wide in ln k, where the
// spectra are smooth): exact to ~1e-4 and 4x cheaper than 8 points.
constexpr double gl2_x[2] = {0.2113248654051871, 0.7886751345948129};

// Fills the cumulative transfer table (uniform in x = ln(k/kcut)/ln(kmax/kcut))
// of `model` at kinetic energy t and returns the cross section above kcut [1/m].
template <class Model>
double fill_transfer_table(const Model& model, double t, double kcut, double kmax, double* c) {
  c[0] = 0;
  if (!(kmax > kcut)) {
    std::fill(c, c + transfer_bins + 1, 0.0);
    return 0;
  }
  const double span = std::log(kmax / kcut);
  const double h = span / transfer_bins;
  double sum = 0;
  for (int j = 0; j < transfer_bins; ++j) {
    double bin = 0;
    for (int g = 0; g < 2; ++g) {
      const double k = kcut * std::exp((j + gl2_x[g]) * h);
      bin += 0.5 * k * model.dxs(t, k);
    }
    sum += bin * h;
    c[j + 1] = sum;
  }
  if (sum > 0) {
    for (int j = 1; j <= transfer_bins; ++j) c[j] /= sum;
  } else {
    std::fill(c, c + transfer_bins + 1, 0.0);
  }
  c[transfer_bins] = sum > 0 ? 1.0 : 0.0;
  return sum;
}

}  // namespace

MuonPhysicsTables::MuonPhysicsTables(const Material& material, const PhysicsOptions& options)
    : material_(material), options_(options) {
  cuts_ = compute_production_cuts(material, options.production_cut_m);
  const MuIonisation ioni(material);
  const MuBremsstrahlung brems(material);
  const MuPairProduction pair(material);
  const MuPhotonuclear photonuc(material);

  const int n = grid_per_decade * grid_decades + 1;
  const double dlog = std::log(10.0) / grid_per_decade;
  std::vector<double> t(n);
  for (int i = 0; i < n; ++i) t[i] = grid_t_min * std::exp(i * dlog);

  const double brems_cut = std::max(cuts_.gamma_gev, MuBremsstrahlung::min_photon_gev);
  const double pair_cut = std::max(cuts_.positron_gev, MuPairProduction::min_pair_gev);
  const double pn_cut = MuPhotonuclear::min_transfer_gev;

  dedx_.resize(n);
  for (auto& v : xs_) v.assign(n, 0.0);
  for (int p = kBrems; p < kNumDiscrete; ++p)
    cdf_[p].assign(std::size_t(n) * (transfer_bins + 1), 0.0);

  for (int i = 0; i < n; ++i) {
    const double ti = t[i];
    double d = ioni.dedx(ti, cuts_.electron_gev);
    xs_[kDelta][i] = ioni.cross_section(ti, cuts_.electron_gev);
    if (ti > MuBremsstrahlung::lowest_kinetic_gev) {
      d += integrals::loss_rate(brems, ti, MuBremsstrahlung::min_photon_gev,
                                std::min(brems_cut, ti));
      xs_[kBrems][i] = fill_transfer_table(brems, ti, brems_cut, brems.max_transfer(ti),
                                           &cdf_[kBrems][std::size_t(i) * (transfer_bins + 1)]);
    }
    if (ti > MuPairProduction::lowest_kinetic_gev) {
      const double kmax = pair.max_transfer(ti);
      d += integrals::loss_rate(pair, ti, MuPairProduction::min_pair_gev, std::min(pair_cut, kmax));
      xs_[kPair][i] = fill_transfer_table(pair, ti, pair_cut, kmax,
                                          &cdf_[kPair][std::size_t(i) * (transfer_bins + 1)]);
    }
    if (ti > MuPhotonuclear::lowest_kinetic_gev &&
        (options.photonuclear || ti >= options.photonuclear_from_gev)) {
      xs_[kPhotonuclear][i] =
          fill_transfer_table(photonuc, ti, pn_cut, photonuc.max_transfer(ti),
                              &cdf_[kPhotonuclear][std::size_t(i) * (transfer_bins + 1)]);
    }
    dedx_[i] = d;
  }

  // CSDA range with the restricted loss: R(T) = R(T0) + integral dT / (dE/dx),
  // trapezoid in ln T on 8 sub-steps per grid interval with log-log dE/dx.
  log_range_.resize(n);
  double r = t[0] / dedx_[0];  // below the grid the range is taken proportional to T
  log_range_[0] = std::log(r);
  for (int i = 1; i < n; ++i) {
    const int sub = 8;
    const double l0 = std::log(dedx_[i - 1]), l1 = std::log(dedx_[i]);
    for (int s = 0; s < sub; ++s) {
      auto g = [&](double f) {
        const double tt = t[i - 1] * std::exp(f * dlog);
        return tt / std::exp(l0 + f * (l1 - l0));
      };
      const double fa = double(s) / sub, fb = double(s + 1) / sub;
      r += 0.5 * (g(fa) + g(fb)) * (fb - fa) * dlog;
    }
    log_range_[i] = std::log(r);
  }

  view_.n = n;
  view_.log_t0 = std::log(grid_t_min);
  view_.inv_dlog = 1.0 / dlog;
  view_.t_min = grid_t_min;
  view_.dedx = dedx_.data();
  view_.log_range = log_range_.data();
  // The margin covers the rounding of the interpolation and of exp().
  range_floor_.resize(n);
  for (int i = 0; i + 1 < n; ++i) {
    range_floor_[i] = std::exp(std::min(log_range_[i], log_range_[i + 1])) * (1.0 - 1e-9);
  }
  range_floor_[n - 1] = std::exp(log_range_[n - 1]) * (1.0 - 1e-9);
  view_.range_floor = range_floor_.data();
  for (int p = 0; p < kNumDiscrete; ++p) view_.xs[p] = xs_[p].data();
  if (!options.photonuclear && !(options.photonuclear_from_gev <= t[n - 1])) {
    view_.xs[kPhotonuclear] = nullptr;  // none on the grid
  }
  view_.n_bins = transfer_bins;
  for (int p = kBrems; p < kNumDiscrete; ++p) view_.cdf[p] = cdf_[p].data();
  view_.kcut[kDelta] = cuts_.electron_gev;
  view_.kcut[kBrems] = brems_cut;
  view_.kcut[kPair] = pair_cut;
  view_.kcut[kPhotonuclear] = pn_cut;
  view_.kmax_offset[kBrems] = 0.0;
  view_.kmax_offset[kPair] = pair.max_transfer(0.0);
  view_.kmax_offset[kPhotonuclear] = photonuc.max_transfer(0.0);
  view_.electron_cut = cuts_.electron_gev;
  view_.urban.mean_excitation_gev = material.mean_excitation_ev * 1e-9;
  view_.urban.electron_density_per_m3 = material.electron_density_per_cm3() * 1e6;
  urban::set_cut(view_.urban, cuts_.electron_gev);
}

double MuonPhysicsTables::ionisation_dedx(double t_gev) const {
  return MuIonisation(material_).dedx(t_gev, 1e30);
}
double MuonPhysicsTables::brems_dedx(double t_gev) const {
  const MuBremsstrahlung m(material_);
  return integrals::loss_rate(m, t_gev, MuBremsstrahlung::min_photon_gev, t_gev);
}
double MuonPhysicsTables::pair_dedx(double t_gev) const {
  const MuPairProduction m(material_);
  return integrals::loss_rate(m, t_gev, MuPairProduction::min_pair_gev, m.max_transfer(t_gev));
}
double MuonPhysicsTables::photonuclear_dedx(double t_gev) const {
  const MuPhotonuclear m(material_);
  return integrals::loss_rate(m, t_gev, MuPhotonuclear::min_transfer_gev, m.max_transfer(t_gev));
}

std::shared_ptr<const MuonPhysicsTables> MuonPhysicsTables::get(const Material& material,
                                                                const PhysicsOptions& options) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const MuonPhysicsTables>> cache;
  std::ostringstream key;
  key.precision(17);
  key << material.name << '|' << material.density_g_cm3 << '|' << material.mean_excitation_ev;
  for (const auto& c : material.components) key << '|' << c.z << ':' << c.mass_fraction;
  key << '|' << options.production_cut_m << '|' << options.photonuclear << '|'
      << options.photonuclear_from_gev;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key.str()); it != cache.end()) return it->second;
  }
  // Built outside the lock, so that tables of several cuts build at once (a
  // ladder build prepares all of its cuts' together); the first one stored wins.
  auto built = std::make_shared<const MuonPhysicsTables>(material, options);
  const std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key.str(), std::move(built)).first->second;
}

}  // namespace fastmu
