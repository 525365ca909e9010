// Building a material's ladder of tables (its step d, the shorter steps for
// partial steps, the long steps of fast muons) from one set of detailed
// histories: each history runs through nested spheres of every step of the
// ladder (physics/LadderHistory.hh), on the GPU or the CPU threads.
//
// Samples per momentum bin follow a stated precision instead of a fixed
// count: histories are added in rounds until, for every table, the standard
// error of the bin's mean fractional loss <-dPz/P> is at most
// loss_precision x the mean (TableBuildOptions), between min_samples and
// samples_per_bin. Why the mean: the fast transport's momentum is biased by
// the tables' error on it, the same in every step that draws from the bin
// (a relative error e on the mean loss shifts the final momentum by at most
// e x the total loss). The spread (1 % of the mean at 2 cm of iron needs
// ~1e4 samples at 1 GeV/c, ~2e5 at 100 GeV/c, where rare radiative losses
// carry the mean) sets the count, so the bins that need samples get them.
// Steps shorter than the ladder's reference step (its longest step over
// the whole momentum range) serve only the partial steps at boundaries: a
// muon draws from them over a fraction ~ step / d of its path, so their goal
// is loss_precision x sqrt(d / step), which keeps their share of the
// momentum error per unit length at most the reference step's.
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

// The tables' generator attribute: engine, physics options, backend, the
// ladder's steps and the sampling goal.
std::string ladder_generator(const std::vector<LadderRung>& rungs, const TableBuildOptions& options,
                             const PhysicsOptions& physics);

}  // namespace fastmu
