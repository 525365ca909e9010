// Building a material's ladder of tables (its step d, the shorter steps for
// partial steps, the long steps of fast muons) from one set of detailed
// histories: each history runs through nested spheres of every step of the
// ladder (physics/LadderHistory.hh), on the GPU or the CPU threads.
//
// Samples per momentum bin follow a stated precision instead of a fixed
// count: histories are added in rounds until, for every table, the standard
// error of the bin's mean fractional loss <-dPz/P> is at most its goal
// (below) x the mean (TableBuildOptions), between min_samples and
// samples_per_bin. Why the mean: the fast transport's momentum is biased by
// the tables' error on it, the same in every step that draws from the bin
// (a relative error e on the mean loss shifts the final momentum by at most
// e x the total loss). The spread (1 % of the mean at 2 cm of iron needs
// ~1e4 samples at 1 GeV/c, ~2e5 at 100 GeV/c, where rare radiative losses
// carry the mean) sets the count, so the bins that need samples get them.
//
// The goal follows what a table serves at each momentum. Muons of a bin
// take whole steps of two lengths only: the bin's longest rung (away from
// magnetic fields: 2^k d from 2^k x 2.5 GeV/c) and its longest rung up to
// kLadderFieldStepFactor x d (in a field). Those get loss_precision. A
// shorter rung serves only steps that a boundary or a plane cuts short, a
// fraction ~ step / w of a muon's path in steps of w (the next of those two
// up): its goal is loss_precision x sqrt(w / step), which keeps its share of
// the momentum error per unit length at most the working step's. Below 5
// GeV/c, where d is the longest step, that is sqrt(d / step) for the steps
// shorter than d; from 5 GeV/c d itself and the shorter steps are partial
// steps of 2 d, 4 d, then 8 d, and from 320 GeV/c 16 d ... 64 d partial
// steps of 128 d.
// Radiative and delta-ray losses make the variance of a step's loss grow
// as its length, so every rung then needs about the histories of its
// working step, not those of a 1 % goal at its own length.
//
// The long steps beyond 8 d (those of muons from 40 GeV/c: 32 cm of iron, 95
// cm of standard rock, up to 128 d) are sampled by a second set of
// histories whose production range cut is the engine's times step / d (11 mm
// at 16 d): delta rays and radiative losses below that threshold (~10 MeV)
// are continuous with fluctuations, which over such a step (>= 250 g/cm^2,
// a continuous loss of >= 0.5 GeV) leaves the loss distribution as it is,
// while a history through metres of rock costs tens of interactions instead
// of thousands.
#pragma once

#include <string>
#include <vector>

#include "fastmu/physics/DetailedEngine.hh"
#include "fastmu/tables/TableBuilder.hh"

namespace fastmu {

struct Material;

// One table of a ladder: its step, and the lowest momentum it serves (0:
// all). Its momentum bins are those of the whole range from the first edge
// at or above p_from (so that every table of the ladder shares the grid's
// bins, and log and uniform tables keep their arithmetic bin look-up).
struct LadderRung {
  double step_m = 0;
  double p_from = 0;
};

// The longest step a muon takes in a magnetic field, in steps d: 2 to the
// transport's kFieldLongSteps (transport/step/MaterialTable.hh).
inline constexpr double kLadderFieldStepFactor = 8.0;

// Each rung's goal (caller's order) on the relative standard error of the
// mean loss, per momentum bin of `edges` (0 for a bin the rung lacks), for
// loss_precision `precision` (the rule above). Throws fastmu::Error for a
// bad ladder.
std::vector<std::vector<double>> ladder_precision_goals(const std::vector<LadderRung>& rungs,
                                                        const std::vector<double>& edges,
                                                        double precision);

// The tables of `rungs` (distinct steps, any order), returned in that order.
// Momentum edges from `options` (adaptive binning: one rung only); the
// engine on options.backend. Spread over processes by momentum bin as
// build_table is (BinShare): every process gets the same tables.
std::vector<TableParams> build_ladder_tables(const Material& material,
                                             const std::vector<LadderRung>& rungs,
                                             const TableBuildOptions& options, bool progress,
                                             const BinShare& share = {},
                                             BinShareReport* report = nullptr,
                                             PhysicsOptions physics = {});

// The least production range cut of the histories tables are built from, as
// a mass thickness [g/cm^2]: 0.6 mg/cm^2, 5 mm of air. In a gas the
// engine's 0.7 mm is far below the range of Geant4's 990 eV floor, and air's
// histories through 1-8 m stopped about 78 times each, three quarters of
// them on delta rays of a few keV; with this floor (4.9 keV in air) losses
// below it are continuous with Urban fluctuations, as in denser materials,
// where it lies below 0.7 mm and changes nothing. Measured on the CPU, 2e5
// histories of 10 GeV/c through 1 and 8 m of air, against the engine's cut:
// 4-8x fewer CPU-seconds; loss quantiles (10-99 %) within 0.3 % and the mean
// within its error; the kick's median within 0.7 %, its 90 % quantile 1.7 %
// (1 m) and 1.2 % (8 m) lower: the delta rays below 4.9 keV no longer
// deflect the muon one by one (a 15 keV floor was another 2x cheaper but
// took 3 % off that quantile).
inline constexpr double kTableRangeCutMassThickness = 0.6e-3;

// Histories of fast muons take a production range cut that grows with
// their momentum, from kCutScaleMomentum (above the Geant4 samples and the
// SHiP-like shield, which keep the engine's cut): times 2^k for bins from
// 2^k x kCutScaleMomentum, up to 256 at 76.8 TeV/c. The threshold then stays
// near a fixed fraction of the muon's energy (in water 1.3 MeV at 3 TeV, in
// standard rock 11 MeV at 10 TeV: ~1e-6), a relative cut as PROPOSAL's v_cut
// (there 1e-3 to 0.05). Losses below it are continuous with fluctuations
// (the mean loss is the same by construction), a vanishing part of the
// radiative losses that carry the loss distribution there, while delta rays
// above 0.3-0.5 MeV were most of a history's steps. Measured on the CPU, 1e5
// histories through d and 8 d, against the engine's cut: water at 3 TeV/c
// (x8) 3.9x cheaper, standard rock at 10 TeV/c (x32) 5.9x; loss quantiles
// (10-90 %) within 1.4 %, the kick's within 1.1 % (99 %: 2 %), the means
// within their (heavy-tailed) errors. Powers of two, so that a bin's cut
// depends on its momentum alone (not on how bins are shared out).
inline constexpr double kCutScaleMomentum = 300.0;  // GeV/c

// The range-cut scale of the histories of a bin with lower edge p_lo [GeV/c].
double momentum_cut_scale(double p_lo);

// The production range cut [m] of `material`'s table histories up to the
// long steps: the engine's, or kTableRangeCutMassThickness where it is longer.
double table_range_cut(const Material& material, const PhysicsOptions& physics);

// The tables' generator attribute: engine, physics options, backend, the
// ladder's steps, the histories' range cuts and the sampling goal.
std::string ladder_generator(const Material& material, const std::vector<LadderRung>& rungs,
                             const TableBuildOptions& options, const PhysicsOptions& physics);

}  // namespace fastmu
