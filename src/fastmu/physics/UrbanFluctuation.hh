// Fluctuations of the continuous (restricted) energy loss along a step:
// the Urban model of Geant4 11 (G4UniversalFluctuation), i.e. GLANDZ of
// GEANT3 (CERN W5013 PHYS332; L. Urban et al., NIM A362 (1995) 416; Geant4
// Physics Reference Manual, "Fluctuations in energy loss").
//
// Two regimes: for many collisions with a small maximum transfer (mean loss
// >= 10 tcut and tmax <= 2 tcut) the loss is Gaussian (or Gamma when the
// Gaussian would be too wide); otherwise the loss is the sum of excitations
// (one effective level, e1 = I scaled by fw) and ionisations with a 1/E^2
// spectrum between e0 = 10 eV and tcut, sampled as Poisson counts.
// Valid for any step; the mean of the sampled loss equals mean_loss.
// Energies in GeV, lengths in metres.
#pragma once

#include <algorithm>
#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/physics/PhysicsUnits.hh"
#include "fastmu/physics/RandomDistributions.hh"

namespace fastmu {

// Per-material constants of the fluctuation model.
struct UrbanFluctuationParams {
  double mean_excitation_gev = 0;      // I
  double electron_density_per_m3 = 0;  // n_e
  double cut_gev = 0;                  // the material's delta-ray cut, and
  double log_cut_over_e0 = 0;          // ln(cut / e0), cached (tcut is usually the cut)
  // Further terms of the sampler that depend on the cut only, cached by
  // urban::set_cut with the very operations the sampler would do (bitwise equal).
  double scaling_at_cut = 0;  // min(1 + width_scale_energy / cut, 1.5)
  double w1_at_cut = 0;       // cut / e0
  double a3_num_at_cut = 0;   // cut - e0
  double a3_den_at_cut = 0;   // e0 cut ln(cut / e0)
  double w1_nmax_at_cut = 0;  // (cut / e0) nmax_cont
};

namespace urban {
inline constexpr double min_loss = 10e-9;  // 10 eV: below, no fluctuation
inline constexpr double e0 = 10e-9;        // 10 eV: lowest ionisation energy
inline constexpr double min_interactions_bohr = 10.0;
inline constexpr double nmax_cont = 8.0;  // above: Gaussian instead of Poisson
inline constexpr double rate = 0.56;      // ionisation share of the loss
inline constexpr double fw = 4.0;         // width correction of the excitation level
inline constexpr double a0 = 42.0;
inline constexpr double width_scale_energy = 0.5e-6;  // 0.5 keV, small-cut width correction

// Sets the delta-ray cut of the params and its cached terms.
inline void set_cut(UrbanFluctuationParams& m, double cut) {
  m.cut_gev = cut;
  m.log_cut_over_e0 = std::log(cut / e0);
  m.scaling_at_cut = std::min(1.0 + width_scale_energy / cut, 1.5);
  m.w1_at_cut = cut / e0;
  m.a3_num_at_cut = cut - e0;
  m.a3_den_at_cut = e0 * cut * m.log_cut_over_e0;
  m.w1_nmax_at_cut = m.w1_at_cut * nmax_cont;
}

template <class Rng>
FASTMU_HD inline void add_excitation(double ax, double ex, double& eav, double& eloss,
                                     double& esig2, Rng& rng) {
  if (ax > nmax_cont) {
    eav += ax * ex;
    esig2 += ax * ex * ex;
  } else {
    const long p = random::poisson(ax, rng);
    if (p > 0) eloss += (double(p + 1) - 2.0 * random::uniform(rng)) * ex;
  }
}

// Gaussian truncated to [0, 2 eav]; a uniform when the mean is under a quarter width.
template <class Rng>
FASTMU_HD inline void add_gauss(double eav, double esig2, double& eloss, Rng& rng) {
  const double sig = std::sqrt(esig2);
  double x = eav;
  if (eav < 0.25 * sig) {
    x += (2.0 * random::uniform(rng) - 1.0) * eav;
  } else {
    for (int i = 0; i < 1000; ++i) {
      x = eav + sig * random::normal(rng);
      if (x >= 0.0 && x <= 2.0 * eav) break;
      x = eav;
    }
  }
  eloss += x;
}
}  // namespace urban

// Samples the actual loss for a step of `length` with mean restricted loss
// `mean_loss`, kinetic energy `kinetic`, delta-ray cut `tcut` (<= tmax) and
// kinematic maximum transfer `tmax`. Unit charge.
template <class Rng>
FASTMU_HD inline double sample_urban_loss(const UrbanFluctuationParams& m, double mean_loss,
                                          double kinetic, double mass, double tcut, double tmax,
                                          double length, Rng& rng) {
  using namespace urban;
  if (mean_loss < min_loss) return mean_loss;

  // Gaussian regime: many collisions, small maximum transfer.
  if (mean_loss >= min_interactions_bohr * tcut && tmax <= 2.0 * tcut) {
    const double gam = kinetic / mass + 1.0;
    const double beta2 = 1.0 - 1.0 / (gam * gam);
    const double siga = std::sqrt((tmax / beta2 - 0.5 * tcut) * units::twopi_mc2_rcl2_gev_m2 *
                                  length * m.electron_density_per_m3);
    const double sn = mean_loss / siga;
    if (sn >= 2.0) {
      for (int i = 0; i < 1000; ++i) {
        const double loss = mean_loss + siga * random::normal(rng);
        if (loss >= 0.0 && loss <= 2.0 * mean_loss) return loss;
      }
      return mean_loss;
    }
    const double neff = sn * sn;
    return mean_loss * random::gamma(neff, rng) / neff;
  }

  if (tcut <= e0) return mean_loss;
  const double ipot = m.mean_excitation_gev;
  const bool at_cut = tcut == m.cut_gev;  // then the cut's terms are cached
  // Width correction for small cuts.
  const double scaling = at_cut ? m.scaling_at_cut : std::min(1.0 + width_scale_energy / tcut, 1.5);
  const double mloss = mean_loss / scaling;

  double a1 = 0.0, e1 = ipot;
  if (tcut > e1) {
    a1 = mloss * (1.0 - rate) / e1;
    if (a1 < a0) {
      const double fwnow = 0.1 + (fw - 0.1) * std::sqrt(a1 / a0);
      a1 /= fwnow;
      e1 *= fwnow;
    } else {
      a1 /= fw;
      e1 *= fw;
    }
  }
  const double w1 = at_cut ? m.w1_at_cut : tcut / e0;
  double a3 = rate * mloss * (at_cut ? m.a3_num_at_cut : tcut - e0) /
              (at_cut ? m.a3_den_at_cut : e0 * tcut * std::log(w1));
  if (a1 <= 0.0) a3 /= rate;

  double loss = 0.0;
  double emean = 0.0, sig2e = 0.0;
  if (a1 > 0.0) add_excitation(a1, e1, emean, loss, sig2e, rng);
  if (sig2e > 0.0) add_gauss(emean, sig2e, loss, rng);

  if (a3 > 0.0) {
    emean = 0.0;
    sig2e = 0.0;
    double p3 = a3;
    double alfa = 1.0;
    if (a3 > nmax_cont) {
      // The softest collisions are summed as one Gaussian.
      alfa = w1 * (nmax_cont + a3) / ((at_cut ? m.w1_nmax_at_cut : w1 * nmax_cont) + a3);
      const double alfa1 = alfa * std::log(alfa) / (alfa - 1.0);
      const double namean = a3 * w1 * (alfa - 1.0) / ((w1 - 1.0) * alfa);
      emean += namean * e0 * alfa1;
      sig2e += e0 * e0 * namean * (alfa - alfa1 * alfa1);
      p3 = a3 - namean;
    }
    const double w3 = alfa * e0;
    if (tcut > w3) {
      const double w = (tcut - w3) / tcut;
      const long nnb = random::poisson(p3, rng);
      for (long k = 0; k < nnb; ++k) loss += w3 / (1.0 - w * random::uniform(rng));
    }
    if (sig2e > 0.0) add_gauss(emean, sig2e, loss, rng);
  }
  return loss * scaling;
}

}  // namespace fastmu
