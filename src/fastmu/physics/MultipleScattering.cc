// Per-material constants of the muon Coulomb scattering model (formulas and
// sources in MultipleScatteringSampler.hh).
#include "fastmu/physics/MultipleScattering.hh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/physics/ProductionCuts.hh"

namespace fastmu {

namespace {

// Geant4's default production range cut.
constexpr double default_range_cut_m = 0.7e-3;
// Thomas-Fermi screening radius a_TF = 0.88534 a_B Z^-1/3 written as
// alpha * m_e / 0.88534 in momentum units [GeV].
constexpr double thomas_fermi_momentum =
    constants::fine_structure * constants::electron_mass / 0.88534;
// Nuclear form factor constant of Butkevich et al. (2002): f = 6.937e-6 MeV^-2 * A^0.54.
constexpr double form_factor_gev2 = 6.937e-6 * 1e6;
// hbar c [GeV fm]: the nuclear-size angular limit is hbar c / (R p) with R ~ A^1/3 fm.
constexpr double hbarc_gev_fm = 0.1973269804;
// Geant4 limits msc steps in an infinite medium to 50 X0 / facgeom (2.5).
constexpr double max_step_radiation_lengths = 20.0;

MultipleScatteringData build(const Material& material, double electron_cut_gev) {
  MultipleScatteringData d;
  if (material.components.empty()) {
    throw Error("material '" + material.name + "': no components for multiple scattering");
  }
  if (material.components.size() > std::size_t(MultipleScatteringData::max_elements)) {
    throw Error("material '" + material.name + "': " + std::to_string(material.components.size()) +
                " components, multiple scattering supports at most " +
                std::to_string(MultipleScatteringData::max_elements));
  }
  if (!(material.density_g_cm3 > 0)) {
    throw Error("material '" + material.name +
                "': density must be positive for multiple scattering");
  }
  const double alpha2 = constants::fine_structure * constants::fine_structure;
  double n_total = 0, inv_a23 = 0, max_slope_ratio = 0;
  for (const MaterialComponent& c : material.components) {
    if (c.z < 1 || !(c.a_g_per_mol > 0) || !(c.mass_fraction >= 0)) {
      throw Error("material '" + material.name + "': component Z = " + std::to_string(c.z) +
                  " has invalid Z, A or mass fraction");
    }
    const int i = d.num_elements++;
    const double z = c.z;
    // Atoms per m^3.
    const double n =
        material.density_g_cm3 * c.mass_fraction * constants::avogadro / c.a_g_per_mol * 1e6;
    d.z[i] = c.z;
    d.n_z2[i] = n * z * z;
    d.n_z[i] = n * z;
    // Screening (Geant4 WentzelOKandVI): hydrogen without the Moliere factor.
    const double a_tf2 = 0.5 * thomas_fermi_momentum * thomas_fermi_momentum;
    if (c.z == 1) {
      d.screen_base[i] = a_tf2;
      d.screen_slope[i] = 0;
      d.screen_cap[i] = a_tf2;
    } else {
      const double s = a_tf2 * (1.0 + std::exp(-z * z * 0.001)) * std::cbrt(z * z);
      const double moliere = 3.76 * alpha2 * z * z;
      d.screen_base[i] = s * (1.13 + moliere);
      d.screen_slope[i] = s * moliere;
      d.screen_cap[i] = s * 1.13 * z;
    }
    d.form_factor[i] = form_factor_gev2 * std::pow(c.a_g_per_mol, 0.54);
    n_total += n;
    inv_a23 += n / std::cbrt(c.a_g_per_mol * c.a_g_per_mol);
    max_slope_ratio = std::max(max_slope_ratio, d.screen_slope[i] / d.screen_base[i]);
  }
  for (int i = 0; i < d.num_elements; ++i) {
    d.sum_n_z2 += d.n_z2[i];
    d.sum_n_z += d.n_z[i];
    d.cum_n_z2[i] = d.sum_n_z2;
    d.cum_n_z[i] = d.sum_n_z;
    const double la = std::log(d.screen_base[i]);
    const double r = d.screen_slope[i] / d.screen_base[i];
    d.log_screen_n_z2 += d.n_z2[i] * la;
    d.log_screen_n_z += d.n_z[i] * la;
    d.dlog_screen_n_z2 += d.n_z2[i] * r;
    d.dlog_screen_n_z += d.n_z[i] * r;
    d.d2log_screen_n_z2 += d.n_z2[i] * r * r;
    d.d2log_screen_n_z += d.n_z[i] * r * r;
    d.max_screen = std::max(d.max_screen, d.screen_base[i]);
  }
  if (!(d.sum_n_z2 > 0)) {
    throw Error("material '" + material.name + "': all mass fractions are zero");
  }
  d.max_slope_ratio = max_slope_ratio;
  inv_a23 /= n_total;
  d.u_nuclear_limit = 0.5 * hbarc_gev_fm * hbarc_gev_fm * inv_a23;
  d.log_u_nuclear_limit = std::log(d.u_nuclear_limit);
  if (!(electron_cut_gev > 0)) {
    throw Error("material '" + material.name + "': delta-ray threshold must be positive, got " +
                std::to_string(electron_cut_gev) + " GeV");
  }
  d.electron_cut = electron_cut_gev;
  d.log_u_electron_cut = std::log(electron_cut_gev * constants::electron_mass);
  {
    // Crossing of the largest transfer (increasing in p) with the cut, by bisection in ln p^2.
    double lo = std::log(1e-12), hi = std::log(1e12);
    if (msc_detail::max_electron_transfer(std::exp(hi)) <= electron_cut_gev) {
      d.p2_above_electron_cut = std::numeric_limits<double>::infinity();
    } else {
      for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (msc_detail::max_electron_transfer(std::exp(mid)) > electron_cut_gev) hi = mid;
        else lo = mid;
      }
      d.p2_above_electron_cut = std::exp(hi) * (1.0 + 1e-6);
    }
  }
  d.max_step_infinite = max_step_radiation_lengths * material.radiation_length_m();
  return d;
}

}  // namespace

MultipleScattering::MultipleScattering(const Material& material)
    : MultipleScattering(material,
                         compute_production_cuts(material, default_range_cut_m).electron_gev) {}

MultipleScattering::MultipleScattering(const Material& material, double electron_cut_gev)
    : data_(build(material, electron_cut_gev)) {}

double MultipleScattering::transport_mfp_m(double p_gev) const {
  using namespace msc_detail;
  if (!(p_gev > 0)) return 0.0;
  const Kinematics kin = make_kinematics(data_, p_gev, 1);
  const double p2 = p_gev * p_gev;
  const double u_max = std::min(data_.u_nuclear_limit, 2.0 * p2);
  const double u_el = std::min(u_max, kin.u_e);
  const double g = transport_sum(data_, kin, u_max, std::log(u_max), true) +
                   transport_sum(data_, kin, u_el, std::log(u_el), false);
  return g > 0 ? p2 / (kin.k * g) : std::numeric_limits<double>::infinity();
}

std::shared_ptr<const MultipleScattering> MultipleScattering::get(const Material& material) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const MultipleScattering>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = material.name + '|' + std::to_string(material.density_g_cm3);
  auto& entry = cache[key];
  if (!entry) entry = std::make_shared<const MultipleScattering>(material);
  return entry;
}

double MultipleScattering::max_step_m(double p_gev) const { return msc_max_step(data_, p_gev); }

}  // namespace fastmu
