// How long a step may be in each material (the table step d of that
// material), and the ladder of shorter table steps for the steps that a
// boundary or a sensitive plane cuts short.
//
// Criterion: equal mass thickness. A step traverses the mass thickness of the
// reference step in iron (--step, 2 cm = 15.75 g/cm^2, the paper's validated
// step), so the mean fractional loss and the scattering angle per step stay
// about those of 2 cm of iron in every material (both grow with g/cm^2; the
// radiation length per g/cm^2 differs by < 2.5x between Fe and W). Clamped to
// [kMinMaterialStep, kMaxMaterialStep]: light materials (air) take 1 m steps,
// over which a 1 GeV/c muon loses ~0.3 MeV and scatters by ~0.6 mrad, so the
// kick applied at the step's end (no lateral displacement within the step)
// misplaces it by < 0.4 mm. Overridden per material by the geometry JSON
// ("steps": {"G4_W": 0.005}) and `fastmu run --material-step G4_W=0.005`.
//
// Ladder: d, d/2, d/4, ... while an entry keeps >= kMinLadderStep and
// >= kMinLadderMassThickness (light gases need none: their loss is below any
// statistics). A step of length h < d samples the entry d_k nearest h in
// ln (h within a factor sqrt(2) of d_k) and scales its loss by r = h/d_k and
// its kick by sqrt(r): mean loss and scattering variance are linear in path
// length. The shape is not: the most probable ionisation loss goes as
// x (a + ln x) (Landau), so scaling a longer step down puts the median too
// high, by ~|ln r| / (a + ln x), ~7 % per factor 2 in 1 mm of iron; a factor
// sqrt(2) keeps it within ~3 % (measured: tools/sheet_matrix.py, README
// "Stepping").
//
// Long steps for fast muons: a muon of momentum p >= 2^k p_long takes steps
// of 2^k d (k = 1 .. long_steps), from
// tables built at that length for momenta from 2^k p_long, rounded up to
// the first edge of the tables' momentum grid (within one bin, < 9 %
// above, for the default grid; the table's lowest momentum is the
// threshold the transport applies). Criterion: beyond
// what its table holds, a histogram step errs by applying the field's bending
// with the momentum at its start and by the fractional loss it applies at
// once, both ~ h / p; so h / p stays at most d / p_long, the reference
// step's at p_long = 2.5 GeV/c (2 cm of iron there: ~1 % loss, 4 mrad of turn
// in 1.7 T; the reference step is used, and validated, down to p_kill, where
// both are ten times larger). The scattering angle per step (~ sqrt(h) / p)
// shrinks. The kick is applied at the step's middle (StepPhysics.hh), so the
// lateral spread of fewer, longer steps stays right. Measured against the
// detailed engine (10^6 SHiP-like muons, docs/stepping-and-tables.md): fewer table
// draws also accumulate less of the tables' binning error. In a magnetic
// field a muon takes at most kFieldLongSteps doublings (MaterialTable.hh).
// A 50 GeV/c muon
// in iron takes 32 cm steps, one of 400 GeV/c 2.56 m (128 d: 2016 g/cm^2,
// 7.6 m of standard rock, where a 1 TeV/c muon loses ~1.3 % on average), so
// 3 km.w.e. of rock cost ~150 steps at the top and ~500 for a muon that
// stops there.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fastmu {

struct Material;

inline constexpr double kIronDensity = 7.874;           // g/cm^3 (G4_Fe)
inline constexpr double kMinMaterialStep = 1e-3;        // m
inline constexpr double kMaxMaterialStep = 1.0;         // m
inline constexpr double kMinLadderStep = 7e-4;          // m: 1 mm sheets within sqrt(2)
inline constexpr double kMinLadderMassThickness = 0.1;  // g/cm^2
inline constexpr int kMaxLadder = 8;                    // entries incl. d
inline constexpr double kLongStepMomentum = 2.5;        // GeV/c: p_long

// One long step of the ladder: its length and the momentum from which a
// muon takes it (the lowest momentum of its table).
struct LongStep {
  double step;    // m
  double p_from;  // GeV/c
};

// Per-material overrides [m], by material name.
using MaterialSteps = std::map<std::string, double>;

// The table step of `material` for the reference iron step `reference_step`
// [m], or its override. Throws fastmu::Error for a non-positive override.
double material_step(const Material& material, double reference_step,
                     const MaterialSteps& overrides = {});

// The ladder's shorter entries below d (descending), for a material of
// density `density_g_cm3`.
std::vector<double> ladder_steps(double d, double density_g_cm3);

// The long steps above d (ascending): 2^k d from 2^k kLongStepMomentum,
// k = 1 .. long_steps, while 2^k p_long is below p_max (the tables' highest
// momentum). Throws fastmu::Error for a negative `long_steps`.
std::vector<LongStep> long_steps(double d, int long_steps, double p_max);

// Parses "NAME=LENGTH" (--material-step); throws fastmu::Error naming `what`.
std::pair<std::string, double> parse_material_step(const std::string& text,
                                                   const std::string& what);

}  // namespace fastmu
