#include "fastmu/physics/MuPairProduction.hh"

#include <algorithm>
#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/physics/LossIntegrals.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {
namespace {
const double sqrte = std::sqrt(std::exp(1.0));
constexpr auto& xgi = integrals::gl8_x;  // 8-point Gauss-Legendre on [0, 1]
constexpr auto& wgi = integrals::gl8_w;
}  // namespace

MuPairProduction::MuPairProduction(const Material& material) {
  double zmin = 1e9;
  for (const auto& c : material.components) {
    if (c.mass_fraction <= 0) continue;
    elements_.push_back({double(c.z), material.density_g_cm3 * constants::avogadro *
                                          c.mass_fraction / c.a_g_per_mol});
    zmin = std::min(zmin, double(c.z));
  }
  min_z13_ = elements_.empty() ? 1.0 : std::cbrt(zmin);
}

double MuPairProduction::max_transfer(double t_gev) const {
  // The lightest element allows the largest transfer.
  return t_gev + constants::muon_mass * (1.0 - 0.75 * sqrte * min_z13_);
}

double MuPairProduction::dxs_per_atom_mev(double z, double t_mev, double eps) {
  const double me = units::electron_mass_mev;
  const double mass = units::muon_mass_mev;
  const double min_pair = 4.0 * me;
  if (eps <= min_pair) return 0;
  const double z13 = std::cbrt(z), z23 = z13 * z13;
  const double etot = t_mev + mass;
  const double eres = etot - eps;
  if (eres <= 0.75 * sqrte * z13 * mass) return 0;

  const double a0 = 1.0 / (etot * eres);
  const double alf = 4.0 * me / eps;
  const double rt = std::sqrt(1.0 - alf);
  const double delta = 6.0 * mass * mass * a0;
  const double tmnexp = alf / (1.0 + rt) + delta * rt;
  if (tmnexp >= 1.0) return 0;
  const double tmn = std::log(tmnexp);

  const double massratio = mass / me;
  const double massratio2 = massratio * massratio;
  const double inv_mr2 = 1.0 / massratio2;

  // Screening constants and the atomic-electron term zeta.
  double bbb, g1, g2;
  if (z < 1.5) {
    bbb = 202.4;
    g1 = 4.4e-5;
    g2 = 4.8e-5;
  } else {
    bbb = 183.0;
    g1 = 1.95e-5;
    g2 = 5.3e-5;
  }
  double zeta = 0;
  const double z1exp = etot / (mass + g1 * z23 * etot);
  if (z1exp > 35.221047195922) {  // zeta numerator > 0
    const double z2exp = etot / (mass + g2 * z13 * etot);
    zeta = (0.073 * std::log(z1exp) - 0.26) / (0.058 * std::log(z2exp) - 0.14);
  }
  const double z2 = z * (z + zeta);
  const double screen0 = 2.0 * me * sqrte * bbb / (z13 * eps);
  const double beta = 0.5 * eps * eps * a0;
  const double xi0 = 0.5 * massratio2 * beta;
  const double b40 = 4.0 * beta, b62 = 6.0 * beta + 2.0;

  double sum = 0;
  for (int i = 0; i < 8; ++i) {
    const double rho = std::exp(tmn * xgi[i]) - 1.0;  // minus the asymmetry
    const double rho2 = rho * rho;
    const double xi = xi0 * (1.0 - rho2);
    const double xi1 = 1.0 + xi;
    const double xii = 1.0 / xi;

    const double yeu = (b40 + 5.0) + (b40 - 1.0) * rho2;
    const double yed = b62 * std::log(3.0 + xii) + (2.0 * beta - 1.0) * rho2 - b40;
    const double ymu = b62 * (1.0 + rho2) + 6.0;
    const double ymd = (b40 + 3.0) * (1.0 + rho2) * std::log(3.0 + xi) + 2.0 - 3.0 * rho2;
    const double ye1 = 1.0 + yeu / yed;
    const double ym1 = 1.0 + ymu / ymd;

    double be, bm;
    if (xi <= 1000.0) {
      be = ((2.0 + rho2) * (1.0 + beta) + xi * (3.0 + rho2)) * std::log(1.0 + xii) +
           (1.0 - rho2 - beta) / xi1 - (3.0 + rho2);
    } else {
      be = 0.5 * (3.0 - rho2 + 2.0 * beta * (1.0 + rho2)) * xii;
    }
    if (xi >= 0.001) {
      const double a10 = (1.0 + 2.0 * beta) * (1.0 - rho2);
      bm = ((1.0 + rho2) * (1.0 + 1.5 * beta) - a10 * xii) * std::log(xi1) +
           xi * (1.0 - rho2 - beta) / xi1 + a10;
    } else {
      bm = 0.5 * (5.0 - rho2 + beta * (3.0 + rho2)) * xi;
    }

    const double screen = screen0 * xi1 / (1.0 - rho2);
    const double ale = std::log(bbb / z13 * std::sqrt(xi1 * ye1) / (1.0 + screen * ye1));
    const double cre = 0.5 * std::log(1.0 + 2.25 * z23 * xi1 * ye1 * inv_mr2);
    const double fe = std::max((ale - cre) * be, 0.0);
    const double alm_crm = std::log(bbb * massratio / (1.5 * z23 * (1.0 + screen * ym1)));
    const double fm = std::max(alm_crm * bm, 0.0) * inv_mr2;
    sum += wgi[i] * (1.0 + rho) * (fe + fm);
  }
  const double factor = constants::fine_structure * constants::fine_structure *
                        constants::classical_electron_radius_cm *
                        constants::classical_electron_radius_cm * 4.0 / (3.0 * constants::pi);
  return std::max(0.0, -tmn * sum * factor * z2 * eres / (etot * eps));
}

double MuPairProduction::dxs(double t_gev, double eps_gev) const {
  if (t_gev <= lowest_kinetic_gev) return 0;
  const double t = t_gev * units::mev_per_gev, e = eps_gev * units::mev_per_gev;
  double sum = 0;
  for (const auto& el : elements_) sum += el.atoms_per_cm3 * dxs_per_atom_mev(el.z, t, e);
  return sum * units::cm_per_m * units::mev_per_gev;
}

}  // namespace fastmu
