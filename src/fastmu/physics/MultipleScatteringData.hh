// Per-material constants of the muon Coulomb scattering model (POD, host and
// device). Built once by MultipleScattering; read by the sampler.
//
// Units: GeV, metres. Angles enter through u = p^2 (1 - cos theta) [GeV^2],
// in which the screened Rutherford cross section of a relativistic muon does
// not depend on p except through beta: dsigma/du = K Z^2 / (u + a)^2 with
// K = 2 pi (m_e r_e)^2 z^2 / beta^2 and the screening "angle" a.
#pragma once

namespace fastmu {

struct MultipleScatteringData {
  static constexpr int max_elements = 24;

  int num_elements = 0;

  // Per element. n = atoms per m^3.
  int z[max_elements] = {};
  double n_z2[max_elements] = {};          // n Z^2: weight of scattering off the nucleus
  double n_z[max_elements] = {};           // n Z: weight of scattering off the Z atomic electrons
  double screen_base[max_elements] = {};   // a at beta = 1 [GeV^2]
  double screen_slope[max_elements] = {};  // da / d(1/beta^2 - 1) [GeV^2]
  double screen_cap[max_elements] = {};    // upper bound of a (Geant4's min(1.13 Z, ...)) [GeV^2]
  double form_factor[max_elements] = {};   // nuclear size: rate x (1 + f u)^-2, f [1/GeV^2]
  double cum_n_z2[max_elements] = {};      // running sums for element selection
  double cum_n_z[max_elements] = {};

  // Material sums (beta = 1 values and slopes in y = 1/beta^2 - 1).
  double sum_n_z2 = 0, sum_n_z = 0;
  double log_screen_n_z2 = 0, log_screen_n_z = 0;      // sum w ln a(beta = 1)
  double dlog_screen_n_z2 = 0, dlog_screen_n_z = 0;    // sum w (slope/base)
  double d2log_screen_n_z2 = 0, d2log_screen_n_z = 0;  // sum w (slope/base)^2
  double max_slope_ratio = 0;                          // max slope/base over elements
  double max_screen = 0;                               // largest a(beta = 1)

  // u of the nuclear-size angular limit of multiple scattering (Geant4
  // WentzelVI "cosTetMaxNuc": 1 - cos = (hbar c / fm)^2 <A^-2/3> / (2 p^2)).
  double u_nuclear_limit = 0;
  double log_u_nuclear_limit = 0;
  // Delta-ray production threshold [GeV]: collisions with electrons that
  // transfer more are discrete ionisation events, not part of this model.
  double electron_cut = 0;
  double log_u_electron_cut = 0;  // ln(electron_cut * m_e)
  // Above this p^2 [GeV^2] the muon's largest transfer to an electron exceeds
  // electron_cut for sure (1e-6 above the crossing): the sampler then skips
  // computing it.
  double p2_above_electron_cut = 1e300;
  // Step limit in an infinite medium, Geant4's 50 X0 / facgeom = 20 X0 [m].
  double max_step_infinite = 0;
};

}  // namespace fastmu
