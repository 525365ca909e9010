// Sampling of the Coulomb scattering of a muon over one step: the "mixed"
// scheme of Geant4's G4WentzelVIModel + G4eCoulombScatteringModel
// (Geant4 Physics Reference Manual, "Wentzel VI model" and "Single Coulomb
// scattering"; V.N. Ivanchenko et al., J. Phys. Conf. Ser. 219 (2010) 032045).
//
// Cross section: Wentzel's screened Rutherford formula per atom,
//   dsigma/du = K [Z^2 G(u) / (u + a)^2  (nucleus)  +  Z / (u + a)^2  (electrons, u < u_e)]
// with u = p^2 (1 - cos theta) [GeV^2], K = 2 pi (m_e r_e)^2 z^2 / beta^2,
// Moliere's screening a = 1/2 (alpha m_e / 0.88534)^2 (1 + e^(-Z^2/1000)) Z^(2/3)
// (1.13 + 3.76 (alpha Z)^2 / beta^2) (Thomas-Fermi radius; hydrogen without the
// bracket; Geant4 WentzelOKandVI), and electron targets up to the delta-ray
// threshold (harder electron collisions are discrete ionisation).
// Nuclear size: G(u) = (1 + f u)^-2 with f = 6.937e-6 A^0.54 MeV^-2, the
// exponential form factor of Butkevich et al., NIM A 488 (2002) 282. Geant4 11
// source applies its square, (1 + f u)^-4, but the Geant4 11.4 reference
// samples do not: in iron their tail P(pt > X) at X = 100-300 MeV/c follows the
// single power (P(pt > 200 MeV) = 1.0e-4 per 2 cm; (1 + f u)^-2 predicts
// 0.7e-4 before smearing by the core, (1 + f u)^-4 only 0.09e-4), so the
// single power is used, matched to the samples.
// Valid for muons above ~1 MeV kinetic energy (relativistic screening).
//
// Per step of true length t (Geant4 11 WentzelVI with ssFactor 1.25):
//  - lambda_1: transport mean free path of scatterings up to the
//    nuclear-size angle u_max = (hbar c / fm)^2 <A^-2/3> / 2;
//  - threshold u_c = 1.25 t p^2 / lambda_1 (the angle the step's multiple
//    scattering reaches);
//  - soft collisions (u < u_c): their sum is sampled as Geant4 does, with
//    1 - cos theta exponential of mean t / lambda_soft (a Gaussian in the
//    small-angle limit), and the lateral displacement correlated with it
//    (PDG 2024 eq. 34.20);
//  - hard collisions (u > u_c, up to backscattering): explicit single
//    scatterings, Poisson-distributed along the step (on average < 0.1 per
//    step for any t), the nuclear size by rejection. Geant4's Mott (spin)
//    and target-recoil factors are left out: below 1e-3 at these angles.
#pragma once

#include <cmath>

#include "fastmu/core/Constants.hh"
#include "fastmu/core/Macros.hh"
#include "fastmu/core/Random.hh"
#include "fastmu/core/Vec3.hh"
#include "fastmu/physics/AzimuthTrig.hh"
#include "fastmu/physics/MultipleScatteringData.hh"
#include "fastmu/physics/RandomDistributions.hh"

