// Unit conversions for the physics models. Interfaces use GeV, metres and
// tesla; the published cross-section formulas are written in MeV and cm, so
// each model converts at its boundary with these named constants.
#pragma once

#include "fastmu/core/Constants.hh"

namespace fastmu::units {

inline constexpr double mev_per_gev = 1e3;
inline constexpr double gev_per_mev = 1e-3;
inline constexpr double cm_per_m = 1e2;
inline constexpr double m_per_cm = 1e-2;
inline constexpr double ev_per_mev = 1e6;
inline constexpr double mev_per_ev = 1e-6;
inline constexpr double cm2_per_barn = 1e-24;
inline constexpr double cm2_per_microbarn = 1e-30;

inline constexpr double electron_mass_mev = constants::electron_mass * mev_per_gev;
inline constexpr double muon_mass_mev = constants::muon_mass * mev_per_gev;
inline constexpr double proton_mass_mev = constants::proton_mass * mev_per_gev;

// 2 pi m_e c^2 r_e^2 [MeV cm^2]: the prefactor of the knock-on electron
// (Bhabha/Mott-like) cross section per electron.
inline constexpr double twopi_mc2_rcl2_mev_cm2 = constants::two_pi * electron_mass_mev *
                                                 constants::classical_electron_radius_cm *
                                                 constants::classical_electron_radius_cm;
// The same in GeV m^2 (for the fluctuation model, which works in GeV and metres).
inline constexpr double twopi_mc2_rcl2_gev_m2 =
    twopi_mc2_rcl2_mev_cm2 * gev_per_mev * m_per_cm * m_per_cm;

}  // namespace fastmu::units
