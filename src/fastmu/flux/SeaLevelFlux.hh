// The sea-level muon flux of Guan et al. (2015), arXiv:1509.06176: Gaisser's
// formula (PDG review "Cosmic rays", muons at the surface) with two
// corrections that extend it below ~100 GeV and to large zenith angles:
//   - the zenith angle theta is replaced by the angle theta* at the muon's
//     production height on a curved Earth, cos(theta*) from the fit of
//     D. Chirkin, hep-ph/0407078 (its eq. for cos(theta) -> cos(theta*));
//   - E is replaced by E (1 + 3.64 GeV / (E cos(theta*)^1.29)) in the power
//     law, which suppresses the flux at low energies (muon decay and energy
//     loss in the atmosphere).
//
//   I(E, theta) = 0.14 [E (1 + 3.64 / (E c*^1.29))]^-2.7
//                 [1 / (1 + 1.1 E c* / 115) + 0.054 / (1 + 1.1 E c* / 850)]
//
// in cm^-2 s^-1 sr^-1 GeV^-1 with E in GeV (here returned per m^2, fastmu's
// unit). E is the muon's total energy. Gaisser's own form holds where muon
// decay and the Earth's curvature are negligible (E > 100 GeV / cos(theta),
// theta < 70 degrees, PDG); there the correction factors tend to 1. The
// formula has no prompt (charm) component and no geomagnetic or solar
// modulation, so it is least reliable below ~1 GeV and at the highest
// energies. docs/cosmic-muons.md states the validity and the checks.
#pragma once

namespace fastmu::flux {

// mu+ / mu- flux ratio at sea level: the world average 1.268 of Hebbeker and
// Timmermans, Astropart. Phys. 18 (2002) 107 (constant above 10 GeV/c), in
// the range 1.25..1.30 quoted by the PDG review. Taken constant at all
// energies and angles.
inline constexpr double kChargeRatio = 1.268;

// cos(theta*) for cos(theta) in [0, 1] (Chirkin's five-parameter fit).
double cos_theta_star(double cos_theta);

// Differential intensity dN / (dE dOmega dA dt) in m^-2 s^-1 sr^-1 GeV^-1 of
// muons of both charges, per unit area perpendicular to their direction;
// 0 for cos_theta <= 0 or energy <= the muon mass.
double sea_level_intensity(double energy_gev, double cos_theta);
// The same for a given cos(theta*) (> 0): integrals over energy at one
// zenith angle compute cos_theta_star once.
double intensity_at_cos_star(double energy_gev, double cos_star);

}  // namespace fastmu::flux
