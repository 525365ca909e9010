// Physical constants (CODATA 2018 / PDG 2024). Units: GeV, metres, tesla unless noted.
#pragma once

namespace fastmu::constants {

inline constexpr double pi = 3.14159265358979323846;
inline constexpr double two_pi = 2.0 * pi;

inline constexpr double muon_mass = 0.1056583755;       // GeV/c^2
inline constexpr double electron_mass = 0.51099895e-3;  // GeV/c^2
inline constexpr double proton_mass = 0.93827208816;    // GeV/c^2
inline constexpr double fine_structure = 1.0 / 137.035999084;
inline constexpr double classical_electron_radius_cm = 2.8179403262e-13;  // cm
inline constexpr double avogadro = 6.02214076e23;                         // 1/mol
// K = 4 pi N_A r_e^2 m_e c^2, the Bethe-Bloch prefactor (PDG 34.2).
inline constexpr double bethe_k_mev_cm2_per_mol = 0.307075;  // MeV cm^2/mol
// A unit-charge particle with momentum p [GeV/c] in field B [T] curves with
// radius R [m] = p / (c_light_gev_per_t_m * B).
inline constexpr double c_light_gev_per_t_m = 0.299792458;  // GeV/(T m)
inline constexpr double muon_lifetime_s = 2.1969811e-6;
inline constexpr double c_light_m_per_s = 299792458.0;

}  // namespace fastmu::constants
