#include "fastmu/physics/ProductionCuts.hh"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "fastmu/core/Constants.hh"
#include "fastmu/physics/PhysicsUnits.hh"

namespace fastmu {
namespace {

// Geant4's energy grid for the conversion: 1 keV .. 10 GeV, 50 bins per decade.
constexpr double grid_emin_mev = 1e-3;
constexpr double grid_emax_mev = 1e4;
constexpr int grid_bins = 350;
constexpr double cut_floor_mev = 0.99e-3;

struct AtomDensity {
  int z;
  double per_cm3;
};

std::vector<AtomDensity> atom_densities(const Material& m) {
  std::vector<AtomDensity> out;
  for (const auto& c : m.components) {
    if (c.mass_fraction <= 0) continue;
    out.push_back({c.z, m.density_g_cm3 * constants::avogadro * c.mass_fraction / c.a_g_per_mol});
  }
  return out;
}

double grid_energy(int i) {
  return grid_emin_mev * std::exp(i * std::log(grid_emax_mev / grid_emin_mev) / grid_bins);
}

// Approximate electron (or positron) dE/dx per atom [MeV cm^2] (G4RToEConvFor{Electron,Positron}).
double cut_dedx_per_atom(int z, double t_mev, bool positron) {
  const double me = units::electron_mass_mev;
  const double cbr1 = 0.02, cbr2 = -5.7e-5, cbr3 = 1.0, cbr4 = 0.072;
  const double tlow = 10e-3, thigh = 1e3, bremfactor = 0.1;
  const double taul = tlow / me;
  const double ionpotlog = std::log(1.6e-5 * std::exp(0.9 * std::log(double(z))) / me);
  const double tau = t_mev / me;
  const double zd = z;
  auto f_of = [&](double tt) {
    const double t1 = tt + 1.0, t2 = tt + 2.0, tsq = tt * tt;
    const double beta2 = tt * t2 / (t1 * t1);
    double f;
    if (!positron) {
      f = 1.0 - beta2 + std::log(tsq / 2.0) +
          (0.5 + 0.25 * tsq + (1.0 + 2.0 * tt) * std::log(0.5)) / (t1 * t1);
    } else {
      f = 2.0 * std::log(tt) - (6.0 * tt + 1.5 * tsq - tt * (1.0 - tsq / 3.0) / t2 -
                                tsq * (0.5 - tsq / 12.0) / (t2 * t2)) /
                                   (t1 * t1);
    }
    return zd * (std::log(2.0 * tt + 4.0) - 2.0 * ionpotlog + f) / beta2;
  };
  double dedx;
  if (tau < taul) {
    dedx = f_of(taul) * std::sqrt(taul / tau);
  } else {
    const double t1 = tau + 1.0;
    const double beta2 = tau * (tau + 2.0) / (t1 * t1);
    dedx = f_of(tau);
    const double cbrem = (cbr1 + cbr2 * zd) * (cbr3 + cbr4 * std::log(t_mev / thigh));
    dedx += zd * (zd + 1.0) * cbrem * bremfactor * tau / beta2;
  }
  return dedx * units::twopi_mc2_rcl2_mev_cm2;
}

// Approximate photon absorption cross section per atom [cm^2] (G4RToEConvForGamma).
double cut_gamma_xs_per_atom(int zi, double e_mev) {
  const double z = zi, zsq = z * z, zlog = std::log(z), zlog2 = zlog * zlog;
  const double t1kev = 1e-3, t200kev = 0.2, t100mev = 100.0;
  const double tmin = 0.552 + 218.5 / z + 557.17 / zsq;
  const double tlow = 0.2 * std::exp(-7.355 / std::sqrt(z));
  const double smin = (0.01239 + 0.005585 * zlog - 0.000923 * zlog2) * std::exp(1.5 * zlog);
  const double s200 = (0.2651 - 0.1501 * zlog + 0.02283 * zlog2) * zsq;
  const double cminlog = std::log(tmin / t200kev);
  const double cmin = std::log(s200 / smin) / (cminlog * cminlog);
  const double slowlog = std::log(t200kev / tlow);
  const double slow = s200 * std::exp(0.042 * z * slowlog * slowlog);
  const double logtlow = std::log(tlow / t1kev);
  const double clow = std::log(300.0 * zsq / slow) / logtlow;
  const double chigh = (7.55e-5 - 0.0542e-5 * z) * zsq * z / std::log(t100mev / tmin);
  double xs;
  if (e_mev < tlow) {
    xs = e_mev < t1kev ? slow * std::exp(clow * logtlow)
                       : slow * std::exp(clow * std::log(tlow / e_mev));
  } else if (e_mev < t200kev) {
    const double x = std::log(t200kev / e_mev);
    xs = s200 * std::exp(0.042 * z * x * x);
  } else if (e_mev < tmin) {
    const double x = std::log(tmin / e_mev);
    xs = smin * std::exp(cmin * x * x);
  } else {
    xs = smin + chigh * std::log(e_mev / tmin);
  }
  return xs * units::cm2_per_barn;
}

double interpolate(double e1, double e2, double r1, double r2, double r) {
  return (r1 == r2) ? e1 : e1 + (e2 - e1) * (r - r1) / (r2 - r1);
}

double convert_charged(const std::vector<AtomDensity>& atoms, double cut_cm, bool positron) {
  double e1 = 0, dedx1 = 0, range1 = 0, range = 0, e2 = 0, range2 = 0;
  for (int i = 0; i < grid_bins; ++i) {
    e2 = grid_energy(i);
    double dedx2 = 0;
    for (const auto& a : atoms) dedx2 += a.per_cm3 * cut_dedx_per_atom(a.z, e2, positron);
    range += (dedx1 + dedx2 > 0) ? 2.0 * (e2 - e1) / (dedx1 + dedx2) : 0.0;
    range2 = range;
    if (range2 < cut_cm) {
      e1 = e2;
      dedx1 = dedx2;
      range1 = range2;
    } else {
      break;
    }
  }
  return interpolate(e1, e2, range1, range2, cut_cm);
}

double convert_gamma(const std::vector<AtomDensity>& atoms, double cut_cm) {
  double e1 = 0, e2 = 0, r1 = 0, r2 = 0;
  for (int i = 0; i < grid_bins; ++i) {
    e2 = grid_energy(i);
    double sig = 0;
    for (const auto& a : atoms) sig += a.per_cm3 * cut_gamma_xs_per_atom(a.z, e2);
    r2 = sig > 0 ? 5.0 / sig : std::numeric_limits<double>::max();
    if (i == 0 || r2 < cut_cm) {
      e1 = e2;
      r1 = r2;
    } else {
      break;
    }
  }
  return interpolate(e1, e2, r1, r2, cut_cm);
}

double finish_charged(double cut_mev, double cut_cm, double density) {
  // Geant4's smooth low-energy correction for very thin cuts.
  const double tune = 0.025 * 0.1;  // 0.025 mm g/cm3, in cm g/cm3
  const double lowen = 30e-3;
  if (cut_mev < lowen) cut_mev /= (1.0 + (1.0 - cut_mev / lowen) * tune / (cut_cm * density));
  return cut_mev;
}

}  // namespace

ProductionCuts compute_production_cuts(const Material& material, double range_cut_m) {
  const auto atoms = atom_densities(material);
  const double cut_cm = range_cut_m * units::cm_per_m;
  auto clamp = [](double e) { return std::clamp(e, cut_floor_mev, grid_emax_mev); };
  ProductionCuts cuts;
  if (atoms.empty() || material.density_g_cm3 <= 0 || cut_cm <= 0) {
    cuts.electron_gev = cuts.positron_gev = cuts.gamma_gev = cut_floor_mev * units::gev_per_mev;
    return cuts;
  }
  cuts.electron_gev =
      units::gev_per_mev *
      clamp(finish_charged(convert_charged(atoms, cut_cm, false), cut_cm, material.density_g_cm3));
  cuts.positron_gev =
      units::gev_per_mev *
      clamp(finish_charged(convert_charged(atoms, cut_cm, true), cut_cm, material.density_g_cm3));
  cuts.gamma_gev = units::gev_per_mev * clamp(convert_gamma(atoms, cut_cm));
  return cuts;
}

}  // namespace fastmu
