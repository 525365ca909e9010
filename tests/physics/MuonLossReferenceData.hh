// Published mean energy loss of muons per process, 10 GeV .. 100 TeV, for
// standard rock, liquid water and iron: the reference of HighEnergyLossTest.
//
// Source: the PUMAS muon stopping-power tables of niess/pumas-materials
// (https://github.com/niess/pumas-materials, commit
// 66a34de0577dc8ef359b9032b4241c50128e84d9), files dedx/muon/standard_rock.txt
// ("Table generated with PUMAS v1.00"), dedx/muon/water_liquid.txt (PUMAS v0.15)
// and dedx/muon/iron.txt (PUMAS v1.00). The files have the layout of the PDG
// "muE" tables (Groom, Mokhov & Striganov, Atom. Data Nucl. Data Tables 78
// (2001) 183) and the same material constants (standard rock: <Z/A> = 0.5,
// I = 136.4 eV, Sternheimer a 0.0830 k 3.4120 x0 0.0492 x1 3.0549 Cbar 3.7738;
// water: I = 79.7 eV; iron: I = 286.0 eV), but the numbers are PUMAS's, not the
// Groom et al. tables themselves, which were not available to this test suite.
//
// Columns copied verbatim from the rows T = 1.000E+04 .. 1.000E+08 MeV:
// "Ionization", "brems", "pair", "photonuc" and "dE/dx" (the total), all in
// MeV cm^2/g. T is the muon kinetic energy.
#pragma once

namespace fastmu::test {

struct MuonLossRow {
  double kinetic_mev;
  double ionisation, brems, pair, photonuclear, total;  // MeV cm^2/g
};

struct MuonLossTable {
  const char* material;  // fastmu built-in material name
  const char* file;      // dedx/muon/<file> in niess/pumas-materials
  MuonLossRow rows[5];
};

inline constexpr MuonLossTable kMuonLossTables[] = {
    {"StandardRock",
     "standard_rock.txt",
     {{1e4, 2.170, 6.944e-3, 7.047e-3, 3.253e-3, 2.187},
      {1e5, 2.444, 1.105e-1, 1.543e-1, 3.645e-2, 2.745},
      {1e6, 2.681, 1.448, 2.095, 3.804e-1, 6.604},
      {1e7, 2.933, 1.629e1, 2.288e1, 4.542, 4.664e1},
      {1e8, 3.212, 1.687e2, 2.331e2, 5.772e1, 4.627e2}}},
    {"G4_WATER",
     "water_liquid.txt",
     {{1e4, 2.482, 4.861e-3, 4.871e-3, 3.362e-3, 2.495},
      {1e5, 2.781, 7.852e-2, 1.094e-1, 3.845e-2, 3.007},
      {1e6, 3.045, 1.043, 1.510, 4.053e-1, 6.003},
      {1e7, 3.324, 1.186e1, 1.663e1, 4.854, 3.666e1},
      {1e8, 3.634, 1.234e2, 1.698e2, 6.171e1, 3.585e2}}},
    {"G4_Fe",
     "iron.txt",
     {{1e4, 1.942, 1.401e-2, 1.490e-2, 3.109e-3, 1.974},
      {1e5, 2.207, 2.218e-1, 3.158e-1, 3.384e-2, 2.778},
      {1e6, 2.428, 2.863, 4.174, 3.481e-1, 9.813},
      {1e7, 2.662, 3.180e1, 4.505e1, 4.141, 8.366e1},
      {1e8, 2.922, 3.274e2, 4.576e2, 5.259e1, 8.405e2}}},
};

// Groom, Mokhov & Striganov's own values for liquid water, as the PDG's
// 2010 Atomic and Nuclear Properties pages published them
// (AtomicNuclearProperties/MUON_ELOSS_TABLES/muonloss_276.dat, "water
// (liquid)", I = 75.0 eV, post-Born pair production), in the copy of
// AstroparticulasBucaramanga/Muon-Propagation-on-rock (muon_water_dedx.dat,
// commit cf2726f981e740140673cb077a239d31dc637cfe). Same columns as above.
inline constexpr MuonLossTable kGroomWater = {"G4_WATER",
                                              "muonloss_276.dat",
                                              {{1e4, 2.492, 4.857e-3, 4.840e-3, 4.871e-3, 2.507},
                                               {1e5, 2.792, 7.839e-2, 1.073e-1, 4.243e-2, 3.020},
                                               {1e6, 3.055, 1.039, 1.496, 4.235e-1, 6.013},
                                               {1e7, 3.335, 1.177e1, 1.658e1, 4.773, 3.645e1},
                                               {1e8, 3.645, 1.223e2, 1.697e2, 5.759e1, 3.532e2}}};

}  // namespace fastmu::test