namespace fastmu {

struct MscDeflection {
  double cos_theta;
  double phi;
  double lateral_x_m;
  double lateral_y_m;
  // cos(phi) and sin(phi) (to a few units in the last place), already
  // computed by the sampler: callers rotating the direction need not
  // evaluate the trigonometry a second time.
  double cos_phi;
  double sin_phi;
};

namespace msc_detail {

// 2 pi (m_e c^2 r_e)^2 [GeV^2 m^2]: the Rutherford prefactor in u.
inline constexpr double electron_mass_radius =
    constants::electron_mass * constants::classical_electron_radius_cm * 1e-2;
inline constexpr double rutherford_k =
    constants::two_pi * electron_mass_radius * electron_mass_radius;
// Geant4 WentzelVI single-scattering factor: threshold angle^2 = 1.25 x
// the step's mean (1 - cos theta).
inline constexpr double single_scattering_factor = 1.25;
// Above u / a = this, the screened transport integral ln(1+x) - x/(1+x)
// is ln(x) - 1 to better than 1e-5 relative: material sums can be used.
inline constexpr double asymptotic_ratio = 1000.0;

// ln(1 + x) - x / (1 + x): transport integral of 1/(u+a)^2 up to u = x a, over a.
FASTMU_HD inline double transport_integral(double x) {
  if (x < 0.01) return x * x * (0.5 - x * (2.0 / 3.0 - 0.75 * x));
  return std::log1p(x) - x / (1.0 + x);
}

// The per-step material state at given momentum.
struct Kinematics {
  double y;         // 1/beta^2 - 1 = m^2 / p^2
  double k;         // K [GeV^2 m^2]
  double u_e;       // upper u of scattering off electrons [GeV^2]
  double log_u_e;   // ln(u_e)
  double log_a_z2;  // sum n Z^2 ln a
  double log_a_z;   // sum n Z ln a
};

FASTMU_HD inline double screening(const MultipleScatteringData& d, int i, double y) {
  const double a = d.screen_base[i] + d.screen_slope[i] * y;
  return a < d.screen_cap[i] ? a : d.screen_cap[i];
}

// Sum over elements of w_i * [ln(1 + u/a_i) - u/(u + a_i)], w = n Z^2 (nuclei) or n Z (electrons).
// log_u = ln(u), passed in because callers often know it already.
FASTMU_HD inline double transport_sum(const MultipleScatteringData& d, const Kinematics& kin,
                                      double u, double log_u, bool nuclei) {
  if (!(u > 0)) return 0.0;
  if (u > asymptotic_ratio * d.max_screen * (1.0 + kin.y)) {
    return nuclei ? d.sum_n_z2 * (log_u - 1.0) - kin.log_a_z2
                  : d.sum_n_z * (log_u - 1.0) - kin.log_a_z;
  }
  double s = 0;
  for (int i = 0; i < d.num_elements; ++i) {
    const double w = nuclei ? d.n_z2[i] : d.n_z[i];
    s += w * transport_integral(u / screening(d, i, kin.y));
  }
  return s;
}

// Sum over elements of w_i * [1/(u1 + a_i) - 1/(u2 + a_i)].
FASTMU_HD inline double total_sum(const MultipleScatteringData& d, const Kinematics& kin, double u1,
                                  double u2, bool nuclei) {
  if (!(u2 > u1)) return 0.0;
  if (u1 > asymptotic_ratio * d.max_screen * (1.0 + kin.y)) {
    return (nuclei ? d.sum_n_z2 : d.sum_n_z) * (1.0 / u1 - 1.0 / u2);
  }
  double s = 0;
  for (int i = 0; i < d.num_elements; ++i) {
    const double a = screening(d, i, kin.y);
    s += (nuclei ? d.n_z2[i] : d.n_z[i]) * (1.0 / (u1 + a) - 1.0 / (u2 + a));
  }
  return s;
}

// Largest energy transfer [GeV] to a free electron at p^2 [GeV^2] (PDG 34.2.2 eq. 34.4).
FASTMU_HD inline double max_electron_transfer(double p2) {
  const double m = constants::muon_mass;
  const double tkin = p2 / (std::sqrt(p2 + m * m) + m);
  const double tau = tkin / m;
  const double ratio = constants::electron_mass / m;
  return 2.0 * constants::electron_mass * tau * (tau + 2.0) /
         (1.0 + 2.0 * ratio * (tau + 1.0) + ratio * ratio);
}

FASTMU_HD inline Kinematics make_kinematics(const MultipleScatteringData& d, double p, int charge) {
  Kinematics kin;
  const double m = constants::muon_mass;
  const double p2 = p * p;
  kin.y = m * m / p2;
  kin.k = rutherford_k * double(charge) * double(charge) * (1.0 + kin.y);
  // Electron recoil T gives 1 - cos theta = T m_e / p^2 (Geant4 ComputeMaxElectronScattering),
  // up to the delta-ray cut or the largest transfer, whichever is lower.
  if (p2 > d.p2_above_electron_cut || d.electron_cut < max_electron_transfer(p2)) {
    kin.u_e = d.electron_cut * constants::electron_mass;
    kin.log_u_e = d.log_u_electron_cut;
  } else {
    kin.u_e = max_electron_transfer(p2) * constants::electron_mass;
    kin.log_u_e = std::log(kin.u_e);
  }
  if (d.max_slope_ratio * kin.y < 0.01) {
    // ln a_i = ln base_i + ln(1 + r_i y), expanded to second order.
    kin.log_a_z2 =
        d.log_screen_n_z2 + kin.y * (d.dlog_screen_n_z2 - 0.5 * kin.y * d.d2log_screen_n_z2);
    kin.log_a_z = d.log_screen_n_z + kin.y * (d.dlog_screen_n_z - 0.5 * kin.y * d.d2log_screen_n_z);
  } else {
    kin.log_a_z2 = kin.log_a_z = 0;
    for (int i = 0; i < d.num_elements; ++i) {
      const double la = std::log(screening(d, i, kin.y));
      kin.log_a_z2 += d.n_z2[i] * la;
      kin.log_a_z += d.n_z[i] * la;
    }
  }
  return kin;
}

// Uniform in (0, 1) from one 32-bit word: enough resolution here (the
// exponential tails reach 22 means) at half the cost of 53-bit draws.
template <class Rng>
FASTMU_HD inline double uniform32(Rng& rng) {
  return to_unit_open(rng.next_u32());
}

// u in [u1, u2] from 1/(u + a)^2 by inversion.
FASTMU_HD inline double sample_rutherford(double u1, double u2, double a, double r) {
  const double w1 = u1 + a;
  const double w2 = u2 + a;
  return w1 * w2 / (w2 - r * (w2 - w1)) - a;
}

}  // namespace msc_detail

// Step limit the model asks for [m] (MultipleScattering::max_step_m).
// Geant4 WentzelVI limits the true step to min(20 X0, max(facrange * range,
// (1 - cos theta_max) lambda_1 / 1.2)). The range term (facrange = 0.2 for
// muons) equals the continuous-loss step limit the engine applies anyway, so
// only the 20 X0 cap is left to ask for here. Steps above the natural limit
// are sampled as Geant4 does: all collisions up to theta_max soft.
FASTMU_HD inline double msc_max_step(const MultipleScatteringData& d, double /*p_gev*/) {
  return d.max_step_infinite;
}

// Samples the deflection after true path length t [m] at momentum p [GeV/c].
// `lateral` false: the caller discards the lateral displacement (a step
// ending on the boundary), so its two normal variates are not drawn (the
// lateral fields are then 0; the direction has the same distribution).
template <class Rng>
FASTMU_HD inline MscDeflection sample_msc(const MultipleScatteringData& d, double p, double t,
                                          int charge, Rng& rng, bool lateral = true) {
  using namespace msc_detail;
  MscDeflection out{1.0, 0.0, 0.0, 0.0, 1.0, 0.0};
  if (!(t > 0) || !(p > 0) || charge == 0 || d.num_elements == 0) return out;

  const Kinematics kin = make_kinematics(d, p, charge);
  const double p2 = p * p;
  const double u_top = 2.0 * p2;  // theta = pi
  const bool clamped = d.u_nuclear_limit >= u_top;
  const double u_max = clamped ? u_top : d.u_nuclear_limit;
  const double log_u_max = clamped ? std::log(u_top) : d.log_u_nuclear_limit;

  // Transport integral G(u) = sum over targets, electrons only up to u_e.
  auto g_of = [&](double u, double log_u) {
    return transport_sum(d, kin, u, log_u, true) +
           (u < kin.u_e ? transport_sum(d, kin, u, log_u, false)
                        : transport_sum(d, kin, kin.u_e, kin.log_u_e, false));
  };
  // Threshold between soft and hard collisions; 1/lambda_1 = K G(u_max) / p^2.
  const double u_c = single_scattering_factor * t * kin.k * g_of(u_max, log_u_max);
  const double u_lo = u_c < u_max ? u_c : u_max;
  // Mean 1 - cos theta of the soft part: t / lambda_soft.
  const double soft_mean =
      u_lo > 0 ? t * kin.k * g_of(u_lo, u_c < u_max ? std::log(u_lo) : log_u_max) / p2 : 0.0;

  // Hard collisions: rates [1/m] off nuclei (to theta = pi) and electrons (to u_e).
  const double rate_nuc = kin.k * total_sum(d, kin, u_lo, u_top, true);
  const double rate_el = kin.u_e > u_lo ? kin.k * total_sum(d, kin, u_lo, kin.u_e, false) : 0.0;
  const double rate = rate_nuc + rate_el;

  // Walk along the step: straight segments between hard collisions.
  Vec3 dir{0.0, 0.0, 1.0};
  Vec3 pos{0.0, 0.0, 0.0};
  bool kinked = false;
  double s = 0;
  if (rate > 0) {
    // Most steps have no hard collision (mean rate * t < 0.1): the first
    // free path reaches the end of the step whenever r < 1 - rate t, since
    // -ln r > -ln(1 - x) >= x. Checking that (with a margin far above the
    // rounding of log and division) skips the logarithm without changing
    // any outcome.
    const double no_collision_below = (1.0 - rate * t) * (1.0 - 1e-9);
    for (;;) {
      const double r = uniform32(rng);
      if (s == 0 && r < no_collision_below) break;
      const double ds = -std::log(r) / rate;
      if (s + ds >= t) break;
      s += ds;
      pos += ds * dir;
      // Target: nucleus or electrons of element i, by partial rate (the
      // screening a_i << u_lo, so the weights are n Z^2 and n Z).
      const double pick = uniform32(rng) * rate;
      const bool on_nucleus = pick < rate_nuc;
      const double* cum = on_nucleus ? d.cum_n_z2 : d.cum_n_z;
      const double want =
          (on_nucleus ? pick / rate_nuc : (pick - rate_nuc) / rate_el) * cum[d.num_elements - 1];
      int i = 0;
      while (i < d.num_elements - 1 && cum[i] < want) ++i;
      const double a = screening(d, i, kin.y);
      const double u = sample_rutherford(u_lo, on_nucleus ? u_top : kin.u_e, a, uniform32(rng));
      if (on_nucleus) {
        // Nuclear size: accept with (1 + f u)^-2 (a rejected candidate is a
        // "false scattering", as in Geant4); see the header comment.
        const double f = 1.0 / (1.0 + d.form_factor[i] * u);
        if (uniform32(rng) > f * f) continue;
      }
      double omc = u / p2;
      if (omc > 2.0) omc = 2.0;
      const double sint = std::sqrt(omc * (2.0 - omc));
      const double ph = constants::two_pi * uniform32(rng);
      dir = rotate_from_z(Vec3{sint * std::cos(ph), sint * std::sin(ph), 1.0 - omc}, dir);
      kinked = true;
    }
  }
  pos += (t - s) * dir;

  // Soft part at the end of the step: 1 - cos theta exponential (Geant4 WentzelVI).
  // Truncated to 1 - cos theta <= 2 by inversion (matters only for huge steps).
  // Below soft_mean 0.05 the truncation (probability e^-40) is left out and
  // the exponential variate drawn directly (ziggurat, no logarithm).
  double omc = 0;
  if (soft_mean > 0) {
    omc = soft_mean < 0.05
              ? soft_mean * random::exponential(rng)
              : -soft_mean * std::log1p(-uniform32(rng) * -std::expm1(-2.0 / soft_mean));
    if (omc > 2.0) omc = 2.0;
  }
  const double sint = std::sqrt(omc * (2.0 - omc));
  const double u_ph = uniform32(rng);
  const double ph = constants::two_pi * u_ph;
  double cph, sph;
  sincos_turn(u_ph, sph, cph);
  const double vx = sint * cph;
  const double vy = sint * sph;
  // Lateral displacement correlated with the soft deflection: half the
  // deflection plus an independent part of rms theta_plane / sqrt(12).
  Vec3 soft_shift{};
  if (lateral) {
    const double rms = std::sqrt(soft_mean) * 0.28867513459481287;
    const double gx = random::normal(rng);
    const double gy = random::normal(rng);
    soft_shift = Vec3{t * (0.5 * vx + rms * gx), t * (0.5 * vy + rms * gy), 0.0};
    // A shift longer than the step is unphysical: dropped, as in Geant4.
    if (soft_shift.x * soft_shift.x + soft_shift.y * soft_shift.y > t * t) soft_shift = Vec3{};
  }

  if (!kinked) {
    out.cos_theta = 1.0 - omc;
    out.phi = ph;
    out.cos_phi = cph;
    out.sin_phi = sph;
    out.lateral_x_m = soft_shift.x;
    out.lateral_y_m = soft_shift.y;
    return out;
  }
  if (lateral) pos += rotate_from_z(soft_shift, dir);
  const Vec3 fin = rotate_from_z(Vec3{vx, vy, 1.0 - omc}, dir);
  out.cos_theta = fin.z;
  out.phi = std::atan2(fin.y, fin.x);
  out.cos_phi = std::cos(out.phi);
  out.sin_phi = std::sin(out.phi);
  out.lateral_x_m = lateral ? pos.x : 0.0;
  out.lateral_y_m = lateral ? pos.y : 0.0;
  return out;
}

}  // namespace fastmu
